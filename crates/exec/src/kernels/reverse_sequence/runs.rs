//! A plan's output as runs for the run players: rows runs where sequences
//! are rows, a run per slice or per batch index elsewhere.

use std::ops::Range;

use super::planning::SequencePlan;
use crate::kernels::counts::Count;
use crate::kernels::run_plan::{Joiner, Rows, Run, RunPlan};

impl<C: Count> RunPlan for SequencePlan<'_, C> {
    fn unit_len(&self) -> usize {
        (self.hi * self.inner).max(1)
    }

    fn units(&self) -> usize {
        self.outer * self.lo * self.mid
    }

    /// With the sequence axis before the batch axis, every batch index
    /// reads its own position, so neighbouring runs come from far apart.
    fn gathers(&self) -> bool {
        !self.seq_is_hi
    }

    /// One unit per `hi` slice, that is per `(outer, lo, mid)` index.
    fn for_each_run<'s, F: FnMut(Run<'s>) -> Option<()>>(
        &'s self,
        units: Range<usize>,
        emit: F,
    ) -> Option<()> {
        let SequencePlan { lo, mid, hi, inner, seq_is_hi, uniform, .. } = *self;
        let mut out = Joiner::new(emit);
        if seq_is_hi && inner == 1 && mid == 1 {
            // Every unit is one row, and consecutive rows belong to
            // consecutive batch indices: with one length for all, every row
            // asked for makes one run; otherwise the rows up to the end of
            // the batch axis make one run that carries its lengths. Either
            // way there is no run per row.
            if uniform {
                let len = self.len_at(0);
                return out
                    .push(Run::rows(units.start * hi, hi, len, units.len()))
                    .and_then(|()| out.finish());
            }
            let mut unit = units.start;
            while unit < units.end {
                let l = unit % lo.max(1);
                let count = (lo - l).min(units.end - unit);
                let heads = C::heads(self.lens.get(l..l + count)?);
                out.push(Run {
                    src: unit * hi,
                    len: count * hi,
                    reversed: false,
                    rows: Some(Rows { row: hi, heads, block: 1 }),
                })?;
                unit += count;
            }
            return out.finish();
        }
        // `(l, m)` of the current slice, stepped like an odometer, so no
        // division is done per slice; `base` is the slice's first element.
        let mut m = units.start % mid.max(1);
        let mut l = (units.start / mid.max(1)) % lo.max(1);
        let mut base = units.start * hi * inner;
        let slice = hi * inner;
        if seq_is_hi && inner == 1 {
            // Every slice is one row, and the `mid` rows of one batch index
            // follow one another and share its length: they go out as one
            // run, so the plan costs one step per batch index, not one per
            // row, which on short rows cost as much as the copy.
            let mut unit = units.start;
            while unit < units.end {
                let count = (mid - m).min(units.end - unit);
                match self.len_at(l) {
                    0 => out.push(Run { src: base, len: count * slice, reversed: false, rows: None })?,
                    len => out.push(Run::rows(base, hi, len, count))?,
                }
                unit += count;
                base += count * slice;
                m = 0;
                l += 1;
                if l == lo {
                    l = 0;
                }
            }
            return out.finish();
        }
        for _ in units {
            if seq_is_hi {
                // The sequence runs through this `hi` slice, so its
                // untouched tail is one contiguous copy.
                let len = self.len_at(l);
                // The first `len` blocks of `inner`, last to first, as one
                // run, which the writer reads ahead of.
                out.push(Run::descending_rows(base, inner, len))?;
                out.push(Run {
                    src: base + len * inner,
                    len: (hi - len) * inner,
                    reversed: false,
                    rows: None,
                })?;
            } else {
                // Here `l` is the position in the sequence and every `hi`
                // index is a batch with its own length; batches that read
                // the same source position join up. Moving from position
                // `l` to `from` moves the source by whole `mid` slices.
                for b in 0..hi {
                    let len = self.len_at(b);
                    let src = if l < len {
                        let from = len - 1 - l;
                        // Position `from` instead of `l`, same `m`.
                        base - l * mid * slice + from * mid * slice + b * inner
                    } else {
                        base + b * inner
                    };
                    out.push(Run { src, len: inner, reversed: false, rows: None })?;
                }
            }
            base += slice;
            m += 1;
            if m == mid {
                m = 0;
                l += 1;
                if l == lo {
                    l = 0;
                }
            }
        }
        out.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::super::planning::prepare;
    use super::*;
    use ovir_tensor::Tensor;

    fn runs<'a, C: Count>(plan: &'a SequencePlan<'_, C>) -> Vec<Run<'a>> {
        let mut all = Vec::new();
        plan.for_each_run(0..plan.units(), |r| {
            all.push(r);
            Some(())
        });
        all
    }

    #[test]
    fn untouched_tail_is_one_copy() {
        // batch 0, seq 1 on [1, 5, 3]: length 2 swaps two blocks of 3, then
        // copies the last three blocks at once.
        let plan = SequencePlan {
            outer: 1,
            lo: 1,
            mid: 1,
            hi: 5,
            inner: 3,
            seq_is_hi: true,
            uniform: true,
            lens: &[2u32],
        };
        assert_eq!(
            runs(&plan),
            vec![Run::descending_rows(0, 3, 2), Run { src: 6, len: 9, reversed: false, rows: None }]
        );
    }

    #[test]
    fn batches_past_their_length_join() {
        // seq 0, batch 1 on [3, 4]: at sequence position 2 no batch is
        // reversed any more, so the whole row is one copy.
        let plan = SequencePlan {
            outer: 1,
            lo: 3,
            mid: 1,
            hi: 4,
            inner: 1,
            seq_is_hi: false,
            uniform: false,
            lens: &[2u32, 0, 2, 2],
        };
        let all = runs(&plan);
        assert_eq!(all.last(), Some(&Run { src: 8, len: 4, reversed: false, rows: None }));
    }

    #[test]
    fn a_stored_length_of_one_is_a_plain_copy() {
        // `[2, 3, 4]` with batch 0 and sequence 2 and `mid` 3: batch 0 keeps
        // its rows, batch 1 reverses them.
        let data = Tensor::from_vec(&[2, 3, 4], (0..24).collect::<Vec<i32>>()).unwrap();
        let lengths = Tensor::from_vec(&[2], vec![1i32, 4]).unwrap();
        let mut lens = Vec::<u32>::new();
        let plan = prepare(&data, &lengths, 0, 2, &mut lens).unwrap().unwrap();
        assert_eq!(plan.len_at(0), 0);
        assert_eq!(plan.len_at(1), 4);
        let mut runs = Vec::new();
        plan.for_each_run(0..plan.units(), |run| {
            runs.push(run);
            Some(())
        });
        // Batch 0's three rows join into one forward run.
        assert_eq!(
            runs.first().map(|r| (r.src, r.len, r.reversed, r.rows.is_none())),
            Some((0, 12, false, true))
        );
    }
}
