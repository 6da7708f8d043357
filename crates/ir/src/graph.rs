//! Connecting layers through edges: every edge must name existing ports,
//! every input must be fed exactly once, and the graph must be acyclic.
//!
//! All walks here are loops over explicit worklists, so a chain of any
//! length costs no native stack.

use std::cmp::Reverse;
use std::collections::hash_map::Entry;
use std::collections::{BinaryHeap, HashMap};

use crate::diagnostic::{Diagnostic, IrErrorKind};
use crate::layer_ref::LayerRef;
use crate::model::{Edge, Layer, LayerIdx, OutputRef};
use crate::source::LineIndex;

/// The first edge reaching an input, with the output feeding it when that
/// edge's producer is valid.
type Feed<'e> = Option<(Option<OutputRef>, &'e Edge)>;

/// How the layers connect, once every check has passed.
pub(crate) struct Links {
    pub sources: Vec<Vec<OutputRef>>,
    pub order: Vec<LayerIdx>,
}

/// Checks the edges and the graph; `None` when a problem was reported.
pub(crate) fn link(
    text: &str,
    layers: &[Layer],
    edges: &[Edge],
    diags: &mut Vec<Diagnostic>,
) -> Option<Links> {
    let before = diags.len();
    let lines = std::cell::OnceCell::new();
    let line_of = |offset: usize| lines.get_or_init(|| LineIndex::new(text)).line_col(text, offset).line;
    let mut by_id: HashMap<u64, usize> = HashMap::with_capacity(layers.len());
    for (i, layer) in layers.iter().enumerate() {
        match by_id.entry(layer.id) {
            Entry::Vacant(v) => {
                v.insert(i);
            }
            Entry::Occupied(o) => {
                let first_line = layers.get(*o.get()).map_or(0, |f| line_of(f.span.start));
                let kind = IrErrorKind::DuplicateLayerId { id: layer.id, first_line };
                diags.push(Diagnostic::at(kind, layer.span).with_layer(Some(layer.layer_ref())));
            }
        }
    }

    // Port positions by (layer, port id): a layer may have very many ports,
    // and a linear search per edge would make reading quadratic.
    let mut input_at: HashMap<(usize, u64), usize> = HashMap::new();
    let mut output_at: HashMap<(usize, u64), usize> = HashMap::new();
    for (i, layer) in layers.iter().enumerate() {
        for (pos, port) in layer.inputs.iter().enumerate() {
            input_at.entry((i, port.id)).or_insert(pos);
        }
        for (pos, port) in layer.outputs.iter().enumerate() {
            output_at.entry((i, port.id)).or_insert(pos);
        }
    }

    // For each input of each layer: the first edge to it, and the output
    // feeding it when that edge's producer checked out. An input reached
    // only by a bad edge is not reported again as unfed.
    let mut fed: Vec<Vec<Feed<'_>>> = layers.iter().map(|l| vec![None; l.inputs.len()]).collect();
    // Producer and consumer of every edge that checked out.
    let mut arcs: Vec<(usize, usize)> = Vec::with_capacity(edges.len());
    for edge in edges {
        let from = by_id.get(&edge.from_layer).copied();
        let to = by_id.get(&edge.to_layer).copied();
        let from_layer = from.and_then(|i| layers.get(i));
        let to_layer = to.and_then(|i| layers.get(i));
        let mut report = |kind, layer: Option<&Layer>| {
            diags.push(Diagnostic::at(kind, edge.span).with_layer(layer.map(Layer::layer_ref)));
        };
        if from_layer.is_none() {
            report(IrErrorKind::UnknownLayer { end: "from", id: edge.from_layer }, None);
        }
        if to_layer.is_none() {
            report(IrErrorKind::UnknownLayer { end: "to", id: edge.to_layer }, None);
        }
        let out_pos = from.zip(from_layer).and_then(|(i, l)| {
            let pos = output_at.get(&(i, edge.from_port)).copied();
            if pos.is_none() {
                let kind = IrErrorKind::UnknownPort {
                    end: "from",
                    direction: "output",
                    layer: edge.from_layer,
                    port: edge.from_port,
                };
                report(kind, Some(l));
            }
            pos
        });
        let in_pos = to.zip(to_layer).and_then(|(i, l)| {
            let pos = input_at.get(&(i, edge.to_port)).copied();
            if pos.is_none() {
                let kind = IrErrorKind::UnknownPort {
                    end: "to",
                    direction: "input",
                    layer: edge.to_layer,
                    port: edge.to_port,
                };
                report(kind, Some(l));
            }
            pos
        });
        let (Some(to), Some(in_pos)) = (to, in_pos) else { continue };
        let Some(slot) = fed.get_mut(to).and_then(|f| f.get_mut(in_pos)) else { continue };
        let producer = from.zip(out_pos);
        // A bad edge only stands in for the real one, so that the input is
        // not reported unfed as well; it never makes the input "fed twice".
        match (slot.as_ref(), producer) {
            (Some((Some(_), first)), Some(_)) => {
                let first_line = line_of(first.span.start);
                let kind =
                    IrErrorKind::InputFedTwice { layer: edge.to_layer, port: edge.to_port, first_line };
                report(kind, to_layer);
            }
            (None | Some((None, _)), Some((from, port))) => {
                *slot = Some((Some(OutputRef { layer: LayerIdx(from), port }), edge));
                arcs.push((from, to));
            }
            (None, None) => *slot = Some((None, edge)),
            (Some(_), None) => {}
        }
    }

    let mut sources = Vec::with_capacity(layers.len());
    for (layer, inputs) in layers.iter().zip(&fed) {
        let mut list = Vec::with_capacity(inputs.len());
        for (port, slot) in layer.inputs.iter().zip(inputs) {
            match slot {
                Some((Some(src), _)) => list.push(*src),
                Some((None, _)) => {}
                None => {
                    let kind = IrErrorKind::InputNotFed { layer: layer.id, port: port.id };
                    diags.push(Diagnostic::at(kind, port.span).with_layer(Some(layer.layer_ref())));
                }
            }
        }
        sources.push(list);
    }

    let order = topological_order(layers, &arcs, diags);
    if diags.len() > before {
        return None;
    }
    Some(Links { sources, order })
}

/// Kahn's algorithm, taking the ready layer that comes first in the file so
/// that the order is stable; reports every cycle when some layers are left.
fn topological_order(
    layers: &[Layer],
    arcs: &[(usize, usize)],
    diags: &mut Vec<Diagnostic>,
) -> Vec<LayerIdx> {
    let n = layers.len();
    let succ = adjacency(n, arcs.iter().copied());
    let mut indegree = vec![0usize; n];
    for &(_, to) in arcs {
        if let Some(d) = indegree.get_mut(to) {
            *d += 1;
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> =
        indegree.iter().enumerate().filter(|(_, &d)| d == 0).map(|(i, _)| Reverse(i)).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse(i)) = ready.pop() {
        order.push(LayerIdx(i));
        for &next in succ.of(i) {
            if let Some(d) = indegree.get_mut(next) {
                *d -= 1;
                if *d == 0 {
                    ready.push(Reverse(next));
                }
            }
        }
    }
    if order.len() < n {
        report_cycles(layers, arcs, &indegree, diags);
    }
    order
}

/// Finds the cycles among the layers Kahn's algorithm could not order.
///
/// Each such layer still has an unordered producer, so walking producers
/// backwards from it must come back to a layer already on the walk: that
/// stretch is a cycle. Walks stop at layers seen by an earlier walk, so each
/// cycle is reported once.
fn report_cycles(layers: &[Layer], arcs: &[(usize, usize)], indegree: &[usize], diags: &mut Vec<Diagnostic>) {
    let stuck = |i: usize| indegree.get(i).is_some_and(|&d| d > 0);
    let pred =
        adjacency(layers.len(), arcs.iter().filter(|(f, t)| stuck(*f) && stuck(*t)).map(|&(f, t)| (t, f)));
    // 0: not visited; otherwise the number of the walk that visited it.
    let mut walk_of = vec![0usize; layers.len()];
    let mut walk = 0;
    for startpoint in 0..layers.len() {
        if !stuck(startpoint) || walk_of.get(startpoint) != Some(&0) {
            continue;
        }
        walk += 1;
        let mut path = Vec::new();
        let mut at = startpoint;
        loop {
            match walk_of.get(at) {
                Some(&0) => {}
                Some(&w) if w == walk => {
                    let from = path.iter().position(|&p| p == at).unwrap_or(0);
                    let mut cycle: Vec<usize> = path.get(from..).unwrap_or(&[]).to_vec();
                    // The walk went from consumers to producers.
                    cycle.reverse();
                    push_cycle(layers, cycle, diags);
                    break;
                }
                _ => break,
            }
            if let Some(w) = walk_of.get_mut(at) {
                *w = walk;
            }
            path.push(at);
            match pred.of(at).first() {
                Some(&p) => at = p,
                None => break,
            }
        }
    }
}

fn push_cycle(layers: &[Layer], mut cycle: Vec<usize>, diags: &mut Vec<Diagnostic>) {
    // Start the list at the cycle's first layer in the file.
    if let Some(first) = cycle.iter().enumerate().min_by_key(|(_, &l)| l).map(|(i, _)| i) {
        cycle.rotate_left(first);
    }
    let refs: Vec<LayerRef> = cycle.iter().filter_map(|&i| layers.get(i)).map(Layer::layer_ref).collect();
    let Some(head) = cycle.first().and_then(|&i| layers.get(i)) else { return };
    let kind = IrErrorKind::Cycle { layers: refs };
    diags.push(Diagnostic::at(kind, head.span).with_layer(Some(head.layer_ref())));
}

/// Adjacency lists in one flat array (compressed rows).
struct Adjacency {
    starts: Vec<usize>,
    targets: Vec<usize>,
}

impl Adjacency {
    fn of(&self, i: usize) -> &[usize] {
        match (self.starts.get(i), self.starts.get(i + 1)) {
            (Some(&a), Some(&b)) => self.targets.get(a..b).unwrap_or(&[]),
            _ => &[],
        }
    }
}

fn adjacency(n: usize, arcs: impl Iterator<Item = (usize, usize)> + Clone) -> Adjacency {
    let mut starts = vec![0usize; n + 1];
    for (from, _) in arcs.clone() {
        if let Some(s) = starts.get_mut(from + 1) {
            *s += 1;
        }
    }
    for i in 0..n {
        let prev = starts.get(i).copied().unwrap_or(0);
        if let Some(s) = starts.get_mut(i + 1) {
            *s += prev;
        }
    }
    let mut fill = starts.clone();
    let mut targets = vec![0usize; starts.get(n).copied().unwrap_or(0)];
    for (from, to) in arcs {
        if let Some(slot) = fill.get_mut(from) {
            if let Some(t) = targets.get_mut(*slot) {
                *t = to;
            }
            *slot += 1;
        }
    }
    Adjacency { starts, targets }
}
