//! Data-movement kernels against a memory copy of the same bytes.
//!
//! Every group holds a `memcpy` entry (`copy_from_slice` into a buffer
//! allocated beforehand, split in halves on two scoped threads for the
//! 2-thread groups) next to the kernels writing into outputs also allocated
//! beforehand, so the ratio of their medians is what a kernel costs over
//! moving its bytes. Each kernel keeps one scratch across its runs, as a
//! compiled model's step does, so the lengths it reads are not
//! reallocated on every run. The main groups use the `[8, 64, 128, 128]`
//! tensor (32 MiB in `f32`) in 1-, 2-, 4- and 8-byte element types.
//!
//! Run one part with e.g. `cargo bench -p ovir-exec -- reverse/f32`.

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use ovir_exec::kernels::{
    convert_into, reverse_into, reverse_sequence_into, reverse_subsequences_into, ExecOptions,
    ReverseScratch, ReverseSequenceScratch, ReverseSubsequencesScratch,
};
use ovir_tensor::{ElementType, Tensor};

const SHAPE: [usize; 4] = [8, 64, 128, 128];

/// One type per element width.
const TYPES: [(ElementType, &str); 4] = [
    (ElementType::U8, "u8"),
    (ElementType::F16, "f16"),
    (ElementType::F32, "f32"),
    (ElementType::I64, "i64"),
];

/// A small deterministic generator, so every run sees the same data.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

fn filled(ty: ElementType, shape: &[usize]) -> Tensor {
    let n = shape.iter().product::<usize>() * ty.byte_width().unwrap_or(1);
    let mut rng = Lcg(7);
    let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
    Tensor::from_bytes(ty, shape, &bytes).unwrap_or_else(|e| unreachable!("{e}"))
}

fn zeros(ty: ElementType, shape: &[usize]) -> Tensor {
    let mut t = Tensor::zeros(ty, shape).unwrap_or_else(|e| unreachable!("{e}"));
    // Touch every page once, so no measured run pays for first-write faults.
    if let Some(b) = t.bytes_mut() {
        b.fill(1);
    }
    t
}

fn options(threads: usize) -> ExecOptions {
    ExecOptions::with_threads(threads)
}

fn group<'a>(c: &'a mut Criterion, name: &str, bytes: usize) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(800))
        .throughput(Throughput::Bytes(bytes as u64));
    g
}

/// The baseline: a copy of `bytes` bytes on `threads` threads (1 or 2),
/// between buffers that start on a cache line, as tensors do.
fn memcpy(g: &mut BenchmarkGroup<'_, WallTime>, bytes: usize, threads: usize) {
    let src = Tensor::from_bytes(ElementType::U8, &[bytes], &vec![3u8; bytes]).expect("a u8 tensor");
    let mut dst = Tensor::zeros(ElementType::U8, &[bytes]).expect("a u8 tensor");
    let (Some(src), Some(dst)) = (src.bytes(), dst.bytes_mut()) else {
        return;
    };
    dst.fill(1);
    g.bench_function("memcpy", |b| {
        b.iter(|| {
            if threads <= 1 {
                dst.copy_from_slice(black_box(src));
            } else {
                let half = bytes / 2;
                let (s0, s1) = src.split_at(half);
                let (d0, d1) = dst.split_at_mut(half);
                std::thread::scope(|scope| {
                    scope.spawn(|| d1.copy_from_slice(black_box(s1)));
                    d0.copy_from_slice(black_box(s0));
                });
            }
        })
    });
}

fn lengths(count: usize, max: usize, kind: &str) -> Tensor {
    let mut rng = Lcg(11);
    let values: Vec<i32> = (0..count)
        .map(|_| match kind {
            "full" => max as i32,
            "ones" => 1,
            _ => (rng.next() as usize % max + 1) as i32,
        })
        .collect();
    Tensor::from_vec(&[count], values).unwrap_or_else(|e| unreachable!("{e}"))
}

fn reverse(c: &mut Criterion) {
    let configs: [(&str, [bool; 4]); 7] = [
        ("outer", [true, false, false, false]),
        ("middle", [false, true, false, false]),
        // Forward rows read from descending addresses, the pattern that
        // defeats the hardware prefetcher.
        ("axis2", [false, false, true, false]),
        ("mask_1010", [true, false, true, false]),
        ("inner", [false, false, false, true]),
        ("all", [true, true, true, true]),
        ("mask_1001", [true, false, false, true]),
    ];
    for (ty, ty_name) in TYPES {
        let data = filled(ty, &SHAPE);
        let mut out = zeros(ty, &SHAPE);
        let bytes = data.bytes().map_or(0, <[u8]>::len);
        for threads in [1, 2] {
            let mut g = group(c, &format!("reverse/{ty_name}/{threads}t"), bytes);
            memcpy(&mut g, bytes, threads);
            for (name, flags) in configs {
                let mut scratch = ReverseScratch::new();
                g.bench_function(name, |b| {
                    b.iter(|| {
                        reverse_into(black_box(&data), &flags, &mut out, &options(threads), &mut scratch)
                    })
                });
            }
            g.finish();
        }
    }
}

fn reverse_sequence(c: &mut Criterion) {
    // (name, batch axis, seq axis)
    let configs: [(&str, usize, usize); 3] = [("b0_s1", 0, 1), ("b0_s3", 0, 3), ("b1_s0", 1, 0)];
    for (ty, ty_name) in TYPES {
        let data = filled(ty, &SHAPE);
        let mut out = zeros(ty, &SHAPE);
        let bytes = data.bytes().map_or(0, <[u8]>::len);
        for threads in [1, 2] {
            let mut g = group(c, &format!("reverse_sequence/{ty_name}/{threads}t"), bytes);
            memcpy(&mut g, bytes, threads);
            for (name, batch, seq) in configs {
                for kind in ["full", "random", "ones"] {
                    let lens = lengths(SHAPE[batch], SHAPE[seq], kind);
                    let mut scratch = ReverseSequenceScratch::new();
                    g.bench_function(format!("{name}/{kind}"), |b| {
                        b.iter(|| {
                            reverse_sequence_into(
                                black_box(&data),
                                &lens,
                                batch as i64,
                                seq as i64,
                                &mut out,
                                &options(threads),
                                &mut scratch,
                            )
                        })
                    });
                }
            }
            g.finish();
        }
    }
}

/// Short rows: the reversed stretches are rows of 32 bytes (32 to 4
/// elements, by width) of a 32 MiB tensor, so the cost per run shows:
/// rows reversed whole, a head of each row reversed (the sequence axis
/// innermost), whole rows moved along the sequence axis, and blocks of 16
/// bytes moved along a short sequence axis.
fn short_runs(c: &mut Criterion) {
    for (ty, ty_name) in TYPES {
        let row = 32 / ty.byte_width().unwrap_or(1);
        let shape = [1 << 20, row];
        let data = filled(ty, &shape);
        let mut out = zeros(ty, &shape);
        let bytes = data.bytes().map_or(0, <[u8]>::len);
        for threads in [1, 2] {
            let mut g = group(c, &format!("short/{ty_name}/{threads}t"), bytes);
            memcpy(&mut g, bytes, threads);
            let mut scratch = ReverseScratch::new();
            g.bench_function("reverse_inner", |b| {
                b.iter(|| {
                    reverse_into(black_box(&data), &[false, true], &mut out, &options(threads), &mut scratch)
                })
            });
            for kind in ["full", "random"] {
                let lens = lengths(shape[0], shape[1], kind);
                let mut scratch = ReverseSequenceScratch::new();
                g.bench_function(format!("sequence_b0_s1/{kind}"), |b| {
                    b.iter(|| {
                        reverse_sequence_into(
                            black_box(&data),
                            &lens,
                            0,
                            1,
                            &mut out,
                            &options(threads),
                            &mut scratch,
                        )
                    })
                });
            }
            // Whole rows of 32 bytes moved along the sequence axis:
            // `[128, 8192, row]`, batch 0, sequence 1.
            sequence_random(&mut g, "sequence_rows_b0_s1/random", ty, &[128, 8192, row], (0, 1), threads);
            // Blocks of 16 bytes moved along a sequence of 8:
            // `[262144, 8, 16 / width]`, batch 0, sequence 1.
            let blocks_shape = [1 << 18, 8, 16 / ty.byte_width().unwrap_or(1)];
            sequence_random(&mut g, "sequence_blocks_b0_s1/random", ty, &blocks_shape, (0, 1), threads);
            // Sequences of 96 bytes of blocks of whole 4-byte words, a row
            // at a time: 12-byte blocks on 8 positions (24-byte ones on 4
            // for 8-byte elements), as many rows as 32 MiB holds.
            let width = ty.byte_width().unwrap_or(1);
            let block = if 12 % width == 0 { 12 } else { 24 };
            let words_shape = [(32 << 20) / 96, 96 / block, block / width];
            sequence_random(&mut g, "sequence_word_blocks_b0_s1/random", ty, &words_shape, (0, 1), threads);
            // Longer sequences of the same blocks, a register at a time
            // from windows: 384 bytes, 32 positions of 12-byte blocks (16
            // of 24-byte ones for 8-byte elements).
            let windows_shape = [(32 << 20) / 384, 384 / block, block / width];
            sequence_random(
                &mut g,
                "sequence_word_windows_b0_s1/random",
                ty,
                &windows_shape,
                (0, 1),
                threads,
            );
            g.finish();
        }
    }
}

/// Benches ReverseSequence with the `(batch, sequence)` axes given, on
/// `ty` data of `shape` with a random length per batch index, on
/// `threads` threads, as `name`.
fn sequence_random(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    ty: ElementType,
    shape: &[usize],
    (batch, seq): (usize, usize),
    threads: usize,
) {
    let data = filled(ty, shape);
    let mut out = zeros(ty, shape);
    let lens = lengths(shape[batch], shape[seq], "random");
    let mut scratch = ReverseSequenceScratch::new();
    let (batch, seq) = (batch as i64, seq as i64);
    g.bench_function(name, |b| {
        b.iter(|| {
            reverse_sequence_into(
                black_box(&data),
                &lens,
                batch,
                seq,
                &mut out,
                &options(threads),
                &mut scratch,
            )
        })
    });
}

/// Time-major ReverseSequence (`[T, B, k]` `u8`, batch 1, sequence 0, a
/// random length per batch index, 8 MiB less what `B` rounds off) either
/// side of each limit between ReverseSubsequences' lines and the
/// block-at-a-time walk. Blocks of up to 64 bytes on 8 positions and 16 on
/// up to 64 go to the lines; on more positions, 16 where the lines are
/// staged (with AVX2), blocks of 12 and 16 bytes moving as 4- or 8-byte
/// elements (here, 16 bytes from 65 positions, 12 from 1024, with 1024
/// lines or more), else 8. Each pair differs in the block or in
/// the positions by one step past its limit, so the time per byte on
/// either side shows whether the limit still sits where the two cost
/// about the same.
fn time_major_limits(c: &mut Criterion) {
    let mut g = group(c, "time_major_limits/u8", 8 << 20);
    memcpy(&mut g, 8 << 20, 1);
    for (positions, block) in [
        (8, 64),
        (8, 96),
        (9, 64),
        (64, 16),
        (64, 24),
        (65, 16),
        (65, 24),
        (1024, 12),
        (1024, 24),
        (4096, 12),
        (4096, 24),
    ] {
        let shape = [positions, (8 << 20) / (positions * block), block];
        sequence_random(&mut g, &format!("t{positions}_k{block}"), ElementType::U8, &shape, (1, 0), 1);
    }
    g.finish();
}

/// Rows of 2 to 24 bytes (3, 6, 12 and 24 are RGB pixels of 1 to 8-byte
/// elements, 4, 8 and 16 RGBA ones), a head of random length reversed in
/// each (ReverseSequence, batch 0, sequence 1), reversed whole (Reverse),
/// and as pixels in descending order along lines of 1920 (an image
/// flipped left to right), over 8 MiB of `u8`, beside a memcpy: the cost
/// per row shows. Pixels of 2, 4, 8 and 16 bytes move as one element.
fn short_heads(c: &mut Criterion) {
    let mut g = group(c, "short_heads/u8", 8 << 20);
    memcpy(&mut g, 8 << 20, 1);
    for row in [2, 3, 4, 6, 8, 12, 16, 24] {
        let shape = [(8 << 20) / row, row];
        let data = filled(ElementType::U8, &shape);
        let mut out = zeros(ElementType::U8, &shape);
        let lens = lengths(shape[0], shape[1], "random");
        let mut scratch = ReverseSequenceScratch::new();
        g.bench_function(format!("rows{row}"), |b| {
            b.iter(|| {
                reverse_sequence_into(black_box(&data), &lens, 0, 1, &mut out, &options(1), &mut scratch)
            })
        });
        // The same rows reversed whole, with no lengths to read.
        let mut scratch = ReverseScratch::new();
        g.bench_function(format!("reverse{row}"), |b| {
            b.iter(|| reverse_into(black_box(&data), &[false, true], &mut out, &options(1), &mut scratch))
        });
        // The rows moved, each whole and in order, in descending order
        // within lines of 1920: an image flipped left to right, pixels of
        // `row` bytes.
        let shape = [(8 << 20) / (1920 * row), 1920, row];
        let data = filled(ElementType::U8, &shape);
        let mut out = zeros(ElementType::U8, &shape);
        let mut scratch = ReverseScratch::new();
        g.bench_function(format!("flip{row}"), |b| {
            b.iter(|| {
                reverse_into(black_box(&data), &[false, true, false], &mut out, &options(1), &mut scratch)
            })
        });
    }
    g.finish();
}

fn convert(c: &mut Criterion) {
    // The pairs `tools/compare_openvino.py` measures.
    let pairs = [
        (ElementType::F32, ElementType::F16, "f32_f16"),
        (ElementType::F16, ElementType::F32, "f16_f32"),
        (ElementType::F32, ElementType::Bf16, "f32_bf16"),
        (ElementType::F32, ElementType::U8, "f32_u8"),
        (ElementType::F32, ElementType::I8, "f32_i8"),
        (ElementType::F32, ElementType::I32, "f32_i32"),
        (ElementType::I32, ElementType::F32, "i32_f32"),
        (ElementType::U8, ElementType::F32, "u8_f32"),
    ];
    for threads in [1, 2] {
        // The baseline copies the larger side of an f32 conversion.
        let bytes = SHAPE.iter().product::<usize>() * 4;
        let mut g = group(c, &format!("convert/{threads}t"), bytes);
        memcpy(&mut g, bytes, threads);
        for (from, to, name) in pairs {
            let data = filled(from, &SHAPE);
            let mut out = zeros(to, &SHAPE);
            g.bench_function(name, |b| {
                b.iter(|| convert_into(black_box(&data), to, &mut out, &options(threads)))
            });
        }
        g.finish();
    }
}

/// Where a second thread starts to pay: the same reversal on outputs of
/// 256 KiB to 4 MiB, on one thread and split in two whatever the size.
fn crossover(c: &mut Criterion) {
    for kib in [256usize, 1024, 4096] {
        let shape = [kib * 1024 / 4 / 128, 128];
        let data = filled(ElementType::F32, &shape);
        let mut out = zeros(ElementType::F32, &shape);
        let mut g = group(c, &format!("crossover/{kib}KiB"), kib * 1024);
        g.measurement_time(Duration::from_millis(400));
        for (name, opts) in [
            ("1t", ExecOptions::single_thread()),
            ("2t_forced", ExecOptions { threads: 2, min_bytes_per_thread: 1 }),
        ] {
            let mut scratch = ReverseScratch::new();
            g.bench_function(name, |b| {
                b.iter(|| reverse_into(black_box(&data), &[false, true], &mut out, &opts, &mut scratch))
            });
        }
        g.finish();
    }
}
/// ReverseSubsequences against ReverseSequence on the same work: the
/// ReverseSequence lengths spread over the lines of the data (`as_sequence`
/// entries), and lengths of their own per line (`per_line`), on the main
/// tensor and on the short rows.
fn subsequences(c: &mut Criterion) {
    let cases: [(&str, &[usize], usize, usize); 4] = [
        ("b0_s1", &SHAPE, 0, 1),
        ("b0_s3", &SHAPE, 0, 3),
        ("b1_s0", &SHAPE, 1, 0),
        ("short_b0_s1", &[1 << 20, 8], 0, 1),
    ];
    for (ty, ty_name) in [(ElementType::U8, "u8"), (ElementType::F32, "f32")] {
        for (name, shape, batch, seq) in cases {
            let data = filled(ty, shape);
            let mut out = zeros(ty, shape);
            let bytes = data.bytes().map_or(0, <[u8]>::len);
            let mut g = group(c, &format!("subsequences/{ty_name}/{name}"), bytes);
            memcpy(&mut g, bytes, 1);
            let mut line_shape = shape.to_vec();
            line_shape[seq] = 1;
            let lines: usize = line_shape.iter().product();
            for kind in ["full", "random"] {
                let lens = lengths(shape[batch], shape[seq], kind);
                let per_batch = lens.to_vec::<i32>().unwrap_or_default();
                // The batch index of each line, from its flat index.
                let inner: usize = line_shape[batch + 1..].iter().product();
                let spread: Vec<i32> = (0..lines)
                    .map(|l| per_batch.get(l / inner % shape[batch]).copied().unwrap_or(0))
                    .collect();
                let spread = Tensor::from_vec(&line_shape, spread).unwrap_or_else(|e| unreachable!("{e}"));
                let mut scratch = ReverseSequenceScratch::new();
                g.bench_function(format!("sequence/{kind}"), |b| {
                    b.iter(|| {
                        reverse_sequence_into(
                            black_box(&data),
                            &lens,
                            batch as i64,
                            seq as i64,
                            &mut out,
                            &options(1),
                            &mut scratch,
                        )
                    })
                });
                let mut scratch = ReverseSubsequencesScratch::new();
                g.bench_function(format!("as_sequence/{kind}"), |b| {
                    b.iter(|| {
                        reverse_subsequences_into(
                            black_box(&data),
                            &spread,
                            seq as i64,
                            &mut out,
                            &options(1),
                            &mut scratch,
                        )
                    })
                });
            }
            let per_line = lengths(lines, shape[seq], "random");
            let per_line = per_line.reshaped(&line_shape).unwrap_or(per_line);
            let mut scratch = ReverseSubsequencesScratch::new();
            g.bench_function("per_line/random", |b| {
                b.iter(|| {
                    reverse_subsequences_into(
                        black_box(&data),
                        &per_line,
                        seq as i64,
                        &mut out,
                        &options(1),
                        &mut scratch,
                    )
                })
            });
            g.finish();
        }
    }
}

/// ReverseSubsequences with a length of its own for every line, drawn at
/// random in `[1, size]`, along every axis of the main tensor and in every
/// element width: the op as a gather, beside a copy of the same bytes.
fn subsequences_per_line(c: &mut Criterion) {
    for (ty, ty_name) in TYPES {
        let data = filled(ty, &SHAPE);
        let mut out = zeros(ty, &SHAPE);
        let bytes = data.bytes().map_or(0, <[u8]>::len);
        let mut g = group(c, &format!("subsequences_per_line/{ty_name}"), bytes);
        memcpy(&mut g, bytes, 1);
        for axis in 0..SHAPE.len() {
            let mut line_shape = SHAPE.to_vec();
            line_shape[axis] = 1;
            let lines: usize = line_shape.iter().product();
            let lens = lengths(lines, SHAPE[axis], "random");
            let lens = lens.reshaped(&line_shape).unwrap_or(lens);
            let mut scratch = ReverseSubsequencesScratch::new();
            g.bench_function(format!("axis{axis}"), |b| {
                b.iter(|| {
                    reverse_subsequences_into(
                        black_box(&data),
                        &lens,
                        axis as i64,
                        &mut out,
                        &options(1),
                        &mut scratch,
                    )
                })
            });
        }
        g.finish();
    }
}

// The macro defines an undocumented public function.
#[allow(missing_docs)]
mod suite {
    use super::*;
    criterion_group! {
        name = benches;
        // Plots take longer to draw than these benchmarks take to run.
        config = Criterion::default().without_plots();
        targets = reverse, reverse_sequence, short_runs, short_heads, time_major_limits, subsequences, subsequences_per_line, convert, crossover
    }
}
use suite::benches;
criterion_main!(benches);
