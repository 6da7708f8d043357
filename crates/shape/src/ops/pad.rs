//! Pad-1 and Pad-12: add (or, with negative pads, remove) elements at the
//! edges of each axis.
//!
//! Where the witnesses disagree:
//! - Pad-1's spec takes numbers only; OpenVINO's shape inference and its
//!   CPU plugin pad strings in constant mode with Pad-1 as with Pad-12,
//!   and so does ovir.
//! - Both versions take negative pads in OpenVINO's shape inference and
//!   CPU plugin, so ovir reads Pad-1's pads as Pad-12's.
//! - Pads that leave an axis with a negative size: OpenVINO's shape
//!   inference makes the axis dynamic, and the CPU plugin fails when it
//!   runs; ovir refuses them, at load time when they are known.

use ovir_ir::Layer;
use ovir_tensor::{Dim, ElementType, PartialShape, Tensor};

use crate::dims::{input_rank, integer_input};
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    vector_of, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};
use crate::values::{nth_integer, try_for_each_integer};

/// What Pad puts in the new elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PadMode {
    /// The pad value (the fourth input, or 0).
    Constant,
    /// The edge element of the axis, repeated.
    Edge,
    /// The elements next to the edge, mirrored without the edge one.
    Reflect,
    /// The elements next to the edge, mirrored with the edge one.
    Symmetric,
}

impl PadMode {
    /// Parses the `pad_mode` attribute, ignoring ASCII case as OpenVINO
    /// does.
    pub fn from_attr(value: &str) -> Option<Self> {
        let v = value.trim();
        [Self::Constant, Self::Edge, Self::Reflect, Self::Symmetric]
            .into_iter()
            .find(|m| v.eq_ignore_ascii_case(m.as_str()))
    }

    /// The attribute spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Constant => "constant",
            Self::Edge => "edge",
            Self::Reflect => "reflect",
            Self::Symmetric => "symmetric",
        }
    }
}

/// Pads the data with `pads_begin[i]` elements before and `pads_end[i]`
/// after axis `i` (the second and third inputs), as the mode says; a
/// negative pad removes elements. The optional fourth input is the value
/// of constant mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pad {
    /// The `pad_mode` attribute (constant when absent).
    pub mode: PadMode,
    /// The op version: 1 or 12, from the opset the layer names.
    pub version: u32,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Pad",
    aliases: &[],
    versions: Versions::Opsets(1, 16),
    inputs: (3, Some(4)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for Pad {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, opset: u32) -> Result<Self, Problems> {
        let version = if opset >= 12 { 12 } else { 1 };
        let mode = match layer.attrs.value("pad_mode") {
            None => PadMode::Constant,
            Some(value) => match PadMode::from_attr(value) {
                Some(m) => m,
                None => {
                    let mut problems = Problems::new();
                    problems.attr("pad_mode", ShapeErrorKind::InvalidPadMode { value: value.to_string() });
                    return Err(problems);
                }
            },
        };
        Ok(Pad { mode, version })
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, format!("opset{}", self.version)).attr("pad_mode", self.mode.as_str())
    }

    fn examples() -> Vec<Self> {
        let modes = [PadMode::Constant, PadMode::Edge, PadMode::Reflect, PadMode::Symmetric];
        [1, 12].into_iter().flat_map(|version| modes.map(|mode| Pad { mode, version })).collect()
    }
}

impl Operation for Pad {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, begins, ends, rest @ ..] = inputs else {
            return Err(Problems::one(ShapeErrorKind::InputCountRange {
                op: SPEC.name,
                min: 3,
                max: Some(4),
                found: inputs.len(),
            }));
        };
        let mut problems = Problems::new();
        let ty = data.fact.element_type;
        if ty == ElementType::String && self.mode != PadMode::Constant {
            problems.layer(ShapeErrorKind::PadStringMode { mode: self.mode.as_str() });
        }
        let mut pads_ok = true;
        for (input, name) in [(begins, "pads_begin"), (ends, "pads_end")] {
            pads_ok &= integer_input(&mut problems, "Pad", name, input.fact)
                & input_rank(&mut problems, "Pad", name, input.fact, &[1], "a 1-D tensor");
            if let (Some([n]), Some(rank)) = (input.fact.shape.dims(), data.fact.shape.rank()) {
                if !n.contains(rank as u64) {
                    problems.layer(ShapeErrorKind::PadLength { input: name, length: *n, rank });
                    pads_ok = false;
                }
            }
        }
        if let Some(value) = rest.first() {
            input_rank(&mut problems, "Pad", "pad_value", value.fact, &[0], "a scalar");
            let vt = value.fact.element_type;
            if self.mode == PadMode::Constant && vt.is_static() && ty.is_static() && vt != ty {
                problems.layer(ShapeErrorKind::InputTypes { op: "Pad", input: 3, found: vt, expected: ty });
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let values = (begins.fact.value.as_ref(), ends.fact.value.as_ref());
        let shape = match (data.fact.shape.dims(), values) {
            (Some(dims), (Some(b), Some(e))) if pads_ok => {
                let mut out = vec![Dim::DYNAMIC; dims.len()];
                pad_dims_into(self.mode, dims, b, e, &mut out).map_err(Problems::one)?;
                PartialShape::new(out)
            }
            (Some(dims), _) => PartialShape::with_rank(dims.len()),
            (None, _) => PartialShape::dynamic(),
        };
        Ok(vec![PortFact::of(ty, shape)])
    }

    fn input_values(&self, input: usize, _inputs: &[&PortFact]) -> ValueDomain {
        match (input, self.mode) {
            // No pads suit reflect mode on any axis of 2 or more, and
            // symmetric mode on any axis.
            (1 | 2, PadMode::Reflect | PadMode::Symmetric) => {
                ValueDomain::Lengths { max: Some(Size::Known(0)) }
            }
            (1 | 2, _) => ValueDomain::Lengths { max: None },
            _ => ValueDomain::Any,
        }
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        match input {
            1 | 2 => vector_of(inputs.get(input), Size::RankOf { input: 0 }),
            // The pad value is a scalar.
            3 if inputs.get(3)?.shape.rank().is_none() => Some(Vec::new()),
            _ => None,
        }
    }
}

/// Checks the pads' type, shape and length against data of rank `rank`.
fn check_pads(begins: &Tensor, ends: &Tensor, rank: usize) -> Result<(), ShapeErrorKind> {
    for (t, input) in [(begins, "pads_begin"), (ends, "pads_end")] {
        let ty = t.element_type();
        if !ty.is_integral() {
            return Err(ShapeErrorKind::IntegerInput { op: "Pad", input, found: ty });
        }
        if t.rank() != 1 {
            return Err(ShapeErrorKind::InputShape {
                op: "Pad",
                input,
                expected: "a 1-D tensor",
                shape: PartialShape::from_static(t.shape()),
            });
        }
        if t.len() != rank {
            return Err(ShapeErrorKind::PadLength { input, length: Dim::fixed(t.len() as u64), rank });
        }
    }
    Ok(())
}

/// Calls `f` with each axis and its pads before and after, saturated to
/// `i64`.
fn for_each_pad(
    begins: &Tensor,
    ends: &Tensor,
    mut f: impl FnMut(usize, i64, i64) -> Result<(), ShapeErrorKind>,
) -> Result<(), ShapeErrorKind> {
    let sat = |v: i128| v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
    let mut axis = 0;
    let read = try_for_each_integer(begins, |b| {
        f(axis, sat(b), nth_integer(ends, axis).unwrap_or(0))?;
        axis += 1;
        Ok(())
    });
    read.unwrap_or(Err(ShapeErrorKind::UnreadableValues { element_type: begins.element_type() }))
}

/// The size of an axis of `dim` elements padded by `begin` and `end` in
/// `mode`: their sum, which must not be negative; reflect mode takes pads
/// of at most `dim - 1`, symmetric mode of at most `dim`, and edge mode
/// needs an element to repeat when it pads.
///
/// ```
/// use ovir_shape::ops::pad::{pad_dim, PadMode};
/// assert_eq!(pad_dim(PadMode::Constant, 3, 0, 1, -2), Ok(2));
/// assert_eq!(pad_dim(PadMode::Reflect, 3, 0, 2, 2), Ok(7));
/// assert!(pad_dim(PadMode::Reflect, 3, 0, 3, 0).is_err());
/// ```
pub fn pad_dim(mode: PadMode, dim: u64, axis: usize, begin: i64, end: i64) -> Result<u64, ShapeErrorKind> {
    let limit = ShapeErrorKind::PadModeLimit { mode: mode.as_str(), axis, dim, begin, end };
    let d = i128::from(dim);
    let (b, e) = (i128::from(begin), i128::from(end));
    match mode {
        PadMode::Reflect if b.max(e) > d - 1 => return Err(limit),
        PadMode::Symmetric if b.max(e) > d => return Err(limit),
        PadMode::Edge if dim == 0 && (b > 0 || e > 0) => return Err(limit),
        _ => {}
    }
    let size = d + b + e;
    if size < 0 {
        return Err(ShapeErrorKind::PadSize { axis, dim, begin, end });
    }
    u64::try_from(size).map_err(|_| ShapeErrorKind::SizeOverflow { op: "Pad", axis })
}

/// Pad's output dimensions for data dimensions `dims` (intervals too),
/// written into `out`: each bound padded on its own ([`pad_dim`] for a
/// static dimension; an interval's lower bound no less than 0).
pub fn pad_dims_into(
    mode: PadMode,
    dims: &[Dim],
    begins: &Tensor,
    ends: &Tensor,
    out: &mut [Dim],
) -> Result<(), ShapeErrorKind> {
    check_pads(begins, ends, dims.len())?;
    for_each_pad(begins, ends, |axis, b, e| {
        let dim = dims.get(axis).copied().unwrap_or(Dim::DYNAMIC);
        let padded = match dim.get() {
            Some(d) => Dim::fixed(pad_dim(mode, d, axis, b, e)?),
            None => {
                let shift =
                    |n: u64| u64::try_from((i128::from(n) + i128::from(b) + i128::from(e)).max(0)).ok();
                Dim::interval(shift(dim.min()).unwrap_or(0), dim.max().and_then(shift))
                    .unwrap_or(Dim::DYNAMIC)
            }
        };
        if let Some(o) = out.get_mut(axis) {
            *o = padded;
        }
        Ok(())
    })
}

/// [`pad_dims_into`] for data of a known shape: the output shape into
/// `out`, and each axis's pads into `pads`. It allocates nothing unless the
/// pads are wrong, so the executor reads pads that arrive at run time with
/// it (and then checks the output's size against the memory limit).
///
/// ```
/// use ovir_shape::ops::pad::{pad_shape_into, PadMode};
/// use ovir_tensor::Tensor;
///
/// let (begins, ends) = (Tensor::from_vec(&[2], vec![1i64, -1])?, Tensor::from_vec(&[2], vec![0i64, 2])?);
/// let (mut out, mut pads) = ([0; 2], [(0, 0); 2]);
/// pad_shape_into(PadMode::Constant, &[2, 3], &begins, &ends, &mut pads, &mut out)?;
/// assert_eq!((out, pads), ([3, 4], [(1, 0), (-1, 2)]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn pad_shape_into(
    mode: PadMode,
    shape: &[usize],
    begins: &Tensor,
    ends: &Tensor,
    pads: &mut [(i64, i64)],
    out: &mut [usize],
) -> Result<(), ShapeErrorKind> {
    check_pads(begins, ends, shape.len())?;
    for_each_pad(begins, ends, |axis, b, e| {
        let dim = shape.get(axis).copied().unwrap_or(0);
        let size = pad_dim(mode, dim as u64, axis, b, e)?;
        let size = usize::try_from(size).map_err(|_| ShapeErrorKind::SizeOverflow { op: "Pad", axis })?;
        if let (Some(o), Some(p)) = (out.get_mut(axis), pads.get_mut(axis)) {
            *o = size;
            *p = (b, e);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pads(v: &[i64]) -> PortFact {
        PortFact::known(Tensor::from_vec(&[v.len()], v.to_vec()).unwrap())
    }

    fn infer(
        op: Pad,
        data: PortFact,
        b: PortFact,
        e: PortFact,
        value: Option<PortFact>,
    ) -> Result<String, Vec<ShapeErrorKind>> {
        let mut inputs = vec![Input::new(&data), Input::new(&b), Input::new(&e)];
        if let Some(v) = &value {
            inputs.push(Input::new(v));
        }
        op.infer(&inputs)
            .map(|f| f[0].shape.to_string())
            .map_err(|p| p.into_vec().into_iter().map(|p| p.kind).collect())
    }

    fn f32(s: &str) -> PortFact {
        PortFact::of(ElementType::F32, s.parse().unwrap())
    }

    fn pad(mode: PadMode, data: &str, b: &[i64], e: &[i64]) -> Result<String, Vec<ShapeErrorKind>> {
        infer(Pad { mode, version: 12 }, f32(data), pads(b), pads(e), None)
    }

    use PadMode::{Constant, Edge, Reflect, Symmetric};

    // OpenVINO's type_prop/pad.cpp cases and its answers.
    #[test]
    fn pads_add_and_negative_pads_crop() {
        assert_eq!(pad(Constant, "2,3", &[1, 2], &[3, 4]).unwrap(), "[6,9]");
        assert_eq!(pad(Constant, "2,3", &[1, -2], &[3, 4]).unwrap(), "[6,5]");
        assert_eq!(pad(Constant, "2,3", &[-1, -2], &[-1, -1]).unwrap(), "[0,0]");
        assert_eq!(pad(Edge, "2,3", &[5, 5], &[5, 5]).unwrap(), "[12,13]");
        assert_eq!(pad(Edge, "0,3", &[0, 1], &[0, 0]).unwrap(), "[0,4]");
        assert_eq!(pad(Reflect, "2,3", &[1, 2], &[0, 0]).unwrap(), "[3,5]");
        assert_eq!(pad(Reflect, "1,3", &[0, 0], &[0, 0]).unwrap(), "[1,3]");
        assert_eq!(pad(Reflect, "2,3", &[0, -1], &[0, 0]).unwrap(), "[2,2]");
        assert_eq!(pad(Symmetric, "2,3", &[2, 3], &[0, 0]).unwrap(), "[4,6]");
        assert_eq!(pad(Symmetric, "0,3", &[0, 0], &[0, 0]).unwrap(), "[0,3]");
        assert_eq!(pad(Constant, "2,2..5", &[1, 2], &[0, 3]).unwrap(), "[3,7..10]");
        assert_eq!(pad(Constant, "2,2..5", &[1, -2], &[0, -1]).unwrap(), "[3,..2]");
        assert_eq!(pad(Constant, "2,?", &[1, -2], &[0, -1]).unwrap(), "[3,?]");
        assert_eq!(pad(Reflect, "2,1..5", &[1, 2], &[0, 3]).unwrap(), "[3,6..10]");
        assert_eq!(pad(Constant, "", &[], &[]).unwrap(), "[]");
        let unsigned = |v: &[u8]| PortFact::known(Tensor::from_vec(&[v.len()], v.to_vec()).unwrap());
        let op = Pad { mode: Constant, version: 1 };
        assert_eq!(infer(op, f32("2,3"), unsigned(&[1, 2]), unsigned(&[3, 4]), None).unwrap(), "[6,9]");
    }

    #[test]
    fn unknown_pads_keep_the_rank() {
        let unknown = |s: &str| PortFact::of(ElementType::I64, s.parse().unwrap());
        let op = Pad { mode: Constant, version: 1 };
        assert_eq!(infer(op, f32("2,3"), unknown("2"), pads(&[3, 4]), None).unwrap(), "[?,?]");
        assert_eq!(infer(op, f32("2,3"), unknown("?"), unknown("?"), None).unwrap(), "[?,?]");
        assert_eq!(infer(op, f32("..."), pads(&[1, 2]), pads(&[3, 4]), None).unwrap(), "[...]");
    }

    #[test]
    fn what_the_modes_cannot_copy_is_refused() {
        let limit = |mode: PadMode, axis, dim, begin, end| {
            vec![ShapeErrorKind::PadModeLimit { mode: mode.as_str(), axis, dim, begin, end }]
        };
        assert_eq!(pad(Reflect, "2,3", &[2, 2], &[0, 0]).unwrap_err(), limit(Reflect, 0, 2, 2, 0));
        assert_eq!(pad(Reflect, "0,3", &[0, 0], &[0, 0]).unwrap_err(), limit(Reflect, 0, 0, 0, 0));
        assert_eq!(pad(Reflect, "1,3", &[1, 0], &[0, 0]).unwrap_err(), limit(Reflect, 0, 1, 1, 0));
        assert_eq!(pad(Reflect, "2,3", &[0, 3], &[0, -2]).unwrap_err(), limit(Reflect, 1, 3, 3, -2));
        assert_eq!(pad(Symmetric, "2,3", &[2, 4], &[0, 0]).unwrap_err(), limit(Symmetric, 1, 3, 4, 0));
        assert_eq!(pad(Edge, "0,3", &[1, 0], &[0, 0]).unwrap_err(), limit(Edge, 0, 0, 1, 0));
        assert_eq!(
            pad(Constant, "2,3", &[1, -4], &[3, 0]).unwrap_err(),
            [ShapeErrorKind::PadSize { axis: 1, dim: 3, begin: -4, end: 0 }]
        );
        assert_eq!(
            pad(Reflect, "2,3", &[2, 2], &[0, 0]).unwrap_err()[0].to_string(),
            "Pad in reflect mode takes pads of at most the size of the axis less 1, but axis 0 has 2 elements and the pads 2 and 0"
        );
    }

    #[test]
    fn pads_and_pad_value_must_have_their_shapes_and_types() {
        let err = |b: PortFact, value: Option<PortFact>| {
            infer(Pad { mode: Constant, version: 1 }, f32("2,3"), b, pads(&[3, 4]), value).unwrap_err()
        };
        assert_eq!(
            err(pads(&[1]), None),
            [ShapeErrorKind::PadLength { input: "pads_begin", length: Dim::fixed(1), rank: 2 }]
        );
        assert_eq!(
            err(pads(&[1, 2, 3]), None),
            [ShapeErrorKind::PadLength { input: "pads_begin", length: Dim::fixed(3), rank: 2 }]
        );
        let floats = PortFact::known(Tensor::from_vec(&[2], vec![1f32, 2.0]).unwrap());
        assert_eq!(
            err(floats, None),
            [ShapeErrorKind::IntegerInput { op: "Pad", input: "pads_begin", found: ElementType::F32 }]
        );
        let matrix = PortFact::known(Tensor::from_vec(&[1, 2], vec![1i64, 2]).unwrap());
        assert!(matches!(err(matrix, None)[..], [ShapeErrorKind::InputShape { input: "pads_begin", .. }]));
        let vector = PortFact::known(Tensor::from_vec(&[1], vec![1f32]).unwrap());
        assert!(matches!(
            err(pads(&[1, 2]), Some(vector))[..],
            [ShapeErrorKind::InputShape { input: "pad_value", .. }]
        ));
        let int_value = PortFact::known(Tensor::from_vec(&[], vec![1i32]).unwrap());
        assert_eq!(
            err(pads(&[1, 2]), Some(int_value)),
            [ShapeErrorKind::InputTypes {
                op: "Pad",
                input: 3,
                found: ElementType::I32,
                expected: ElementType::F32
            }]
        );
        let value = PortFact::known(Tensor::from_vec(&[], vec![1f32]).unwrap());
        let edge = Pad { mode: Edge, version: 1 };
        assert_eq!(infer(edge, f32("2,3"), pads(&[0, 0]), pads(&[0, 0]), Some(value)).unwrap(), "[2,3]");
    }

    #[test]
    fn strings_are_padded_in_constant_mode_only() {
        let strings = || PortFact::of(ElementType::String, "2,3".parse().unwrap());
        for version in [1, 12] {
            let op = Pad { mode: Constant, version };
            assert_eq!(infer(op, strings(), pads(&[1, 2]), pads(&[3, 4]), None).unwrap(), "[6,9]");
            let edge = Pad { mode: Edge, version };
            assert_eq!(
                infer(edge, strings(), pads(&[1, 2]), pads(&[3, 4]), None).unwrap_err(),
                [ShapeErrorKind::PadStringMode { mode: "edge" }]
            );
        }
    }

    #[test]
    fn the_mode_is_read_and_written_as_openvino_writes_it() {
        let layer = |version: &str, attrs: &[(&str, &str)], opset| {
            let mut l = OpLayer::builtin(&SPEC, version);
            for (n, v) in attrs {
                l = l.attr(*n, v);
            }
            Pad::build(&l.to_layer_with(3), opset)
        };
        assert_eq!(layer("opset1", &[("pad_mode", "REFLECT")], 1), Ok(Pad { mode: Reflect, version: 1 }));
        assert_eq!(layer("opset12", &[], 12), Ok(Pad { mode: Constant, version: 12 }));
        assert!(layer("opset1", &[("pad_mode", "wrap")], 1).is_err());
        assert_eq!(Pad { mode: Symmetric, version: 12 }.write().version, "opset12");
        crate::ops::check_round_trips::<Pad>();
    }

    #[test]
    fn the_run_time_rule_gives_shape_and_pads() {
        let t = |v: Vec<i64>| Tensor::from_vec(&[v.len()], v).unwrap();
        let (mut out, mut p) = ([0; 2], [(0, 0); 2]);
        pad_shape_into(Reflect, &[3, 4], &t(vec![2, 0]), &t(vec![-1, 3]), &mut p, &mut out).unwrap();
        assert_eq!((out, p), ([4, 7], [(2, -1), (0, 3)]));
        assert!(pad_shape_into(Reflect, &[3, 4], &t(vec![3, 0]), &t(vec![0, 0]), &mut p, &mut out).is_err());
        assert!(pad_shape_into(Constant, &[3, 4], &t(vec![0]), &t(vec![0, 0]), &mut p, &mut out).is_err());
        let huge = t(vec![i64::MAX, 0]);
        assert!(pad_shape_into(Constant, &[3, 4], &huge, &huge, &mut p, &mut out).is_err());
    }

    #[test]
    fn example_pads_suit_the_mode() {
        let data = f32("2,3");
        let open = PortFact::of(ElementType::I64, "?".parse().unwrap());
        let facts = [&data, &open, &open];
        assert_eq!(
            Pad { mode: Reflect, version: 1 }.input_values(1, &facts),
            ValueDomain::Lengths { max: Some(Size::Known(0)) }
        );
        assert_eq!(
            Pad { mode: Constant, version: 12 }.input_values(2, &facts),
            ValueDomain::Lengths { max: None }
        );
        assert_eq!(
            Pad { mode: Constant, version: 12 }.input_shape(1, &facts),
            Some(vec![Some(Size::RankOf { input: 0 })])
        );
    }
}
