//! Validation and output inference for the operations that compute and
//! apply shapes: ShapeOf, Gather, Broadcast, Unsqueeze, Squeeze, Reshape,
//! Concat and Slice.
//!
//! Besides the output's type and shape, these carry what is known of small
//! integer values that describe dimensions ([`PortFact::value_dims`]), so a
//! shape taken with ShapeOf, picked apart with Gather and put back together
//! with Concat or Broadcast stays known, or bounded, through the subgraph.

use ovir_ir::Layer;
use ovir_tensor::{Dim, ElementType, PartialShape, Tensor};

use crate::error::ShapeErrorKind;
use crate::infer::{int_attr, required, Inferred, Input, Issue, Issues};
use crate::op::{opset_number, BroadcastMode, Op};
use crate::rules::{self, int_values};
use crate::PortFact;

/// What is known of the value of a 0-D or 1-D integer fact, element by
/// element, as dimensions: from [`PortFact::value_dims`], or from the value
/// itself when every element is non-negative.
pub(crate) fn dims_of(fact: &PortFact) -> Option<Vec<Dim>> {
    if let Some(dims) = &fact.value_dims {
        return Some(dims.clone());
    }
    let value = fact.value.as_ref()?;
    if value.rank() > 1 {
        return None;
    }
    int_values(value)?.into_iter().map(|v| u64::try_from(v).ok().map(Dim::fixed)).collect()
}

/// The integer values of a fact, when its value is known.
fn ints_of(fact: &PortFact) -> Option<Vec<i64>> {
    fact.value.as_ref().and_then(int_values)
}

/// An integer tensor of type `ty` holding `values` with `shape`; `None`
/// for types other than the 32- and 64-bit integers, or a value that does
/// not fit.
pub(crate) fn int_tensor(ty: ElementType, shape: &[usize], values: &[u64]) -> Option<Tensor> {
    let t = match ty {
        ElementType::I32 => {
            let v: Option<Vec<i32>> = values.iter().map(|&x| i32::try_from(x).ok()).collect();
            Tensor::from_vec(shape, v?)
        }
        ElementType::I64 => {
            let v: Option<Vec<i64>> = values.iter().map(|&x| i64::try_from(x).ok()).collect();
            Tensor::from_vec(shape, v?)
        }
        ElementType::U32 => {
            let v: Option<Vec<u32>> = values.iter().map(|&x| u32::try_from(x).ok()).collect();
            Tensor::from_vec(shape, v?)
        }
        ElementType::U64 => Tensor::from_vec(shape, values.to_vec()),
        _ => return None,
    };
    t.ok()
}

/// Checks that an input holds integers, when its type is known.
fn integer_input(issues: &mut Issues, op: &'static str, input: &'static str, fact: &PortFact) -> bool {
    let ty = fact.element_type;
    if ty.is_static() && !ty.is_integral() {
        issues.layer(ShapeErrorKind::IntegerInput { op, input, found: ty });
        return false;
    }
    true
}

/// Checks that an input's rank is one of `ranks`, when it is known.
fn input_rank(
    issues: &mut Issues,
    op: &'static str,
    input: &'static str,
    fact: &PortFact,
    ranks: &[usize],
    expected: &'static str,
) -> bool {
    match fact.shape.rank() {
        Some(r) if !ranks.contains(&r) => {
            issues.layer(ShapeErrorKind::InputShape { op, input, expected, shape: fact.shape.clone() });
            false
        }
        _ => true,
    }
}

/// The values of an integer input of rank 0 or 1 that passed its checks.
fn checked_ints(ok: bool, fact: &PortFact) -> Option<Vec<i64>> {
    if ok {
        ints_of(fact)
    } else {
        None
    }
}

/// The fact of a shape-only output, with the value's dimensions carried
/// over when the output is a 0-D or 1-D list of them.
fn fact_with_dims(ty: ElementType, shape: PartialShape, dims: Option<Vec<Dim>>) -> PortFact {
    let fits = shape.rank().is_some_and(|r| r <= 1)
        && match (shape.dims(), &dims) {
            (Some([]), Some(d)) => d.len() == 1,
            (Some([n]), Some(d)) => n.get() == Some(d.len() as u64) || !n.is_static(),
            _ => false,
        };
    let mut fact = PortFact::of(ty, shape);
    if fits && ty.is_integral() {
        fact.value_dims = dims;
    }
    fact
}

pub(crate) fn shape_of(layer: &Layer, data: &Input) -> Result<Inferred, Vec<Issue>> {
    let mut issues = Issues::default();
    let version = opset_number(&layer.version).unwrap_or(1);
    let output_type = match (version >= 3, layer.attrs.value("output_type")) {
        (false, _) | (true, None) => ElementType::I64,
        (true, Some(value)) => match ElementType::from_ir_name(value) {
            Some(t @ (ElementType::I32 | ElementType::I64)) => t,
            _ => {
                issues.attr("output_type", ShapeErrorKind::ShapeOfOutputType { value: value.to_string() });
                return Err(issues.0);
            }
        },
    };
    let shape = &data.fact.shape;
    let out_shape = match shape.rank() {
        Some(r) => PartialShape::from_static(&[r]),
        None => PartialShape::new(vec![Dim::DYNAMIC]),
    };
    let mut fact = PortFact::of(output_type, out_shape);
    fact.value_dims = shape.dims().map(<[Dim]>::to_vec);
    if let Some(dims) = shape.to_static() {
        let values: Vec<u64> = dims.iter().map(|&d| d as u64).collect();
        // A dimension that does not fit an i32 is a model OpenVINO cannot
        // describe either; the value then stays unknown.
        fact.value = int_tensor(output_type, &[dims.len()], &values);
    }
    issues.finish((Op::ShapeOf { output_type }, vec![fact]))
}

pub(crate) fn gather(
    layer: &Layer,
    data: &Input,
    indices: &Input,
    axis: &Input,
) -> Result<Inferred, Vec<Issue>> {
    let mut issues = Issues::default();
    let version = match opset_number(&layer.version).unwrap_or(1) {
        0..=6 => 1,
        7 => 7,
        _ => 8,
    };
    let batch_dims = if version >= 7 { int_attr(layer, "batch_dims", 0, &mut issues) } else { Some(0) };
    integer_input(&mut issues, "Gather", "indices", &indices.fact);
    let axis_type_ok = integer_input(&mut issues, "Gather", "axis", &axis.fact);
    let axis_shape_ok = match axis.fact.shape.dims() {
        Some([]) => true,
        Some([n]) if !n.is_static() || n.get() == Some(1) => true,
        None => true,
        Some(_) => {
            issues.layer(ShapeErrorKind::InputShape {
                op: "Gather",
                input: "axis",
                expected: "a scalar or a tensor of one element",
                shape: axis.fact.shape.clone(),
            });
            false
        }
    };
    let axis_value = checked_ints(axis_type_ok && axis_shape_ok, &axis.fact).and_then(|v| v.first().copied());
    let Some(batch_dims) = batch_dims else {
        return Err(issues.0);
    };
    let inferred = match rules::gather_shape(&data.fact.shape, &indices.fact.shape, axis_value, batch_dims) {
        Ok(g) => g,
        Err(kind) => {
            issues.layer(kind);
            return Err(issues.0);
        }
    };

    // Picking dimensions out of a shape: the picked ones stay known.
    let picked = match (dims_of(&data.fact), ints_of(&indices.fact), inferred.axis, inferred.batch_dims) {
        (Some(dims), Some(idx), Some(0), Some(0)) if data.fact.shape.rank() == Some(1) => {
            let len = dims.len() as i64;
            let pick = |i: i64| {
                let k = if i < 0 { i + len } else { i };
                // Out-of-range indices give zeros, as in the kernel.
                usize::try_from(k).ok().and_then(|k| dims.get(k).copied()).unwrap_or(Dim::fixed(0))
            };
            Some(idx.into_iter().map(pick).collect())
        }
        _ => None,
    };
    let fact = fact_with_dims(data.fact.element_type, inferred.shape, picked);
    issues.finish((Op::Gather { batch_dims, version }, vec![fact]))
}

pub(crate) fn broadcast(
    layer: &Layer,
    data: &Input,
    target: &Input,
    axes_mapping: Option<&Input>,
) -> Result<Inferred, Vec<Issue>> {
    let mut issues = Issues::default();
    let version = if opset_number(&layer.version).unwrap_or(1) >= 3 { 3 } else { 1 };
    let mode = match layer.attrs.value("mode") {
        None => BroadcastMode::Numpy,
        Some(value) => match BroadcastMode::from_attr(value, version) {
            Some(m) => m,
            None => {
                issues
                    .attr("mode", ShapeErrorKind::InvalidBroadcastMode { value: value.to_string(), version });
                return Err(issues.0);
            }
        },
    };
    let explicit = mode == BroadcastMode::Explicit;
    // Broadcast-1 ignores a third input outside explicit mode; Broadcast-3
    // refuses it.
    if (explicit && axes_mapping.is_none()) || (!explicit && version >= 3 && axes_mapping.is_some()) {
        issues.layer(ShapeErrorKind::AxesMappingInput { mode: mode.as_str(), explicit });
    }
    let target_ok = integer_input(&mut issues, "Broadcast", "target shape", &target.fact)
        & input_rank(&mut issues, "Broadcast", "target shape", &target.fact, &[1], "a 1-D tensor");
    let mapping = match axes_mapping.filter(|_| explicit) {
        Some(m) => {
            let ok = integer_input(&mut issues, "Broadcast", "axes_mapping", &m.fact)
                & input_rank(&mut issues, "Broadcast", "axes_mapping", &m.fact, &[1], "a 1-D tensor");
            checked_ints(ok, &m.fact)
        }
        None => None,
    };
    let mut target_dims = if target_ok { dims_of(&target.fact) } else { None };
    if let Some(values) = checked_ints(target_ok, &target.fact) {
        if let Some((index, &value)) = values.iter().enumerate().find(|(_, &v)| v < 0) {
            issues.layer(ShapeErrorKind::NegativeValue {
                op: "Broadcast",
                input: "target shape",
                index,
                value,
            });
            target_dims = None;
        }
    }
    if !issues.is_empty() {
        return Err(issues.0);
    }
    let target_len = match target.fact.shape.dims() {
        Some([n]) => n.get().and_then(|n| usize::try_from(n).ok()),
        _ => None,
    };
    let shape = match rules::broadcast_shape(
        mode,
        &data.fact.shape,
        target_dims.as_deref(),
        target_len,
        mapping.as_deref(),
    ) {
        Ok(s) => s,
        Err(kind) => {
            issues.layer(kind);
            return Err(issues.0);
        }
    };
    // One dimension repeated into a list of them stays known.
    let repeated = match (dims_of(&data.fact).as_deref(), shape.to_static().as_deref()) {
        (Some(&[d]), Some(&[n])) if n <= 64 => Some(vec![d; n]),
        _ => None,
    };
    let fact = fact_with_dims(data.fact.element_type, shape, repeated);
    issues.finish((Op::Broadcast { mode, version }, vec![fact]))
}

pub(crate) fn unsqueeze(data: &Input, axes: &Input) -> Result<Inferred, Vec<Issue>> {
    let mut issues = Issues::default();
    let ok = integer_input(&mut issues, "Unsqueeze", "axes", &axes.fact)
        & input_rank(&mut issues, "Unsqueeze", "axes", &axes.fact, &[0, 1], "a scalar or a 1-D tensor");
    let shape = match checked_ints(ok, &axes.fact) {
        Some(values) => match rules::unsqueeze_shape(&data.fact.shape, &values) {
            Ok(s) => s,
            Err(kind) => {
                issues.layer(kind);
                return Err(issues.0);
            }
        },
        None => match (data.fact.shape.rank(), axes.fact.shape.dims()) {
            (Some(r), Some([] | [_]))
                if axes.fact.shape.to_static().is_some_and(|s| s.iter().product::<usize>() == 1) =>
            {
                PartialShape::with_rank(r + 1)
            }
            _ => PartialShape::dynamic(),
        },
    };
    let fact = fact_with_dims(data.fact.element_type, shape, dims_of(&data.fact));
    issues.finish((Op::Unsqueeze, vec![fact]))
}

pub(crate) fn squeeze(data: &Input, axes: Option<&Input>) -> Result<Inferred, Vec<Issue>> {
    let mut issues = Issues::default();
    let shape = match axes {
        None => rules::squeeze_shape(&data.fact.shape, None),
        Some(axes) => {
            let ok = integer_input(&mut issues, "Squeeze", "axes", &axes.fact)
                & input_rank(&mut issues, "Squeeze", "axes", &axes.fact, &[0, 1], "a scalar or a 1-D tensor");
            match (checked_ints(ok, &axes.fact), data.fact.shape.dims()) {
                (Some(values), _) => rules::squeeze_shape(&data.fact.shape, Some(&values)),
                // One axis, not known yet: the rank drops by one if some
                // axis may be 1.
                (None, Some(dims))
                    if !dims.is_empty()
                        && axes.fact.shape.to_static().is_some_and(|s| s.iter().product::<usize>() == 1) =>
                {
                    if dims.iter().any(|d| d.contains(1)) {
                        Ok(PartialShape::with_rank(dims.len() - 1))
                    } else {
                        Ok(data.fact.shape.clone())
                    }
                }
                _ => Ok(PartialShape::dynamic()),
            }
        }
    };
    let shape = match shape {
        Ok(s) => s,
        Err(kind) => {
            issues.layer(kind);
            return Err(issues.0);
        }
    };
    let fact = fact_with_dims(data.fact.element_type, shape, dims_of(&data.fact));
    issues.finish((Op::Squeeze, vec![fact]))
}

pub(crate) fn reshape(layer: &Layer, data: &Input, pattern: &Input) -> Result<Inferred, Vec<Issue>> {
    let mut issues = Issues::default();
    let special_zero =
        required(layer, "Reshape", "special_zero", &mut issues).and_then(|value| {
            match value.trim().to_ascii_lowercase().as_str() {
                "true" | "1" => Some(true),
                "false" | "0" => Some(false),
                _ => {
                    issues.attr(
                        "special_zero",
                        ShapeErrorKind::InvalidBoolean { name: "special_zero", value: value.to_string() },
                    );
                    None
                }
            }
        });
    let ok = integer_input(&mut issues, "Reshape", "target shape", &pattern.fact)
        & input_rank(
            &mut issues,
            "Reshape",
            "target shape",
            &pattern.fact,
            &[0, 1],
            "a scalar or a 1-D tensor",
        );
    let Some(special_zero) = special_zero else {
        return Err(issues.0);
    };
    let shape = match (checked_ints(ok, &pattern.fact), dims_of(&pattern.fact)) {
        (Some(values), _) => match rules::reshape_shape(&data.fact.shape, &values, special_zero) {
            Ok(s) => s,
            Err(kind) => {
                issues.layer(kind);
                return Err(issues.0);
            }
        },
        // A target built from other shapes: its dimensions are what is
        // known of them, except that a 0 may stand for an input dimension.
        (None, Some(dims)) if ok => PartialShape::new(
            dims.into_iter().map(|d| if special_zero && d.contains(0) { Dim::DYNAMIC } else { d }).collect(),
        ),
        (None, _) => match pattern.fact.shape.to_static().as_deref() {
            Some([n]) if ok => PartialShape::with_rank(*n),
            Some([]) if ok => PartialShape::with_rank(1),
            _ => PartialShape::dynamic(),
        },
    };
    let fact = fact_with_dims(data.fact.element_type, shape, dims_of(&data.fact));
    issues.finish((Op::Reshape { special_zero }, vec![fact]))
}

pub(crate) fn concat(layer: &Layer, inputs: &[Input]) -> Result<Inferred, Vec<Issue>> {
    let mut issues = Issues::default();
    let axis = match layer.attrs.value("axis") {
        None => {
            issues.layer(ShapeErrorKind::MissingAttribute { op: "Concat", name: "axis" });
            None
        }
        Some(_) => int_attr(layer, "axis", 0, &mut issues),
    };
    let mut ty = ElementType::Dynamic;
    for (k, input) in inputs.iter().enumerate() {
        match ty.merge(input.fact.element_type) {
            Some(t) => ty = t,
            None => issues.layer(ShapeErrorKind::InputTypes {
                op: "Concat",
                input: k,
                found: input.fact.element_type,
                expected: ty,
            }),
        }
    }
    let Some(axis) = axis else {
        return Err(issues.0);
    };
    let shapes: Vec<PartialShape> = inputs.iter().map(|i| i.fact.shape.clone()).collect();
    let (shape, normalized) = match rules::concat_shape(&shapes, axis) {
        Ok(r) => r,
        Err(kind) => {
            issues.layer(kind);
            return Err(issues.0);
        }
    };
    // Lists of dimensions joined end to end stay known.
    let joined = if normalized == Some(0) && shape.rank() == Some(1) {
        inputs.iter().map(|i| dims_of(&i.fact)).collect::<Option<Vec<_>>>().map(|v| v.concat())
    } else {
        None
    };
    let fact = fact_with_dims(ty, shape, joined);
    issues.finish((Op::Concat { axis }, vec![fact]))
}

/// The length of a 1-D input, when its shape says it.
fn vector_len(fact: &PortFact) -> Option<usize> {
    match fact.shape.dims() {
        Some([n]) => n.get().and_then(|n| usize::try_from(n).ok()),
        _ => None,
    }
}

pub(crate) fn slice(data: &Input, bounds: [&Input; 3], axes: Option<&Input>) -> Result<Inferred, Vec<Issue>> {
    let mut issues = Issues::default();
    let names = ["start", "stop", "step"];
    let mut values: [Option<Vec<i64>>; 3] = [None, None, None];
    let mut lengths: [Option<usize>; 3] = [None, None, None];
    for (k, (input, name)) in bounds.iter().zip(names).enumerate() {
        let ok = integer_input(&mut issues, "Slice", name, &input.fact)
            & input_rank(&mut issues, "Slice", name, &input.fact, &[1], "a 1-D tensor");
        if let (Some(v), Some(l)) = (values.get_mut(k), lengths.get_mut(k)) {
            *v = if ok { input.fact.value.as_ref().and_then(rules::saturated_ints) } else { None };
            *l = if ok { vector_len(&input.fact) } else { None };
        }
    }
    let (axes_values, axes_len) = match axes {
        Some(a) => {
            let ok = integer_input(&mut issues, "Slice", "axes", &a.fact)
                & input_rank(&mut issues, "Slice", "axes", &a.fact, &[1], "a 1-D tensor");
            let v = if ok { a.fact.value.as_ref().and_then(rules::saturated_ints) } else { None };
            (v, if ok { vector_len(&a.fact) } else { None })
        }
        None => (None, None),
    };
    if let [Some(start), Some(stop), Some(step)] = lengths {
        if axes.is_none() || axes_len.is_some() {
            if let Err(kind) = rules::slice_lengths(start, stop, step, axes_len) {
                issues.layer(kind);
            }
        }
    }
    let [start, stop, step] = values;
    if let Some(Err(kind)) = step.as_deref().map(rules::slice_steps) {
        issues.layer(kind);
    }
    if !issues.is_empty() {
        return Err(issues.0);
    }
    let ty = data.fact.element_type;
    let Some(dims) = data.fact.shape.dims() else {
        return issues.finish((Op::Slice, vec![PortFact::of(ty, PartialShape::dynamic())]));
    };
    let rank = dims.len();
    let count = lengths.iter().chain([&axes_len]).find_map(|&n| n);
    let listed = match (axes, axes_values, count) {
        (Some(_), Some(v), _) => rules::slice_axes(rank, v.len(), Some(&v)).map(Some),
        (None, _, Some(n)) => rules::slice_axes(rank, n, None).map(Some),
        // The axes are not known yet; their number can still be checked.
        (_, _, Some(n)) => rules::slice_axes(rank, n, None).map(|_| None),
        (_, _, None) => Ok(None),
    };
    let listed = match listed {
        Ok(l) => l,
        Err(kind) => {
            issues.layer(kind);
            return Err(issues.0);
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
                if let (Some(list), 1) = (dims_of(&data.fact), rank) {
                    picked = rules::slice_range(list.len() as u64, b, e, s).map(|r| {
                        (0..r.len)
                            .filter_map(|j| {
                                let at = i128::from(r.first) + i128::from(j) * i128::from(r.step);
                                usize::try_from(at).ok().and_then(|at| list.get(at).copied())
                            })
                            .collect::<Vec<Dim>>()
                    });
                }
                rules::slice_dim(*dim, b, e, s)
            }
            _ => unknown(dim),
        };
    }
    let fact = fact_with_dims(ty, PartialShape::new(out), picked);
    issues.finish((Op::Slice, vec![fact]))
}
