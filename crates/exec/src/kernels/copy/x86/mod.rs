//! The x86_64 copy routines: 16-byte (SSSE3) and 32-byte (AVX2) shuffle
//! loops, streaming copies at either width, and a few loops that AVX-512
//! widens or shortens.
//!
//! A routine that uses SSSE3 or AVX2 takes a token of the kernels' SIMD
//! layer (`kernels::simd`), [`Ssse3`] or [`Avx2`]: holding one proves the
//! instructions are there, so the routines are safe to call, and the
//! `unsafe` left in them is about memory: pointers into slices, and the
//! alignment streaming stores need, which each routine checks itself.
//!
//! The routines that do the same thing at both widths are written once,
//! generic over [`Width`], the byte shuffles and selects the copy loops
//! need, which both tokens implement on top of [`Simd`] (their register,
//! loads, stores and [`Simd::run`], which compiles the loop with the
//! token's instructions enabled). The strips are generic over
//! `strips::Selects`, which every `Width` implements and so does
//! AVX-512's token, whose selects take mask registers. Whether a routine
//! stores with ordinary or streaming instructions is a type too,
//! [`Stores`]: [`Plain`], or [`Streaming`], lent by the layer's
//! `streaming`, which fences after the call it lends it to.
//!
//! - `reverse`: reversed runs, rows reversed whole, and rows that share
//!   one head, at either width.
//! - `ssse3`: rows with a head each, at 16 bytes only.
//! - `avx2`: rows in descending order with ordinary stores, and rows with
//!   a head each (shorter than, equal to, or whole multiples of a
//!   register), at 32 bytes only.
//! - `periodic`: rows shorter than a register that all move alike, a
//!   register at a time, with AVX2.
//! - `mirror`: rows shorter than a register in descending order, a
//!   register at a time, with AVX2.
//! - `stream`: streaming copies that keep the bytes of each row in order,
//!   at either width.
//! - `lanes`: three lanes of bytes pulled apart and put together (an
//!   8-bit image's channels), with SSSE3's byte shuffles.
//! - `gather`: ReverseSubsequences' columns, each element from the row
//!   its length picks, with AVX2's gathers (which have no 16-byte form in
//!   SSSE3).
//! - `strips`: ReverseSubsequences on one register's width of columns,
//!   by byte-wise selects, at either width, and at 64 bytes with AVX-512.
//! - `avx512`: the selects of AVX-512 F and BW's token (which the AVX2 one
//!   carries where the CPU has it) for the strips.
//! - `tiles`: square blocks of 1-, 2-, 4- and 8-byte elements transposed
//!   in registers, for Transpose and the ops that move like it.
//! - `transpose`: ReverseSubsequences on axes of up to 8 rows, a register
//!   of columns turned into lines and back in registers, and 8-byte
//!   elements on longer axes through lines staged in a buffer, with AVX2.
//! - `words`: groups of rows (one of 64 or 96 bytes, two of 48, four of
//!   24, or one of 36 to 92 bytes in the registers it reaches into, a row
//!   apart) made of blocks of whole 4-byte words with a head each, every
//!   register permuted from the group's by a control its heads pick, with
//!   AVX2.
//! - `windows`: rows longer than 96 bytes made of blocks of 3, 5, 6 or 7
//!   whole 4-byte words with a head each, every register permuted from a
//!   window of 16 words its head places, with AVX2.
//! - `vbmi`: rows of 17 to 31 bytes of 1- or 2-byte elements with a head
//!   each, one byte permute across a register a row, with AVX-512 VBMI
//!   (whose token the AVX2 one carries where the CPU has it).
//!
//! Each of `ssse3`, `avx2`, `periodic`, `mirror`, `gather`, `transpose`,
//! `words`, `windows` and `vbmi` says why it has one width.

mod avx2;
mod avx512;
mod gather;
mod lanes;
mod mirror;
mod periodic;
mod reverse;
mod shuffle;
mod ssse3;
mod stream;
mod strips;
mod tiles;
mod transpose;
mod vbmi;
mod windows;
mod words;

pub(super) use avx2::{
    descending_rows, narrow_rows_with_byte_heads, narrow_rows_with_heads, narrow_rows_with_same_head,
    rows32_with_heads, short_rows_with_heads, wide_rows_with_heads,
};
pub(super) use gather::subsequence_columns;
pub(super) use mirror::mirrored_rows;
pub(super) use periodic::Patterns;
pub(super) use reverse::{reverse_blocks, reverse_rows, rows_with_same_head};
pub(super) use shuffle::shuffle_blocks;
pub(super) use ssse3::rows_with_heads;
pub(super) use stream::{stream_descending_rows, stream_forward};
pub(super) use strips::subsequence_strip;
pub(super) use tiles::{transpose_with_avx2, transpose_with_sse2};
pub(super) use transpose::{subsequence_lines, subsequence_transposed};
pub(super) use windows::{word_window_rows, WordWindows};
pub(super) use words::{word_block_rows, WordTable};

use crate::kernels::simd::{streaming, Avx512, Stores, Vbmi};
pub(super) use crate::kernels::simd::{Avx2, Plain, Simd, Ssse3, Streaming};

/// A register width and the few instructions the copy loops need at it.
///
/// # Safety
/// A value of an implementing type must exist only when the running CPU
/// has every instruction its methods use, and the features [`Simd::run`]
/// enables: the methods' `unsafe` blocks rely on that.
pub(super) unsafe trait Width: Simd {
    /// The 16-byte instruction set this one includes, for the blocks at a
    /// run's end too short for a whole register.
    fn ssse3(self) -> Ssse3;

    /// The narrower width to fall back on when this one cannot take a
    /// shape (rows of 16 bytes in 32-byte registers): `None` at 16 bytes.
    fn narrower(self) -> Option<Ssse3>;

    /// The 16-byte shuffle control `c` in every 16-byte lane.
    fn control(self, c: [i8; 16]) -> Self::Reg;

    /// The bytes of each 16-byte lane of `v` picked by `control`'s bytes
    /// for that lane (`pshufb`).
    fn shuffle(self, v: Self::Reg, control: Self::Reg) -> Self::Reg;

    /// The register at `p` with its 16-byte lanes in reverse order, so
    /// that one in-lane shuffle then reverses all of it. For 32 bytes the
    /// swap is done by the two loads, not by a second shuffle competing for
    /// the port shuffles share.
    ///
    /// # Safety
    /// `p` must be valid for reading `BYTES` bytes (any alignment).
    unsafe fn load_lanes_reversed(self, p: *const u8) -> Self::Reg;

    /// `v` in every byte.
    fn splat(self, v: u8) -> Self::Reg;

    /// The bytes of `far` where `mask`'s byte is all ones, else those of
    /// `near`; `mask`'s bytes are all ones or all zeros.
    fn select(self, near: Self::Reg, far: Self::Reg, mask: Self::Reg) -> Self::Reg;

    /// All ones in the bytes where `a & b` equals `b`, else zeros.
    fn has_bits(self, a: Self::Reg, b: Self::Reg) -> Self::Reg;

    /// All ones in the bytes of `v` that are 0, else zeros.
    fn is_zero(self, v: Self::Reg) -> Self::Reg;

    /// Each byte of `a` less the one of `b`, 0 where that would be
    /// negative.
    fn sub_saturating(self, a: Self::Reg, b: Self::Reg) -> Self::Reg;

    /// The smaller of each pair of bytes, as unsigned numbers.
    fn min(self, a: Self::Reg, b: Self::Reg) -> Self::Reg;

    /// Whether any byte of `mask`, whose bytes are all ones or all
    /// zeros, is all ones.
    fn any(self, mask: Self::Reg) -> bool;
}

// Every x86_64 target enables SSE and SSE2 for all code: the prefetch
// needs no token, and its `unsafe` block rests on this.
const _: () = assert!(cfg!(target_feature = "sse2"));

/// Asks for the 64-byte line at `p` to be brought into the cache. A
/// prefetch is a hint: it never faults, whatever the address, and is never
/// dereferenced, so `p` may lie past the end of its slice.
#[inline(always)]
fn prefetch(p: *const u8) {
    // SAFETY: `prefetcht0` belongs to SSE, which every x86_64 CPU has, and
    // takes any address.
    unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast()) };
}

/// Asks for the lines that hold the first `max` bytes of `src` (all of
/// it when shorter) to be brought into the cache, one at a time, from the
/// line of the first byte to that of the last.
pub(super) fn prefetch_lines(src: &[u8], max: usize) {
    let skew = src.as_ptr() as usize % 64;
    let line = src.as_ptr().wrapping_sub(skew);
    for k in (0..src.len().min(max) + skew).step_by(64) {
        prefetch(line.wrapping_add(k));
    }
}

/// Whether `p` lies on a multiple of `align` bytes.
#[inline(always)]
fn aligned(p: *const u8, align: usize) -> bool {
    p.align_offset(align) == 0
}

/// How many rows of `row` bytes (at most 32, a multiple of `n`) the
/// narrow loops (of `avx2` and `vbmi`) may write: those whose 32 bytes lie inside both slices.
fn narrow_rows_in(src: &[u8], dst: &[u8], row: usize, n: usize) -> usize {
    let len = src.len().min(dst.len());
    if row == 0 || row > 32 || !row.is_multiple_of(n) || len < 32 {
        return 0;
    }
    (len - 32) / row + 1
}

/// [`super::portable::deinterleave_lanes`], compiled for AVX2 (whose byte
/// shuffles move a block's lanes in a few instructions) when the CPU has
/// it.
pub(in crate::kernels) fn deinterleave<const K: usize, const N: usize>(
    src: &[u8],
    dst: &mut [u8],
    pitch: usize,
) -> Option<()> {
    if K == 3 && N == 1 {
        return lanes::deinterleave3_bytes(src, dst, pitch);
    }
    if let Some(isa) = Avx2::detect() {
        return isa.run(
            #[inline(always)]
            || super::portable::deinterleave_lanes::<K, N>(src, dst, pitch),
        );
    }
    super::portable::deinterleave_lanes::<K, N>(src, dst, pitch)
}

/// [`super::portable::interleave_lanes`], compiled for AVX2 when the CPU
/// has it.
pub(in crate::kernels) fn interleave<const K: usize, const N: usize>(
    src: &[u8],
    pitch: usize,
    dst: &mut [u8],
) -> Option<()> {
    if K == 3 && N == 1 {
        return lanes::interleave3_bytes(src, pitch, dst);
    }
    if let Some(isa) = Avx2::detect() {
        return isa.run(
            #[inline(always)]
            || super::portable::interleave_lanes::<K, N>(src, pitch, dst),
        );
    }
    super::portable::interleave_lanes::<K, N>(src, pitch, dst)
}
