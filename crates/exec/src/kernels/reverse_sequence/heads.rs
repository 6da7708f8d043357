//! Heads and line lengths written out from the lengths: a head per row
//! for rows that share a length in short runs, a length per line for
//! time-major data played as `kernels::scattered_lines`, both kept from
//! one run to the next when they come from checked lengths.

use super::planning::SequencePlan;
use super::OP;
use crate::kernels::counts::Count;
use crate::kernels::KernelError;

/// Where ReverseSequence writes a head per row, for rows that share a
/// length in runs too short to play one at a time
/// ([`SequencePlan::flattened`]), or a length per line, for blocks played
/// as scattered lines ([`Lines::lengths`]); kept in a
/// [`ReverseSequenceScratch`](super::ReverseSequenceScratch) so that a model run again and again allocates
/// them once.
///
/// Heads written from checked lengths are kept for the next call with the
/// same lengths and the same layout: a model whose lengths are a constant
/// writes them once, not on every run.
#[derive(Clone, Debug, Default)]
pub(super) struct RowHeads {
    /// 32-bit heads or line lengths.
    pub(super) each: Kept<u32>,
    /// Heads a byte each, for the rows of 2 to 16 bytes that the short
    /// rows' loop reads that way and the rows of 17 to 31 bytes that the
    /// narrow rows' loops do, or line lengths a byte each on up to 8
    /// rows.
    pub(super) bytes: Kept<u8>,
}

impl RowHeads {
    /// Nothing allocated yet.
    pub(super) const fn new() -> RowHeads {
        RowHeads { each: Kept::new(), bytes: Kept::new() }
    }
}

/// Heads or line lengths, with what they were written from when that was
/// a [`CheckedLengths`](super::CheckedLengths).
#[derive(Clone, Debug, Default)]
pub(super) struct Kept<H> {
    /// The heads or line lengths last written.
    pub(super) values: Vec<H>,
    /// The checked lengths and the layout `values` were written for;
    /// `None` when they were written from lengths read on one call, or
    /// not all written.
    pub(super) held: Option<(u64, Expansion)>,
}

/// How lengths are laid out as heads or line lengths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Expansion {
    /// A head per row ([`SequencePlan::heads`]).
    Rows {
        /// The rows of each batch index, which take its length in turn.
        mid: usize,
    },
    /// A length per line ([`Lines::lengths`]).
    Lines(Lines),
}

impl<H> Kept<H> {
    /// Nothing written yet.
    const fn new() -> Kept<H> {
        Kept { values: Vec::new(), held: None }
    }

    /// The values `write` writes for `layout`, from the checked lengths
    /// numbered `from` (when `Some`); written again unless they are what
    /// was kept from an earlier call with the same lengths and layout.
    pub(super) fn keep(
        &mut self,
        from: Option<u64>,
        layout: Expansion,
        write: impl FnOnce(&mut Vec<H>) -> Result<(), KernelError>,
    ) -> Result<&[H], KernelError> {
        let key = from.map(|id| (id, layout));
        if key.is_none() || self.held != key {
            // Not kept while half written, should `write` fail.
            self.held = None;
            write(&mut self.values)?;
            self.held = key;
        }
        Ok(&self.values)
    }
}

/// ReverseSequence seen as scattered lines (`[outer, size,
/// inner]`, a length per line): each batch index's length repeated for
/// `each` lines in turn, the batch indices taken `groups` times over, and
/// all that `repeats` times (once per index before both axes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Lines {
    pub(super) outer: usize,
    pub(super) size: usize,
    pub(super) inner: usize,
    pub(super) groups: usize,
    pub(super) each: usize,
    pub(super) repeats: usize,
}

impl Lines {
    /// Every line's length, written to `lens` from `plan`'s, as `H`.
    pub(super) fn lengths<C: Count, H: Count>(
        self,
        plan: &SequencePlan<'_, C>,
        lens: &mut Vec<H>,
    ) -> Result<(), KernelError> {
        let internal = |what| KernelError::Internal { op: OP, what };
        if H::new(self.size).is_none() {
            return Err(internal("the sequence is too long for the line lengths chosen"));
        }
        repeat_lengths(
            plan.lens,
            (self.groups, self.each, self.repeats),
            lens,
            "a sequence length per line",
        )?;
        if lens.len() != self.outer * self.inner {
            return Err(internal("the line lengths do not match the lines"));
        }
        Ok(())
    }
}

/// Writes `lens` to `out` as [`head`]s: each `each` times in turn, all of
/// them `groups` times over, and that whole block `repeats` times. `out`
/// is written over, not cleared first, so that a scratch already of the
/// right length is not filled twice. `what` names them where memory runs
/// out.
pub(super) fn repeat_lengths<C: Count, H: Count>(
    lens: &[C],
    (groups, each, repeats): (usize, usize, usize),
    out: &mut Vec<H>,
    what: &'static str,
) -> Result<(), KernelError> {
    let block = (groups * lens.len()).checked_mul(each);
    let (Some(block), Some(total)) = (block, block.and_then(|block| block.checked_mul(repeats))) else {
        return Err(KernelError::Internal { op: OP, what: "the repeated lengths overflow" });
    };
    if block == 0 {
        out.clear();
        return Ok(());
    }
    out.truncate(total);
    crate::kernels::error::try_reserve(out, total - out.len(), OP, what)?;
    out.resize(total, H::narrow(0));
    let (first, rest) = out.split_at_mut(block);
    for group in first.chunks_exact_mut(lens.len() * each) {
        match each {
            2 => repeat_each::<C, H, 2>(lens, group),
            3 => repeat_each::<C, H, 3>(lens, group),
            4 => repeat_each::<C, H, 4>(lens, group),
            _ => group.chunks_exact_mut(each).zip(lens).for_each(|(heads, &n)| heads.fill(head(n))),
        }
    }
    for copy in rest.chunks_exact_mut(block) {
        copy.copy_from_slice(first);
    }
    Ok(())
}

/// Writes each of `lens` as a head ([`head`]) to `M` heads in turn, from
/// the first of `heads`.
///
/// Sixteen lengths at a time go through a block of their heads whose
/// layout is fixed when compiled, which the compiler turns into a few
/// vector shuffles: a third to a half of the time of a loop writing each
/// length's heads in turn (measured in `docs/performance.md`).
fn repeat_each<C: Count, H: Count, const M: usize>(lens: &[C], heads: &mut [H]) {
    /// The lengths written together.
    const BLOCK: usize = 16;
    let (groups, _) = heads.as_chunks_mut::<M>();
    let (blocks, groups_left) = groups.as_chunks_mut::<BLOCK>();
    let (lens_blocks, lens_left) = lens.as_chunks::<BLOCK>();
    for (block, block_lens) in blocks.iter_mut().zip(lens_blocks) {
        let mut block_heads = [[H::narrow(0); M]; BLOCK];
        for i in 0..BLOCK * M {
            block_heads[i / M][i % M] = head(block_lens[i / M]);
        }
        *block = block_heads;
    }
    for (group, &n) in groups_left.iter_mut().zip(lens_left) {
        *group = [head(n); M];
    }
}

/// The length `n` as a row's head, cut to `H`, which the caller has
/// checked holds the sequence size. A length of 1 stays 1, which reverses
/// one element and so moves nothing, as 0 does.
#[inline(always)]
fn head<C: Count, H: Count>(n: C) -> H {
    H::narrow(n.get() as u64)
}

impl<C: Count> SequencePlan<'_, C> {
    /// Writes the heads of [`SequencePlan::flattened`] to `heads`: every
    /// batch index's length once for each of its `mid` rows, or once in
    /// all when every length is the same. For a plan whose
    /// [`SequencePlan::runs_short`] holds, whose sequences are then short
    /// enough for any count type.
    pub(super) fn heads<H: Count>(&self, heads: &mut Vec<H>) -> Result<(), KernelError> {
        let internal = |what| KernelError::Internal { op: OP, what };
        // Every length is at most `hi`, so the heads hold them all when
        // they hold `hi`.
        if H::new(self.hi).is_none() {
            return Err(internal("the sequence is too long for the heads chosen for its rows"));
        }
        if self.lens.len() != self.lo {
            return Err(internal("the lengths do not match the batch size"));
        }
        if self.uniform {
            heads.clear();
            heads.push(H::narrow(self.len_at(0) as u64));
            Ok(())
        } else {
            repeat_lengths(self.lens, (1, self.mid, 1), heads, "a sequence length per row")
        }
    }

    /// The same copy seen as rows with a head each, `[outer, lo * mid, 1,
    /// hi]`, with the heads [`SequencePlan::heads`] wrote.
    pub(super) fn flattened<'h, H: Count>(&self, heads: &'h [H]) -> Result<SequencePlan<'h, H>, KernelError> {
        let internal = |what| KernelError::Internal { op: OP, what };
        let rows = self.lo.checked_mul(self.mid).ok_or_else(|| internal("the rows overflow"))?;
        if heads.len() != if self.uniform { 1 } else { rows } {
            return Err(internal("the heads do not match the rows"));
        }
        Ok(SequencePlan {
            outer: self.outer,
            lo: rows,
            mid: 1,
            hi: self.hi,
            inner: 1,
            seq_is_hi: true,
            uniform: self.uniform,
            lens: heads,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_lengths_take_each_length_in_turn_then_the_whole_again() {
        // 37 lengths: two blocks of sixteen and five left over.
        let lens: Vec<u32> = (0..37).map(|i| (i * 5 + 3) % 11).collect();
        for each in 1..=5 {
            for (groups, repeats) in [(1, 1), (2, 3)] {
                let mut heads = vec![99u8; 3];
                repeat_lengths(&lens, (groups, each, repeats), &mut heads, "heads").unwrap();
                // Head `h` of the whole is length `(h / each) % 37`.
                let expected: Vec<u8> = (0..lens.len() * each * groups * repeats)
                    .map(|h| lens[h / each % lens.len()] as u8)
                    .collect();
                assert_eq!(heads, expected, "each {each}, groups {groups}, repeats {repeats}");
            }
        }
    }
}
