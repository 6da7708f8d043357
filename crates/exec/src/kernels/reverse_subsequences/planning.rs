//! Working out the plan for a shape: the lengths read (or used where they
//! are stored), and whether the lines go as runs or as scattered lines.

use ovir_tensor::{ElementType, Tensor};

use super::reading::{read_lengths, stored_lengths, within_axis};
use super::tuning::MIN_PLAYED_STRETCH;
use super::OP;
use crate::kernels::checks::check_movable;
use crate::kernels::counts::Count;
use crate::kernels::run_plan::{play_as, product};
use crate::kernels::scattered_lines::ScatteredLines;
use crate::kernels::{ExecOptions, KernelError};
use ovir_shape::ops::reverse_subsequences::check_subsequences;

/// Validates the inputs, reads the lengths into `lens` (or uses them
/// where they are stored, see [`stored_lengths`]) and builds the plan;
/// `None` when the output equals the input.
pub(super) fn prepare<'a, C: Count>(
    data: &Tensor,
    lengths: &'a Tensor,
    axis: i64,
    lens: &'a mut Vec<C>,
) -> Result<Option<SubsequencePlan<'a, C>>, KernelError> {
    prepare_for(data.element_type(), data.shape(), lengths, axis, lens)
}

/// [`prepare`] for data of element type `ty` and shape `shape`, which is
/// all it asks of the data.
pub(super) fn prepare_for<'a, C: Count>(
    ty: ElementType,
    shape: &[usize],
    lengths: &'a Tensor,
    axis: i64,
    lens: &'a mut Vec<C>,
) -> Result<Option<SubsequencePlan<'a, C>>, KernelError> {
    let empty = shape.contains(&0);
    let axis = check_subsequences(shape, lengths, axis)?;
    check_movable(OP, ty)?;
    let size = shape.get(axis).copied().unwrap_or(0);
    let outer = shape.get(..axis).map_or(1, product);
    let inner = shape.get(axis + 1..).map_or(1, product);
    let lines = outer * inner;
    // Lengths of 32 bits that change every few lines are used where they
    // are stored, when they all lie within the axis: such lines need no
    // stretches marked after their lengths. Whether they change every few
    // lines is told from them as stored, once.
    let stored = stored_lengths::<C>(lengths)
        .filter(|stored| inner > 1 && stored.len() == lines && ty != ElementType::String);
    let scattered_as_stored = stored.map(|stored| is_scattered(stored, inner));
    if let (Some(stored), Some(true)) = (stored, scattered_as_stored) {
        if let Some(moves) = within_axis(lengths, size) {
            if empty || !moves {
                return Ok(None);
            }
            return Ok(Some(SubsequencePlan {
                outer,
                size,
                inner,
                lens: stored,
                ends: &[],
                scattered: true,
            }));
        }
    }
    let moves = read_lengths(lengths, size, lens)?;
    if empty || !moves {
        return Ok(None);
    }
    if lens.len() != lines {
        return Err(KernelError::Internal {
            op: OP,
            what: "the lengths read do not match the number of lines",
        });
    }
    // Lines whose lengths change every few lines are shifted or gathered,
    // and need no stretches; else the runs need them, as strings always
    // do.
    let scattered = inner > 1 && scattered_as_stored.unwrap_or_else(|| is_scattered(lens, inner));
    if inner > 1 && (!scattered || ty == ElementType::String) {
        mark_stretches(lens, inner).ok_or(KernelError::Internal {
            op: OP,
            what: "the end of a stretch of lines does not fit its count",
        })?;
    }
    let (lens, ends) = lens.split_at(lines);
    Ok(Some(SubsequencePlan { outer, size, inner, lens, ends, scattered }))
}

/// Whether the lengths, per block of `inner`, form more than one stretch
/// of equal lengths per [`MIN_PLAYED_STRETCH`] lines on average: counted
/// only until that is known, so that lengths which change on every line
/// are read just far enough to tell.
pub(super) fn is_scattered<C: Count>(lens: &[C], inner: usize) -> bool {
    let limit = lens.len() / MIN_PLAYED_STRETCH;
    let mut stretches = 0;
    for block in lens.chunks(inner) {
        stretches += 1;
        // A long block is counted a piece at a time (each piece sharing
        // its first line with the one before), so that the count stops
        // soon after the limit: along the first axis, one block holds
        // every line.
        let mut at = 0;
        while let Some(piece) = block.get(at..block.len().min(at + 1024)) {
            if piece.len() < 2 {
                break;
            }
            stretches += piece.windows(2).filter(|w| w.first() != w.get(1)).count();
            if stretches > limit {
                return true;
            }
            at += piece.len() - 1;
        }
        if stretches > limit {
            return true;
        }
    }
    false
}

/// Appends to the `n` lengths in `lens`, per block of `inner`, where the
/// stretch of equal lengths each one belongs to ends (an index within the
/// block), so that a plan steps over a stretch at once instead of testing
/// its lengths one by one at every position along the axis. `None` when
/// an end does not fit `C`.
pub(super) fn mark_stretches<C: Count>(lens: &mut Vec<C>, inner: usize) -> Option<()> {
    let n = lens.len();
    lens.resize(2 * n, C::new(0)?);
    let (values, ends) = lens.split_at_mut(n);
    for (row, end) in values.chunks(inner).zip(ends.chunks_mut(inner)) {
        let mut stop = inner;
        for i in (0..row.len()).rev() {
            if row.get(i + 1).is_some_and(|&next| Some(&next) != row.get(i)) {
                stop = i + 1;
            }
            if let Some(e) = end.get_mut(i) {
                *e = C::new(stop)?;
            }
        }
    }
    Some(())
}

/// The data seen as `[outer, size, inner]`, where `size` is the reversed
/// axis; the line at `(o, i)` has length `lens[o * inner + i]`.
#[derive(Debug)]
pub(super) struct SubsequencePlan<'a, C> {
    pub(super) outer: usize,
    pub(super) size: usize,
    pub(super) inner: usize,
    /// Elements to reverse per line, clamped; 0 when nothing moves.
    pub(super) lens: &'a [C],
    /// When `inner > 1` and the lines are played as runs, per line, the
    /// end (within its block) of the stretch of lines with its length;
    /// else empty.
    pub(super) ends: &'a [C],
    /// Whether lengths change every few lines along a non-innermost axis
    /// ([`is_scattered`]); `ends` is then empty, except for strings, which
    /// are always played as runs.
    pub(super) scattered: bool,
}

impl<C: Count> SubsequencePlan<'_, C> {
    /// Moves `data` into `out`, which has its type and shape: as scattered
    /// lines ([`ScatteredLines::play`]) when lengths change every few lines
    /// along a non-innermost axis, otherwise as runs. Elements are `width`
    /// bytes each (`None`: the data's own).
    pub(super) fn play(
        &self,
        data: &Tensor,
        out: &mut Tensor,
        options: &ExecOptions,
        width: Option<usize>,
    ) -> Result<(), KernelError> {
        if !self.scattered || data.element_type() == ElementType::String {
            return play_as(OP, self, data, out, options, width);
        }
        let SubsequencePlan { size, inner, lens, .. } = *self;
        ScatteredLines { size, inner, lens }.play(OP, data, out, options, width)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scattered_means_more_than_one_stretch_per_sixteen_lines() {
        // Counted in full, block by block, against the count that stops
        // early: lengths that change every line, every 16th, 17th or 15th
        // line, in blocks shorter and far longer than its pieces.
        let naive = |lens: &[u32], inner: usize| {
            let stretches: usize =
                lens.chunks(inner).map(|b| 1 + b.windows(2).filter(|w| w[0] != w[1]).count()).sum();
            stretches > lens.len() / MIN_PLAYED_STRETCH
        };
        for every in [1, 15, 16, 17, 40] {
            for (lines, inner) in [(64, 8), (5000, 5000), (5000, 1000), (3000, 1), (4096, 2048)] {
                let lens: Vec<u32> = (0..lines as u32).map(|i| (i / every) % 3).collect();
                assert_eq!(
                    is_scattered(&lens, inner),
                    naive(&lens, inner),
                    "{every}, {lines} lines, {inner}"
                );
            }
        }
        assert!(is_scattered(&(0..10_000).collect::<Vec<u32>>(), 10_000));
        assert!(!is_scattered(&[7u32; 10_000], 10_000));
    }

    #[test]
    fn stretches_of_equal_lengths_end_where_the_length_changes() {
        let mut lens = vec![2u32, 2, 3, 0, 0, 5, 5, 5];
        assert_eq!(mark_stretches(&mut lens, 4), Some(()));
        assert_eq!(&lens[8..], &[2, 2, 3, 4, 1, 4, 4, 4]);
    }
}
