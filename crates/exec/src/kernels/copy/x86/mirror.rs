//! Rows shorter than a register in descending order, with AVX2: each
//! block is written with its rows in reverse order, the bytes of each row
//! in order, as in an NHWC image flipped left to right, where a row is one
//! pixel's channels.
//!
//! Output byte `o + j` of a block of `block` bytes (`o` a register's start,
//! a multiple of 32) lies at byte `b = (o + j) % row` of its row, and
//! comes from byte `32 - row - j + 2b` past the register's mirror (at
//! `block - o - 32`, where a plain reversal would read it). That depends on `o`
//! only through `o % row`, so the registers repeat their recipe every
//! `lcm(row, 32) / 32`, as in [`super::periodic`]. Here a register's low
//! lane reads higher addresses than its high lane, so a piece is 32 bytes
//! loaded with its lanes swapped, at a shift of its own from the mirror;
//! rows of up to 32 bytes need one to four pieces (two for rows of 3, 6
//! and 12 bytes). The registers go from the block's end down, so that the
//! input is read upwards (as the other loops for rows in descending order
//! explain), and rows of 3, 6, 12 and 24 bytes (RGB in elements of 1 to 8
//! bytes) keep their three registers' recipes in registers.
//!
//! A piece may start up to 30 bytes before its mirror and end up to 45
//! bytes past the mirror's 32. The registers whose pieces would leave the slices
//! (at the very start and end of the input) are left to a copy a row at a
//! time, and so is each block's tail past its last whole register.
//!
//! It has the 32-byte form only: without AVX2 these rows are copied one
//! at a time, as before it.

use std::arch::x86_64::{_mm256_loadu2_m128i, _mm256_or_si256};

use super::periodic::{cover, lcm, Register, MAX_REGISTERS};
use super::{Avx2, Simd, Stores, Width};

/// The most pieces a register needs: four, for rows of 23, 25, 26, 27
/// and 29 bytes.
const MAX_PIECES: usize = 4;

/// The smallest block taken: a block must hold more than the registers
/// at its ends that may be copied a row at a time, and a piece must not
/// reach past the block next to its own.
const MIN_BLOCK: usize = 128;

/// The fewest periods of registers an input must hold to be taken: the
/// recipe costs about as much to work out as a dozen periods cost to
/// write, which a row at a time would have written slower.
const MIN_PERIODS: usize = 16;

/// How the registers of a block of rows of one length in descending order
/// are built, over one period of registers.
struct Mirror {
    /// Registers in a period.
    registers: usize,
    /// The most pieces any register needs.
    pieces: usize,
    /// How far before its mirror a piece starts, at most.
    before: usize,
    /// How far past its mirror a piece ends, at most.
    reach: usize,
    /// For each register of the period and each piece, where it is
    /// loaded, from the register's mirror.
    shifts: [[isize; MAX_PIECES]; MAX_REGISTERS],
    /// For each register of the period and each piece, each byte's place
    /// in the piece's lane that serves it (the high for the register's low
    /// lane, the low for its high lane), or `-128` when another piece
    /// gives it.
    controls: [[[i8; 32]; MAX_PIECES]; MAX_REGISTERS],
}

impl Mirror {
    /// The recipe for rows of `row` bytes; `None` when `row` is 0 or above
    /// 32.
    fn new(row: usize) -> Option<Mirror> {
        if !(1..=32).contains(&row) {
            return None;
        }
        let registers = lcm(row, 32) / 32;
        let mut mirror = Mirror {
            registers,
            pieces: 1,
            before: 0,
            reach: 32,
            shifts: [[0; MAX_PIECES]; MAX_REGISTERS],
            controls: [[[i8::MIN; 32]; MAX_PIECES]; MAX_REGISTERS],
        };
        for (k, (shifts, controls)) in
            mirror.shifts.iter_mut().zip(mirror.controls.iter_mut()).take(registers).enumerate()
        {
            // Byte `j` is read `32 - row - j + 2b` past the mirror, from a
            // piece's high lane (16 bytes past the piece's start) for the
            // register's low lane, from its low lane for the high one.
            let wanted: [isize; 32] = std::array::from_fn(|j| {
                let b = (32 * k + j) % row;
                let high = if j < 16 { 16 } else { 0 };
                32 - row as isize - j as isize + 2 * b as isize - high
            });
            let n = cover(&wanted, shifts, controls, 0)?;
            // Pieces the register does not need load its first piece
            // again and give nothing.
            let first = shifts[0];
            shifts.iter_mut().skip(n).for_each(|s| *s = first);
            for &s in shifts.iter().take(n) {
                mirror.before = mirror.before.max(usize::try_from(-s).unwrap_or(0));
                mirror.reach = mirror.reach.max(usize::try_from(s + 32).unwrap_or(0));
            }
            mirror.pieces = mirror.pieces.max(n);
        }
        Some(mirror)
    }
}

impl Mirror {
    /// The registers of a block of `block` bytes (at least [`MIN_BLOCK`])
    /// whose pieces all read inside the block: from the first returned up,
    /// so not past its end, and below the second, so not before its start.
    /// The last block of the input is read from the first up, the first
    /// block below the second; the blocks between read all their
    /// registers, reaching into the blocks on either side.
    fn safe(&self, block: usize) -> (usize, usize) {
        let whole = block / 32;
        let low = self.reach.saturating_sub(32).div_ceil(32).min(whole);
        let high =
            block.saturating_sub(32).checked_sub(self.before).map_or(0, |room| room / 32 + 1).min(whole);
        (low, high)
    }
}

/// Copies the blocks of `block` bytes of `src` into `dst` (same length,
/// whole blocks), the rows of `row` bytes of each block in reverse order,
/// each row's bytes in order. Returns whether it did; it takes rows of up
/// to 32 bytes in blocks of at least [`MIN_BLOCK`] bytes, [`MIN_PERIODS`]
/// periods of them at least. When `S` streams,
/// `dst` must lie on a 32-byte boundary and `block` be a multiple of 32,
/// so that every store does; otherwise it writes nothing.
pub(in crate::kernels::copy) fn mirrored_rows<S: Stores>(
    isa: Avx2,
    stores: S,
    src: &[u8],
    dst: &mut [u8],
    row: usize,
    block: usize,
) -> bool {
    let fits = row > 0
        && block >= MIN_BLOCK
        && src.len() >= MIN_PERIODS * lcm(row, 32)
        && block.is_multiple_of(row)
        && src.len() == dst.len()
        && src.len().is_multiple_of(block);
    let aligned = !S::STREAMING || (dst.as_ptr().align_offset(32) == 0 && block.is_multiple_of(32));
    let Some(mirror) = Mirror::new(row).filter(|_| fits && aligned) else {
        return false;
    };
    match mirror.pieces {
        1 => play::<S, 1>(isa, stores, &mirror, src, dst, row, block),
        2 => play::<S, 2>(isa, stores, &mirror, src, dst, row, block),
        3 => play::<S, 3>(isa, stores, &mirror, src, dst, row, block),
        _ => play::<S, MAX_PIECES>(isa, stores, &mirror, src, dst, row, block),
    }
    true
}

/// The loop of [`mirrored_rows`], with `P` pieces a register (at least
/// `mirror.pieces`), on arguments it checked.
#[inline(always)]
fn play<S: Stores, const P: usize>(
    isa: Avx2,
    stores: S,
    mirror: &Mirror,
    src: &[u8],
    dst: &mut [u8],
    row: usize,
    block: usize,
) {
    let blocks = src.len() / block;
    let whole = block / 32;
    let (safe_low, safe_high) = mirror.safe(block);
    isa.run(
        #[inline(always)]
        || {
            let registers = Register::<P>::period(isa, mirror.registers, |k, p| {
                (mirror.shifts[k][p], mirror.controls[k][p])
            });
            let registers = registers.get(..mirror.registers).unwrap_or_default();
            for b in 0..blocks {
                let lowest = if b + 1 == blocks { safe_low } else { 0 };
                let highest = if b == 0 { safe_high } else { whole };
                // SAFETY: the block's `block` bytes at `b * block` lie
                // inside both slices. Register `q < whole` stores 32 bytes
                // at `32 * q <= block - 32`, on a 32-byte boundary when `S`
                // streams ([`mirrored_rows`]). Its pieces read from `m -
                // before` to `m + reach`, its mirror `m = block - 32 * q -
                // 32` lying in the block: at most `before` bytes before
                // the block and `reach - 32` past it, both less than
                // `MIN_BLOCK`, so inside the blocks on either side; in the
                // first block, where `q < safe_high`, not before it, and in
                // the last, where `q >= safe_low`, not past it.
                unsafe {
                    let from = src.as_ptr().add(b * block);
                    let to = dst.as_mut_ptr().add(b * block);
                    match <&[Register<P>; 3]>::try_from(registers) {
                        Ok(&three) => descend(isa, stores, &three, from, to, block, lowest, highest),
                        Err(_) => descend(isa, stores, registers, from, to, block, lowest, highest),
                    }
                }
                // The bytes the registers did not write: those of the
                // registers left out at the ends, and the block's tail past
                // its last whole register. Only those, so that no byte a
                // streaming store wrote is written again before the fence.
                let (input, output) = (&src[b * block..][..block], &mut dst[b * block..][..block]);
                copy_rows(input, output, row, 0..32 * lowest);
                copy_rows(input, output, row, 32 * highest.max(lowest)..block);
            }
        },
    );
}

/// Writes bytes `bytes` of `output`, a block of rows of `row` bytes in
/// descending order from `input`, a row (or the part of one inside
/// `bytes`) at a time.
fn copy_rows(input: &[u8], output: &mut [u8], row: usize, bytes: std::ops::Range<usize>) {
    let count = input.len() / row;
    for p in bytes.start / row..bytes.end.div_ceil(row).min(count) {
        let (lo, hi) = (bytes.start.max(p * row), bytes.end.min(p * row + row));
        let from = (count - 1 - p) * row + (lo - p * row);
        if let (Some(out), Some(part)) = (output.get_mut(lo..hi), input.get(from..from + (hi - lo))) {
            out.copy_from_slice(part);
        }
    }
}

/// Builds registers `lowest..highest` of one block, from the last down, so
/// that the input is read upwards. A whole period at a time, in a fixed
/// order, so that a period of a fixed length keeps its recipes in
/// registers; the registers outside whole periods one by one.
///
/// # Safety
/// As [`play`] says: every piece of those registers must read inside the
/// input, and their stores must fit the output.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn descend<S: Stores, const P: usize>(
    isa: Avx2,
    stores: S,
    registers: &[Register<P>],
    from: *const u8,
    to: *mut u8,
    block: usize,
    lowest: usize,
    highest: usize,
) {
    let k = registers.len().max(1);
    let top = (highest / k * k).max(lowest);
    let bottom = lowest.div_ceil(k) * k;
    // SAFETY: the caller's, for each register built.
    unsafe {
        for q in (top..highest).rev() {
            if let Some(register) = registers.get(q % k) {
                build(isa, stores, register, from, to, block, q);
            }
        }
        for period in (bottom / k..top / k).rev() {
            for (i, register) in registers.iter().enumerate().rev() {
                build(isa, stores, register, from, to, block, period * k + i);
            }
        }
        for q in (lowest..bottom.min(top)).rev() {
            if let Some(register) = registers.get(q % k) {
                build(isa, stores, register, from, to, block, q);
            }
        }
    }
}

/// Builds register `q` of a block from its pieces and stores it.
///
/// # Safety
/// As [`descend`].
#[inline(always)]
unsafe fn build<S: Stores, const P: usize>(
    isa: Avx2,
    stores: S,
    register: &Register<P>,
    from: *const u8,
    to: *mut u8,
    block: usize,
    q: usize,
) {
    // SAFETY: the caller guarantees every load and the store; the token
    // proves AVX2.
    unsafe {
        let mirror = from.add(block - 32 * q - 32);
        let mut out = isa.splat(0);
        for p in 0..P {
            let piece = mirror.offset(register.shift[p]);
            let v = _mm256_loadu2_m128i(piece.cast(), piece.add(16).cast());
            out = _mm256_or_si256(out, isa.shuffle(v, register.control[p]));
        }
        isa.store(stores, to.add(32 * q), out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::copy::x86::{Plain, Streaming};

    /// Every byte of every register of a period comes from exactly one
    /// piece, from the byte the rule names, for every row up to 32 bytes.
    #[test]
    fn every_byte_of_a_mirrored_register_comes_from_one_piece_and_the_right_byte() {
        for row in 1..=32 {
            let mirror = Mirror::new(row).expect("every row up to 32 bytes fits");
            assert!(mirror.reach - 32 <= 45 && mirror.before <= 30, "row {row}");
            // The registers `safe` keeps read inside their block, from each
            // end; all of them read inside the blocks on either side.
            for block in [MIN_BLOCK.div_ceil(row) * row, 50 * row, 257 * row] {
                let (low, high) = mirror.safe(block);
                for q in 0..block / 32 {
                    let m = (block - 32 * q - 32) as isize;
                    for &s in &mirror.shifts[q % mirror.registers] {
                        let (start, end) = (m + s, m + s + 32);
                        assert!(start >= -(block as isize) && end <= 2 * block as isize, "row {row}");
                        assert!(q < low || end <= block as isize, "row {row}, block {block}, register {q}");
                        assert!(q >= high || start >= 0, "row {row}, block {block}, register {q}");
                    }
                }
            }
            // A block long enough for every register of a period.
            let block = row * 64;
            for q in 0..mirror.registers {
                for j in 0..32 {
                    let i = 32 * q + j;
                    let want = (block / row - 1 - i / row) * row + i % row;
                    let m = (block - 32 * q - 32) as isize;
                    // The register's low lane reads the piece's high one.
                    let high = if j < 16 { 16 } else { 0 };
                    let given: Vec<isize> = (0..MAX_PIECES)
                        .filter(|&p| mirror.controls[q][p][j] >= 0)
                        .map(|p| m + mirror.shifts[q][p] + high + isize::from(mirror.controls[q][p][j]))
                        .collect();
                    assert_eq!(given, [want as isize], "row {row}, register {q}, byte {j}");
                }
            }
        }
        assert!(Mirror::new(0).is_none());
        assert!(Mirror::new(33).is_none());
    }

    /// Copied one row at a time, as the rule says.
    fn naive(src: &[u8], row: usize, block: usize) -> Vec<u8> {
        src.chunks(block).flat_map(|b| b.rchunks(row).flatten().copied().collect::<Vec<_>>()).collect()
    }

    /// Every row up to 32 bytes, blocks a multiple of 32 bytes and not,
    /// one block and several, on a line and off one, with and without
    /// streaming stores: every byte as the rule says and nothing outside.
    #[test]
    fn mirrored_rows_match_the_naive_copy() {
        let Some(isa) = Avx2::detect() else {
            eprintln!("no AVX2 on this CPU: mirrored_rows is not run");
            return;
        };
        for row in 1..=32 {
            let least = MIN_BLOCK.div_ceil(row);
            for count in [least, least + 1, 1920 / row.min(30), 257] {
                let block = row * count;
                // As few blocks as are taken, one block when that is
                // enough, and two more.
                let needed = (MIN_PERIODS * lcm(row, 32)).div_ceil(block);
                for blocks in [needed, needed + 2] {
                    let len = block * blocks;
                    let src: Vec<u8> = (0..len).map(|i| (i * 7 + i / 253) as u8).collect();
                    let expected = naive(&src, row, block);
                    let mut buf = vec![0xA5u8; len + 128];
                    let line = buf.as_ptr().align_offset(64);
                    for (at, stream) in [(line, false), (line + 3, false), (line + 32, true)] {
                        buf.fill(0xA5);
                        let dst = &mut buf[at..at + len];
                        let done = if stream {
                            // SAFETY: the fence follows the only streaming call.
                            let stream = unsafe { Streaming::new() };
                            let done = mirrored_rows(isa, stream, &src, dst, row, block);
                            stream.fence();
                            done
                        } else {
                            mirrored_rows(isa, Plain, &src, dst, row, block)
                        };
                        let what =
                            format!("row {row}, block {block}, {blocks} blocks, at {at}, stream {stream}");
                        if stream && !block.is_multiple_of(32) {
                            assert!(!done, "{what}");
                            assert!(buf.iter().all(|&b| b == 0xA5), "{what}");
                            continue;
                        }
                        assert!(done, "{what}");
                        if let Some(k) = (0..len).find(|&k| buf[at + k] != expected[k]) {
                            panic!("{what}: byte {k} is {}, the rule gives {}", buf[at + k], expected[k]);
                        }
                        assert!(buf[..at].iter().chain(&buf[at + len..]).all(|&b| b == 0xA5), "{what}");
                    }
                }
            }
            // Too few periods, blocks too short, not whole rows, or not
            // whole blocks: nothing.
            let block = MIN_BLOCK.div_ceil(row) * row;
            let few = ((MIN_PERIODS * lcm(row, 32)).div_ceil(block) - 1) * block;
            let src = vec![1u8; few];
            let mut dst = vec![0u8; few];
            assert!(few == 0 || !mirrored_rows(isa, Plain, &src, &mut dst, row, block));
            assert!(dst.iter().all(|&b| b == 0));
            let src = vec![1u8; 4 * MIN_BLOCK * row];
            let mut dst = vec![0u8; src.len()];
            let short = (MIN_BLOCK - 1) / row * row;
            if short > 0 {
                assert!(!mirrored_rows(isa, Plain, &src[..short], &mut dst[..short], row, short));
            }
            let block = MIN_BLOCK * row;
            assert!(!mirrored_rows(isa, Plain, &src[..block + row], &mut dst[..block + row], row, block));
            if row > 1 {
                assert!(!mirrored_rows(isa, Plain, &src[..block + 1], &mut dst[..block + 1], row, block + 1));
            }
            assert!(dst.iter().all(|&b| b == 0));
        }
    }
}
