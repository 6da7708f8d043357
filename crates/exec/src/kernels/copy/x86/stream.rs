//! Streaming copies that keep the bytes of each row in order, written once
//! for both register widths.
//!
//! The width matters even though a streamed line costs the same memory
//! traffic either way. On the Zen 3 machine of `docs/performance.md`, a
//! standalone copy of 256 MiB took 32–38 ms with 16-byte streaming stores
//! and 26–30 ms with 32-byte ones, level with the library's memcpy
//! (23–27 ms), so within about 10% of it, over four rounds. So the caller
//! passes the widest token it
//! has, and a CPU without SSSE3 (which makes no token) copies with
//! ordinary stores.

use super::{aligned, Streaming, Width};

/// Copies the whole 64-byte lines of `src` to the start of `dst` with
/// streaming stores of `W`'s width; returns how many bytes it copied,
/// which is 0 when `dst` does not start on a `W::BYTES` boundary.
pub(in crate::kernels::copy) fn stream_forward<W: Width>(
    isa: W,
    stream: Streaming<'_>,
    src: &[u8],
    dst: &mut [u8],
) -> usize {
    if !aligned(dst.as_ptr(), W::BYTES) {
        return 0;
    }
    isa.run(
        #[inline(always)]
        // SAFETY: checked just above.
        || unsafe { stream_lines(isa, stream, src, dst) },
    )
}

/// [`stream_forward`] without the alignment check.
///
/// # Safety
/// `dst` must start on a `W::BYTES` boundary.
#[inline(always)]
unsafe fn stream_lines<W: Width>(isa: W, stream: Streaming<'_>, src: &[u8], dst: &mut [u8]) -> usize {
    let mut done = 0;
    for (o, i) in dst.chunks_exact_mut(64).zip(src.chunks_exact(64)) {
        // SAFETY: `i` and `o` are 64 bytes long, a multiple of `W::BYTES`
        // (16 or 32); `o` lies a multiple of 64 bytes after `dst`, which
        // the caller guarantees starts on a `W::BYTES` boundary.
        unsafe { stream_registers(isa, stream, i, o) };
        done += 64;
    }
    done
}

/// Copies `i` to `o`, both of the same length, a multiple of `W::BYTES`,
/// a register at a time with streaming stores.
///
/// # Safety
/// `o` must start on a `W::BYTES` boundary, and both slices must be as
/// long as `o`.
#[inline(always)]
unsafe fn stream_registers<W: Width>(isa: W, stream: Streaming<'_>, i: &[u8], o: &mut [u8]) {
    debug_assert!(o.len().is_multiple_of(W::BYTES) && i.len() >= o.len());
    let mut q = 0;
    while q + W::BYTES <= o.len() {
        // SAFETY: the register at `q` lies inside both slices, which the
        // caller guarantees are as long; `q` is a multiple of `W::BYTES`
        // from `o`'s start, which the caller guarantees is aligned to it.
        unsafe { isa.store(stream, o.as_mut_ptr().add(q), isa.load(i.as_ptr().add(q))) };
        q += W::BYTES;
    }
}

/// Copies the blocks of `block` bytes of `src` into `dst` (same length, a
/// whole number of blocks) in order, the rows of `row` bytes of each block
/// in reverse row order, each row in order, with streaming stores of `W`'s
/// width; the source is read upwards, as
/// [`RunWriter::descending_rows`](crate::kernels::copy::RunWriter::descending_rows)
/// explains. Returns whether it did: `row` must be a multiple of
/// `W::BYTES` that divides `block`, and `dst` must start on a `W::BYTES`
/// boundary.
///
/// Rows of 32 bytes go two at a time, so that each cache line of the
/// output is written whole and upwards (the higher row of the pair is
/// stored first, into the lower half) when `dst` lies on a 32-byte
/// boundary, as it does at 32 bytes wide; at 16 bytes a pair may straddle
/// two lines. Written a row at a time, each line got its upper half before
/// its lower one. In a standalone copy of
/// 256 MiB of such rows with 32-byte stores, pairs took 25–26.5 ms and
/// single rows 28–30.5 (the library's memcpy 27–30), over four rounds.
pub(in crate::kernels::copy) fn stream_descending_rows<W: Width>(
    isa: W,
    stream: Streaming<'_>,
    src: &[u8],
    dst: &mut [u8],
    row: usize,
    block: usize,
) -> bool {
    let fits = row > 0 && row.is_multiple_of(W::BYTES) && block > 0 && block.is_multiple_of(row);
    if !fits || src.len() != dst.len() || !aligned(dst.as_ptr(), W::BYTES) {
        return false;
    }
    isa.run(
        #[inline(always)]
        || {
            for (o, i) in dst.chunks_exact_mut(block).zip(src.chunks_exact(block)) {
                if row == 32 {
                    // SAFETY: `o` starts a whole number of 32-byte rows
                    // after `dst`, on a `W::BYTES` boundary as it is.
                    unsafe { descending_pairs(isa, stream, i, o) };
                    continue;
                }
                for (o, i) in o.rchunks_exact_mut(row).zip(i.chunks_exact(row)) {
                    // Whole lines four blocks a step while they last, so the
                    // loop costs little next to the copy even on short rows.
                    // SAFETY: `o` starts a whole number of rows, multiples of
                    // `W::BYTES`, after `dst`, which starts on such a
                    // boundary; `i` and `o` are `row` bytes long.
                    unsafe {
                        let q = stream_lines(isa, stream, i, o);
                        if let (Some(i), Some(o)) = (i.get(q..), o.get_mut(q..)) {
                            stream_registers(isa, stream, i, o);
                        }
                    }
                }
            }
        },
    );
    true
}

/// One block of [`stream_descending_rows`] with rows of 32 bytes: the
/// output's rows from its first line boundary on, in pairs that fill a
/// line each; the row before that boundary and a last row without a pair
/// on their own.
///
/// # Safety
/// `o` must start on a `W::BYTES` boundary and be as long as `i`, a
/// multiple of 32 bytes.
#[inline(always)]
unsafe fn descending_pairs<W: Width>(isa: W, stream: Streaming<'_>, i: &[u8], o: &mut [u8]) {
    let len = o.len();
    // Output row 0 (the input's last row) is alone when the block starts in
    // the middle of a line: 32 bytes before the next line boundary, where
    // `o` lies on a 32-byte boundary as it does when `W` is 32 bytes wide.
    // Rounded down to whole rows, and never past the block.
    let to_line = (o.as_ptr() as usize).wrapping_neg() % 64;
    let lead = to_line.min(len) / 32 * 32;
    let pairs = (len - lead) / 64;
    let tail = len - lead - 64 * pairs;
    let (o_lead, o_rest) = o.split_at_mut(lead);
    let (o_pairs, o_tail) = o_rest.split_at_mut(64 * pairs);
    // The input in the order it is read: the row that lands last, the pairs,
    // then the row that lands first.
    let (i_tail, i_rest) = i.split_at(tail);
    let (i_pairs, i_lead) = i_rest.split_at(64 * pairs);
    // SAFETY: every piece of `o` starts a multiple of 32 bytes after `o`,
    // on a `W::BYTES` boundary as `o` is (`W::BYTES` is 16 or 32), and each
    // is as long as its piece of `i`, a multiple of 32 bytes.
    unsafe {
        stream_registers(isa, stream, i_tail, o_tail);
        for (o, i) in o_pairs.chunks_exact_mut(64).zip(i_pairs.rchunks_exact(64)).rev() {
            let (low, high) = o.split_at_mut(32);
            let (first, second) = i.split_at(32);
            stream_registers(isa, stream, second, low);
            stream_registers(isa, stream, first, high);
        }
        stream_registers(isa, stream, i_lead, o_lead);
    }
}
