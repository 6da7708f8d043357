//! Rows of blocks with a head each, with no special instructions: the
//! portable loop for sequences of short blocks (a ReverseSequence whose
//! batch axis comes before its sequence axis, with elements after the
//! sequence axis), where the x86 word loops do not take them.
//!
//! Each block of the output is one move of a size fixed when compiling,
//! from a source block whose place is worked out without a branch: block
//! `j` of a row with a head of `h` blocks comes from block `h - 1 - j`
//! while `j < h`, else from block `j`. A block of 12 bytes moves as 16
//! (one register, where 8 and 4 would take two moves), the 4 bytes past it
//! written again by the next block; likewise 3 bytes as 4, 5 to 7 as 8,
//! and 20 to 28 as 32. So a row costs a move per block and a few
//! arithmetic instructions, whatever its head, with no branch on the head
//! that random lengths would send the wrong way. Rows of 2 to 8 blocks, and
//! of 16, are compiled for their count, so that every offset is a
//! constant: 8 MiB of `f32` in rows of 8 blocks of 12 or 16 bytes took
//! 1.05–1.1× a memcpy this way, against 1.6–1.7× for the block walk.

/// The longest row [`rows_with_heads`] takes, in bytes. It reads a head
/// downwards; from rows of this length on, the block walk reads heads
/// upwards, in order, which on 1 KiB heads took half the time. Rows of up
/// to 192 bytes were measured here.
pub(super) const MAX_ROW: usize = 256;

/// Evaluates `$body` with `$B` the block size `$block` as a constant and
/// `$C` the bytes moved for each block, for the block sizes
/// [`rows_with_heads`] takes; else `$none`.
macro_rules! by_block {
    ($block:expr, |$B:ident, $C:ident| $body:expr, else $none:expr) => {
        match $block {
            3 => by_block!(@ 3, 4, $B, $C, $body),
            5 => by_block!(@ 5, 8, $B, $C, $body),
            6 => by_block!(@ 6, 8, $B, $C, $body),
            7 => by_block!(@ 7, 8, $B, $C, $body),
            12 => by_block!(@ 12, 16, $B, $C, $body),
            16 => by_block!(@ 16, 16, $B, $C, $body),
            20 => by_block!(@ 20, 32, $B, $C, $body),
            24 => by_block!(@ 24, 32, $B, $C, $body),
            28 => by_block!(@ 28, 32, $B, $C, $body),
            32 => by_block!(@ 32, 32, $B, $C, $body),
            48 => by_block!(@ 48, 48, $B, $C, $body),
            64 => by_block!(@ 64, 64, $B, $C, $body),
            _ => $none,
        }
    };
    (@ $b:literal, $c:literal, $B:ident, $C:ident, $body:expr) => {{
        const $B: usize = $b;
        const $C: usize = $c;
        $body
    }};
}

/// Whether [`rows_with_heads`] writes rows of `row` bytes made of blocks
/// of `block` bytes: blocks of the sizes it has a move for (3, 5, 6, 7,
/// 12, 16, 20, 24, 28, 32, 48 or 64 bytes), two or more to a row, in rows
/// of up to [`MAX_ROW`] bytes.
pub(super) fn takes(row: usize, block: usize) -> bool {
    let fits = block > 0 && row.is_multiple_of(block) && row / block >= 2 && row <= MAX_ROW;
    fits && by_block!(block, |B, C| B <= C, else false)
}

/// Writes the rows of `src`, rows of `row` bytes made of blocks of
/// `block` bytes, into `dst` in order, each row with its first `heads()`
/// blocks in reverse order and the rest in place; `heads` is called once
/// for each row, in order. Returns the bytes it wrote, whole rows: it
/// stops before a row whose head is longer than the row (having called
/// `heads` for it), and before the first row whose moves would reach past
/// the end of `src` or `dst` (a block moved as more bytes than it has
/// reaches past its row). Those few bytes past the last row it wrote may
/// be written too, and are the caller's to write again. Writes none where
/// [`takes`] does not hold.
#[inline(always)]
pub(super) fn rows_with_heads(
    src: &[u8],
    dst: &mut [u8],
    (row, block): (usize, usize),
    heads: impl FnMut() -> usize,
) -> usize {
    if !takes(row, block) {
        return 0;
    }
    by_block!(
        block,
        |B, C| match row / B {
            2 => rows_of::<B, C, 2>(src, dst, 2, heads),
            3 => rows_of::<B, C, 3>(src, dst, 3, heads),
            4 => rows_of::<B, C, 4>(src, dst, 4, heads),
            5 => rows_of::<B, C, 5>(src, dst, 5, heads),
            6 => rows_of::<B, C, 6>(src, dst, 6, heads),
            7 => rows_of::<B, C, 7>(src, dst, 7, heads),
            8 => rows_of::<B, C, 8>(src, dst, 8, heads),
            16 => rows_of::<B, C, 16>(src, dst, 16, heads),
            _ => rows_of::<B, C, 0>(src, dst, row / B, heads),
        },
        else 0
    )
}

/// [`rows_with_heads`] for blocks of `B` bytes, each moved as `C`, `S`
/// to a row (`blocks` when `S` is 0).
#[inline(always)]
fn rows_of<const B: usize, const C: usize, const S: usize>(
    src: &[u8],
    dst: &mut [u8],
    blocks: usize,
    mut heads: impl FnMut() -> usize,
) -> usize {
    let blocks = if S > 0 { S } else { blocks };
    let row = blocks * B;
    let reach = row + (C - B);
    let mut done = 0;
    while let (Some(input), Some(output)) = (src.get(done..done + reach), dst.get_mut(done..done + reach)) {
        // Read through `black_box`: seen through, the head leads the
        // compiler to branch to a copy of the row for a head of 0, which
        // random lengths mispredict (rows of 4 blocks of 12 bytes took
        // 1.7× a memcpy that way, 1.1× without).
        let head = core::hint::black_box(heads());
        if head > blocks {
            break;
        }
        for j in 0..blocks {
            let from = if j < head { head - 1 - j } else { j }.min(blocks - 1);
            let (Some(i), Some(o)) = (
                input.get(from * B..).and_then(|i| i.first_chunk::<C>()),
                output.get_mut(j * B..).and_then(|o| o.first_chunk_mut::<C>()),
            ) else {
                return done;
            };
            *o = *i;
        }
        done += row;
    }
    done
}

#[cfg(test)]
mod tests {
    use super::super::{Heads, ReverseCopier, RunWriter};
    use super::{rows_with_heads, takes};

    /// Every block size the loop moves, with the bytes each moves as.
    const BLOCKS: [(usize, usize); 12] = [
        (3, 4),
        (5, 8),
        (6, 8),
        (7, 8),
        (12, 16),
        (16, 16),
        (20, 32),
        (24, 32),
        (28, 32),
        (32, 32),
        (48, 48),
        (64, 64),
    ];

    /// Row `r` of `src` (rows of `blocks` blocks of `block` bytes) with its
    /// first `heads[r]` blocks in reverse order, written out block by block
    /// as ReverseSequence defines it.
    fn naive(src: &[u8], block: usize, blocks: usize, heads: &[usize]) -> Vec<u8> {
        let mut out = Vec::new();
        for (r, &h) in heads.iter().enumerate() {
            for j in 0..blocks {
                let from = r * blocks * block + if j < h { h - 1 - j } else { j } * block;
                out.extend_from_slice(&src[from..from + block]);
            }
        }
        out
    }

    #[test]
    fn rows_of_blocks_match_the_blocks_moved_one_by_one() {
        for (block, moved) in BLOCKS {
            // Blocks to a row: those compiled in, and others around them,
            // up to the longest row taken.
            for blocks in (2..=18).chain([21, 32, 85]).filter(|&n| n * block <= super::MAX_ROW) {
                let row = blocks * block;
                assert!(takes(row, block), "{row} {block}");
                // Every head, the first row's among them, in a varied order.
                let rows = 2 * (blocks + 1) + 3;
                let heads: Vec<usize> = (0..rows).map(|r| (r * 5 + r / 4) % (blocks + 1)).collect();
                let src: Vec<u8> = (0..rows * row).map(|i| (i * 7 + i / 251) as u8).collect();
                let expected = naive(&src, block, blocks, &heads);
                let spill = moved - block;
                for copier in [ReverseCopier::portable(), ReverseCopier::detect()] {
                    let what = format!("{blocks} blocks of {block}, {:?}", copier.level);
                    let mut dst = vec![0xa5u8; rows * row + 8];
                    let mut list = heads.iter();
                    let done = rows_with_heads(&src, &mut dst[..rows * row], (row, block), || {
                        list.next().copied().unwrap_or(usize::MAX)
                    });
                    // The last row's moves would reach past the end of the
                    // slices, unless its blocks move as they are.
                    let whole = if spill > 0 { rows - 1 } else { rows };
                    assert_eq!(done, whole * row, "{what}");
                    assert_eq!(dst[..done], expected[..done], "{what}");
                    // Fewer than a block written past the rows it returns.
                    assert!(dst[done + spill..].iter().all(|&b| b == 0xa5), "{what}");
                    // Through the copier, with the data's last row read
                    // past: the same, from a row further on.
                    let mut dst = vec![0u8; (rows - 1) * row];
                    let mut list = heads.iter().skip(1);
                    let taken = copier.takes_block_rows(row, block);
                    let done = copier.block_rows((&src, row), &mut dst, (row, block), false, || {
                        list.next().copied().unwrap_or(usize::MAX)
                    });
                    if copier.takes_word_rows(row, block) || !taken {
                        continue;
                    }
                    assert_eq!(done, (rows - 1 - usize::from(spill > 0)) * row, "{what}");
                    assert_eq!(dst[..done], expected[row..row + done], "{what}");
                }
            }
        }
    }

    #[test]
    fn a_head_longer_than_its_row_stops_the_loop_before_that_row() {
        for (block, moved) in BLOCKS {
            let (blocks, rows) = (4, 8);
            let row = blocks * block;
            let src: Vec<u8> = (0..rows * row).map(|i| (i * 3 + 1) as u8).collect();
            let heads = [4, 0, 3, 5, 1, 1, 1, 1];
            let mut dst = vec![0u8; rows * row];
            let mut calls = 0;
            let done = rows_with_heads(&src, &mut dst, (row, block), || {
                calls += 1;
                heads[calls - 1]
            });
            assert_eq!((done, calls), (3 * row, 4), "{block}");
            assert_eq!(dst[..done], naive(&src, block, blocks, &heads[..3])[..], "{block}");
            assert!(dst[done + moved - block..].iter().all(|&b| b == 0), "{block}");
        }
    }

    #[test]
    fn rows_it_does_not_take_are_left_alone() {
        // Block sizes without a move, a single block to a row, rows that
        // are not whole blocks, rows past the longest, and empty ones.
        for (row, block) in
            [(20, 10), (8, 4), (16, 2), (16, 16), (36, 24), (264, 12), (512, 64), (0, 12), (24, 0)]
        {
            assert!(!takes(row, block), "{row} {block}");
            let src = vec![1u8; 600];
            let mut dst = vec![0u8; 600];
            assert_eq!(rows_with_heads(&src, &mut dst, (row, block), || 0), 0, "{row} {block}");
            assert!(dst.iter().all(|&b| b == 0));
        }
    }

    /// Rows of 128 bytes of 16-byte elements with a head each, which the
    /// portable merges do not take: through the writer's rows, the block
    /// loop, with heads from every kind of list.
    #[test]
    fn rows_of_wide_elements_with_heads_go_a_block_at_a_time() {
        let (row, rows) = (128, 40);
        let src: Vec<u8> = (0..rows * row).map(|i| (i * 11 + i / 253) as u8).collect();
        let heads: Vec<usize> = (0..rows).map(|r| (r * 3 + r / 9) % 9).collect();
        let expected = naive(&src, 16, 8, &heads);
        let wide: Vec<u32> = heads.iter().map(|&h| h as u32).collect();
        let bytes: Vec<u8> = heads.iter().map(|&h| h as u8).collect();
        for copier in [ReverseCopier::portable(), ReverseCopier::detect()] {
            for list in [Heads::Each(&wide), Heads::Bytes(&bytes), Heads::EachWide(&heads), Heads::Same(3)] {
                let mut dst = vec![0u8; rows * row];
                let done = RunWriter::with(&mut dst, copier, false, |out| out.rows::<16>(0, &src, row, list));
                let what = format!("{list:?}, {:?}", copier.level);
                assert_eq!(done, Some(()), "{what}");
                let expected = match list {
                    Heads::Same(n) => naive(&src, 16, 8, &vec![n; rows]),
                    _ => expected.clone(),
                };
                assert_eq!(dst, expected, "{what}");
            }
            // A head past the row stops the writer.
            let mut dst = vec![0u8; rows * row];
            let mut bad = bytes.clone();
            bad[7] = 9;
            let done = RunWriter::with(&mut dst, copier, false, |out| {
                out.rows::<16>(0, &src, row, Heads::Bytes(&bad))
            });
            assert_eq!(done, None);
        }
    }
}
