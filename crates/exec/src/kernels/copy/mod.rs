//! Copying runs of elements, in order or back to front, at close to
//! memory speed.
//!
//! An element-by-element loop moves one element per step, which for 1- to
//! 4-byte elements is several times slower than the memory can go. Here
//! the copy moves whole registers: a register is read from the source's
//! far end, its elements are put in reverse order inside it, and it is
//! stored at the destination's near end.
//!
//! - This module picks the instructions once per kernel call
//!   ([`ReverseCopier`]) and writes a plan's runs into the output
//!   ([`RunWriter`]), choosing per run between the loops below, ordinary
//!   and streaming stores, and the library's copy. It has no `unsafe`:
//!   `simd::streaming` makes the one promise to fence streaming stores,
//!   for Convert's loops too.
//! - `x86` holds the x86_64 loops: mostly one `pshufb` reorders a 16-byte
//!   (SSSE3) or 32-byte (AVX2) register for every element width; some
//!   gather, transpose, or permute whole words (`vpermd`) with AVX2. They
//!   take a token that proves the CPU feature, and are written once for
//!   both widths where they do the same work.
//! - `permute`, `block_rows` and `portable` need no special
//!   instructions: they run elsewhere, and everywhere with the crate's
//!   `no-simd` feature, which leaves `x86` out of the build. `permute`
//!   reverses runs and short rows through byte permutations fixed when
//!   compiling, which the compiler makes the target's shuffles;
//!   `block_rows` writes rows of blocks with a head each a move of fixed
//!   size per block; `portable` holds the transposes, the zips and the
//!   element-by-element loops that finish every run.

mod block_rows;
mod blocks;
mod permute;
mod portable;
mod shuffle;
#[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
#[allow(unsafe_code)]
mod x86;

pub(super) use blocks::{Blocks, Window, NONE};
pub(super) use shuffle::shuffle_blocks;

#[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
use super::simd::{streaming, Simd};

use super::counts::Count;

/// Lane `j` of the groups of `K` `N`-byte elements of `src` into the row
/// at byte `j * pitch` of `dst`, reading `src` once (see
/// `portable::deinterleave_lanes`); with AVX2 where the CPU has it.
pub(super) fn deinterleave<const K: usize, const N: usize>(
    src: &[u8],
    dst: &mut [u8],
    pitch: usize,
) -> Option<()> {
    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    return x86::deinterleave::<K, N>(src, dst, pitch);
    #[cfg(not(all(target_arch = "x86_64", not(feature = "no-simd"))))]
    portable::deinterleave_lanes::<K, N>(src, dst, pitch)
}
/// Row `j` of the `K` rows at bytes `j * pitch` of `src` into lane `j` of
/// the groups of `K` `N`-byte elements that fill `dst`, each row read
/// once (see `portable::interleave_lanes`); with AVX2 where the CPU has
/// it.
pub(super) fn interleave<const K: usize, const N: usize>(
    src: &[u8],
    pitch: usize,
    dst: &mut [u8],
) -> Option<()> {
    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    return x86::interleave::<K, N>(src, pitch, dst);
    #[cfg(not(all(target_arch = "x86_64", not(feature = "no-simd"))))]
    portable::interleave_lanes::<K, N>(src, pitch, dst)
}
use super::run_plan::Heads;

/// The instructions the copy loops may use.
#[derive(Clone, Copy, Debug)]
enum Level {
    /// Neither SSSE3 nor AVX2, or the `no-simd` feature.
    Portable,
    /// SSSE3 without AVX2: 16-byte registers.
    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    Ssse3(x86::Ssse3),
    /// AVX2 and SSSE3: 32-byte registers, and 16-byte ones at the ends.
    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    Avx2(x86::Avx2),
}

/// The CPU features the copy loops may use, as tokens that prove them.
/// Found once per kernel call, so the feature test is not repeated for
/// every run.
#[derive(Clone, Copy, Debug)]
pub(super) struct ReverseCopier {
    level: Level,
}

/// Evaluates `$call` with `$isa` bound to the copier's widest token and
/// `$stores` to a [`Streaming`](x86::Streaming) witness when `$stream`
/// holds one, else to [`Plain`](x86::Plain): four calls, each compiled for
/// its own pair of types. Gives `$none` without SSSE3.
#[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
macro_rules! widest {
    ($copier:expr, $stream:expr, |$isa:ident, $stores:ident| $call:expr, else $none:expr) => {
        match ($copier.level, $stream) {
            (Level::Avx2($isa), Some($stores)) => $call,
            (Level::Avx2($isa), None) => {
                let $stores = x86::Plain;
                $call
            }
            (Level::Ssse3($isa), Some($stores)) => $call,
            (Level::Ssse3($isa), None) => {
                let $stores = x86::Plain;
                $call
            }
            (Level::Portable, _) => $none,
        }
    };
}

/// `$run` with `$isa` bound to the copier's AVX2 token, returned from the
/// enclosing function, when the copier has one; else `$none`. The names in
/// `$args` are what `$run` reads, marked used where it is compiled out.
macro_rules! avx2_or {
    ($copier:expr, |$isa:ident| $run:expr, else $none:expr, uses ($($args:expr),*)) => {{
        #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
        if let Some($isa) = $copier.avx2() {
            return $run;
        }
        let _ = ($($args,)*);
        $none
    }};
}

/// Evaluates `$body` with the constants `$R` set to `$row`, a length of
/// row in bytes that the blocks of `permute` take, and `$B` to the bytes
/// of its block (whole rows, 32 to 56 bytes: blocks longer than that are
/// not unrolled into shuffles); `$none` for other lengths: rows of 1 to 8
/// bytes, and of 10 to 56 bytes that are 2, 3, 4, 5, 6 or 7 times a power
/// of two. (An element of `N` bytes is a row of `N`.)
macro_rules! by_row_bytes {
    ($row:expr, |$R:ident, $B:ident| $body:expr, else $none:expr) => {
        match $row {
            1 => by_row_bytes!(@ 1, 32, $R, $B, $body),
            2 => by_row_bytes!(@ 2, 32, $R, $B, $body),
            3 => by_row_bytes!(@ 3, 48, $R, $B, $body),
            4 => by_row_bytes!(@ 4, 32, $R, $B, $body),
            5 => by_row_bytes!(@ 5, 40, $R, $B, $body),
            6 => by_row_bytes!(@ 6, 48, $R, $B, $body),
            7 => by_row_bytes!(@ 7, 56, $R, $B, $body),
            8 => by_row_bytes!(@ 8, 32, $R, $B, $body),
            10 => by_row_bytes!(@ 10, 40, $R, $B, $body),
            12 => by_row_bytes!(@ 12, 48, $R, $B, $body),
            14 => by_row_bytes!(@ 14, 56, $R, $B, $body),
            16 => by_row_bytes!(@ 16, 32, $R, $B, $body),
            20 => by_row_bytes!(@ 20, 40, $R, $B, $body),
            24 => by_row_bytes!(@ 24, 48, $R, $B, $body),
            28 => by_row_bytes!(@ 28, 56, $R, $B, $body),
            32 => by_row_bytes!(@ 32, 32, $R, $B, $body),
            40 => by_row_bytes!(@ 40, 40, $R, $B, $body),
            48 => by_row_bytes!(@ 48, 48, $R, $B, $body),
            56 => by_row_bytes!(@ 56, 56, $R, $B, $body),
            _ => $none,
        }
    };
    (@ $r:literal, $b:literal, $R:ident, $B:ident, $body:expr) => {{
        const $R: usize = $r;
        const $B: usize = $b;
        $body
    }};
}

/// One strip of ReverseSubsequences' columns, every row of its axis, for
/// [`ReverseCopier::subsequence_strip`]. Bytes of one element share their
/// column's values.
#[derive(Clone, Copy, Debug)]
pub(super) struct SubsequenceStrip<'a> {
    /// The input: row `r` is the strip's bytes at `r * stride`.
    pub(super) input: &'a [u8],
    /// Bytes from one row of the input to the next.
    pub(super) stride: usize,
    /// Rows along the axis: 2 to 255.
    pub(super) size: usize,
    /// Per byte, its column's length: a length past the axis counts as
    /// `size`, and 0 and 1 move nothing.
    pub(super) lens: &'a [u8],
    /// The output rows to write, `k0..=k1`.
    pub(super) rows: (usize, usize),
}

impl SubsequenceStrip<'_> {
    /// Whether the strip, `bytes` wide, and an output of `out_len` bytes
    /// with rows `out_stride` apart fit one another: an axis of 2 to 255
    /// rows, rows `k0 <= k1` inside it, every row read or written inside
    /// its slice, and a length for each byte.
    fn fits(&self, bytes: usize, out_len: usize, out_stride: usize) -> bool {
        let (k0, k1) = self.rows;
        let ends_within = |rows: usize, stride: usize, len: usize| {
            rows.checked_mul(stride).and_then(|e| e.checked_add(bytes)).is_some_and(|e| e <= len)
        };
        (2..=255).contains(&self.size)
            && k0 <= k1
            && k1 < self.size
            && self.lens.len() >= bytes
            && ends_within(self.size - 1, self.stride, self.input.len())
            && ends_within(k1 - k0, out_stride, out_len)
    }
}

impl ReverseCopier {
    /// Picks the fastest loops the running CPU supports.
    pub(super) fn detect() -> ReverseCopier {
        #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
        {
            if let Some(isa) = x86::Avx2::detect() {
                return ReverseCopier { level: Level::Avx2(isa) };
            }
            if let Some(isa) = x86::Ssse3::detect() {
                return ReverseCopier { level: Level::Ssse3(isa) };
            }
        }
        ReverseCopier { level: Level::Portable }
    }

    /// A copier limited to the 16-byte SSSE3 loops (when the CPU has
    /// them), so tests can check them on machines that have AVX2.
    #[cfg(test)]
    fn ssse3_only() -> ReverseCopier {
        #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
        if let Some(isa) = x86::Ssse3::detect() {
            return ReverseCopier { level: Level::Ssse3(isa) };
        }
        ReverseCopier::portable()
    }

    /// The copier [`ReverseCopier::detect`] picks, but with AVX2's loops
    /// where it would take AVX-512's, so tests can check them on machines
    /// that have AVX-512.
    #[cfg(test)]
    fn avx2_only() -> ReverseCopier {
        #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
        if let Some(isa) = x86::Avx2::detect() {
            return ReverseCopier { level: Level::Avx2(isa.without_avx512()) };
        }
        ReverseCopier::detect()
    }

    /// A copier that never uses SIMD instructions, so tests can check the
    /// portable loops on machines that have SSSE3.
    #[cfg(test)]
    pub(super) fn portable() -> ReverseCopier {
        ReverseCopier { level: Level::Portable }
    }

    /// The SSSE3 token, when the copier may use SSSE3 (AVX2 includes it).
    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    fn ssse3(self) -> Option<x86::Ssse3> {
        match self.level {
            Level::Avx2(isa) => Some(isa.ssse3()),
            Level::Ssse3(isa) => Some(isa),
            Level::Portable => None,
        }
    }

    /// Copies the whole 64-byte lines of `src` to the start of `dst` with
    /// streaming stores as wide as the copier's registers, and returns how
    /// many bytes it copied: none when `dst` does not start on a
    /// register's boundary, or without SSSE3.
    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    fn stream_forward(self, stream: x86::Streaming<'_>, src: &[u8], dst: &mut [u8]) -> usize {
        match self.level {
            Level::Avx2(isa) => x86::stream_forward(isa, stream, src, dst),
            Level::Ssse3(isa) => x86::stream_forward(isa, stream, src, dst),
            Level::Portable => 0,
        }
    }

    /// The AVX2 token, when the copier may use AVX2.
    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    fn avx2(self) -> Option<x86::Avx2> {
        match self.level {
            Level::Avx2(isa) => Some(isa),
            _ => None,
        }
    }

    /// Runs `f` compiled with the copier's widest instructions enabled, so
    /// that the compiler vectorizes plain loops inside it at that width.
    /// `f` and the helpers it calls should be `#[inline(always)]`: a
    /// function compiled on its own keeps the baseline instructions.
    pub(super) fn vectorized<R>(self, f: impl FnOnce() -> R) -> R {
        match self.level {
            #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
            Level::Avx2(isa) => isa.run(f),
            #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
            Level::Ssse3(isa) => isa.run(f),
            Level::Portable => f(),
        }
    }

    /// Whether rows of `row` bytes go through the row-head loops, one
    /// register a row, whatever their heads: 32-byte rows with AVX2. A
    /// head each goes to `rows32_with_heads`, and one head for all,
    /// reversed whole included, to `rows_with_same_head` (which may
    /// stream, as it writes whole rows in order). Reversed whole, these rows
    /// measured 0.57–0.63× a memcpy that way and 0.87–0.89× through the
    /// whole-row loops.
    fn one_register_rows(self, row: usize) -> bool {
        #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
        return row == 32 && self.avx2().is_some();
        #[cfg(not(all(target_arch = "x86_64", not(feature = "no-simd"))))]
        {
            let _ = row;
            false
        }
    }

    /// Writes output rows `k0..=k1` of columns `first..first + count` of a
    /// staged ReverseSubsequences tile of `size` rows, `pitch` bytes apart
    /// from the start of `tile`, elements of `N` bytes: column `first + j`
    /// of row `k` lands at `(k - k0) * out_stride + j * N` in `out`, and is
    /// that column's element in row `len - 1 - k` while `k < len =
    /// lens[j]`, and in row `k` after. Returns `count`, the columns it
    /// wrote from `first` on (a multiple of 8); the caller writes the rest.
    /// It writes none without AVX2, for widths other than 2 and 4 bytes,
    /// or when the arguments do not fit: 2-byte elements are read 4 bytes
    /// at a time, so `tile` must hold 2 bytes past the last element.
    ///
    /// With `stream`, the stores are streaming ones where `out` and
    /// `out_stride` are multiples of 32 bytes (ordinary ones otherwise),
    /// fenced before it returns.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn subsequence_columns<const N: usize>(
        self,
        tile: &[u8],
        (pitch, size): (usize, usize),
        first: usize,
        lens: &[u32],
        rows: (usize, usize),
        (out, out_stride): (&mut [u8], usize),
        stream: bool,
    ) -> usize {
        avx2_or!(
            self,
            |isa| x86::subsequence_columns::<N>(isa, stream, tile, (pitch, size), first, lens, rows, (out, out_stride)),
            else 0,
            uses (tile, pitch, size, first, lens, rows, out, out_stride, stream)
        )
    }

    /// Writes output rows `k0..=k1` of columns `first..first + count` of
    /// one block of ReverseSubsequences on an axis of `size` rows, elements
    /// of `N` bytes, read in place: row `r` of the block starts at
    /// `r * stride` in `input`. Column `first + j` of row `k` lands at
    /// `(k - k0) * out_stride + j * N` in `out`, and is that column's
    /// element in row `len - 1 - k` while `k < len = lens[j]`, and in row
    /// `k` after. Returns `count`, the columns it wrote from `first` on (a
    /// multiple of a register's elements); the caller writes the rest. It
    /// writes none without AVX2, for widths other than 1, 2, 4 and 8
    /// bytes, on axes of other than 2 to 8 rows, for lengths other than
    /// `u32` and `u8` ones, or when the arguments do not fit.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn subsequence_transposed<const N: usize, C: Count>(
        self,
        input: &[u8],
        (stride, size): (usize, usize),
        first: usize,
        lens: &[C],
        rows: (usize, usize),
        out: &mut [u8],
        out_stride: usize,
    ) -> usize {
        avx2_or!(
            self,
            |isa| x86::subsequence_transposed::<N, C>(isa, input, (stride, size), first, lens, rows, out, out_stride),
            else 0,
            uses (input, stride, size, first, lens, rows, out, out_stride)
        )
    }

    /// Writes what [`ReverseCopier::subsequence_transposed`] writes, for
    /// 1-, 2-, 4- and 8-byte elements on an axis of any length, through `lines`,
    /// scratch of [`line_pitch`] bytes for each column: the columns are
    /// staged there as lines, and each output row built from them. The
    /// columns it writes, and returns, are a whole number of groups
    /// ([`line_group`]). Writes none without AVX2, for other widths, or
    /// when the arguments do not fit.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn subsequence_lines<const N: usize>(
        self,
        input: &[u8],
        (stride, size): (usize, usize),
        first: usize,
        lens: &[u32],
        lines: &mut [u8],
        rows: (usize, usize),
        out: &mut [u8],
        out_stride: usize,
    ) -> usize {
        avx2_or!(
            self,
            |isa| x86::subsequence_lines::<N>(isa, input, (stride, size), first, lens, lines, rows, out, out_stride),
            else 0,
            uses (input, stride, size, first, lens, lines, rows, out, out_stride)
        )
    }

    /// Whether [`ReverseCopier::word_block_rows`] writes rows of `row`
    /// bytes made of blocks of `block` bytes: with AVX2, blocks of whole
    /// 4-byte words, two or more to a row, in rows of 64 or 96 bytes, of 48
    /// or 24 bytes that go two or four at a time, where the ways their
    /// heads can be are few enough for its table (two rows of up to 8
    /// blocks, four of 2), or of 36 to 92 bytes, one at a time in the two
    /// or three registers they reach into; and rows longer than 96 bytes
    /// of blocks of 3, 5, 6 or 7 words (12, 20, 24 or 28 bytes), a
    /// register at a time from a window their head places.
    pub(super) fn takes_word_rows(self, row: usize, block: usize) -> bool {
        #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
        return self.avx2().is_some()
            && (x86::WordTable::takes(row, block) || x86::WordWindows::takes(row, block));
        #[cfg(not(all(target_arch = "x86_64", not(feature = "no-simd"))))]
        {
            let _ = (row, block);
            false
        }
    }

    /// Writes the rows of `src` from byte `from` on, rows of `row` bytes
    /// made of blocks of `block` bytes, into `dst` in order, each row with
    /// its first `heads()` blocks in reverse order and the rest in place;
    /// `heads` is called once for each row, in order. Bytes of `src`
    /// before `from` may be read. Returns the bytes it wrote, whole rows, a
    /// group of registers at a time: it stops before the first group with
    /// a head longer than its row (having called `heads` for the group's
    /// rows up to that one), where `dst` no longer holds a group's
    /// registers or `src` the bytes they read, and writes none where
    /// [`ReverseCopier::takes_word_rows`] does not hold. Rows shorter than
    /// their registers also write, past the bytes it returns, up to the
    /// rest of the last row's registers, which the caller writes again.
    /// `stream` asks for streaming stores, made where the groups fill
    /// their registers, `dst` starts on a 32-byte boundary and holds at
    /// least `STREAM_MIN_RUN` bytes, and fenced before it returns.
    pub(super) fn word_block_rows(
        self,
        (src, from): (&[u8], usize),
        dst: &mut [u8],
        (row, block): (usize, usize),
        stream: bool,
        heads: impl FnMut() -> usize,
    ) -> usize {
        #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
        if let (Some(isa), Some(rows)) = (self.avx2(), src.get(from..)) {
            if let Some(table) = x86::WordTable::new(row, block) {
                return RunWriter::with(dst, self, stream, |out| match out.streaming_32(table.streams()) {
                    Some(stores) => x86::word_block_rows(isa, stores, rows, out.dst, &table, heads),
                    None => x86::word_block_rows(isa, x86::Plain, rows, out.dst, &table, heads),
                });
            }
            if let Some(windows) = x86::WordWindows::new(row, block) {
                return RunWriter::with(dst, self, stream, |out| match out.streaming_32(windows.streams()) {
                    Some(stores) => x86::word_window_rows(isa, stores, (src, from), out.dst, &windows, heads),
                    None => x86::word_window_rows(isa, x86::Plain, (src, from), out.dst, &windows, heads),
                });
            }
        }
        let _ = (src, from, dst, row, block, stream, heads);
        0
    }

    /// Whether [`ReverseCopier::block_rows`] writes rows of `row` bytes
    /// made of blocks of `block` bytes: where the x86 word loops take them
    /// ([`ReverseCopier::takes_word_rows`]), and otherwise where the
    /// portable loop does (blocks of 3, 5, 6, 7, 12, 16, 20, 24, 28, 32, 48
    /// or 64 bytes, two or more to a row of up to 256 bytes).
    pub(super) fn takes_block_rows(self, row: usize, block: usize) -> bool {
        self.takes_word_rows(row, block) || block_rows::takes(row, block)
    }

    /// [`ReverseCopier::word_block_rows`] where the x86 word loops take the
    /// rows, and otherwise the portable loop (`block_rows`), which moves
    /// each block as one move of a fixed size from a place worked out
    /// without a branch, compiled for the copier's widest instructions:
    /// the same promises, the bytes written past the last row it returns
    /// fewer than a block (none for blocks of 16, 32, 48 and 64 bytes).
    /// Writes none where [`ReverseCopier::takes_block_rows`] does not hold.
    pub(super) fn block_rows(
        self,
        (src, from): (&[u8], usize),
        dst: &mut [u8],
        (row, block): (usize, usize),
        stream: bool,
        heads: impl FnMut() -> usize,
    ) -> usize {
        if self.takes_word_rows(row, block) {
            return self.word_block_rows((src, from), dst, (row, block), stream, heads);
        }
        let Some(rows) = src.get(from..) else {
            return 0;
        };
        self.vectorized(|| block_rows::rows_with_heads(rows, dst, (row, block), heads))
    }

    /// [`ReverseCopier::block_rows`] from the start of `src`, without
    /// streaming, with the heads of a list (a list that runs out gives a
    /// head too long for any row, which stops the loop). Not generic over
    /// the block, so that the loops are compiled once for each kind of
    /// list.
    #[inline(never)]
    fn listed_block_rows(self, src: &[u8], dst: &mut [u8], shape: (usize, usize), heads: Heads<'_>) -> usize {
        if !self.takes_block_rows(shape.0, shape.1) {
            return 0;
        }
        match heads {
            Heads::Same(n) => self.block_rows((src, 0), dst, shape, false, || n),
            Heads::Each(list) => {
                let mut list = list.iter();
                self.block_rows((src, 0), dst, shape, false, || list.next().map_or(usize::MAX, |n| n.get()))
            }
            Heads::EachWide(list) => {
                let mut list = list.iter();
                self.block_rows((src, 0), dst, shape, false, || list.next().copied().unwrap_or(usize::MAX))
            }
            Heads::Bytes(list) => {
                let mut list = list.iter();
                self.block_rows((src, 0), dst, shape, false, || list.next().map_or(usize::MAX, |&n| n.into()))
            }
        }
    }

    /// Whether [`ReverseCopier::subsequence_transposed`] writes anything:
    /// it needs AVX2, as the gathers do.
    pub(super) fn transposes(self) -> bool {
        self.gathers()
    }

    /// The bytes of columns in one strip of
    /// [`ReverseCopier::subsequence_strip`]: a register's width (64 bytes
    /// with AVX-512 BW), and 16 bytes for the portable loop.
    pub(super) fn strip_bytes(self) -> usize {
        match self.level {
            #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
            Level::Avx2(isa) if isa.avx512().is_some() => 64,
            #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
            Level::Avx2(_) => 32,
            _ => 16,
        }
    }

    /// Writes output rows `k0..=k1` of one strip of ReverseSubsequences
    /// ([`SubsequenceStrip`], [`ReverseCopier::strip_bytes`] wide) into
    /// `out`, row `k` at `(k - k0) * out_stride`. `buffer` is scratch of at
    /// least `(size + 7) * strip_bytes` bytes. Returns `false`, having
    /// written nothing, when the arguments do not fit: an axis of other than
    /// 2 to 255 rows, rows outside it, or slices too short.
    pub(super) fn subsequence_strip(
        self,
        strip: &SubsequenceStrip<'_>,
        out: &mut [u8],
        out_stride: usize,
        buffer: &mut [u8],
    ) -> bool {
        match self.level {
            #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
            Level::Avx2(isa) => match isa.avx512() {
                Some(wide) => x86::subsequence_strip(wide, x86::Plain, strip, out, out_stride, buffer),
                None => x86::subsequence_strip(isa, x86::Plain, strip, out, out_stride, buffer),
            },
            #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
            Level::Ssse3(isa) => x86::subsequence_strip(isa, x86::Plain, strip, out, out_stride, buffer),
            // No scratch is needed here, but the same arguments fit at
            // every level.
            Level::Portable => {
                strip.size.saturating_add(7).saturating_mul(16) <= buffer.len()
                    && portable::subsequence_strip(strip, 16, out, out_stride).is_some()
            }
        }
    }

    /// Whether [`ReverseCopier::subsequence_strip`] runs at AVX2's width
    /// or wider (AVX-512's, where the CPU has it), where its selects are
    /// one instruction each.
    pub(super) fn selects_strips(self) -> bool {
        #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
        return self.avx2().is_some();
        #[cfg(not(all(target_arch = "x86_64", not(feature = "no-simd"))))]
        false
    }

    /// Whether [`ReverseCopier::subsequence_columns`] writes anything.
    pub(super) fn gathers(self) -> bool {
        #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
        return self.avx2().is_some();
        #[cfg(not(all(target_arch = "x86_64", not(feature = "no-simd"))))]
        false
    }

    /// Transposes `rows` rows of `cols` `N`-byte elements, row `i` at byte
    /// `i * src_pitch` of `src`, into `dst`, whose row `j` (at byte
    /// `j * dst_pitch`) gets column `j`: in square blocks held in registers
    /// (`portable::transpose_blocks`), compiled for the copier's widest
    /// instructions. Blocks are 16 × 16 bytes, 8 × 8 elements of 2 and 4
    /// bytes, and 4 × 4 of 8 bytes: a block's rows each fill one 16- or
    /// 32-byte register.
    pub(super) fn transpose<const N: usize>(
        self,
        src: &[u8],
        src_pitch: usize,
        dst: &mut [u8],
        dst_pitch: usize,
        rows: usize,
        cols: usize,
    ) -> Option<()> {
        let shape = (rows, cols);
        let (s, sp, d, dp) = (src, src_pitch, dst, dst_pitch);
        match self.level {
            #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
            Level::Avx2(isa) => x86::transpose_with_avx2::<N>(isa, s, sp, d, dp, shape),
            #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
            Level::Ssse3(_) if N <= 2 => x86::transpose_with_sse2::<N>(s, sp, d, dp, shape),
            _ => self.vectorized(|| portable_transpose::<N>(s, sp, d, dp, shape)),
        }
    }

    /// Runs of `bytes` bytes, the `g`-th of each of the two `srcs`, side by
    /// side in `dst` (`portable::zip_runs`), compiled for the copier's
    /// widest instructions: a Concat of pairs of runs of 4, 8 or 16 bytes
    /// along the innermost axis. `None` for other lengths, or when a source
    /// is short.
    pub(super) fn zip_runs(self, srcs: [&[u8]; 2], bytes: usize, dst: &mut [u8]) -> Option<()> {
        self.vectorized(|| match bytes {
            4 => portable::zip_runs::<2, 4>(srcs, dst),
            8 => portable::zip_runs::<2, 8>(srcs, dst),
            16 => portable::zip_runs::<2, 16>(srcs, dst),
            _ => None,
        })
    }

    /// Writes the whole `N`-byte elements of `src` into `dst` in reverse
    /// order: the last element of `src` lands first. Both slices should
    /// have the same length, a multiple of `N`; when they do not, only the
    /// first `min(len) / N` elements of `dst` are written, from the
    /// matching stretch at the start of `src`.
    pub(super) fn copy<const N: usize>(self, src: &[u8], dst: &mut [u8]) {
        let len = src.len().min(dst.len()) / N * N;
        let (Some(src), Some(dst)) = (src.get(..len), dst.get_mut(..len)) else {
            return;
        };
        let done = match self.level {
            #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
            Level::Avx2(isa) => x86::reverse_blocks::<_, _, N>(isa, x86::Plain, src, dst),
            #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
            Level::Ssse3(isa) => x86::reverse_blocks::<_, _, N>(isa, x86::Plain, src, dst),
            Level::Portable => by_row_bytes!(N, |R, B| permute::reverse_run::<R, B>(src, dst), else 0),
        };
        portable::finish::<N>(src, dst, done);
    }

    /// Writes the elements of `row` bytes of `src` into `dst` in reverse
    /// order (the last element of `src` lands first), in blocks permuted
    /// in registers (`permute::reverse_run`), compiled for the copier's
    /// widest instructions: a block of short rows flipped in order, such
    /// as the pixels of an image line. `false`, having written nothing, for
    /// lengths of row it has no block for (see [`by_row_bytes`]), or when
    /// the slices differ in length or are not whole rows.
    fn reverse_elements(self, row: usize, src: &[u8], dst: &mut [u8]) -> bool {
        if src.len() != dst.len() || row == 0 || !src.len().is_multiple_of(row) {
            return false;
        }
        self.vectorized(|| {
            by_row_bytes!(
                row,
                |R, B| {
                    // Literal sizes, so that the byte masks of other
                    // sizes are never made.
                    let done = match R {
                        3 => permute::reverse_odd_run::<3>(src, dst),
                        5 => permute::reverse_odd_run::<5>(src, dst),
                        7 => permute::reverse_odd_run::<7>(src, dst),
                        _ => permute::reverse_run::<R, B>(src, dst),
                    };
                    portable::finish::<R>(src, dst, done);
                    true
                },
                else false
            )
        })
    }

    /// Writes the rows of `row` bytes of `src` into `dst`, row `k` with the
    /// first `heads.of(k)` of its `N`-byte elements in reverse order and
    /// the rest in place, a row at a time through a fixed shuffle and a
    /// merge (`permute::rows_with_heads`), and returns how many bytes of
    /// each it went through, whole rows from the start. Writes none for
    /// lengths of row it has no shuffle for (see [`by_row_bytes`]); stops
    /// before a row whose head is longer than the row.
    fn short_rows_with_heads<const N: usize>(
        self,
        row: usize,
        src: &[u8],
        dst: &mut [u8],
        heads: Heads<'_>,
    ) -> usize {
        self.vectorized(|| {
            by_row_bytes!(
                row,
                |R, B| {
                    let _ = B;
                    match heads {
                        Heads::Same(n) => permute::rows_with_heads::<R, N>(src, dst, std::iter::repeat(n)),
                        Heads::Each(list) => {
                            permute::rows_with_heads::<R, N>(src, dst, list.iter().map(|&n| n.get()))
                        }
                        Heads::Bytes(list) => {
                            permute::rows_with_heads::<R, N>(src, dst, list.iter().map(|&n| usize::from(n)))
                        }
                        Heads::EachWide(list) => permute::rows_with_heads::<R, N>(src, dst, list.iter().copied()),
                    }
                },
                else 0
            )
        })
    }

    /// Writes the rows of `row` bytes of `src` into `dst`, each with its
    /// `N`-byte elements in reverse order, in blocks permuted in registers
    /// (`permute`), and returns how many bytes of each it went through,
    /// whole rows from the start; the caller writes the rest. Writes none
    /// for lengths of row it has no block for (see [`by_row_bytes`]).
    fn reverse_short_rows<const N: usize>(self, row: usize, src: &[u8], dst: &mut [u8]) -> usize {
        self.vectorized(|| {
            by_row_bytes!(
                row,
                |R, B| match (N, R) {
                    (1, 3) => permute::reverse_byte_rows::<3, 48>(src, dst),
                    (1, 5) => permute::reverse_byte_rows::<5, 40>(src, dst),
                    (1, 6) => permute::reverse_byte_rows::<6, 48>(src, dst),
                    (1, 7) => permute::reverse_byte_rows::<7, 56>(src, dst),
                    _ => permute::reverse_rows::<R, N, B>(src, dst),
                },
                else 0
            )
        })
    }
}

/// [`ReverseCopier::transpose`] with no special instructions: blocks
/// the compiler shuffles as it sees fit.
#[inline(always)]
fn portable_transpose<const N: usize>(
    src: &[u8],
    src_pitch: usize,
    dst: &mut [u8],
    dst_pitch: usize,
    shape: (usize, usize),
) -> Option<()> {
    let (s, sp, d, dp) = (src, src_pitch, dst, dst_pitch);
    match N {
        1 => portable::transpose_lines::<N, 64, _>(s, sp, d, dp, shape, portable::ArrayBlock::<N, 16>),
        2 => portable::transpose_lines::<N, 32, _>(s, sp, d, dp, shape, portable::ArrayBlock::<N, 8>),
        4 => portable::transpose_lines::<N, 16, _>(s, sp, d, dp, shape, portable::ArrayBlock::<N, 8>),
        _ => portable::transpose_lines::<N, 8, _>(s, sp, d, dp, shape, portable::ArrayBlock::<N, 4>),
    }
}

/// The longest axis [`ReverseCopier::subsequence_transposed`] takes: the
/// rows its network turns into lines at once, a register each.
pub(super) const TRANSPOSED_ROWS: usize = 8;

/// Asks for the lines that hold the first `max` bytes of `src` (all of it
/// when shorter) to be brought into the cache. A hint: it does nothing
/// without the x86 loops.
pub(super) fn prefetch_lines(src: &[u8], max: usize) {
    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    x86::prefetch_lines(src, max);
    #[cfg(not(all(target_arch = "x86_64", not(feature = "no-simd"))))]
    let _ = (src, max);
}

/// Rows (and columns) in a group of [`ReverseCopier::subsequence_lines`]
/// for `n`-byte elements: a 32-byte register of them, for the 1-, 2-, 4-
/// and 8-byte elements it takes; 0 for other widths.
pub(super) const fn line_group(n: usize) -> usize {
    match n {
        1 | 2 | 4 | 8 => 32 / n,
        _ => 0,
    }
}

/// The bytes one line of an axis of `size` `N`-byte elements takes in the
/// scratch of [`ReverseCopier::subsequence_lines`]: a group of elements in
/// front, where a window of the reversed head may start, then the axis
/// rounded up to whole groups; `None` past `usize`, or for widths it does
/// not take.
pub(super) const fn line_pitch<const N: usize>(size: usize) -> Option<usize> {
    let group = line_group(N);
    if group == 0 {
        return None;
    }
    match size.div_ceil(group).checked_mul(group) {
        Some(rows) => match rows.checked_add(group) {
            Some(elements) => elements.checked_mul(N),
            None => None,
        },
        None => None,
    }
}

/// Writes runs into one output buffer, with streaming (non-temporal)
/// stores when asked to and the CPU allows.
///
/// A streaming store sends its line to memory without first reading it
/// into the cache, which for outputs larger than the cache saves the read
/// an ordinary store needs; measured on 32 MiB reversals it made the copy
/// ~20% faster than ordinary stores, and about as fast as `memcpy`, which
/// streams large copies itself. Such stores are weakly ordered, so they
/// must be fenced before anyone reads what they wrote: a writer exists only
/// inside [`RunWriter::with`], which fences before it returns.
pub(super) struct RunWriter<'a, 'w> {
    dst: &'a mut [u8],
    copier: ReverseCopier,
    /// Present when streaming stores may be used: the witness that
    /// [`RunWriter::with`] fences them.
    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    stream: Option<x86::Streaming<'w>>,
    /// Without the x86 loops nothing streams: the lifetime of the witness
    /// the writer would hold stands alone.
    #[cfg(not(all(target_arch = "x86_64", not(feature = "no-simd"))))]
    stream: std::marker::PhantomData<&'w ()>,
    /// The patterns of rows that share a head worked out so far, for the
    /// runs written after.
    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    patterns: x86::Patterns,
}

/// Rows of at least this many bytes with a reversed head each (when they
/// share it: longer than [`SAME_HEAD_MAX_ROW`], not whole 32-byte
/// registers, or without AVX2) are written as two runs each, the head by
/// the reversing copy (which prefetches the source it reads backwards)
/// and the rest by the forward one: the cost of two calls per row is
/// small next to such a row, and on 1 KiB rows that measured faster than
/// the 16-byte row loops, which on shorter rows are the faster ones by
/// far. With AVX2 and a head per row, the 32-byte
/// blends take rows up to [`BLENDED_HEADS_MAX_ROW`] instead: on 1 KiB
/// `i64` rows they took a half to two thirds of the time of the two
/// runs.
#[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
const HEADS_MAX_ROW: usize = 1024;

/// Rows up to this many bytes that share a head, whole 32-byte registers,
/// are written with AVX2 by the register loop of
/// [`x86::rows_with_same_head`] rather than two runs each, streamed where
/// the output starts on a 16-byte boundary (32 bytes a store from a
/// 32-byte one). The two runs write the line a head ends in, and any run
/// under [`STREAM_MIN_RUN`], with ordinary stores, which read those lines
/// first: on 1 KiB rows (`i64` and `f32`, 64 and 32 MiB) they took
/// 1.0–2.3× a memcpy against 0.6–1.0× for the loop, in interleaved
/// rounds; on 2 KiB rows the two measured level, and on 4 KiB rows and
/// longer the runs kept a slight edge.
#[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
const SAME_HEAD_MAX_ROW: usize = 2048;

/// Rows up to this many bytes with a head each are built by blends of
/// 32-byte registers, where AVX2 is present. Longer ones were not
/// measured, and stay two runs each.
#[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
const BLENDED_HEADS_MAX_ROW: usize = 4096;

/// Rows written in descending order longer than this are copied one
/// forward run each, so that they stream on the same terms as any other.
const DESCENDING_MAX_ROW: usize = 64 << 10;

/// Rows up to this many bytes, written in descending order without
/// streaming, are copied by an inline loop rather than one call to the
/// library's copy each: on 128-byte rows held in the cache the calls cost
/// 10–20% more.
#[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
const INLINE_MAX_ROW: usize = 2048;

/// Runs shorter than this are written with ordinary stores: setting up
/// the aligned loop would cost more than streaming saves.
pub(super) const STREAM_MIN_RUN: usize = 256;

/// Plain runs held back while the next ones are asked for: see
/// [`Ahead`].
const AHEAD_RUNS: usize = 8;

/// The bytes of each run [`Ahead`] asks for: longer runs are read far
/// enough in order for the hardware prefetcher to take over.
#[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
const AHEAD_MAX_BYTES: usize = 2048;

/// Forward runs whose sources jump about the input, written a few runs
/// after their sources are asked for.
///
/// The hardware prefetcher follows addresses that go one way; a copy whose
/// every run starts somewhere new (a time-major ReverseSequence, where each
/// batch index reads its own position) waits on memory at the start of
/// each run instead. Asking for a run's source [`AHEAD_RUNS`] runs before
/// it is copied lets those waits overlap: on 256-byte `u8` rows it halved
/// the time, and on 1 KiB `f32` rows it brought the copy from about 1.5×
/// a memcpy to about 1.05×. Without SIMD a run is written at once.
pub(super) struct Ahead<'s> {
    /// Runs not yet written, as their source and output byte, the oldest
    /// at `held % AHEAD_RUNS` once the ring is full.
    runs: [(&'s [u8], usize); AHEAD_RUNS],
    held: usize,
}

impl<'s> Ahead<'s> {
    /// Nothing held.
    pub(super) fn new() -> Self {
        Ahead { runs: [(&[], 0); AHEAD_RUNS], held: 0 }
    }

    /// Copies `src` to the output at byte `at`, in order, some runs from
    /// now or at [`Ahead::finish`]. `None` when a run written now does not
    /// fit.
    pub(super) fn forward(&mut self, out: &mut RunWriter<'_, '_>, at: usize, src: &'s [u8]) -> Option<()> {
        #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
        {
            x86::prefetch_lines(src, AHEAD_MAX_BYTES);
            let slot = self.runs.get_mut(self.held % AHEAD_RUNS)?;
            let (old, old_at) = std::mem::replace(slot, (src, at));
            self.held += 1;
            if self.held > AHEAD_RUNS {
                return out.forward(old_at, old);
            }
            Some(())
        }
        #[cfg(not(all(target_arch = "x86_64", not(feature = "no-simd"))))]
        out.forward(at, src)
    }

    /// Writes the runs still held. `None` when one does not fit.
    pub(super) fn finish(&mut self, out: &mut RunWriter<'_, '_>) -> Option<()> {
        let first = self.held.saturating_sub(AHEAD_RUNS);
        for k in first..self.held {
            let (src, at) = *self.runs.get(k % AHEAD_RUNS)?;
            out.forward(at, src)?;
        }
        self.held = 0;
        Some(())
    }
}

#[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
impl<'w> RunWriter<'_, 'w> {
    /// The witness for streaming stores 32 bytes wide, where the writer
    /// streams, `streams` holds (the rows fill whole registers), and its
    /// output starts on a 32-byte boundary and holds a run's worth of
    /// bytes.
    fn streaming_32(&self, streams: bool) -> Option<x86::Streaming<'w>> {
        self.stream.filter(|_| {
            streams && self.dst.as_ptr().align_offset(32) == 0 && self.dst.len() >= STREAM_MIN_RUN
        })
    }
}

impl RunWriter<'_, '_> {
    /// Lends `write` a writer over `dst` and returns what it returns;
    /// `stream` asks for streaming stores, used only where the copier has
    /// a token for them (SSSE3 or AVX2); a CPU with neither copies with
    /// ordinary stores.
    ///
    /// The streaming stores are fenced after `write` returns or unwinds
    /// (by `simd::streaming`), so whoever touches `dst` next sees them all.
    /// The writer is only lent, and cannot outlive the call.
    pub(super) fn with<R>(
        dst: &mut [u8],
        copier: ReverseCopier,
        stream: bool,
        write: impl FnOnce(&mut RunWriter<'_, '_>) -> R,
    ) -> R {
        #[cfg(not(all(target_arch = "x86_64", not(feature = "no-simd"))))]
        {
            let _ = stream;
            write(&mut RunWriter { dst, copier, stream: std::marker::PhantomData })
        }
        #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
        {
            if !stream {
                return write(&mut RunWriter {
                    dst,
                    copier,
                    stream: None,
                    patterns: x86::Patterns::default(),
                });
            }
            // The writer streams into `dst` only, which it holds borrowed
            // until `write` is done.
            streaming(|witness| {
                write(&mut RunWriter {
                    dst,
                    copier,
                    stream: Some(witness),
                    patterns: x86::Patterns::default(),
                })
            })
        }
    }

    /// The output, for writes the writer has no routine of its own for;
    /// they are ordinary stores, which the fence after streaming ones
    /// orders as it orders these.
    pub(super) fn dst(&mut self) -> &mut [u8] {
        self.dst
    }

    /// Copies `src` to the output at byte `at`, in order. `None` when it
    /// does not fit.
    pub(super) fn forward(&mut self, at: usize, src: &[u8]) -> Option<()> {
        self.forward_streamed_from(at, src, STREAM_MIN_RUN)
    }

    /// Copies `src`, whole cache lines, to the output at byte `at`, in
    /// order: [`RunWriter::forward`] for a block of lines moved on its own,
    /// streamed where the writer streams however short it is (`forward`
    /// streams runs of [`STREAM_MIN_RUN`] bytes or more). `None` when it
    /// does not fit.
    pub(super) fn lines(&mut self, at: usize, src: &[u8]) -> Option<()> {
        self.forward_streamed_from(at, src, 64)
    }

    /// [`RunWriter::forward`], streaming runs of at least `least` bytes
    /// where the writer streams.
    fn forward_streamed_from(&mut self, at: usize, src: &[u8], least: usize) -> Option<()> {
        let dst = self.dst.get_mut(at..at.checked_add(src.len())?)?;
        #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
        if let (Some(stream), true) = (self.stream, src.len() >= least) {
            // Ordinary stores up to the first line boundary, then the
            // streaming loop over whole lines, then ordinary stores for the
            // rest. Streaming only whole lines matters: a line that gets
            // both kinds of store, or a partial streaming write, costs far
            // more than the store saves.
            let head = dst.as_ptr().align_offset(64);
            let (dst_head, dst_body) = dst.split_at_mut_checked(head)?;
            let (src_head, src_body) = src.split_at_checked(head)?;
            dst_head.copy_from_slice(src_head);
            let done = self.copier.stream_forward(stream, src_body, dst_body);
            dst_body.get_mut(done..)?.copy_from_slice(src_body.get(done..)?);
            return Some(());
        }
        #[cfg(not(all(target_arch = "x86_64", not(feature = "no-simd"))))]
        let _ = least;
        dst.copy_from_slice(src);
        Some(())
    }

    /// [`ReverseCopier::subsequence_strip`] into the output from byte `at`:
    /// row `k` of the strip at `at + (k - k0) * out_stride`. Where the
    /// writer streams and the strip is a whole cache line (64 bytes, with
    /// AVX-512), each row starting on one, its rows are streamed.
    pub(super) fn strip(
        &mut self,
        at: usize,
        strip: &SubsequenceStrip<'_>,
        out_stride: usize,
        buffer: &mut [u8],
    ) -> bool {
        let Some(out) = self.dst.get_mut(at..) else {
            return false;
        };
        #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
        if let (Some(stores), Some(wide)) = (self.stream, self.copier.avx2().and_then(|isa| isa.avx512())) {
            if out.as_ptr().align_offset(64) == 0 && out_stride.is_multiple_of(64) {
                return x86::subsequence_strip(wide, stores, strip, out, out_stride, buffer);
            }
        }
        self.copier.subsequence_strip(strip, out, out_stride, buffer)
    }

    /// Copies the `N`-byte elements of `src` to the output at byte `at`,
    /// back to front. `None` when they do not fit.
    pub(super) fn reversed<const N: usize>(&mut self, at: usize, src: &[u8]) -> Option<()> {
        let dst = self.dst.get_mut(at..at.checked_add(src.len())?)?;
        #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
        if let (Some(stream), true) = (self.stream, src.len() >= STREAM_MIN_RUN) {
            // Whole lines only, as in `forward`.
            let head = dst.as_ptr().align_offset(64);
            // Registers must start on element boundaries in both buffers;
            // when the boundary to align to is inside an element, the
            // ordinary stores below do the whole run.
            let split = (
                dst.split_at_mut_checked(head),
                src.len().checked_sub(head).and_then(|k| src.split_at_checked(k)),
            );
            if let (0, Some((dst_head, dst_body)), Some((src_body, src_head))) = (head % N, split.0, split.1)
            {
                self.copier.copy::<N>(src_head, dst_head);
                let done = match self.copier.level {
                    Level::Avx2(isa) => x86::reverse_blocks::<_, _, N>(isa, stream, src_body, dst_body),
                    Level::Ssse3(isa) => x86::reverse_blocks::<_, _, N>(isa, stream, src_body, dst_body),
                    Level::Portable => 0,
                };
                // What is left is less than a line: ordinary stores.
                let rest = src_body.len().saturating_sub(done);
                if let (Some(s), Some(d)) = (src_body.get(..rest), dst_body.get_mut(done..)) {
                    self.copier.copy::<N>(s, d);
                }
                return Some(());
            }
        }
        self.copier.copy::<N>(src, dst);
        Some(())
    }

    /// Writes `src`, blocks of `block` bytes each made of rows of `row`
    /// bytes, to the output at byte `at`, the blocks in order and the rows
    /// of each in reverse order (its last row lands first), each row copied
    /// in order. `None` when it does not fit, or `src` is not whole blocks
    /// of whole rows.
    ///
    /// The source is read upwards, row after row, and the rows are written
    /// downwards. Reading the rows downwards instead, each one upwards,
    /// defeats the hardware prefetcher, which follows addresses that keep
    /// going one way: even with the source fetched ahead by hand, that ran
    /// 1.4–1.7× slower than a memory copy on 256-byte rows of 16 MiB, and
    /// this order runs level with it. Stores going downwards cost little:
    /// streaming stores fill whole lines in any order, and ordinary ones
    /// wait in the store buffer, not in the loop.
    pub(super) fn descending_rows(&mut self, at: usize, src: &[u8], row: usize, block: usize) -> Option<()> {
        if row == 0 || block == 0 || !block.is_multiple_of(row) || !src.len().is_multiple_of(block) {
            return None;
        }
        let dst = self.dst.get_mut(at..at.checked_add(src.len())?)?;
        if row > DESCENDING_MAX_ROW {
            // Rows this long are one copy each, which streams when it can.
            for (b, i) in src.chunks_exact(block).enumerate() {
                let last = at + b * block + block - row;
                for (k, i) in i.chunks_exact(row).enumerate() {
                    self.forward(last - k * row, i)?;
                }
            }
            return Some(());
        }
        #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
        {
            if let (Some(stream), true) = (self.stream, src.len() >= STREAM_MIN_RUN) {
                // Rows of whole registers from a register's boundary on, at
                // 32 bytes where they fit, else at 16.
                if let Some(isa) = self.copier.avx2() {
                    if x86::stream_descending_rows(isa, stream, src, dst, row, block) {
                        return Some(());
                    }
                }
                if let Some(isa) = self.copier.ssse3() {
                    if x86::stream_descending_rows(isa, stream, src, dst, row, block) {
                        return Some(());
                    }
                }
            }
            if let (Some(isa), true) = (self.copier.avx2(), row <= INLINE_MAX_ROW) {
                // Rows of whole 32-byte registers.
                if x86::descending_rows(isa, src, dst, row, block) {
                    return Some(());
                }
            }
            if let (Some(isa), true) = (self.copier.avx2(), row < 32) {
                // Shorter rows, such as the pixels of an image flipped
                // left to right: a register at a time.
                let stream = self.stream.filter(|_| {
                    dst.as_ptr().align_offset(32) == 0
                        && block.is_multiple_of(32)
                        && src.len() >= STREAM_MIN_RUN
                });
                let done = match stream {
                    Some(stream) => x86::mirrored_rows(isa, stream, src, dst, row, block),
                    None => x86::mirrored_rows(isa, x86::Plain, src, dst, row, block),
                };
                if done {
                    return Some(());
                }
            }
        }
        // Short rows without the x86 loops: blocks of rows permuted in
        // registers, a line of the image at a time.
        let mut blocks = dst.chunks_exact_mut(block).zip(src.chunks_exact(block));
        if let Some((o, i)) = blocks.next() {
            if self.copier.reverse_elements(row, i, o) {
                for (o, i) in blocks {
                    if !self.copier.reverse_elements(row, i, o) {
                        return None;
                    }
                }
                return Some(());
            }
        }
        // Longer rows: the library's copy, which for data the cache holds
        // is the fastest there is (on 16 KiB rows it beat a loop of
        // 32-byte moves by a third).
        for (o, i) in dst.chunks_exact_mut(block).zip(src.chunks_exact(block)) {
            for (o, i) in o.rchunks_exact_mut(row).zip(i.chunks_exact(row)) {
                o.copy_from_slice(i);
            }
        }
        Some(())
    }

    /// Writes `src`, rows of `row` bytes each, to the output at byte `at`:
    /// in row `r` the first `heads.of(r)` elements of `N` bytes are
    /// reversed and the rest copied in order. `None` when it does not fit,
    /// or a head is longer than its row.
    pub(super) fn rows<const N: usize>(
        &mut self,
        at: usize,
        src: &[u8],
        row: usize,
        heads: Heads<'_>,
    ) -> Option<()> {
        if row == 0 || !src.len().is_multiple_of(row) || !heads.fits(src.len() / row, row / N) {
            return None;
        }
        let done = match heads {
            Heads::Same(n) if n * N == row && !self.copier.one_register_rows(row) => {
                self.reverse_whole_rows::<N>(at, src, row)?
            }
            _ => self.rows_with_heads::<N>(at, src, row, heads)?,
        };
        let rest = src.get(done..)?;
        let skipped = done / row;
        for (k, i) in rest.chunks_exact(row).enumerate() {
            let rev = heads.of(skipped + k).checked_mul(N)?;
            let (head, tail) = i.split_at_checked(rev)?;
            let to = at + done + k * row;
            self.reversed::<N>(to, head)?;
            self.forward(to + rev, tail)?;
        }
        Some(())
    }

    /// The SIMD part of [`RunWriter::rows`] for rows whose heads vary or
    /// are shorter than the row: how many bytes of `src` (whole rows) it
    /// wrote at `at`. With AVX2 and a head per row, rows shorter than 32
    /// bytes go several to a register (2, 4, 8 or 16 bytes; 3, 5, 6 or 7
    /// bytes up to four a lane), two (other lengths up to 16 bytes) or one
    /// (the rest), and rows of whole
    /// registers up to [`BLENDED_HEADS_MAX_ROW`] by blends. With AVX2 and
    /// one head for all, rows that are not whole 16-byte blocks go a
    /// register at a time over periods of rows where their period is short
    /// enough. Otherwise rows must be whole 16-byte blocks shorter than
    /// [`HEADS_MAX_ROW`], or up to [`SAME_HEAD_MAX_ROW`] (whole 32-byte
    /// registers, with AVX2) when they share a head. Others are left to
    /// the general loop.
    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    fn rows_with_heads<const N: usize>(
        &mut self,
        at: usize,
        src: &[u8],
        row: usize,
        heads: Heads<'_>,
    ) -> Option<usize> {
        let Some(ssse3) = self.copier.ssse3() else {
            return self.merged_rows_with_heads::<N>(at, src, row, heads);
        };
        // Rows of 2 to 16 bytes, a power of two, with a head each: several
        // rows a register. Rows of 16 bytes that the 16-byte loop would
        // stream, and this one could not (an output off a 32-byte
        // boundary), stay with it.
        let streams_16 = |dst: &[u8]| {
            self.stream.is_some() && dst.as_ptr().align_offset(16) == 0 && dst.as_ptr().align_offset(32) != 0
        };
        let short = self.copier.avx2().filter(|_| {
            matches!(row, 2 | 4 | 8) || (row == 16 && !self.dst.get(at..).is_some_and(streams_16))
        });
        if let (Heads::Each(_) | Heads::Bytes(_), Some(isa)) = (heads, short) {
            let dst = self.dst.get_mut(at..at.checked_add(src.len())?)?;
            let stream =
                self.stream.filter(|_| dst.as_ptr().align_offset(32) == 0 && src.len() >= STREAM_MIN_RUN);
            macro_rules! short {
                ($row:literal) => {
                    match (heads, stream) {
                        (Heads::Bytes(list), Some(stream)) => {
                            x86::short_rows_with_heads::<_, _, $row, N>(isa, stream, src, dst, list)
                        }
                        (Heads::Bytes(list), None) => {
                            x86::short_rows_with_heads::<_, _, $row, N>(isa, x86::Plain, src, dst, list)
                        }
                        (Heads::Each(list), Some(stream)) => {
                            x86::short_rows_with_heads::<_, _, $row, N>(isa, stream, src, dst, list)
                        }
                        (Heads::Each(list), None) => {
                            x86::short_rows_with_heads::<_, _, $row, N>(isa, x86::Plain, src, dst, list)
                        }
                        _ => 0,
                    }
                };
            }
            return Some(match row {
                2 => short!(2),
                4 => short!(4),
                8 => short!(8),
                _ => short!(16),
            });
        }
        // Other rows shorter than a register with a head each, and rows
        // shorter than a register that share a head: one row a register,
        // two for rows of up to 16 bytes, up to four a lane for rows of 3,
        // 5, 6 and 7 bytes with a head each.
        // (Rows of 16 bytes left here go to the 16-byte loops.)
        if let (Some(isa), true) = (self.copier.avx2(), row < 32 && row != 16) {
            let dst = self.dst.get_mut(at..at.checked_add(src.len())?)?;
            return Some(match heads {
                Heads::Each(list) => x86::narrow_rows_with_heads::<N>(isa, src, dst, row, list),
                Heads::Same(n) => self.narrow_rows_with_same_head::<N>(isa, at, src, row, n)?,
                // Byte heads come only with rows of 2 to 16 bytes, a power
                // of two, and of 17 to 31 (from ReverseSequence's checked
                // lengths, and its short runs of rows sharing a length).
                Heads::Bytes(list) => x86::narrow_rows_with_byte_heads::<N>(isa, src, dst, row, list),
                Heads::EachWide(_) => 0,
            });
        }
        if !row.is_multiple_of(16) {
            // Longer rows that share a head: a register at a time over
            // periods of rows, where their period is short enough.
            return match (heads, self.copier.avx2()) {
                (Heads::Same(n), Some(isa)) => self.narrow_rows_with_same_head::<N>(isa, at, src, row, n),
                _ => Some(0),
            };
        }
        let dst = self.dst.get_mut(at..at.checked_add(src.len())?)?;
        // Every block is written whole and in order, so the streaming
        // stores fill whole lines wherever the output starts (only the
        // first and last line may be partial); the stores themselves need
        // 16-byte blocks, and without them the loops still beat the
        // general one with ordinary stores.
        let stream =
            self.stream.filter(|_| dst.as_ptr().align_offset(16) == 0 && src.len() >= STREAM_MIN_RUN);
        // The 32-byte loops stream only from a 32-byte boundary.
        let stream32 = stream.filter(|_| dst.as_ptr().align_offset(32) == 0);
        // Rows of whole 32-byte registers, two at least, with a head each
        // go by blends ([`x86::wide_rows_with_heads`]), on rows of up to
        // [`BLENDED_HEADS_MAX_ROW`] bytes, unless they would give up
        // streaming stores that the other loops make.
        let blended = self.copier.avx2().filter(|_| {
            matches!(heads, Heads::Each(_) | Heads::Bytes(_))
                && (64..=BLENDED_HEADS_MAX_ROW).contains(&row)
                && row.is_multiple_of(32)
                && src.len() > row
                && stream.is_some() == stream32.is_some()
        });
        // Measured with AVX2 on rows of whole 32-byte registers only.
        let same_head = matches!(heads, Heads::Same(_))
            && row <= SAME_HEAD_MAX_ROW
            && row.is_multiple_of(32)
            && self.copier.avx2().is_some();
        if row >= HEADS_MAX_ROW && blended.is_none() && !same_head {
            return Some(0);
        }
        let done = match (heads, stream) {
            (Heads::Same(n), _) => widest!(
                self.copier,
                stream,
                |isa, stores| x86::rows_with_same_head::<_, _, N>(isa, stores, src, dst, row, n.saturating_mul(N)),
                else 0
            ),
            // Rows of one 32-byte register with a head each take one
            // register each.
            (Heads::Each(_) | Heads::Bytes(_), _) if self.copier.one_register_rows(row) => {
                match (self.copier.avx2(), stream32) {
                    (Some(isa), Some(stream)) => x86::rows32_with_heads::<_, N>(isa, stream, src, dst, heads),
                    (Some(isa), None) => x86::rows32_with_heads::<_, N>(isa, x86::Plain, src, dst, heads),
                    (None, _) => 0,
                }
            }
            (_, _) if blended.is_some() => match (blended, stream32) {
                (Some(isa), Some(stream)) => {
                    x86::wide_rows_with_heads::<_, N>(isa, stream, src, dst, row, heads)
                }
                (Some(isa), None) => x86::wide_rows_with_heads::<_, N>(isa, x86::Plain, src, dst, row, heads),
                (None, _) => 0,
            },
            (Heads::Each(_) | Heads::Bytes(_), Some(stream)) => {
                x86::rows_with_heads::<_, N>(ssse3, stream, src, dst, row, heads)
            }
            (Heads::Each(_) | Heads::Bytes(_), None) => {
                x86::rows_with_heads::<_, N>(ssse3, x86::Plain, src, dst, row, heads)
            }
            // Counts too wide for 32 bits belong to rows far longer than
            // these loops take.
            (Heads::EachWide(_), _) => 0,
        };
        Some(done)
    }

    /// Without SIMD, rows of the lengths `permute` takes (up to 56 bytes)
    /// go through its merges, and the rest through the general loop.
    #[cfg(not(all(target_arch = "x86_64", not(feature = "no-simd"))))]
    fn rows_with_heads<const N: usize>(
        &mut self,
        at: usize,
        src: &[u8],
        row: usize,
        heads: Heads<'_>,
    ) -> Option<usize> {
        self.merged_rows_with_heads::<N>(at, src, row, heads)
    }

    /// The part of [`RunWriter::rows`] for rows with heads that the
    /// portable merges write ([`ReverseCopier::short_rows_with_heads`]), or
    /// for rows they do not take, the portable block loop
    /// ([`ReverseCopier::block_rows`], each element a block, such as the
    /// 16-byte elements of rows of 128 bytes): how many bytes of `src`
    /// (whole rows) they wrote at `at`.
    fn merged_rows_with_heads<const N: usize>(
        &mut self,
        at: usize,
        src: &[u8],
        row: usize,
        heads: Heads<'_>,
    ) -> Option<usize> {
        let dst = self.dst.get_mut(at..at.checked_add(src.len())?)?;
        let done = self.copier.short_rows_with_heads::<N>(row, src, dst, heads);
        if done > 0 {
            return Some(done);
        }
        Some(self.copier.listed_block_rows(src, dst, (row, N), heads))
    }

    /// The SIMD part of [`RunWriter::rows`] for rows reversed whole: how
    /// many bytes of `src` (whole rows) it wrote at `at`.
    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    fn reverse_whole_rows<const N: usize>(&mut self, at: usize, src: &[u8], row: usize) -> Option<usize> {
        if self.copier.ssse3().is_none() {
            return self.permuted_whole_rows::<N>(at, src, row);
        }
        let dst = self.dst.get_mut(at..at.checked_add(src.len())?)?;
        // Streaming needs rows made of whole lines (or lines made of whole
        // rows) starting on a line.
        let stream = self.stream.filter(|_| {
            dst.as_ptr().align_offset(64) == 0
                && (row <= 16 || row.is_multiple_of(64))
                && src.len() >= STREAM_MIN_RUN
        });
        let done = widest!(
            self.copier,
            stream,
            |isa, stores| x86::reverse_rows::<_, _, N>(isa, stores, src, dst, row),
            else 0
        );
        // Rows that those loops do not take (under 32 bytes, lengths other
        // than 2, 4, 8 and 16; longer ones, lengths not a multiple of 16):
        // a register at a time over periods of rows when there are enough
        // of them and the period is short enough, else rows under 32
        // bytes one to a register, two for rows of up to 16 bytes.
        if let (0, Some(isa)) = (done, self.copier.avx2()) {
            return self.narrow_rows_with_same_head::<N>(isa, at, src, row, row / N);
        }
        Some(done)
    }

    /// Rows that share a head of `head` elements, written at `at` with
    /// AVX2 ([`x86::narrow_rows_with_same_head`]: rows under 32 bytes, and
    /// longer ones with a short enough period), streaming where the output
    /// starts on a 32-byte boundary: how many bytes of `src` (whole rows)
    /// were written.
    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    fn narrow_rows_with_same_head<const N: usize>(
        &mut self,
        isa: x86::Avx2,
        at: usize,
        src: &[u8],
        row: usize,
        head: usize,
    ) -> Option<usize> {
        let dst = self.dst.get_mut(at..at.checked_add(src.len())?)?;
        let stream =
            self.stream.filter(|_| dst.as_ptr().align_offset(32) == 0 && src.len() >= STREAM_MIN_RUN);
        let patterns = &mut self.patterns;
        Some(match stream {
            Some(stream) => {
                x86::narrow_rows_with_same_head::<_, N>(isa, stream, (src, dst), row, head, patterns)
            }
            None => x86::narrow_rows_with_same_head::<_, N>(isa, x86::Plain, (src, dst), row, head, patterns),
        })
    }

    /// Without SIMD, rows of the lengths `permute` takes go through its
    /// blocks, and the rest through the general loop.
    #[cfg(not(all(target_arch = "x86_64", not(feature = "no-simd"))))]
    fn reverse_whole_rows<const N: usize>(&mut self, at: usize, src: &[u8], row: usize) -> Option<usize> {
        self.permuted_whole_rows::<N>(at, src, row)
    }

    /// The part of [`RunWriter::rows`] for rows reversed whole that the
    /// portable blocks write ([`ReverseCopier::reverse_short_rows`]): how
    /// many bytes of `src` (whole rows) they wrote at `at`.
    fn permuted_whole_rows<const N: usize>(&mut self, at: usize, src: &[u8], row: usize) -> Option<usize> {
        let dst = self.dst.get_mut(at..at.checked_add(src.len())?)?;
        Some(self.copier.reverse_short_rows::<N>(row, src, dst))
    }
}

#[cfg(test)]
mod tests;
