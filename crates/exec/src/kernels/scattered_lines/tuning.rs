//! Every constant that picks a strategy for lines whose lengths change
//! every few lines, or sizes its tiles: what it is, then why, in a line.
//! `docs/performance.md` ("Why the ReverseSequence and ReverseSubsequences
//! constants are what they are") tells the measurements in full.

/// The bytes of one tile of `ScatteredLines::shift`'s buffer.
/// Sized, not measured: the buffer, its masks and the rows it reads stay in a 32 KiB L1 data cache.
pub(super) const SHIFT_TILE_BYTES: usize = 8 << 10;

/// The longest axis `ScatteredLines::shift` takes; longer ones go to `ScatteredLines::gather`.
/// Follows from [`SHIFT_TILE_BYTES`]: a tile of the whole axis, 32 bytes wide, fills the buffer.
pub(super) const SHIFT_MAX_SIZE: usize = SHIFT_TILE_BYTES / 32;

/// The most passes `ScatteredLines::shift` makes.
/// Follows from [`SHIFT_MAX_SIZE`]: the bits of the largest shift on the longest axis it takes.
pub(super) const SHIFT_MAX_PASSES: usize = (usize::BITS - (SHIFT_MAX_SIZE - 1).leading_zeros()) as usize;

/// The widest rows `ScatteredLines::shift` works on.
/// The widest row width compiled in (`ScatteredLines::shift_any`); not measured against wider.
pub(super) const SHIFT_MAX_ROW: usize = 1024;

/// The narrowest lines, in bytes, that `ScatteredLines::shift` and the strips take.
/// Not measured: rows are at least 32 bytes, and much narrower lines would leave most of each idle.
pub(super) const SHIFT_MIN_LINE_BYTES: usize = 8;

/// The bytes of input rows one tile of `ScatteredLines::gather` reads, sized for a 512 KiB L2.
/// With the vector gathers row by row, 128 KiB measured 5–10% faster than 32 KiB on `f32`.
pub(super) const GATHER_TILE_BYTES: usize = 128 << 10;

/// The most bytes a tile of `ScatteredLines::gather` stages in the thread's buffer, without the vector gathers.
/// Time-major `f32` `[4096, 512]`, `no-simd`: 1 MiB (64 columns) 2.7–2.9 ms, 512 KiB 3.0–3.2, 256 KiB 3.6, 2 MiB 10+.
pub(super) const GATHER_LONG_MAX_BYTES: usize = 1 << 20;

/// The fewest bytes of each input row a tile of `ScatteredLines::lines` reads.
/// Time-major `[4096, 512]` `f32`: 256 bytes took 3.8–6.7 ms, 128 took 5.1–6.3, 64 took 6.8–8.9.
pub(super) const LINES_MIN_ROW_BYTES: usize = 256;

/// The most bytes `ScatteredLines::lines` stages at once: 256 bytes of each of 4096 rows.
/// Tiles of 1 KiB per row on that axis (4 MiB of lines) took 8.2–12.2 ms against 3.8–6.7.
pub(super) const LINES_MAX_BYTES: usize = LINES_MIN_ROW_BYTES * (4096 + 8);

/// The most rows on which 4-byte elements in rows of [`LINES_WIDE_MIN_COLUMNS`] keep the gathers.
/// Time-major `f32` `[1024, 2048]`: 3.6 ms through the lines against 7.5; 64 rows stay faster gathered.
pub(super) const LINES_WIDE_MIN_ROWS: usize = 64;

/// The fewest columns with which 4-byte elements past [`LINES_WIDE_MIN_ROWS`] go to the lines.
/// `f32` `[128, 16384]`: 3.9 ms through the lines against 4.2; 128 columns: 13.1 against 9.2 gathered.
pub(super) const LINES_WIDE_MIN_COLUMNS: usize = 1024;

/// About how many times a memcpy of the output the strategies take on `n`-byte elements.
/// One thread, `[8, 64, 128, 128]`: `u8` 7–12×, `f16` 4–5×, `f32` 2.6–3.3×, `i64` 1.7–2.2×.
pub(super) fn scattered_cost(n: usize) -> usize {
    match n {
        1 => 8,
        2 => 4,
        _ => 2,
    }
}

/// The widest strip `ScatteredLines::strips` takes, in bytes.
/// Not tuned: an AVX-512 register.
pub(super) const STRIP_MAX_BYTES: usize = 64;

/// The shortest lines of 8-byte elements that `ScatteredLines::strips` takes with AVX-512.
/// The shortest measured: `[256, 64, 64]` `i64` axis 1, 2.7–2.9× a memcpy against 3.1–3.7 gathered.
pub(super) const WIDE_STRIP_MIN_LINE_BYTES: usize = 512;

/// The longest axis `ScatteredLines::strips` takes.
/// Not tuned: a byte holds each column's length.
pub(super) const STRIP_MAX_SIZE: usize = 255;

/// The bytes of one tile of `ScatteredLines::strips`' input (and as many of its output), all rows.
/// Not measured on its own; staged tiles of 8 to 32 KiB took 2.1–2.9 ms, 64 KiB 2.5–2.7.
pub(super) const STAGE_BYTES: usize = 64 << 10;

/// Outputs from which the strips and the vector gathers stream their stores (other loops: 16 MiB).
/// 8 MiB `u8` `[8, 64, 128, 128]` axis 1 went from 4.6 to 3.4 ms; 4 MiB gained 10–12%, 2 MiB nothing.
pub(super) const SCATTERED_STREAM_MIN_BYTES: usize = 4 << 20;

/// The widest output rows, in bytes, whose vector gathers (`ScatteredLines::columns`) stream.
/// `f32` axis 1: rows of 2 KiB 7.47× a memcpy cached against 4.90 streamed; 4 KiB 6.86 against 8.98.
pub(super) const GATHER_STREAM_MAX_STRIDE: usize = 2 << 10;
