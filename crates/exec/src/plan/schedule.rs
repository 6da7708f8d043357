//! When each value's buffer can be reused: right after the last step that
//! reads it.

use std::collections::{HashMap, HashSet};

use ovir_tensor::Tensor;

use super::{Slot, Step};

/// Marks, for every slot computed at run time, the step that reads it
/// last, so that its buffer is released as early as possible. `pinned`
/// slots (inputs, outputs, views kept between runs) and constants are
/// never released.
pub(super) fn schedule_releases(steps: &mut [Step], pinned: &HashSet<Slot>, known: &[Option<Tensor>]) {
    let mut last_reader: HashMap<Slot, usize> = HashMap::new();
    for (i, step) in steps.iter().enumerate() {
        for &s in &step.inputs {
            last_reader.insert(s, i);
        }
    }
    let views: HashSet<Slot> = steps.iter().filter(|s| s.kernel.is_view()).map(|s| s.output).collect();
    for (slot, step) in last_reader {
        let keep = pinned.contains(&slot) || known.get(slot).is_some_and(Option::is_some);
        if keep {
            continue;
        }
        if let Some(st) = steps.get_mut(step) {
            // A view holds no buffer of its own: dropping it lets the
            // buffer it shares go back to the pool.
            if views.contains(&slot) {
                st.discard.push(slot);
            } else {
                st.release.push(slot);
            }
        }
    }
    for st in steps.iter_mut() {
        st.release.sort_unstable();
        st.release.dedup();
        st.discard.sort_unstable();
    }
}
