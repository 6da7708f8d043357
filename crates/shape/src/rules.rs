//! Output shapes of the operations that move or restructure data (Gather,
//! Broadcast, Unsqueeze, Squeeze, Reshape, Concat, Slice), from the input shapes
//! and the values that steer them.
//!
//! Analysis calls these functions with partial shapes; the kernels call
//! the very same functions with static shapes when the model runs. A
//! problem is therefore reported in the same words whether it shows up
//! when the model is loaded or only when it runs.

use std::collections::BTreeSet;

use ovir_tensor::{Dim, PartialShape, Tensor};

use crate::error::ShapeErrorKind;
use crate::op::{normalize_axis, BroadcastMode};

/// The values of a 0-D or 1-D integer tensor as `i64`; `None` for other
/// element types, or when a value does not fit an `i64`.
pub fn int_values(t: &Tensor) -> Option<Vec<i64>> {
    if !t.element_type().is_integral() {
        return None;
    }
    t.integer_values()?.into_iter().map(|v| i64::try_from(v).ok()).collect()
}

/// The sum of two dimensions: each bound is added; an unbounded side stays
/// unbounded.
fn add_dims(a: Dim, b: Dim) -> Dim {
    let min = a.min().saturating_add(b.min());
    let max = match (a.max(), b.max()) {
        (Some(x), Some(y)) => x.checked_add(y),
        _ => None,
    };
    Dim::interval(min, max).unwrap_or(Dim::DYNAMIC)
}

/// What Gather's inputs determine: the output shape, and the axis and
/// `batch_dims` once they are normalised (when the ranks allow it).
#[derive(Clone, Debug, PartialEq)]
pub struct GatherShape {
    /// The output shape.
    pub shape: PartialShape,
    /// The axis in `[0, data rank)`, when the axis and the data rank are
    /// known.
    pub axis: Option<usize>,
    /// `batch_dims` in `[0, indices rank]`, when it is known.
    pub batch_dims: Option<usize>,
}

/// Gather's output shape: `data[:axis] + indices[batch_dims:] +
/// data[axis+1:]`, where the first `batch_dims` dimensions of data and
/// indices must agree and `batch_dims <= axis`. `axis` is the value of
/// the axis input, when known.
pub fn gather_shape(
    data: &PartialShape,
    indices: &PartialShape,
    axis: Option<i64>,
    batch_dims: i64,
) -> Result<GatherShape, ShapeErrorKind> {
    let out_of_range = |rank: usize| ShapeErrorKind::BatchDimsOutOfRange { batch_dims, rank };
    let batch = match indices.rank() {
        Some(r) => {
            let b = if batch_dims < 0 { batch_dims.saturating_add(r as i64) } else { batch_dims };
            if b < 0 || b > r as i64 {
                return Err(out_of_range(r));
            }
            Some(b as usize)
        }
        None if batch_dims >= 0 => usize::try_from(batch_dims).ok(),
        None => None,
    };
    let axis = match (axis, data.rank()) {
        (Some(a), Some(r)) => Some(normalize_axis(a, r).ok_or(ShapeErrorKind::OpAxisOutOfRange {
            op: "Gather",
            what: "axis",
            axis: a,
            rank: r,
        })?),
        _ => None,
    };
    if let (Some(a), Some(b)) = (axis, batch) {
        if b > a {
            return Err(ShapeErrorKind::BatchDimsAboveAxis { batch_dims: b as i64, axis: a as i64 });
        }
    }
    let shape = match (data.dims(), indices.dims(), batch) {
        (Some(d), Some(i), Some(b)) => {
            // The axis, when known, is at least `batch_dims`, and an axis
            // exists only if the data has rank 1 or more.
            if b >= d.len() {
                return Err(ShapeErrorKind::BatchDimsAboveAxis {
                    batch_dims: b as i64,
                    axis: d.len() as i64 - 1,
                });
            }
            let mut out = Vec::with_capacity(d.len() + i.len());
            for k in 0..b {
                let (Some(&x), Some(&y)) = (d.get(k), i.get(k)) else { break };
                match x.merge(y) {
                    Some(m) => out.push(m),
                    None => {
                        return Err(ShapeErrorKind::BatchDimsMismatch {
                            batch_dims: b,
                            data: data.clone(),
                            indices: indices.clone(),
                        })
                    }
                }
            }
            match axis {
                Some(a) => {
                    out.extend(d.get(b..a).unwrap_or_default());
                    out.extend(i.get(b..).unwrap_or_default());
                    out.extend(d.get(a + 1..).unwrap_or_default());
                }
                None => out.resize(d.len() + i.len() - 1 - b, Dim::DYNAMIC),
            }
            PartialShape::new(out)
        }
        _ => PartialShape::dynamic(),
    };
    Ok(GatherShape { shape, axis, batch_dims: batch })
}

/// OpenVINO's broadcast merge of two dimensions: a 1 stretches to the
/// other; otherwise they must agree.
fn broadcast_merge(a: Dim, b: Dim) -> Option<Dim> {
    match (a.contains(1), b.contains(1)) {
        _ if a.get() == Some(1) => Some(b),
        _ if b.get() == Some(1) => Some(a),
        // Either side may turn out to be 1: the result spans both.
        (true, true) => {
            let max = match (a.max(), b.max()) {
                (Some(x), Some(y)) => Some(x.max(y)),
                _ => None,
            };
            Dim::interval(a.min().min(b.min()), max)
        }
        (true, false) => Some(b),
        (false, true) => Some(a),
        (false, false) => a.merge(b),
    }
}

/// Broadcast's output shape. `target` is the target shape's value as
/// dimensions when it is known (fully or as intervals), `target_len` its
/// length when only that is known; `axes_mapping` is explicit mode's third
/// input, when known.
pub fn broadcast_shape(
    mode: BroadcastMode,
    data: &PartialShape,
    target: Option<&[Dim]>,
    target_len: Option<usize>,
    axes_mapping: Option<&[i64]>,
) -> Result<PartialShape, ShapeErrorKind> {
    let name = mode.as_str();
    let Some(target) = target else {
        return Ok(match (mode, target_len, data.rank()) {
            (BroadcastMode::Bidirectional, Some(n), Some(r)) => PartialShape::with_rank(n.max(r)),
            (BroadcastMode::Bidirectional, _, _) => PartialShape::dynamic(),
            (_, Some(n), _) => PartialShape::with_rank(n),
            (_, None, _) => PartialShape::dynamic(),
        });
    };
    let Some(dims) = data.dims() else {
        return Ok(match mode {
            BroadcastMode::Bidirectional => PartialShape::dynamic(),
            _ => PartialShape::new(target.to_vec()),
        });
    };
    match mode {
        BroadcastMode::Numpy => {
            if target.len() < dims.len() {
                return Err(ShapeErrorKind::BroadcastTargetRank {
                    data_rank: dims.len(),
                    target_rank: target.len(),
                });
            }
            let start = target.len() - dims.len();
            for (k, (&d, &t)) in dims.iter().zip(&target[start..]).enumerate() {
                if d.is_static() && t.is_static() && d.get() != Some(1) && d != t {
                    return Err(ShapeErrorKind::BroadcastDim {
                        mode: name,
                        data: d,
                        target: t,
                        axis: start + k,
                    });
                }
            }
            Ok(PartialShape::new(target.to_vec()))
        }
        BroadcastMode::Explicit => {
            if let Some(mapping) = axes_mapping {
                let bad = || ShapeErrorKind::AxesMapping {
                    axes: mapping.to_vec(),
                    data_rank: dims.len(),
                    target_rank: target.len(),
                };
                // A scalar is broadcast as if it had one axis of size 1.
                let rank = if dims.is_empty() && !mapping.is_empty() { 1 } else { dims.len() };
                if mapping.len() != rank
                    || mapping.windows(2).any(|w| w[0] > w[1])
                    || mapping.iter().any(|&m| m < 0 || m as u64 >= target.len() as u64)
                {
                    return Err(bad());
                }
                for (k, &m) in mapping.iter().enumerate() {
                    let d = dims.get(k).copied().unwrap_or(Dim::fixed(1));
                    let t = target.get(m as usize).copied().unwrap_or(Dim::DYNAMIC);
                    if !d.compatible(t) && !d.contains(1) {
                        return Err(ShapeErrorKind::BroadcastDim {
                            mode: name,
                            data: d,
                            target: t,
                            axis: m as usize,
                        });
                    }
                }
            }
            Ok(PartialShape::new(target.to_vec()))
        }
        BroadcastMode::Bidirectional => {
            let rank = dims.len().max(target.len());
            let pad = |v: &[Dim]| -> Vec<Dim> {
                let mut p = vec![Dim::fixed(1); rank - v.len()];
                p.extend_from_slice(v);
                p
            };
            let (a, b) = (pad(dims), pad(target));
            let mut out = Vec::with_capacity(rank);
            for (k, (&x, &y)) in a.iter().zip(&b).enumerate() {
                match broadcast_merge(x, y) {
                    Some(m) => out.push(m),
                    None => {
                        return Err(ShapeErrorKind::BroadcastDim { mode: name, data: x, target: y, axis: k })
                    }
                }
            }
            Ok(PartialShape::new(out))
        }
    }
}

/// Unsqueeze's output shape: a 1 inserted at each of `axes`, which count
/// against the output rank (negative ones from the end). Repeated values
/// are inserted once, as OpenVINO does.
pub fn unsqueeze_shape(data: &PartialShape, axes: &[i64]) -> Result<PartialShape, ShapeErrorKind> {
    if axes.is_empty() {
        return Err(ShapeErrorKind::EmptyAxes);
    }
    let Some(dims) = data.dims() else {
        return Ok(PartialShape::dynamic());
    };
    let unique: BTreeSet<i64> = axes.iter().copied().collect();
    let out_rank = dims.len() + unique.len();
    let mut normalized = BTreeSet::new();
    for &a in &unique {
        let n = normalize_axis(a, out_rank).ok_or(ShapeErrorKind::OpAxisOutOfRange {
            op: "Unsqueeze",
            what: "axis",
            axis: a,
            rank: out_rank,
        })?;
        normalized.insert(n);
    }
    let mut out = dims.to_vec();
    for a in normalized {
        // Two values that name one axis (such as 3 and -1 on rank 3) make
        // the rank one smaller than counted, so later axes may lie past the
        // end: they are appended.
        if a <= out.len() {
            out.insert(a, Dim::fixed(1));
        } else {
            out.push(Dim::fixed(1));
        }
    }
    Ok(PartialShape::new(out))
}

/// Squeeze's output shape. Without axes (or with none listed), every axis
/// of size 1 goes; a dynamic axis that may be 1 leaves the rank unknown.
/// With axes, each listed axis goes when it may be 1 and stays otherwise.
pub fn squeeze_shape(data: &PartialShape, axes: Option<&[i64]>) -> Result<PartialShape, ShapeErrorKind> {
    let Some(dims) = data.dims() else {
        return Ok(PartialShape::dynamic());
    };
    match axes {
        Some(axes) if !axes.is_empty() => {
            let mut listed = BTreeSet::new();
            for &a in axes {
                let n = normalize_axis(a, dims.len()).ok_or(ShapeErrorKind::OpAxisOutOfRange {
                    op: "Squeeze",
                    what: "axis",
                    axis: a,
                    rank: dims.len(),
                })?;
                listed.insert(n);
            }
            let kept = dims.iter().enumerate().filter(|(k, d)| !(listed.contains(k) && d.contains(1)));
            Ok(PartialShape::new(kept.map(|(_, &d)| d).collect()))
        }
        _ => {
            if dims.iter().any(|d| !d.is_static() && d.contains(1)) {
                return Ok(PartialShape::dynamic());
            }
            Ok(PartialShape::new(dims.iter().copied().filter(|d| d.get() != Some(1)).collect()))
        }
    }
}

/// Reshape's output shape for the target shape `pattern`: -1 (at most
/// once) is inferred from the element count; with `special_zero`, 0
/// copies the input dimension at the same position.
pub fn reshape_shape(
    data: &PartialShape,
    pattern: &[i64],
    special_zero: bool,
) -> Result<PartialShape, ShapeErrorKind> {
    if pattern.iter().filter(|&&v| v == -1).count() > 1 {
        return Err(ShapeErrorKind::ReshapeManyInferred { pattern: pattern.to_vec() });
    }
    if pattern.iter().any(|&v| v < -1) {
        return Err(ShapeErrorKind::ReshapeBelowMinusOne { pattern: pattern.to_vec() });
    }
    let mut out = Vec::with_capacity(pattern.len());
    let mut inferred = None;
    for (k, &v) in pattern.iter().enumerate() {
        let dim = match v {
            -1 => {
                inferred = Some(k);
                Dim::DYNAMIC
            }
            0 if special_zero => match data.dims() {
                Some(dims) => {
                    *dims.get(k).ok_or(ShapeErrorKind::ReshapeZeroPastRank { index: k, rank: dims.len() })?
                }
                None => Dim::DYNAMIC,
            },
            v => Dim::fixed(v as u64),
        };
        out.push(dim);
    }
    // `None` when some dimension is not static; `Some(None)` when the
    // product overflows.
    let count = |dims: &[Dim]| -> Option<Option<u64>> {
        let mut acc = Some(1u64);
        for d in dims {
            let n = d.get()?;
            acc = acc.and_then(|a| a.checked_mul(n));
        }
        Some(acc)
    };
    let mismatch = || ShapeErrorKind::ReshapeCount { input: data.clone(), pattern: pattern.to_vec() };
    let input_count = data.dims().and_then(count);
    let others: Vec<Dim> =
        out.iter().enumerate().filter(|(k, _)| Some(*k) != inferred).map(|(_, &d)| d).collect();
    let known = count(&others);
    match (inferred, input_count, known) {
        // An element count that overflows cannot be a tensor's.
        (_, Some(None), _) | (_, _, Some(None)) => return Err(mismatch()),
        (Some(k), Some(Some(total)), Some(Some(part))) => {
            let n = match (total, part) {
                (0, 0) => 0,
                (_, 0) => return Err(mismatch()),
                (t, p) if t % p == 0 => t / p,
                _ => return Err(mismatch()),
            };
            if let Some(d) = out.get_mut(k) {
                *d = Dim::fixed(n);
            }
        }
        (None, Some(Some(total)), Some(Some(part))) if total != part => return Err(mismatch()),
        _ => {}
    }
    Ok(PartialShape::new(out))
}

/// Concat's output shape: the inputs agree on rank and on every dimension
/// but `axis`, along which their sizes add up. Returns the shape and the
/// axis normalised, when some input's rank is known.
pub fn concat_shape(
    inputs: &[PartialShape],
    axis: i64,
) -> Result<(PartialShape, Option<usize>), ShapeErrorKind> {
    let Some(rank) = inputs.iter().find_map(PartialShape::rank) else {
        return Ok((PartialShape::dynamic(), None));
    };
    let a = normalize_axis(axis, rank).ok_or(ShapeErrorKind::OpAxisOutOfRange {
        op: "Concat",
        what: "axis",
        axis,
        rank,
    })?;
    let mut acc: Option<Vec<Dim>> = None;
    let mut axis_dim = Dim::fixed(0);
    for (k, shape) in inputs.iter().enumerate() {
        let Some(dims) = shape.dims() else {
            axis_dim = add_dims(axis_dim, Dim::DYNAMIC);
            continue;
        };
        let mismatch = |first: &[Dim]| ShapeErrorKind::ConcatShape {
            input: k,
            shape: shape.clone(),
            first: PartialShape::new(first.to_vec()),
            axis,
        };
        let Some(dim_on_axis) = dims.get(a).copied() else {
            return Err(mismatch(acc.as_deref().unwrap_or_default()));
        };
        axis_dim = add_dims(axis_dim, dim_on_axis);
        match &mut acc {
            None => acc = Some(dims.to_vec()),
            Some(first) => {
                if first.len() != dims.len() {
                    return Err(mismatch(first));
                }
                for (j, (f, &d)) in first.iter_mut().zip(dims).enumerate() {
                    if j == a {
                        continue;
                    }
                    match f.merge(d) {
                        Some(m) => *f = m,
                        None => return Err(mismatch(&inputs_prefix(inputs, k))),
                    }
                }
            }
        }
    }
    let mut out = acc.unwrap_or_default();
    if let Some(d) = out.get_mut(a) {
        *d = axis_dim;
    }
    Ok((PartialShape::new(out), Some(a)))
}

/// The first shape of known rank among the inputs before `k`, for error
/// messages.
fn inputs_prefix(inputs: &[PartialShape], k: usize) -> Vec<Dim> {
    inputs.iter().take(k).find_map(|s| s.dims().map(<[Dim]>::to_vec)).unwrap_or_default()
}

/// The values of an integer tensor as `i64`, with values beyond the `i64`
/// range (large `u64`s) saturated; `None` for other element types.
///
/// Slice's start, stop and step are clamped to the dimension they apply
/// to, which never exceeds `i64::MAX`, so saturating them changes nothing;
/// an axis that saturates is out of range either way.
pub fn saturated_ints(t: &Tensor) -> Option<Vec<i64>> {
    if !t.element_type().is_integral() {
        return None;
    }
    let values = t.integer_values()?;
    Some(values.into_iter().map(|v| v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64).collect())
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
/// use ovir_shape::rules::{slice_range, SliceRange};
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
pub fn slice_axes(rank: usize, count: usize, axes: Option<&[i64]>) -> Result<Vec<usize>, ShapeErrorKind> {
    if count > rank {
        return Err(ShapeErrorKind::SliceTooManyAxes { count, rank });
    }
    let Some(axes) = axes else {
        return Ok((0..count).collect());
    };
    let mut seen = BTreeSet::new();
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = normalize_axis(a, rank).ok_or(ShapeErrorKind::OpAxisOutOfRange {
            op: "Slice",
            what: "axes value",
            axis: a,
            rank,
        })?;
        if !seen.insert(n) {
            return Err(ShapeErrorKind::SliceRepeatedAxis { axis: n });
        }
        out.push(n);
    }
    Ok(out)
}

/// Checks that Slice's start, stop, step and (when given) axes inputs
/// have one length.
pub fn slice_lengths(
    start: usize,
    stop: usize,
    step: usize,
    axes: Option<usize>,
) -> Result<(), ShapeErrorKind> {
    if [Some(stop), Some(step), axes].iter().flatten().any(|&n| n != start) {
        return Err(ShapeErrorKind::SliceLengths { start, stop, step, axes });
    }
    Ok(())
}

/// Checks that no step of a Slice is 0.
pub fn slice_steps(steps: &[i64]) -> Result<(), ShapeErrorKind> {
    match steps.iter().position(|&s| s == 0) {
        Some(index) => Err(ShapeErrorKind::SliceStepZero { index }),
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
