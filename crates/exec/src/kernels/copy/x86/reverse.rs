//! The reversing loops, written once for both register widths.
//!
//! Each public routine checks what its loop needs (a row shape, and for
//! streaming stores an aligned destination), falls back to 16-byte
//! registers for shapes 32-byte ones cannot take, and returns how many
//! bytes it wrote, leaving the rest to its caller. The loops are
//! `#[inline(always)]` so that [`Simd::run`](super::Simd::run) compiles
//! them with the width's instructions.

use super::{aligned, prefetch, Plain, Ssse3, Stores, Width};

/// How far past the run's end the source is prefetched. A run that is read
/// back to front goes against the direction the hardware prefetcher
/// expects when rows follow one another upwards in memory, and measured
/// copies of 512-byte rows ran 2–4× slower without this; 256 bytes ahead
/// was the best of the distances tried, and did not slow down long runs or
/// 64-byte rows.
const PREFETCH_AHEAD: usize = 256;

/// Runs longer than this are not prefetched: a long run is read downwards
/// long enough for the hardware prefetcher to follow, and prefetching past
/// its end would only touch memory that may not even be mapped.
const PREFETCH_MAX_RUN: usize = 64 << 10;

/// Rows reversed whole of up to this many registers (256 bytes with 32-byte
/// ones) are loaded into registers whole and stored from the first block,
/// so that both buffers are read and written upwards. Taking a row from its
/// end defeats the hardware prefetcher, and so does writing it from its
/// end: on 128-byte u8 rows held in the cache, a row read upwards and
/// written from its end ran at 1.25–1.3× a memory copy, and this order runs
/// level with one (the same on 256-byte rows). Longer rows no longer fit
/// the registers and are read from their end.
const REGISTER_MAX_BLOCKS: usize = 8;

/// The shuffle control that reverses the order of `N`-byte lanes in a
/// 16-byte register and keeps the byte order inside each lane.
pub(super) fn lane_reversal<const N: usize>() -> [i8; 16] {
    let mut control = [0i8; 16];
    for (k, c) in control.iter_mut().enumerate() {
        let lane = k / N;
        let within = k % N;
        // At most 15, so it fits `i8`.
        *c = ((16 / N - 1 - lane) * N + within) as i8;
    }
    control
}

/// The shuffle control that reverses the order of `N`-byte lanes inside
/// each group of `group` bytes (a divisor of 16).
fn group_reversal<const N: usize>(group: usize) -> [i8; 16] {
    let mut control = [0i8; 16];
    let lanes = group / N;
    for (k, c) in control.iter_mut().enumerate() {
        let (g, lane, within) = (k / group, (k % group) / N, k % N);
        // At most 15, so it fits `i8`.
        *c = (g * group + (lanes - 1 - lane) * N + within) as i8;
    }
    control
}

/// Reverses whole registers: `dst`'s first blocks get `src`'s last ones
/// with their `N`-byte elements reversed. `src` and `dst` have the same
/// length, a multiple of `N`, so every block read starts on an element
/// boundary. Returns how many bytes of `dst` it wrote; what is left is
/// less than 16 bytes, or, streaming, less than a 64-byte line (and all of
/// it when `dst` does not start on a register boundary).
pub(in crate::kernels::copy) fn reverse_blocks<W: Width, S: Stores, const N: usize>(
    isa: W,
    stores: S,
    src: &[u8],
    dst: &mut [u8],
) -> usize {
    if S::STREAMING && !aligned(dst.as_ptr(), W::BYTES) {
        return 0;
    }
    isa.run(
        #[inline(always)]
        || {
            let control = isa.control(lane_reversal::<N>());
            let len = src.len();
            let base = src.as_ptr();
            let prefetch_ahead = len <= PREFETCH_MAX_RUN;
            let per_line = 64 / W::BYTES;
            let mut done = 0;
            for (o, i) in dst.chunks_exact_mut(64).zip(src.rchunks_exact(64)) {
                if prefetch_ahead {
                    // The next run, as rows follow one another upwards.
                    prefetch(base.wrapping_add(len + done + PREFETCH_AHEAD));
                }
                // Destination register j (from the line's start) gets
                // source register `per_line - 1 - j`: the line is written
                // upwards and read downwards, the way the run goes.
                for j in 0..per_line {
                    // SAFETY: `i` and `o` are 64 bytes long and `j <
                    // per_line = 64 / BYTES`, so the registers at `BYTES * j`
                    // and `BYTES * (per_line - 1 - j)` lie inside them;
                    // streaming, `dst` starts on a register boundary (checked
                    // above) and `o` lies a multiple of 64 bytes after it.
                    unsafe {
                        let v = isa.load_lanes_reversed(i.as_ptr().add(W::BYTES * (per_line - 1 - j)));
                        isa.store(stores, o.as_mut_ptr().add(W::BYTES * j), isa.shuffle(v, control));
                    }
                }
                done += 64;
            }
            // Streaming stops at the last whole line: a partial one costs
            // more than the stores save.
            if S::STREAMING {
                return done;
            }
            let (Some(src), Some(dst)) = (src.get(..len - done), dst.get_mut(done..)) else {
                return done;
            };
            let wide = reversed_tail::<W, N>(isa, src, dst);
            let (Some(src), Some(dst)) = (src.get(..src.len() - wide), dst.get_mut(wide..)) else {
                return done + wide;
            };
            let narrow = match isa.narrower() {
                Some(narrow) => reversed_tail::<Ssse3, N>(narrow, src, dst),
                None => 0,
            };
            done + wide + narrow
        },
    )
}

/// The registers left after [`reverse_blocks`]'s lines, with ordinary
/// stores; returns how many bytes of `dst` it wrote.
#[inline(always)]
fn reversed_tail<W: Width, const N: usize>(isa: W, src: &[u8], dst: &mut [u8]) -> usize {
    let control = isa.control(lane_reversal::<N>());
    let mut done = 0;
    for (o, i) in dst.chunks_exact_mut(W::BYTES).zip(src.rchunks_exact(W::BYTES)) {
        // SAFETY: `i` and `o` are exactly one register long.
        unsafe {
            let v = isa.load_lanes_reversed(i.as_ptr());
            isa.store(Plain, o.as_mut_ptr(), isa.shuffle(v, control));
        }
        done += W::BYTES;
    }
    done
}

/// Reverses the `N`-byte elements inside every row of `row` bytes of `src`
/// into `dst` (same length), for rows that divide 16 bytes (one shuffle
/// reverses every row in a register) or are a multiple of 16 (each row's
/// registers are mirrored). Returns how many bytes it wrote, a whole
/// number of rows; 0 for other row lengths, and, streaming, when `dst`
/// does not start on a register boundary. Streaming writes whole 64-byte
/// lines only, the rest being left to the caller, so `row` should then
/// divide 16 or be a multiple of 64.
pub(in crate::kernels::copy) fn reverse_rows<W: Width, S: Stores, const N: usize>(
    isa: W,
    stores: S,
    src: &[u8],
    dst: &mut [u8],
    row: usize,
) -> usize {
    if row == 0 || !row.is_multiple_of(N) || (S::STREAMING && !aligned(dst.as_ptr(), W::BYTES)) {
        return 0;
    }
    if row <= 16 && 16 % row == 0 {
        return isa.run(
            #[inline(always)]
            || grouped_rows::<W, S, N>(isa, stores, src, dst, row),
        );
    }
    if !row.is_multiple_of(W::BYTES) {
        // Rows of 16 bytes and a half in 32-byte registers: the 16-byte
        // loop takes them whole.
        return match isa.narrower() {
            Some(narrow) if row.is_multiple_of(16) => {
                reverse_rows::<Ssse3, S, N>(narrow, stores, src, dst, row)
            }
            _ => 0,
        };
    }
    let blocks = row / W::BYTES;
    isa.run(
        #[inline(always)]
        || match blocks {
            1 => mirror_rows::<W, S, N, 1>(isa, stores, src, dst),
            2 => mirror_rows::<W, S, N, 2>(isa, stores, src, dst),
            3 => mirror_rows::<W, S, N, 3>(isa, stores, src, dst),
            4 => mirror_rows::<W, S, N, 4>(isa, stores, src, dst),
            5 => mirror_rows::<W, S, N, 5>(isa, stores, src, dst),
            6 => mirror_rows::<W, S, N, 6>(isa, stores, src, dst),
            7 => mirror_rows::<W, S, N, 7>(isa, stores, src, dst),
            REGISTER_MAX_BLOCKS => mirror_rows::<W, S, N, REGISTER_MAX_BLOCKS>(isa, stores, src, dst),
            _ => mirror_long_rows::<W, S, N>(isa, stores, src, dst, row),
        },
    )
}

/// [`reverse_rows`] for rows that divide 16 bytes: every register holds
/// whole rows, so one shuffle reverses them all in place.
#[inline(always)]
fn grouped_rows<W: Width, S: Stores, const N: usize>(
    isa: W,
    stores: S,
    src: &[u8],
    dst: &mut [u8],
    row: usize,
) -> usize {
    let control = isa.control(group_reversal::<N>(row));
    let mut done = 0;
    for (o, i) in dst.chunks_exact_mut(64).zip(src.chunks_exact(64)) {
        for k in 0..64 / W::BYTES {
            // SAFETY: `i` and `o` are 64 bytes long, so the register at
            // `BYTES * k` (k < 64 / BYTES) lies inside them; streaming,
            // `dst` starts on a register boundary and `o` lies a multiple
            // of 64 bytes after it.
            unsafe {
                let v = isa.load(i.as_ptr().add(W::BYTES * k));
                isa.store(stores, o.as_mut_ptr().add(W::BYTES * k), isa.shuffle(v, control));
            }
        }
        done += 64;
    }
    if S::STREAMING {
        return done;
    }
    let (Some(src), Some(dst)) = (src.get(done..), dst.get_mut(done..)) else {
        return done;
    };
    let wide = grouped_tail(isa, control, src, dst);
    let (Some(src), Some(dst)) = (src.get(wide..), dst.get_mut(wide..)) else {
        return done + wide;
    };
    let narrow = match isa.narrower() {
        Some(narrow) => grouped_tail(narrow, narrow.control(group_reversal::<N>(row)), src, dst),
        None => 0,
    };
    done + wide + narrow
}

/// The registers left after [`grouped_rows`]'s lines, with ordinary
/// stores; returns how many bytes it wrote.
#[inline(always)]
fn grouped_tail<W: Width>(isa: W, control: W::Reg, src: &[u8], dst: &mut [u8]) -> usize {
    let mut done = 0;
    for (o, i) in dst.chunks_exact_mut(W::BYTES).zip(src.chunks_exact(W::BYTES)) {
        // SAFETY: `i` and `o` are exactly one register long.
        unsafe { isa.store(Plain, o.as_mut_ptr(), isa.shuffle(isa.load(i.as_ptr()), control)) };
        done += W::BYTES;
    }
    done
}

/// Reverses the `N`-byte elements of every row of `B` registers, holding
/// each row in registers (see [`REGISTER_MAX_BLOCKS`]). Returns how many
/// bytes it wrote, a whole number of rows.
#[inline(always)]
fn mirror_rows<W: Width, S: Stores, const N: usize, const B: usize>(
    isa: W,
    stores: S,
    src: &[u8],
    dst: &mut [u8],
) -> usize {
    let control = isa.control(lane_reversal::<N>());
    let row = W::BYTES * B;
    let mut done = 0;
    for (o, i) in dst.chunks_exact_mut(row).zip(src.chunks_exact(row)) {
        let mut v = [control; B];
        for (j, v) in v.iter_mut().enumerate() {
            // SAFETY: `i` is `BYTES * B` bytes long and `j < B`, so the
            // register at `BYTES * j` lies inside it.
            *v = unsafe { isa.load_lanes_reversed(i.as_ptr().add(W::BYTES * j)) };
        }
        for (j, v) in v.iter().rev().enumerate() {
            // SAFETY: `o` is `BYTES * B` bytes long and `j < B`, so the
            // register at `BYTES * j` lies inside it; streaming, `dst`
            // starts on a register boundary and `o + BYTES * j` lies a
            // multiple of `BYTES` after it.
            unsafe { isa.store(stores, o.as_mut_ptr().add(W::BYTES * j), isa.shuffle(*v, control)) };
        }
        done += row;
    }
    done
}

/// Reverses the `N`-byte elements of every row of `row` bytes (a multiple
/// of the register), longer than the registers hold: each row's registers
/// are read from its end, with the rows after it prefetched.
#[inline(always)]
fn mirror_long_rows<W: Width, S: Stores, const N: usize>(
    isa: W,
    stores: S,
    src: &[u8],
    dst: &mut [u8],
    row: usize,
) -> usize {
    let control = isa.control(lane_reversal::<N>());
    let blocks = row / W::BYTES;
    let mut done = 0;
    for (o, i) in dst.chunks_exact_mut(row).zip(src.chunks_exact(row)) {
        for j in 0..blocks {
            if (W::BYTES * j).is_multiple_of(64) && row <= PREFETCH_MAX_RUN {
                // Once a line: the row is read back to front, against the
                // way rows follow one another, so the next rows are fetched
                // ahead.
                prefetch(i.as_ptr().wrapping_add(row + W::BYTES * j + PREFETCH_AHEAD));
            }
            // SAFETY: `i` and `o` are `row = BYTES * blocks` bytes long, so
            // the registers at `BYTES * j` and `BYTES * (blocks - 1 - j)`
            // (j < blocks) lie inside them; streaming, `dst` starts on a
            // register boundary and every register of `o` lies a multiple
            // of `BYTES` after it.
            unsafe {
                let v = isa.load_lanes_reversed(i.as_ptr().add(W::BYTES * (blocks - 1 - j)));
                isa.store(stores, o.as_mut_ptr().add(W::BYTES * j), isa.shuffle(v, control));
            }
        }
        done += row;
    }
    done
}

/// Writes rows of `row` bytes from `src` into `dst` (same length), each
/// with its first `h` bytes (a multiple of `N`) reversed in elements of
/// `N` bytes and the rest in order. Returns how many bytes it wrote, a
/// whole number of rows; 0 when `h` is longer than the row, when `row` is
/// not a multiple of 16, or, streaming, when `dst` does not start on a
/// 16-byte boundary.
///
/// With one head for all, the branches below go the same way on every
/// row, so they cost nothing, and each register gets only the work it
/// needs: one shuffle inside the head, a plain copy past it, and the mix
/// of both only for the register the head ends in. On 128-byte rows that
/// ran several times faster than building every block from both, as
/// [`rows_with_heads`](super::rows_with_heads) does. With 32-byte registers,
/// half the loads and stores per row made 1-byte elements held in the
/// cache run level with a memory copy, where the 16-byte loop took 1.3×
/// as long on 128-byte rows.
pub(in crate::kernels::copy) fn rows_with_same_head<W: Width, S: Stores, const N: usize>(
    isa: W,
    stores: S,
    src: &[u8],
    dst: &mut [u8],
    row: usize,
    h: usize,
) -> usize {
    if row == 0 || h > row {
        return 0;
    }
    if !row.is_multiple_of(W::BYTES) || (S::STREAMING && !aligned(dst.as_ptr(), W::BYTES)) {
        return match isa.narrower() {
            Some(narrow) => rows_with_same_head::<Ssse3, S, N>(narrow, stores, src, dst, row, h),
            None => 0,
        };
    }
    isa.run(
        #[inline(always)]
        || same_head_rows::<W, S, N>(isa, stores, src, dst, row, h),
    )
}

/// The loop of [`rows_with_same_head`], for rows of whole registers.
#[inline(always)]
fn same_head_rows<W: Width, S: Stores, const N: usize>(
    isa: W,
    stores: S,
    src: &[u8],
    dst: &mut [u8],
    row: usize,
    h: usize,
) -> usize {
    let reversal = isa.control(lane_reversal::<N>());
    let ssse3 = isa.ssse3();
    // The register the head ends in, when it ends inside one, holds the
    // head's first `t` bytes reversed, and is built from 16-byte halves
    // (one at 16 bytes, two at 32): half `k` starts with `t_k = clamp(t -
    // 16k, 0, 16)` of them, the `t_k` head bytes just below `t - 16k`, so
    // its source block starts at `t - 16k - t_k`, that is at `t - 16(k +
    // 1)` or at 0.
    let split = h / W::BYTES * W::BYTES;
    let t = h - split;
    let half = |k: usize| {
        let (hc, tc) = ssse3.head_controls::<N>(t.saturating_sub(16 * k).min(16));
        (t.saturating_sub(16 * (k + 1)), hc, tc)
    };
    // At most two halves, for 32-byte registers.
    let halves = [half(0), half(1)];
    let halves = halves.get(..W::BYTES / 16).unwrap_or(&[]);
    let mut done = 0;
    for (o, i) in dst.chunks_exact_mut(row).zip(src.chunks_exact(row)) {
        // The head's registers are taken from its source upwards, so they
        // are written from the head's end down. Read the other way, against
        // the rows' direction, a head of most of a 512-byte row ran 3.5–4×
        // slower than a memory copy; this way it runs faster than one.
        let mut q = split;
        while q > 0 {
            q -= W::BYTES;
            // SAFETY: `q + BYTES <= split <= h <= row`, and `i` and `o` are
            // `row` bytes long, so the registers at `h - q - BYTES` and `q`
            // lie inside them; streaming, `dst` starts on a register
            // boundary and `o + q` lies a multiple of `BYTES` after it.
            unsafe {
                let v = isa.load_lanes_reversed(i.as_ptr().add(h - q - W::BYTES));
                isa.store(stores, o.as_mut_ptr().add(q), isa.shuffle(v, reversal));
            }
        }
        let mut q = split;
        if t > 0 {
            for (k, &(from, hc, tc)) in halves.iter().enumerate() {
                let at = q + 16 * k;
                // SAFETY: `split < h <= row` and `row` is a multiple of
                // `BYTES`, so the register at `split`, and its halves, lie
                // inside `i` and `o`; `from` is either 0 (and `row >= 16`)
                // or `t - 16(k + 1)`, with `from + 16 <= t <= row`, so the
                // block at `from` lies inside `i`; streaming, every half
                // lies a multiple of 16 bytes after `dst`'s start, as above.
                unsafe {
                    ssse3.head_end_block(
                        stores,
                        o.as_mut_ptr().add(at),
                        i.as_ptr().add(from),
                        i.as_ptr().add(at),
                        hc,
                        tc,
                    )
                };
            }
            q += W::BYTES;
        }
        while q < row {
            // SAFETY: `q < row`, both multiples of `BYTES`, so the register
            // at `q` lies inside `i` and `o`; streaming, as above.
            unsafe { isa.store(stores, o.as_mut_ptr().add(q), isa.load(i.as_ptr().add(q))) };
            q += W::BYTES;
        }
        done += row;
    }
    done
}
