//! SSE2, which every x86_64 CPU has: copies that keep bytes in order,
//! with streaming stores. No token is needed; a [`Streaming`] witness is.
//!
//! They stay at 16 bytes: a streamed line costs the same memory traffic
//! whichever register width fills it, and at 16 bytes they run on every
//! x86_64 CPU.

use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};

use super::{aligned, Streaming};

/// Copies the 16 bytes at `i` to `o` with a streaming store.
///
/// # Safety
/// `i` must be valid for a 16-byte read, and `o` for a 16-byte write on a
/// 16-byte boundary.
#[inline(always)]
unsafe fn stream_block(_: Streaming, i: *const u8, o: *mut u8) {
    // SAFETY: the caller guarantees the read, the write and its alignment;
    // the load takes any address; SSE2 is part of x86_64; the witness
    // promises the fence.
    unsafe { _mm_stream_si128(o.cast::<__m128i>(), _mm_loadu_si128(i.cast::<__m128i>())) }
}

/// Copies the whole 64-byte lines of `src` to the start of `dst` with
/// streaming stores; returns how many bytes it copied, which is 0 when
/// `dst` does not start on a 16-byte boundary.
pub(in crate::kernels::copy) fn stream_forward(stream: Streaming, src: &[u8], dst: &mut [u8]) -> usize {
    if !aligned(dst.as_ptr(), 16) {
        return 0;
    }
    // SAFETY: checked just above.
    unsafe { stream_lines(stream, src, dst) }
}

/// [`stream_forward`] without the alignment check.
///
/// # Safety
/// `dst` must start on a 16-byte boundary.
#[inline(always)]
unsafe fn stream_lines(stream: Streaming, src: &[u8], dst: &mut [u8]) -> usize {
    let mut done = 0;
    for (o, i) in dst.chunks_exact_mut(64).zip(src.chunks_exact(64)) {
        for k in 0..4 {
            // SAFETY: `i` and `o` are 64 bytes long, so the 16 bytes at `16
            // * k` (k < 4) lie inside them; `o` lies a multiple of 64 bytes
            // after `dst`, which the caller guarantees starts on a 16-byte
            // boundary.
            unsafe { stream_block(stream, i.as_ptr().add(16 * k), o.as_mut_ptr().add(16 * k)) };
        }
        done += 64;
    }
    done
}

/// Copies the blocks of `block` bytes of `src` into `dst` (same length, a
/// whole number of blocks) in order, the rows of `row` bytes of each block
/// in reverse row order, each row in order, with streaming stores; the
/// source is read upwards, as
/// [`RunWriter::descending_rows`](crate::kernels::copy::RunWriter::descending_rows)
/// explains. Returns whether it did: `row` must be a multiple of 16 that
/// divides `block`, and `dst` must start on a 16-byte boundary.
pub(in crate::kernels::copy) fn stream_descending_rows(
    stream: Streaming,
    src: &[u8],
    dst: &mut [u8],
    row: usize,
    block: usize,
) -> bool {
    let fits = row > 0 && row.is_multiple_of(16) && block > 0 && block.is_multiple_of(row);
    if !fits || !aligned(dst.as_ptr(), 16) {
        return false;
    }
    let blocks = dst.chunks_exact_mut(block).zip(src.chunks_exact(block));
    for (o, i) in blocks.flat_map(|(o, i)| o.rchunks_exact_mut(row).zip(i.chunks_exact(row))) {
        // Whole lines four blocks a step while they last, so the loop costs
        // little next to the copy even on short rows.
        // SAFETY: `o` starts a whole number of rows, multiples of 16
        // bytes, after `dst`, which starts on a 16-byte boundary.
        let mut q = unsafe { stream_lines(stream, i, o) };
        while q < row {
            // SAFETY: `row` is a multiple of 16 and `q < row` too, so the 16
            // bytes at `q` lie inside `i` and `o`, which are `row` bytes
            // long; `o` starts a whole number of rows, multiples of 16
            // bytes, after `dst`, which starts on a 16-byte boundary.
            unsafe { stream_block(stream, i.as_ptr().add(q), o.as_mut_ptr().add(q)) };
            q += 16;
        }
    }
    true
}
