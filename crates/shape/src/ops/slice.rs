//! Slice-8: Python slicing along some axes.

use std::collections::BTreeSet;

use ovir_ir::Layer;
use ovir_tensor::{normalize_axis, Dim, PartialShape};

use crate::dims::{dims_of, fact_with_dims, input_rank, integer_input, saturated_ints, vector_len};
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};

/// Takes every `step`-th element between `start` and `stop` along some
/// axes, as Python slicing does; a step of -1 over a whole axis reverses
/// it. Its inputs are the data, start, stop, step and, optionally, the
/// axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice;

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Slice",
    aliases: &[],
    versions: Versions::Opsets(8, 16),
    inputs: (4, Some(5)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for Slice {
    const SPEC: OpSpec = SPEC;

    fn build(_layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        Ok(Slice)
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset8")
    }

    fn examples() -> Vec<Self> {
        vec![Slice]
    }
}

impl Operation for Slice {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, start, stop, step, rest @ ..] = inputs else {
            return Err(Problems::one(ShapeErrorKind::InputCountRange {
                op: SPEC.name,
                min: 4,
                max: Some(5),
                found: inputs.len(),
            }));
        };
        infer_slice(SPEC.name, data, [start, stop, step], rest.first())
    }

    fn input_values(&self, input: usize, _inputs: &[&PortFact]) -> ValueDomain {
        match input {
            // Any start and stop are clamped into the axis.
            3 => ValueDomain::NonZero,
            4 => ValueDomain::Axes { rank: Some(Size::RankOf { input: 0 }), first: 0, distinct: true },
            _ => ValueDomain::Any,
        }
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        // Start, stop, step and axes are equally long: as long as one of
        // them is known to be, or else one per data axis.
        if !(1..=4).contains(&input) || inputs.get(input).is_some_and(|f| vector_len(f).is_some()) {
            return None;
        }
        let known = inputs.iter().skip(1).find_map(|f| vector_len(f));
        Some(vec![Some(known.map_or(Size::RankOf { input: 0 }, |n| Size::Known(n as u64)))])
    }
}

/// Slice's shape inference, shared with SliceScatter (whose updates have
/// the shape a Slice would give): the output fact of a Slice of `data` by
/// `bounds` (start, stop, step) along `axes`, with errors naming `op`.
pub(crate) fn infer_slice(
    op: &'static str,
    data: &Input<'_>,
    bounds: [&Input<'_>; 3],
    axes: Option<&Input<'_>>,
) -> Result<Vec<PortFact>, Problems> {
    let mut problems = Problems::new();
    let names = ["start", "stop", "step"];
    let mut values: [Option<Vec<i64>>; 3] = [None, None, None];
    let mut lengths: [Option<usize>; 3] = [None, None, None];
    for (k, (input, name)) in bounds.iter().zip(names).enumerate() {
        let ok = integer_input(&mut problems, op, name, input.fact)
            & input_rank(&mut problems, op, name, input.fact, &[1], "a 1-D tensor");
        if let (Some(v), Some(l)) = (values.get_mut(k), lengths.get_mut(k)) {
            *v = if ok { input.fact.value.as_ref().and_then(saturated_ints) } else { None };
            *l = if ok { vector_len(input.fact) } else { None };
        }
    }
    let (axes_values, axes_len) = match axes {
        Some(a) => {
            let ok = integer_input(&mut problems, op, "axes", a.fact)
                & input_rank(&mut problems, op, "axes", a.fact, &[1], "a 1-D tensor");
            let v = if ok { a.fact.value.as_ref().and_then(saturated_ints) } else { None };
            (v, if ok { vector_len(a.fact) } else { None })
        }
        None => (None, None),
    };
    if let [Some(start), Some(stop), Some(step)] = lengths {
        if axes.is_none() || axes_len.is_some() {
            if let Err(kind) = slice_lengths(op, start, stop, step, axes_len) {
                problems.layer(kind);
            }
        }
    }
    let [start, stop, step] = values;
    if let Some(Err(kind)) = step.as_deref().map(|s| slice_steps(op, s)) {
        problems.layer(kind);
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let ty = data.fact.element_type;
    let Some(dims) = data.fact.shape.dims() else {
        return Ok(vec![PortFact::of(ty, PartialShape::dynamic())]);
    };
    let rank = dims.len();
    let count = lengths.iter().chain([&axes_len]).find_map(|&n| n);
    let listed = match (axes, axes_values, count) {
        (Some(_), Some(v), _) => slice_axes(op, rank, v.len(), Some(&v)).map(Some),
        (None, _, Some(n)) => slice_axes(op, rank, n, None).map(Some),
        // The axes are not known yet; their number can still be checked.
        (_, _, Some(n)) => slice_axes(op, rank, n, None).map(|_| None),
        (_, _, None) => Ok(None),
    };
    let listed = match listed {
        Ok(l) => l,
        Err(kind) => {
            problems.layer(kind);
            return Err(problems);
        }
    };
    // Any dimension the slice may touch becomes anything from 0 to its
    // upper bound, unless the bounds are known.
    let unknown = |d: &Dim| Dim::interval(0, d.max()).unwrap_or(Dim::DYNAMIC);
    let mut out: Vec<Dim> = match &listed {
        Some(_) => dims.to_vec(),
        None => dims.iter().map(unknown).collect(),
    };
    let mut picked = None;
    for (i, &axis) in listed.iter().flatten().enumerate() {
        let bound = |v: &Option<Vec<i64>>| v.as_ref().and_then(|v| v.get(i).copied());
        let (Some(d), Some(dim)) = (out.get_mut(axis), dims.get(axis)) else { continue };
        *d = match (bound(&start), bound(&stop), bound(&step)) {
            (Some(b), Some(e), Some(s)) => {
                // A part of a list of dimensions stays known.
                if let (Some(list), 1) = (dims_of(data.fact), rank) {
                    picked = slice_range(list.len() as u64, b, e, s).map(|r| {
                        (0..r.len)
                            .filter_map(|j| {
                                let at = i128::from(r.first) + i128::from(j) * i128::from(r.step);
                                usize::try_from(at).ok().and_then(|at| list.get(at).copied())
                            })
                            .collect::<Vec<Dim>>()
                    });
                }
                slice_dim(*dim, b, e, s)
            }
            _ => unknown(dim),
        };
    }
    problems.or_ok(vec![fact_with_dims(ty, PartialShape::new(out), picked)])
}

/// One axis of a Slice resolved against a dimension of `dim` elements:
/// `len` elements, the first at index `first`, each `step` after the one
/// before it. `first` is 0 when `len` is 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceRange {
    /// The index of the first element taken (in `[0, dim)` when `len > 0`).
    pub first: u64,
    /// The distance between elements taken; never 0.
    pub step: i64,
    /// The number of elements taken.
    pub len: u64,
}

/// Resolves `start`, `stop` and `step` against a dimension of `dim`
/// elements as Python slicing does: negative bounds count from the end,
/// then bounds are clamped to `[0, dim]` for a positive step and to
/// `[-1, dim-1]` for a negative one, so that out-of-range bounds select
/// up to the end. `step` must not be 0.
///
/// ```
/// use ovir_shape::ops::slice::{slice_range, SliceRange};
/// // x[::-1] of 5 elements, as PyTorch's flip is written.
/// assert_eq!(slice_range(5, -1, i64::MIN, -1), Some(SliceRange { first: 4, step: -1, len: 5 }));
/// assert_eq!(slice_range(5, 1, 100, 2), Some(SliceRange { first: 1, step: 2, len: 2 }));
/// ```
pub fn slice_range(dim: u64, start: i64, stop: i64, step: i64) -> Option<SliceRange> {
    if step == 0 {
        return None;
    }
    // In i128 no sum of a bound and a dimension can overflow.
    let d = i128::from(dim);
    let (lo, hi) = if step > 0 { (0, d) } else { (-1, d - 1) };
    let resolve = |v: i64| {
        let v = i128::from(v);
        let v = if v < 0 { v + d } else { v };
        v.clamp(lo, hi)
    };
    let (s, e) = (resolve(start), resolve(stop));
    let st = i128::from(step);
    let span = if step > 0 { e - s } else { s - e };
    let stride = st.abs();
    let len = if span > 0 { (span + stride - 1) / stride } else { 0 };
    if len == 0 {
        return Some(SliceRange { first: 0, step, len: 0 });
    }
    Some(SliceRange { first: u64::try_from(s).ok()?, step, len: u64::try_from(len).ok()? })
}

/// The data axes a Slice applies its `count` start/stop/step values to,
/// normalised: `axes` (negative ones counting from the end, each at most
/// once), or the first `count` axes when there is no axes input.
pub fn slice_axes(
    op: &'static str,
    rank: usize,
    count: usize,
    axes: Option<&[i64]>,
) -> Result<Vec<usize>, ShapeErrorKind> {
    if count > rank {
        return Err(ShapeErrorKind::SliceTooManyAxes { op, count, rank });
    }
    let Some(axes) = axes else {
        return Ok((0..count).collect());
    };
    let mut seen = BTreeSet::new();
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = normalize_axis(a, rank).ok_or(ShapeErrorKind::OpAxisOutOfRange {
            op,
            what: "axes value",
            axis: a,
            rank,
        })?;
        if !seen.insert(n) {
            return Err(ShapeErrorKind::SliceRepeatedAxis { op, axis: n });
        }
        out.push(n);
    }
    Ok(out)
}

/// Checks that Slice's start, stop, step and (when given) axes inputs
/// have one length.
pub fn slice_lengths(
    op: &'static str,
    start: usize,
    stop: usize,
    step: usize,
    axes: Option<usize>,
) -> Result<(), ShapeErrorKind> {
    if [Some(stop), Some(step), axes].iter().flatten().any(|&n| n != start) {
        return Err(ShapeErrorKind::SliceLengths { op, start, stop, step, axes });
    }
    Ok(())
}

/// Checks that no step of a Slice is 0.
pub fn slice_steps(op: &'static str, steps: &[i64]) -> Result<(), ShapeErrorKind> {
    match steps.iter().position(|&s| s == 0) {
        Some(index) => Err(ShapeErrorKind::SliceStepZero { op, index }),
        None => Ok(()),
    }
}

/// The output dimension of a Slice along one axis of `dim`. A static
/// dimension gives a static one; an axis taken whole whatever its size
/// (start and stop beyond every size it may have) gives the input's
/// interval divided by the step; otherwise the output is anywhere from 0
/// to the input's upper bound.
pub fn slice_dim(dim: Dim, start: i64, stop: i64, step: i64) -> Dim {
    if let Some(n) = dim.get() {
        return slice_range(n, start, stop, step).map_or(Dim::DYNAMIC, |r| Dim::fixed(r.len));
    }
    // The largest size the dimension may have, as a bound on the values.
    let hi = dim.max().map_or(i128::from(i64::MAX), i128::from);
    let (s, e) = (i128::from(start), i128::from(stop));
    let whole = if step > 0 {
        (s == 0 || s <= -hi) && e >= hi
    } else if step < 0 {
        (s == -1 || s >= hi - 1) && e < -hi
    } else {
        false
    };
    if whole {
        let k = step.unsigned_abs();
        let max = dim.max().map(|m| m.div_ceil(k));
        return Dim::interval(dim.min().div_ceil(k), max).unwrap_or(Dim::DYNAMIC);
    }
    Dim::interval(0, dim.max()).unwrap_or(Dim::DYNAMIC)
}
