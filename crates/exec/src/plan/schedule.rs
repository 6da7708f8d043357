//! When each value's buffer can be reused: right after the last step that
//! reads it.

use std::collections::{HashMap, HashSet};

use ovir_tensor::Tensor;

use super::{Slot, Step};
use crate::step::Reuse;

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
    let views: HashSet<Slot> =
        steps.iter().filter(|s| s.kernel.is_view()).flat_map(|s| s.output..s.output + s.ports).collect();
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

/// Grants each output that its kernel may compute in place from an input
/// ([`Kernel::reuses_input`](crate::step::Kernel::reuses_input)) the
/// buffer of that input where the input dies at the step. Such an input is
/// read by no later step and by this step only once, no view of it
/// outlives the step, and it is no model output. It is either computed by
/// a step on every run (no constant, no kept view, no view at all, which
/// shares a buffer by nature), or a model input (`model_inputs` maps their
/// slots to their indices), which the caller may hand over. Whether
/// nothing else holds the buffer is checked on each run. Runs after
/// [`schedule_releases`], whose release lists say where each computed
/// slot dies.
pub(super) fn grant_reuse(
    steps: &mut [Step],
    pinned: &HashSet<Slot>,
    model_inputs: &HashMap<Slot, usize>,
    model_outputs: &HashSet<Slot>,
) {
    let mut last_reader: HashMap<Slot, usize> = HashMap::new();
    for (i, step) in steps.iter().enumerate() {
        for &s in &step.inputs {
            last_reader.insert(s, i);
        }
    }
    // Where a view reads a slot, the last step that reads the view (or
    // `usize::MAX` when the view is kept or is a model output).
    let mut views_live_until: HashMap<Slot, usize> = HashMap::new();
    for step in steps.iter().filter(|s| s.kernel.is_view()) {
        let Some(&data) = step.inputs.first() else { continue };
        let until = (step.output..step.output + step.ports)
            .map(|v| if pinned.contains(&v) { usize::MAX } else { last_reader.get(&v).copied().unwrap_or(0) })
            .max()
            .unwrap_or(0);
        let live = views_live_until.entry(data).or_insert(0);
        *live = (*live).max(until);
    }
    let computed: HashSet<Slot> = steps
        .iter()
        .filter(|s| !s.kernel.is_view() && !s.keep)
        .flat_map(|s| s.output..s.output + s.ports)
        .collect();
    for (i, step) in steps.iter_mut().enumerate() {
        for port in 0..step.ports.min(64) {
            let Some(input) = step.kernel.reuses_input(port) else { continue };
            let Some(&slot) = step.inputs.get(input).filter(|_| input < 64) else { continue };
            let model_input = model_inputs.get(&slot).copied();
            let dies_here = match model_input {
                Some(_) => last_reader.get(&slot) == Some(&i) && !model_outputs.contains(&slot),
                None => step.release.contains(&slot) && !pinned.contains(&slot) && computed.contains(&slot),
            };
            let alone = step.inputs.iter().filter(|&&s| s == slot).count() == 1
                && views_live_until.get(&slot).is_none_or(|&until| until < i)
                && !step.reuse.iter().any(|r| r.input == input);
            if dies_here && alone {
                step.reuse.push(Reuse { port, input, model_input });
            }
        }
    }
}
