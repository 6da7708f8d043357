//! A plan's output as runs: a rows run per block of contiguous lines, or a
//! run per stretch of lines that share a length.

use std::ops::Range;

use super::planning::SubsequencePlan;
use crate::kernels::counts::Count;
use crate::kernels::run_plan::{Joiner, Rows, Run, RunPlan};

impl<C: Count> RunPlan for SubsequencePlan<'_, C> {
    /// A unit is a whole line when lines are contiguous (`inner == 1`),
    /// and otherwise one `inner` slice at one position along the axis.
    fn unit_len(&self) -> usize {
        if self.inner == 1 {
            self.size.max(1)
        } else {
            self.inner.max(1)
        }
    }

    fn units(&self) -> usize {
        if self.inner == 1 {
            self.outer
        } else {
            self.outer * self.size
        }
    }

    fn for_each_run<'s, F: FnMut(Run<'s>) -> Option<()>>(
        &'s self,
        units: Range<usize>,
        emit: F,
    ) -> Option<()> {
        let SubsequencePlan { size, inner, lens, ends, .. } = *self;
        let mut out = Joiner::new(emit);
        if inner == 1 {
            // Lines are rows one after another, each with its own length:
            // the whole range is one rows run.
            let heads = C::heads(lens.get(units.clone())?);
            let rows = Some(Rows { row: size, heads, block: 1 });
            out.push(Run { src: units.start * size, len: units.len() * size, reversed: false, rows })?;
            return out.finish();
        }
        // Unit `u` is position `k` of block `o`; each element `i` of it
        // reads position `len - 1 - k` of its own line while `k < len`,
        // else position `k`. A stretch of lines with one length reads one
        // position, and the joiner merges stretches that read the same, so
        // lengths that vary little make few runs.
        let source = |len: usize, k: usize| if k < len { len - 1 - k } else { k };
        let (mut o, mut k) = (units.start / size, units.start % size);
        for _ in units {
            let block = o * inner..(o + 1) * inner;
            let (line, end) = (lens.get(block.clone())?, ends.get(block)?);
            let base = o * size * inner;
            let mut i = 0;
            while let (Some(len), Some(stop)) = (line.get(i).map(|n| n.get()), end.get(i).map(|n| n.get())) {
                if stop <= i {
                    return None;
                }
                let from = source(len, k);
                out.push(Run { src: base + from * inner + i, len: stop - i, reversed: false, rows: None })?;
                i = stop;
            }
            k += 1;
            if k == size {
                k = 0;
                o += 1;
            }
        }
        out.finish()
    }
}
