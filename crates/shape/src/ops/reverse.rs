//! Reverse-1: reverse the data along a set of axes.

use std::collections::BTreeSet;

use ovir_ir::Layer;
use ovir_tensor::{normalize_axis, Dim, ElementType, PartialShape, Tensor};

use crate::attrs;
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};
use crate::values::try_for_each_integer;

/// How the second input of `Reverse` names the axes to reverse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReverseMode {
    /// A 1-D tensor of axis indices; negative indices count from the end.
    Index,
    /// A 1-D boolean tensor with one flag per data axis.
    Mask,
}

impl ReverseMode {
    /// Parses the `mode` attribute, ignoring ASCII case as OpenVINO does.
    pub fn from_attr(value: &str) -> Option<Self> {
        if value.eq_ignore_ascii_case("index") {
            Some(Self::Index)
        } else if value.eq_ignore_ascii_case("mask") {
            Some(Self::Mask)
        } else {
            None
        }
    }

    /// The attribute spelling: `index` or `mask`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Index => "index",
            Self::Mask => "mask",
        }
    }
}

impl std::fmt::Display for ReverseMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Reverses the elements along some axes; the second input names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reverse {
    /// How the second input names the axes.
    pub mode: ReverseMode,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Reverse",
    aliases: &[],
    // Reverse was dropped after opset1.
    versions: Versions::Opsets(1, 1),
    inputs: (2, Some(2)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for Reverse {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let mode = attrs::required(layer, SPEC.name, "mode", &mut problems).and_then(|value| {
            let mode = ReverseMode::from_attr(value);
            if mode.is_none() {
                problems.attr("mode", ShapeErrorKind::InvalidMode { value: value.to_string() });
            }
            mode
        });
        match mode {
            Some(mode) => Ok(Reverse { mode }),
            None => Err(problems),
        }
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset1").attr("mode", self.mode.as_str())
    }

    fn examples() -> Vec<Self> {
        vec![Reverse { mode: ReverseMode::Index }, Reverse { mode: ReverseMode::Mask }]
    }
}

impl Operation for Reverse {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, axes] = exactly::<2>(SPEC.name, inputs)?;
        let mut problems = Problems::new();
        let axes_shape = &axes.fact.shape;
        let mut axes_ok = true;
        if axes_shape.rank().is_some_and(|r| r != 1) {
            problems.layer(ShapeErrorKind::AxesNotVector { shape: axes_shape.clone() });
            axes_ok = false;
        }
        // A dynamic type is accepted in both modes: it is either a
        // Parameter's declared type, checked when the model runs, or the
        // trace of an earlier failure, already reported.
        let ty = axes.fact.element_type;
        match self.mode {
            ReverseMode::Index if ty.is_static() && !ty.is_integral() => {
                problems.layer(ShapeErrorKind::IndexAxesType { found: ty });
                axes_ok = false;
            }
            ReverseMode::Mask if ty.is_static() && ty != ElementType::Boolean => {
                problems.layer(ShapeErrorKind::MaskAxesType { found: ty });
                axes_ok = false;
            }
            _ => {}
        }
        match (self.mode, data.fact.shape.rank(), axes_shape.dims()) {
            (ReverseMode::Mask, Some(rank), Some([length])) if !length.contains(rank as u64) => {
                problems.layer(ShapeErrorKind::MaskLength { length: *length, rank });
            }
            (ReverseMode::Index, Some(rank), _) if axes_ok => {
                // Axes known only at run time are checked by the executor.
                if let Some(value) = &axes.fact.value {
                    match reversed_axes(self.mode, value, rank) {
                        Ok(_) | Err(ShapeErrorKind::UnreadableValues { .. }) => {}
                        Err(kind) => problems.layer(kind),
                    }
                }
            }
            _ => {}
        }
        problems.or_ok(vec![PortFact::of(data.fact.element_type, data.fact.shape.clone())])
    }

    fn input_values(&self, input: usize, _inputs: &[&PortFact]) -> ValueDomain {
        match (input, self.mode) {
            (1, ReverseMode::Index) => {
                ValueDomain::Axes { rank: Some(Size::RankOf { input: 0 }), first: 0, distinct: false }
            }
            (1, ReverseMode::Mask) => ValueDomain::Mask,
            _ => ValueDomain::Any,
        }
    }

    fn input_shape(&self, input: usize, _inputs: &[&PortFact]) -> Option<ShapeRule> {
        // One flag per data axis.
        (input == 1 && self.mode == ReverseMode::Mask).then(|| vec![Some(Size::RankOf { input: 0 })])
    }
}

/// The axes a `Reverse` reverses: one flag per data axis.
///
/// In index mode, negative axes count from the end and repeated axes are
/// reversed once; every axis must lie in `[-rank, rank-1]`. In mask mode the
/// mask must be boolean with one element per data axis.
///
/// ```
/// use ovir_shape::{reversed_axes, ReverseMode};
/// use ovir_tensor::Tensor;
/// let axes = Tensor::from_vec(&[3], vec![0i64, -1, 2])?;
/// assert_eq!(reversed_axes(ReverseMode::Index, &axes, 3)?, vec![true, false, true]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn reversed_axes(mode: ReverseMode, axes: &Tensor, rank: usize) -> Result<Vec<bool>, ShapeErrorKind> {
    let mut flags = vec![false; rank];
    reversed_axes_into(mode, axes, &mut flags)?;
    Ok(flags)
}

/// [`reversed_axes`] writing one flag per data axis into `flags`, whose
/// length is the data's rank. It allocates nothing unless the axes are
/// wrong, so the executor reads axes that arrive at run time with it, into
/// flags on the stack, and a problem reads the same as when the model
/// loads.
///
/// ```
/// use ovir_shape::{reversed_axes_into, ReverseMode};
/// use ovir_tensor::Tensor;
///
/// let axes = Tensor::from_vec(&[2], vec![0i32, -1])?;
/// let mut flags = [true; 3];
/// reversed_axes_into(ReverseMode::Index, &axes, &mut flags)?;
/// assert_eq!(flags, [true, false, true]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn reversed_axes_into(
    mode: ReverseMode,
    axes: &Tensor,
    flags: &mut [bool],
) -> Result<(), ShapeErrorKind> {
    if axes.rank() != 1 {
        return Err(ShapeErrorKind::AxesNotVector { shape: PartialShape::from_static(axes.shape()) });
    }
    let (ty, rank) = (axes.element_type(), flags.len());
    let unreadable = ShapeErrorKind::UnreadableValues { element_type: ty };
    match mode {
        ReverseMode::Mask => {
            if ty != ElementType::Boolean {
                return Err(ShapeErrorKind::MaskAxesType { found: ty });
            }
            if axes.len() != rank {
                return Err(ShapeErrorKind::MaskLength { length: Dim::fixed(axes.len() as u64), rank });
            }
            // A boolean is one byte, and any byte but 0 is `true`.
            let bytes = axes.bytes().filter(|b| b.len() == rank).ok_or(unreadable)?;
            for (flag, &b) in flags.iter_mut().zip(bytes) {
                *flag = b != 0;
            }
            Ok(())
        }
        ReverseMode::Index => {
            if !ty.is_integral() {
                return Err(ShapeErrorKind::IndexAxesType { found: ty });
            }
            flags.fill(false);
            let read = try_for_each_integer(axes, |v| {
                match normalize_axis(v, rank).and_then(|a| flags.get_mut(a)) {
                    Some(flag) => {
                        *flag = true;
                        Ok(())
                    }
                    None => Err(()),
                }
            });
            match read {
                Some(Ok(())) => Ok(()),
                Some(Err(())) => Err(axes_out_of_bounds(axes, rank)),
                None => Err(unreadable),
            }
        }
    }
}

/// The error for index-mode axes of which some lie outside the rank: all
/// of them as a sorted set, the ones in range normalised.
#[cold]
fn axes_out_of_bounds(axes: &Tensor, rank: usize) -> ShapeErrorKind {
    let mut set = BTreeSet::new();
    try_for_each_integer(axes, |v| {
        set.insert(normalize_axis(v, rank).map_or(v, |a| a as i128));
        Ok::<(), ()>(())
    });
    ShapeErrorKind::AxesOutOfBounds { axes: set.into_iter().collect(), rank }
}
