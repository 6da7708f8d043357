//! Rows made of blocks of whole 4-byte words, in groups of two or three
//! 32-byte registers, with AVX2: a ReverseSequence whose sequences are
//! such rows, the first `h` blocks of each in reverse order and the rest in
//! place. Twelve bytes after a sequence axis of eight positions make rows
//! of 96 bytes, one to a group; of four positions, rows of 48, two to a
//! group. A row of 36 to 92 bytes other than 48 and 64, which fills no
//! whole registers, goes one to a group of the registers it reaches into,
//! the groups a row apart: each group's last register spills into the
//! next row, which that row's group writes again.
//!
//! A block of whole words never splits a word, so every output word is one
//! source word of its group, picked by the heads of the group's rows alone.
//! For each way those heads can be and each output register, a
//! [`WordTable`] holds which: the group's registers are each permuted by
//! that control (`vpermd`, which reads the low three bits of each lane) and
//! the results blended by bit 31 of each lane (`vblendvps`), of the control
//! and, for a third register, of a second mask. A group costs its loads and
//! stores, and two or three permutes and one or two blends per register,
//! with no branch on the heads; a block at a time the same rows took a
//! pick and a copy per block.
//!
//! It has the 32-byte form only: `vpermd` has no 16-byte form in SSSE3.

use std::arch::x86_64::{
    __m256i, _mm256_blendv_ps, _mm256_castps_si256, _mm256_castsi256_ps, _mm256_permutevar8x32_epi32,
};

use super::{Avx2, Simd, Stores};

/// The most registers in a group of rows.
const MAX_REGISTERS: usize = 3;

/// The sets of controls a table holds room for: one for each way the heads
/// of a group of rows can be, `(blocks + 1)` to the power of the rows in a
/// group, is at most this (81 for four rows of two blocks; 3 to 25 for one
/// row of 36 to 96 bytes). Every table holds this many, about 15 KiB.
const MAX_ENTRIES: usize = 81;

/// Bit 31 of a lane, which `vblendvps` reads.
const PICK: u32 = 1 << 31;

/// For every way the heads of a group of rows can be, the controls that
/// build each output register of the group from its registers.
#[derive(Clone, Debug)]
pub(in crate::kernels::copy) struct WordTable {
    /// Registers in a group: 2 or 3.
    registers: usize,
    /// Rows in a group: 1, 2 or 4.
    rows: usize,
    /// Bytes from one group to the next: the group's registers, or for a
    /// row of 36 to 92 bytes other than 48 and 64, which fills none, the
    /// row, so that a group's last register spills into the next row
    /// (which that row's group then writes again).
    stride: usize,
    /// Blocks in a row: at least 2.
    blocks: usize,
    /// For heads `h_0, h_1, ...` (row `q`'s at `(blocks + 1)^q`) and
    /// output register `o`, at `2 * o`: each output word's source word in
    /// its register (bits 0 to 2), with [`PICK`] when that register is the
    /// group's second or third; at `2 * o + 1`: [`PICK`] when it is the
    /// third.
    ///
    /// Only the first `(blocks + 1)^rows` are made, and only they are ever
    /// picked, as each head is at most `blocks`; the rest stay zero. Kept
    /// in the table itself, so that making one never allocates.
    controls: [[[u32; 8]; 2 * MAX_REGISTERS]; MAX_ENTRIES],
}

impl WordTable {
    /// Whether [`WordTable::new`] makes a table for rows of `row` bytes and
    /// blocks of `block` bytes, without making it.
    pub(in crate::kernels::copy) fn takes(row: usize, block: usize) -> bool {
        WordTable::shape(row, block).is_some()
    }

    /// For rows of `row` bytes and blocks of `block` bytes that a table
    /// takes, the registers and rows in a group, the bytes from one group
    /// to the next, the blocks in a row, and the ways the heads of a group
    /// can be.
    fn shape(row: usize, block: usize) -> Option<(usize, usize, usize, usize, usize)> {
        let (registers, rows, stride) = match row {
            64 => (2, 1, 64),
            96 => (3, 1, 96),
            48 => (3, 2, 96),
            24 => (3, 4, 96),
            36..=92 if row.is_multiple_of(4) => (row.div_ceil(32), 1, row),
            _ => return None,
        };
        if block == 0 || !block.is_multiple_of(4) || !row.is_multiple_of(block) || row / block < 2 {
            return None;
        }
        let blocks = row / block;
        let entries = (blocks + 1).checked_pow(rows as u32).filter(|&n| n <= MAX_ENTRIES)?;
        Some((registers, rows, stride, blocks, entries))
    }

    /// Whether the groups lie a whole group apart, so that every store
    /// starts on a register's boundary where the first does.
    pub(in crate::kernels::copy) fn streams(&self) -> bool {
        self.stride == 32 * self.registers
    }

    /// The table for rows of `row` bytes, blocks of `block` bytes: `None`
    /// unless the blocks are whole words, two or more to a row, and the
    /// rows make whole groups of two or three registers (rows of 64 or 96
    /// bytes, or two rows of 48, or four of 24), or are 36 to 92 bytes
    /// other than 48 and 64, one to a group of the registers they reach
    /// into, with at most
    /// [`MAX_ENTRIES`] ways for their heads to be. In a group of one row
    /// shorter than its registers, the words past the row are taken from
    /// where they lie.
    pub(in crate::kernels::copy) fn new(row: usize, block: usize) -> Option<WordTable> {
        let (registers, rows, stride, blocks, entries) = WordTable::shape(row, block)?;
        let (words, row_words) = (block / 4, row / 4);
        let mut controls = [[[0u32; 8]; 2 * MAX_REGISTERS]; MAX_ENTRIES];
        for (entry, table) in controls.iter_mut().enumerate().take(entries) {
            for d in 0..registers * 8 {
                let (q, within) = (d / row_words, d % row_words);
                let h = entry / (blocks + 1).pow(q as u32) % (blocks + 1);
                let (j, k) = (within / words, within % words);
                let from = if j < h { h - 1 - j } else { j };
                let s = q * row_words + from * words + k;
                let lane = d % 8;
                let (near, far) = table.split_at_mut(2 * (d / 8) + 1);
                let picks = near.last_mut()?;
                picks[lane] = (s % 8) as u32 | if s >= 8 { PICK } else { 0 };
                far.first_mut()?[lane] = if s >= 16 { PICK } else { 0 };
            }
        }
        Some(WordTable { registers, rows, stride, blocks, controls })
    }

    /// The set of controls for the next group of `G` rows, whose heads
    /// `heads` gives in order: `None` when a head is longer than its row.
    #[inline(always)]
    fn entry<const G: usize>(
        &self,
        heads: &mut impl FnMut() -> usize,
    ) -> Option<&[[u32; 8]; 2 * MAX_REGISTERS]> {
        let mut entry = 0;
        let mut scale = 1;
        for _ in 0..G {
            let h = heads();
            if h > self.blocks {
                return None;
            }
            entry += h * scale;
            scale *= self.blocks + 1;
        }
        self.controls.get(entry)
    }
}

/// Writes the rows `table` was made for from `src` into `dst`, a group of
/// rows (two or three registers) at a time in order, each row with its
/// first `heads()` blocks in reverse order and the rest in place; `heads`
/// is called once per row, in order. Returns the bytes written, whole rows
/// (whole groups, or one row a group): it stops before the first group
/// with a head longer than its row
/// (having called `heads` for that group's rows up to that one), or where
/// the shorter slice no longer holds a group's registers, and writes
/// nothing when, streaming, the groups do not lie whole registers apart
/// ([`WordTable::streams`]) or `dst` does not start on a 32-byte boundary.
/// Rows shorter than their registers also write, past the bytes returned,
/// up to the rest of the last group's registers: bytes of the next row
/// that its own group, or the caller, writes again.
pub(in crate::kernels::copy) fn word_block_rows<S: Stores>(
    isa: Avx2,
    stores: S,
    src: &[u8],
    dst: &mut [u8],
    table: &WordTable,
    heads: impl FnMut() -> usize,
) -> usize {
    if S::STREAMING && !(table.streams() && super::aligned(dst.as_ptr(), 32)) {
        return 0;
    }
    match (table.registers, table.rows) {
        (2, 1) => groups::<S, 2, 1>(isa, stores, src, dst, table, heads),
        (3, 1) => groups::<S, 3, 1>(isa, stores, src, dst, table, heads),
        (3, 2) => groups::<S, 3, 2>(isa, stores, src, dst, table, heads),
        (3, 4) => groups::<S, 3, 4>(isa, stores, src, dst, table, heads),
        _ => 0,
    }
}

/// [`word_block_rows`] for groups of `G` rows in `R` registers.
#[inline(always)]
fn groups<S: Stores, const R: usize, const G: usize>(
    isa: Avx2,
    stores: S,
    src: &[u8],
    dst: &mut [u8],
    table: &WordTable,
    heads: impl FnMut() -> usize,
) -> usize {
    let group = R * 32;
    isa.run(
        #[inline(always)]
        move || {
            // Owned here, so that what `heads` steps stays in registers.
            let mut heads = heads;
            let mut done = 0;
            let (stride, end) = (table.stride, src.len().min(dst.len()));
            while done + group <= end {
                let Some(controls) = table.entry::<G>(&mut heads) else {
                    break;
                };
                // SAFETY: the group's `group = 32 * R` bytes at `done` lie
                // inside both `src` and `dst` (checked just above); `R` is
                // at most 3, and the controls are `[u32; 8]`, 32 bytes, at
                // each of `2 * R` places, which the unaligned loads read;
                // streaming, `dst` starts on a 32-byte boundary and the
                // groups lie whole registers apart (checked by
                // `word_block_rows`), so every store does too; the token
                // proves AVX2, which the permutes and blends need.
                unsafe {
                    let (i, o) = (src.as_ptr().add(done), dst.as_mut_ptr().add(done));
                    let load = |at: usize| isa.load(i.add(32 * at));
                    let (a, b, c) = (load(0), load(1), if R == 3 { load(2) } else { load(1) });
                    for r in 0..R {
                        let control = isa.load(controls[2 * r].as_ptr().cast());
                        let near = _mm256_permutevar8x32_epi32(a, control);
                        let far = _mm256_permutevar8x32_epi32(b, control);
                        let mut v = blend(near, far, control);
                        if R == 3 {
                            let third = _mm256_permutevar8x32_epi32(c, control);
                            v = blend(v, third, isa.load(controls[2 * r + 1].as_ptr().cast()));
                        }
                        isa.store(stores, o.add(32 * r), v);
                    }
                }
                done += stride;
            }
            done
        },
    )
}

/// The lanes of `far` where bit 31 of `mask`'s lane is set, else those of
/// `near`.
///
/// # Safety
/// The CPU must have AVX.
#[inline(always)]
pub(super) unsafe fn blend(near: __m256i, far: __m256i, mask: __m256i) -> __m256i {
    // SAFETY: the caller guarantees AVX.
    unsafe {
        _mm256_castps_si256(_mm256_blendv_ps(
            _mm256_castsi256_ps(near),
            _mm256_castsi256_ps(far),
            _mm256_castsi256_ps(mask),
        ))
    }
}
