//! Rows longer than 96 bytes made of blocks of 3, 5, 6 or 7 whole 4-byte
//! words (12, 20, 24 or 28 bytes), with AVX2: a ReverseSequence whose
//! sequences are such rows, the first `h` blocks of each in reverse order
//! and the rest in place, a register at a time.
//!
//! Within a row, output word `i` lies in block `p = i / w` (of `w` words)
//! at word `q = i % w`, and while `p < h` it comes from word
//! `(h - 1 - p) * w + q`. Take the highest block `t` that a register's
//! lanes lie in: measured from word `(h - 1 - t) * w`, lane `i`'s source
//! is word `(t - p) * w + q`, which does not depend on `h`. So each
//! register is two loads of 8 words from where `h` puts that window, both
//! permuted by one control fixed for the register (`vpermd`) and blended
//! by bit 31 of the control, then blended with the register's own words
//! where its blocks lie past the head. For these widths the blocks a
//! register reaches into hold at most 16 words, so two loads cover them.
//! And as 8 blocks fill `w` registers exactly, the controls repeat every
//! `w` registers, the window stepping down 8 blocks: a [`WordWindows`]
//! holds `w` of them, whatever the row's length.
//!
//! A register costs three loads of data (its own words and the window's
//! two halves), two of its control and its blocks, two permutes, a
//! compare and two blends, with no branch on the head. A row
//! that does not fill its last register spills into the next row, which
//! that row writes again. Windows reach up to 64 bytes before a row and
//! past its end, where those lanes are never picked; rows that close to
//! the start of the data go a block at a time instead.
//!
//! It has the 32-byte form only: `vpermd` has no 16-byte form in SSSE3.

use std::arch::x86_64::{__m256i, _mm256_cmpgt_epi32, _mm256_permutevar8x32_epi32, _mm256_set1_epi32};

use super::words::blend;
use super::{Avx2, Simd, Stores};

/// The most words in a block that the windows take.
const MAX_WORDS: usize = 7;

/// Bit 31 of a lane, which `vblendvps` reads.
const PICK: u32 = 1 << 31;

/// Words before a row that a window may start at, for lanes it does not
/// pick (and at most `16 - w` for lanes it does).
const BEHIND_WORDS: isize = 16;

/// Rows of up to this many registers go through every register the same
/// way; longer ones stop the windows after the last register that holds a
/// block of the head and copy the rest, which saves work on long rows at
/// the cost of a loop whose length changes from row to row.
const ALWAYS_REGISTERS: usize = 16;

/// The controls for rows of one shape: for each of the `w` registers of a
/// period, each lane's word in its window and each lane's block.
#[derive(Clone, Debug)]
pub(in crate::kernels::copy) struct WordWindows {
    /// Words in a block: 3, 5, 6 or 7.
    words: usize,
    /// Blocks in a row.
    blocks: usize,
    /// Bytes in a row.
    row: usize,
    /// Registers a row reaches into.
    registers: usize,
    /// For register `j` of a period: each lane's word in the window, bits
    /// 0 to 2 its place in the first or second 8 words, [`PICK`] when it is
    /// the second.
    controls: [[u32; 8]; MAX_WORDS],
    /// For register `j` of a period: each lane's block, counted from the
    /// period's first.
    positions: [[i32; 8]; MAX_WORDS],
    /// For register `j` of a period: its highest block, counted from the
    /// period's first, times the words in a block, so that in period `k`
    /// its window starts at word `(h - 1 - 8 k) * w - tops[j]` of the row.
    tops: [isize; MAX_WORDS],
}

impl WordWindows {
    /// Whether [`WordWindows::new`] makes controls for rows of `row` bytes
    /// and blocks of `block` bytes, without making them.
    pub(in crate::kernels::copy) fn takes(row: usize, block: usize) -> bool {
        WordWindows::shape(row, block).is_some()
    }

    /// The words in a block and the blocks in a row, for rows the windows
    /// take: longer than 96 bytes, of blocks of 3, 5, 6 or 7 words.
    fn shape(row: usize, block: usize) -> Option<(usize, usize)> {
        let words = block / 4;
        let whole = block.is_multiple_of(4) && matches!(words, 3 | 5 | 6 | 7);
        let rows = row > 96 && whole && row.is_multiple_of(block);
        // Heads are compared as 32-bit lanes.
        (rows && i32::try_from(row / block).is_ok()).then(|| (words, row / block))
    }

    /// The controls for rows of `row` bytes and blocks of `block` bytes:
    /// `None` unless the rows are longer than 96 bytes and the blocks are
    /// 3, 5, 6 or 7 whole 4-byte words.
    pub(in crate::kernels::copy) fn new(row: usize, block: usize) -> Option<WordWindows> {
        let (words, blocks) = WordWindows::shape(row, block)?;
        let mut controls = [[0u32; 8]; MAX_WORDS];
        let mut positions = [[0i32; 8]; MAX_WORDS];
        let mut tops = [0isize; MAX_WORDS];
        for j in 0..words {
            let top = (8 * j + 7) / words;
            tops[j] = isize::try_from(top * words).ok()?;
            for lane in 0..8 {
                let (p, q) = ((8 * j + lane) / words, (8 * j + lane) % words);
                let at = (top - p) * words + q;
                if at >= 16 {
                    return None;
                }
                controls[j][lane] = (at % 8) as u32 | if at >= 8 { PICK } else { 0 };
                positions[j][lane] = i32::try_from(p).ok()?;
            }
        }
        let registers = row.div_ceil(32);
        Some(WordWindows { words, blocks, row, registers, controls, positions, tops })
    }

    /// Whether the rows fill whole registers, so that every store starts on
    /// a register's boundary where the first does.
    pub(in crate::kernels::copy) fn streams(&self) -> bool {
        self.row.is_multiple_of(32)
    }

    /// Bytes past a row's start that its loads reach: its registers end
    /// less than 32 bytes past the row, and its windows up to 28 bytes
    /// past it (register 0's, for a head of every block, 7 words past it
    /// for 3-word blocks and fewer for wider ones).
    fn reach(&self) -> usize {
        self.row + 32
    }
}

/// Writes rows of the shape `windows` was made for from `src`, starting at
/// byte `from`, into `dst`, in order, each row with its first `heads()`
/// blocks in reverse order and the rest in place; `heads` is called once
/// per row, in order. Bytes of `src` before `from` may be read, never
/// written. Returns the bytes written, whole rows: it stops before the
/// first row with a head longer than its row, or where `dst` no longer
/// holds a row's registers or `src` the bytes its loads reach, and writes
/// nothing when, streaming, the rows do not fill whole registers or `dst`
/// does not start on a 32-byte boundary. A row that does not fill its last
/// register also writes, past the bytes returned, up to the rest of that
/// register: bytes of the next row, which the caller writes again.
pub(in crate::kernels::copy) fn word_window_rows<S: Stores>(
    isa: Avx2,
    stores: S,
    (src, from): (&[u8], usize),
    dst: &mut [u8],
    windows: &WordWindows,
    heads: impl FnMut() -> usize,
) -> usize {
    if S::STREAMING && !(windows.streams() && super::aligned(dst.as_ptr(), 32)) {
        return 0;
    }
    match windows.words {
        3 => rows::<S, 3>(isa, stores, (src, from), dst, windows, heads),
        5 => rows::<S, 5>(isa, stores, (src, from), dst, windows, heads),
        6 => rows::<S, 6>(isa, stores, (src, from), dst, windows, heads),
        7 => rows::<S, 7>(isa, stores, (src, from), dst, windows, heads),
        _ => 0,
    }
}

/// [`word_window_rows`] for blocks of `W` words.
#[inline(always)]
fn rows<S: Stores, const W: usize>(
    isa: Avx2,
    stores: S,
    (src, from): (&[u8], usize),
    dst: &mut [u8],
    windows: &WordWindows,
    heads: impl FnMut() -> usize,
) -> usize {
    isa.run(
        #[inline(always)]
        move || {
            let mut heads = heads;
            let WordWindows { blocks, row, registers, .. } = *windows;
            let reach = windows.reach();
            let behind = 4 * BEHIND_WORDS.unsigned_abs();
            let mut done = 0;
            while done + 32 * registers <= dst.len()
                && from.checked_add(done + reach).is_some_and(|end| end <= src.len())
            {
                let h = heads();
                if h > blocks {
                    break;
                }
                let at = from + done;
                if at < behind {
                    // So close to the start of the data that a window could
                    // reach before it: a block at a time.
                    let (Some(input), Some(out)) = (src.get(at..at + row), dst.get_mut(done..done + row))
                    else {
                        break;
                    };
                    let block = 4 * W;
                    let mut copied = true;
                    for (j, to) in out.chunks_exact_mut(block).enumerate() {
                        let s = if j < h { h - 1 - j } else { j };
                        match input.get(s * block..(s + 1) * block) {
                            Some(from) => to.copy_from_slice(from),
                            None => copied = false,
                        }
                    }
                    if !copied {
                        break;
                    }
                    done += row;
                    continue;
                }
                let live = if registers <= ALWAYS_REGISTERS { registers } else { (h * W).div_ceil(8) };
                // SAFETY: the row's registers, `32 * registers` bytes at
                // `done`, lie inside `dst` and its loads inside `src`:
                // `reach` bytes from `at` (both checked by the loop), and
                // windows that start at most 64 bytes before `at` (at
                // least `behind` bytes into `src`, checked above) and end
                // inside `reach` ([`WordWindows::reach`]). The controls and
                // positions are `[u32; 8]` and `[i32; 8]`, 32 bytes each,
                // which the unaligned loads read. Streaming, `dst` starts on
                // a 32-byte boundary and rows fill whole registers (checked
                // by `word_window_rows`), so every store does too. The token
                // proves AVX2, which the permutes, compares and blends need.
                unsafe {
                    let (i, o) = (src.as_ptr().add(at), dst.as_mut_ptr().add(done));
                    // The head and the first word of the window of the
                    // period's first register, stepped down one period (8
                    // blocks) at a time.
                    let mut head = h as i32;
                    let mut start = (h as isize - 1) * W as isize;
                    let mut r = 0;
                    'periods: loop {
                        let bound = _mm256_set1_epi32(head);
                        for j in 0..W {
                            if r == live {
                                break 'periods;
                            }
                            let own = isa.load(i.add(32 * r));
                            let shift = 4 * (start - windows.tops[j]).max(-BEHIND_WORDS);
                            // The window's 64 bytes lie inside the bytes
                            // checked above: from `behind` before the row
                            // to `reach` past its start.
                            debug_assert!(
                                shift >= -(behind as isize) && shift + 64 <= reach as isize,
                                "a window at {shift} bytes from a row, reaching {reach}"
                            );
                            let window = i.offset(shift);
                            let control = isa.load(windows.controls[j].as_ptr().cast());
                            let near = _mm256_permutevar8x32_epi32(isa.load(window), control);
                            let far = _mm256_permutevar8x32_epi32(isa.load(window.add(32)), control);
                            let reversed = blend(near, far, control);
                            let positions: __m256i = isa.load(windows.positions[j].as_ptr().cast());
                            let in_head = _mm256_cmpgt_epi32(bound, positions);
                            isa.store(stores, o.add(32 * r), blend(own, reversed, in_head));
                            r += 1;
                        }
                        head -= 8;
                        start -= 8 * W as isize;
                    }
                    // Past the head (rows longer than `ALWAYS_REGISTERS`
                    // registers only): the words in place.
                    while r < registers {
                        isa.store(stores, o.add(32 * r), isa.load(i.add(32 * r)));
                        r += 1;
                    }
                }
                done += row;
            }
            done
        },
    )
}
