//! `ovir bench`: time repeated inferences and compare them with a memcpy
//! of the same bytes, measured in the same run.

use std::hint::black_box;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;
use std::time::{Duration, Instant};

use anyhow::bail;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ovir::{CompileOptions, ElementType, InferRequest, Model, Tensor};
use serde::Serialize;

use crate::args::BenchArgs;
use crate::io::{hold_inputs, set_inputs};
use crate::{CliError, Outcome};

/// Latency statistics of one series of timings, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Stats {
    /// Fastest run.
    pub min_ms: f64,
    /// Median run.
    pub median_ms: f64,
    /// Mean of all runs.
    pub mean_ms: f64,
    /// 90th percentile.
    pub p90_ms: f64,
    /// Slowest run.
    pub max_ms: f64,
}

impl Stats {
    /// Statistics of a non-empty series; `None` for an empty one.
    pub fn of(samples: &[Duration]) -> Option<Stats> {
        let mut ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        ms.sort_by(f64::total_cmp);
        let n = ms.len();
        let at = |q: f64| -> Option<f64> {
            let pos = q * (n.saturating_sub(1)) as f64;
            let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
            let (a, b) = (*ms.get(lo)?, *ms.get(hi)?);
            Some(a + (b - a) * (pos - lo as f64))
        };
        Some(Stats {
            min_ms: *ms.first()?,
            median_ms: at(0.5)?,
            mean_ms: ms.iter().sum::<f64>() / n as f64,
            p90_ms: at(0.9)?,
            max_ms: *ms.last()?,
        })
    }
}

/// What `ovir bench --json` prints.
#[derive(Debug, Serialize)]
pub struct Report {
    /// The model file.
    pub model: String,
    /// Median latency.
    pub median_ms: f64,
    /// Fastest run.
    pub min_ms: f64,
    /// Mean latency.
    pub mean_ms: f64,
    /// 90th percentile latency.
    pub p90_ms: f64,
    /// Slowest run.
    pub max_ms: f64,
    /// Timed inferences.
    pub iterations: usize,
    /// Untimed inferences run first.
    pub warmup: usize,
    /// Threads per inference.
    pub threads: usize,
    /// Inferences per second at the median latency.
    pub throughput_per_s: f64,
    /// Bytes the kernels moved per inference: per layer, its output, or
    /// its data input when that is larger and has as many elements, with
    /// a gather's indices; a scatter updating in place counts its updates.
    pub bytes_moved: usize,
    /// `bytes_moved` per second at the median latency, in GB/s.
    pub gb_per_s: f64,
    /// Median time of a single-threaded memcpy of `bytes_moved` bytes,
    /// measured in the same run.
    pub memcpy_median_ms: f64,
    /// `median_ms / memcpy_median_ms`.
    pub ratio_to_memcpy: f64,
    /// The process's peak resident memory, in bytes, over reading,
    /// compiling, setting the inputs and the first turn of inferences,
    /// before the buffers of the memcpy comparison exist; `None` where
    /// the system does not tell it.
    pub peak_rss_bytes: Option<u64>,
    /// Whether Ctrl-C stopped the run early: the statistics are then
    /// those of the `iterations` done.
    pub interrupted: bool,
}

/// Set by Ctrl-C (SIGINT) while a benchmark runs.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Makes Ctrl-C set [`INTERRUPTED`], so that the loops stop between two
/// inferences and report what they measured; a second Ctrl-C, for an
/// inference that takes long, ends the process at once with the status a
/// shell gives an interrupted command. Installed once per process; where
/// it cannot be, Ctrl-C ends the process as it otherwise would.
fn catch_interrupts() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            if INTERRUPTED.swap(true, Ordering::SeqCst) {
                std::process::exit(INTERRUPTED_STATUS.into());
            }
        });
    });
}

/// The exit status of a command stopped by Ctrl-C: 128 + SIGINT.
pub const INTERRUPTED_STATUS: u8 = 130;

fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

fn progress(total: usize, label: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{prefix:>8} [{bar:32}] {pos}/{len} {elapsed}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(label.to_string());
    bar
}

/// Inferences and copies are timed in turns of this many each, so that a
/// stretch when the machine is busier (on a shared machine, other loads
/// come and go over seconds) slows both alike and leaves their ratio
/// alone. Turns this long keep each side's buffers in the cache for all
/// but the first run of a turn.
const TURN: usize = 50;

/// Copies between two buffers of the same size, allocated as tensors are,
/// starting on a cache line, so the copy is measured on the same terms as
/// the inference (the library copy also runs faster on such buffers than
/// on ones that start part-way into a line).
struct Memcpy {
    src: Tensor,
    dst: Tensor,
}

impl Memcpy {
    /// Two buffers of `bytes` bytes, touched `warmup` times by a copy.
    fn new(bytes: usize, warmup: usize) -> anyhow::Result<Memcpy> {
        let mut copy = Memcpy {
            src: Tensor::zeros(ElementType::U8, &[bytes])?,
            dst: Tensor::zeros(ElementType::U8, &[bytes])?,
        };
        for _ in 0..warmup {
            copy.time();
        }
        Ok(copy)
    }

    /// Times one copy.
    fn time(&mut self) -> Duration {
        let (Some(src), Some(dst)) = (self.src.bytes(), self.dst.bytes_mut()) else {
            return Duration::ZERO;
        };
        let start = Instant::now();
        dst.copy_from_slice(black_box(src));
        black_box(&mut *dst);
        start.elapsed()
    }
}

/// Runs `ovir bench`.
pub fn run(args: &BenchArgs, out: &mut impl Write) -> Result<Outcome, CliError> {
    let clamp = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    let (iterations, warmup, threads) = (clamp(args.iterations), clamp(args.warmup), clamp(args.threads));
    let model = Model::read_with_weights(&args.model.model, args.model.weights.as_ref())?;
    let mut options = CompileOptions::default().with_threads(threads);
    if let Some(limit) = args.max_memory {
        options = options.with_max_memory(limit);
    }
    let compiled = model.compile_with(options)?;
    let mut request = compiled.infer_request();
    set_inputs(&mut request, &args.inputs, &args.shapes)?;
    let feeds = feeds(&request, &args.feeds)?;
    let fed: Vec<usize> = feeds.iter().map(|&(_, input)| input).collect();
    // Every inference runs on the same inputs, as benchmark_app's do: a
    // scatter into a model input copies it each time. Fed inputs alone
    // are handed over.
    let _held = hold_inputs(&request, &fed);
    let mut first = true;
    let mut infer = |request: &mut InferRequest| -> Result<(), ovir::Error> {
        if !first {
            for &(output, input) in &feeds {
                let value = request.take_output(output)?;
                request.set_input(input, value)?;
            }
        }
        first = false;
        request.infer()
    };

    // Ctrl-C from here on stops the run between two inferences, with the
    // statistics of those done.
    INTERRUPTED.store(false, Ordering::SeqCst);
    catch_interrupts();
    for _ in 0..warmup {
        if interrupted() {
            break;
        }
        infer(&mut request)?;
    }
    let bar = progress(iterations, "infer");
    let mut times = Vec::with_capacity(iterations);
    let mut memcpy = Vec::with_capacity(iterations);
    let mut copier = None;
    let mut peak = None;
    while times.len() < iterations && !interrupted() {
        let turn = TURN.min(iterations - times.len());
        let mut done = 0;
        while done < turn && !interrupted() {
            let start = Instant::now();
            infer(&mut request)?;
            times.push(start.elapsed());
            bar.inc(1);
            done += 1;
        }
        if done == 0 {
            break;
        }
        let copier = match &mut copier {
            Some(c) => c,
            None => {
                peak = crate::peak_rss_bytes();
                copier.insert(Memcpy::new(request.bytes_moved(), warmup.max(1))?)
            }
        };
        memcpy.extend((0..done).map(|_| copier.time()));
    }
    let stopped = interrupted();
    if stopped {
        // The bar stays as it was when stopped, its line ended.
        bar.abandon();
        if !bar.is_hidden() {
            eprintln!();
        }
        eprintln!("interrupted after {} of {}", crate::io::count(times.len(), "timed inference"), iterations);
    } else {
        bar.finish_and_clear();
    }
    let bytes = request.bytes_moved();

    let (Some(stats), Some(copy)) = (Stats::of(&times), Stats::of(&memcpy)) else {
        // Stopped before any timed inference: nothing to report.
        return Ok(if stopped { Outcome::Interrupted } else { Outcome::Success });
    };
    let per_s = |ms: f64| if ms > 0.0 { 1e3 / ms } else { f64::INFINITY };
    let report = Report {
        model: args.model.model.display().to_string(),
        median_ms: stats.median_ms,
        min_ms: stats.min_ms,
        mean_ms: stats.mean_ms,
        p90_ms: stats.p90_ms,
        max_ms: stats.max_ms,
        iterations: times.len(),
        warmup,
        threads,
        throughput_per_s: per_s(stats.median_ms),
        bytes_moved: bytes,
        gb_per_s: bytes as f64 * per_s(stats.median_ms) / 1e9,
        memcpy_median_ms: copy.median_ms,
        ratio_to_memcpy: if copy.median_ms > 0.0 { stats.median_ms / copy.median_ms } else { f64::NAN },
        peak_rss_bytes: peak,
        interrupted: stopped,
    };
    let io = |e: std::io::Error| CliError::Other(e.into());
    if args.json {
        let text = serde_json::to_string_pretty(&report).map_err(|e| CliError::Other(e.into()))?;
        writeln!(out, "{text}").map_err(io)?;
    } else {
        write_text(&report, out).map_err(io)?;
    }
    Ok(if stopped { Outcome::Interrupted } else { Outcome::Success })
}

/// The `--feed OUTPUT=INPUT` pairs as output and input indices, each
/// input fed once and the two of one type.
fn feeds(request: &InferRequest, given: &[(String, String)]) -> anyhow::Result<Vec<(usize, usize)>> {
    let mut feeds: Vec<(usize, usize)> = Vec::with_capacity(given.len());
    for (output, input) in given {
        let o = request.output_index(output.as_str().into())?;
        let i = request.input_index(input.as_str().into())?;
        if feeds.iter().any(|&(_, j)| j == i) {
            bail!("`--feed` gives input \"{input}\" twice; feed it from one output");
        }
        let (Some(out), Some(inp)) = (request.model().outputs().get(o), request.model().inputs().get(i))
        else {
            bail!("`--feed {output}={input}` names no output and input of the model");
        };
        if out.element_type != inp.element_type || !out.shape.compatible(&inp.shape) {
            bail!(
                "`--feed {output}={input}`: output \"{output}\" is {} {} but input \"{input}\" takes {} {}",
                out.element_type,
                out.shape,
                inp.element_type,
                inp.shape
            );
        }
        feeds.push((o, i));
    }
    Ok(feeds)
}

fn write_text(r: &Report, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "model:      {}", r.model)?;
    writeln!(out, "runs:       {} timed after {} warm-up, {} thread(s)", r.iterations, r.warmup, r.threads)?;
    writeln!(
        out,
        "latency:    min {}  median {}  mean {}  p90 {}  max {}",
        duration(r.min_ms),
        duration(r.median_ms),
        duration(r.mean_ms),
        duration(r.p90_ms),
        duration(r.max_ms)
    )?;
    writeln!(out, "throughput: {:.1} inferences/s", r.throughput_per_s)?;
    writeln!(out, "moved:      {} bytes per inference, {:.2} GB/s", r.bytes_moved, r.gb_per_s)?;
    writeln!(
        out,
        "memcpy:     median {} for the same bytes; ovir/memcpy = {:.2}",
        duration(r.memcpy_median_ms),
        r.ratio_to_memcpy
    )?;
    if let Some(peak) = r.peak_rss_bytes {
        writeln!(out, "memory:     peak resident {:.1} MiB", peak as f64 / f64::from(1 << 20))?;
    }
    Ok(())
}

/// A time given in milliseconds, in the unit that keeps it between 1 and
/// 1000 (ns, µs, ms, s), so a model that runs in a microsecond does not
/// show `0.001 ms` for every statistic.
fn duration(ms: f64) -> String {
    let ns = ms * 1e6;
    // Each bound is where the value, rounded as printed, reaches 1000.
    if !ns.is_finite() || ns < 999.5 {
        format!("{ns:.0} ns")
    } else if ns < 999_995.0 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 999_999_500.0 {
        format!("{ms:.3} ms")
    } else {
        format!("{:.3} s", ms / 1e3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_the_unit_that_fits() {
        assert_eq!(duration(0.000_8), "800 ns");
        assert_eq!(duration(0.001), "1.00 µs");
        assert_eq!(duration(0.123_456), "123.46 µs");
        assert_eq!(duration(4.2), "4.200 ms");
        assert_eq!(duration(999.999_4), "999.999 ms");
        assert_eq!(duration(1500.0), "1.500 s");
        // Values that would round up to 1000 of one unit take the next.
        assert_eq!(duration(0.000_999_7), "1.00 µs");
        assert_eq!(duration(0.999_996), "1.000 ms");
        assert_eq!(duration(999.999_6), "1.000 s");
    }

    #[test]
    fn stats_interpolate_percentiles() {
        let ms = |v: u64| Duration::from_millis(v);
        let s = Stats::of(&[ms(4), ms(1), ms(3), ms(2), ms(5)]).unwrap();
        assert_eq!((s.min_ms, s.median_ms, s.max_ms), (1.0, 3.0, 5.0));
        assert!((s.mean_ms - 3.0).abs() < 1e-9);
        assert!((s.p90_ms - 4.6).abs() < 1e-9);
        assert!(Stats::of(&[]).is_none());
    }
}
