//! ScatterElementsUpdate-3 and ScatterElementsUpdate-12: a copy of the data
//! in which, for every element of the indices, the data element at the
//! same position but with the index along `axis` is replaced by (or, in
//! version 12, combined with) the update at that position.
//!
//! What the witnesses say, and what ovir does:
//! - Indices lie in `[-s, s)` with `s` the data's size along the axis;
//!   negative ones count from the end (the spec says so and the
//!   reference does so). One outside is an error naming it.
//! - The indices (and updates) may be smaller than the data on the other
//!   axes; they must not be larger (OpenVINO's shape inference does not
//!   check it, and its reference would write outside the output): ovir
//!   refuses it.
//! - Where indices repeat, the spec leaves the result undefined with no
//!   reduction; ovir applies the updates in index order, so the last one
//!   wins, as the reference does. A reduction combines them in that
//!   order.
//! - `mean` sums the updates (and the element, with `use_init_val`) and
//!   divides by their count; integers round toward −∞, as the reference
//!   does. It is refused for booleans, on which `sum` is OR and `prod`
//!   AND.

use ovir_ir::Layer;
use ovir_tensor::{ElementType, PartialShape};

use crate::attrs;
use crate::dims::integer_input;
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};
use crate::ops::gather_elements::check_indices;
use crate::ops::scatter_update::{axis_scatter_values, axis_value, op_axis, same_type};

const OP: &str = "ScatterElementsUpdate";

/// How ScatterElementsUpdate-12 combines an update with the element it
/// lands on (its `reduction` attribute).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScatterElementsReduction {
    /// The update replaces the element.
    None,
    /// `element + update` (OR on booleans).
    Sum,
    /// `element * update` (AND on booleans).
    Prod,
    /// The smaller of the two.
    Min,
    /// The larger of the two.
    Max,
    /// The mean of the updates (and of the element, with `use_init_val`).
    Mean,
}

impl ScatterElementsReduction {
    const ALL: [ScatterElementsReduction; 6] =
        [Self::None, Self::Sum, Self::Prod, Self::Min, Self::Max, Self::Mean];

    /// Parses the `reduction` attribute, ignoring ASCII case as OpenVINO
    /// does.
    pub fn from_attr(value: &str) -> Option<Self> {
        let v = value.trim();
        Self::ALL.into_iter().find(|r| v.eq_ignore_ascii_case(r.as_str()))
    }

    /// The attribute spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Sum => "sum",
            Self::Prod => "prod",
            Self::Min => "min",
            Self::Max => "max",
            Self::Mean => "mean",
        }
    }
}

/// `out = data`, then for every position `p` of the indices, `out[p with
/// p[axis] = indices[p]] = updates[p]` (or that combined with the element
/// by the reduction), in index order. The axis is the fourth input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScatterElementsUpdate {
    /// The `reduction` attribute (version 12; `None` in version 3).
    pub reduction: ScatterElementsReduction,
    /// Whether the data's element takes part in the reduction (version
    /// 12; `true` in version 3, where it does not matter).
    pub use_init_val: bool,
    /// The op version: 3 (opsets 3 to 11) or 12.
    pub version: u32,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: OP,
    aliases: &[],
    versions: Versions::Opsets(3, 16),
    inputs: (4, Some(4)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for ScatterElementsUpdate {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, opset: u32) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        if opset < 12 {
            return Ok(ScatterElementsUpdate {
                reduction: ScatterElementsReduction::None,
                use_init_val: true,
                version: 3,
            });
        }
        let reduction = match layer.attrs.value("reduction") {
            None => Some(ScatterElementsReduction::None),
            Some(value) => {
                let r = ScatterElementsReduction::from_attr(value);
                if r.is_none() {
                    problems.attr(
                        "reduction",
                        ShapeErrorKind::InvalidReduction {
                            op: OP,
                            value: value.to_string(),
                            expected: "none, sum, prod, min, max and mean",
                        },
                    );
                }
                r
            }
        };
        let use_init_val = attrs::boolean_or(layer, "use_init_val", true, &mut problems);
        match (reduction, use_init_val) {
            (Some(reduction), Some(use_init_val)) if problems.is_empty() => {
                Ok(ScatterElementsUpdate { reduction, use_init_val, version: 12 })
            }
            _ => Err(problems),
        }
    }

    fn write(&self) -> OpLayer {
        match self.version {
            12 => OpLayer::builtin(&SPEC, "opset12")
                .attr("reduction", self.reduction.as_str())
                .attr("use_init_val", self.use_init_val),
            _ => OpLayer::builtin(&SPEC, "opset3"),
        }
    }

    fn examples() -> Vec<Self> {
        let mut all = vec![ScatterElementsUpdate {
            reduction: ScatterElementsReduction::None,
            use_init_val: true,
            version: 3,
        }];
        for use_init_val in [true, false] {
            all.extend(ScatterElementsReduction::ALL.map(|reduction| ScatterElementsUpdate {
                reduction,
                use_init_val,
                version: 12,
            }));
        }
        all
    }
}

impl Operation for ScatterElementsUpdate {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, indices, updates, axis] = exactly::<4>(SPEC.name, inputs)?;
        let mut problems = Problems::new();
        integer_input(&mut problems, OP, "indices", indices.fact);
        let axis_ok = integer_input(&mut problems, OP, "axis", axis.fact);
        let ty = same_type(&mut problems, OP, data.fact, updates.fact);
        if self.reduction == ScatterElementsReduction::Mean && ty == ElementType::Boolean {
            problems.layer(ShapeErrorKind::InputType {
                op: OP,
                input: "data",
                expected: "a number type for the mean reduction",
                found: ty,
            });
        }
        let axis_value = axis_value(&mut problems, OP, axis_ok, axis.fact);
        let axis = match elements_axis(&data.fact.shape, axis_value) {
            Ok(a) => a,
            Err(kind) => {
                problems.layer(kind);
                return Err(problems);
            }
        };
        if let Err(kind) =
            check_elements_updates(&data.fact.shape, &indices.fact.shape, &updates.fact.shape, axis)
        {
            problems.layer(kind);
            return Err(problems);
        }
        // Known indices are checked now, as the kernel checks them.
        if let (Some(values), Some(axis)) = (&indices.fact.value, axis) {
            let size = data.fact.shape.dims().and_then(|d| d.get(axis)).and_then(|d| d.get());
            if let (Some(size), true) = (size, values.element_type().is_integral()) {
                if let Err(kind) = check_indices(OP, values, size, true) {
                    problems.layer(kind);
                }
            }
        }
        problems.or_ok(vec![PortFact::of(ty, data.fact.shape.clone())])
    }

    fn input_values(&self, input: usize, inputs: &[&PortFact]) -> ValueDomain {
        axis_scatter_values(input, inputs, true)
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        // Indices and updates of the data's shape suit every axis.
        let rank = inputs.first()?.shape.rank()?;
        match input {
            1 | 2 => Some((0..rank).map(|k| Some(Size::DimOf { input: 0, axis: k })).collect()),
            _ => None,
        }
    }
}

/// ScatterElementsUpdate's axis in `[0, rank)`, when the axis and the data
/// rank are known; an axis outside `[-rank, rank)` is an error.
pub fn elements_axis(data: &PartialShape, axis: Option<i64>) -> Result<Option<usize>, ShapeErrorKind> {
    op_axis(OP, data, axis)
}

/// Checks ScatterElementsUpdate's shapes: the indices of the data's rank,
/// the updates of the indices' shape, and, once the axis is known, the
/// indices no larger than the data on every other axis.
pub fn check_elements_updates(
    data: &PartialShape,
    indices: &PartialShape,
    updates: &PartialShape,
    axis: Option<usize>,
) -> Result<(), ShapeErrorKind> {
    if !indices.compatible(updates) {
        return Err(ShapeErrorKind::ScatterUpdates {
            op: OP,
            expected: indices.clone(),
            updates: updates.clone(),
        });
    }
    let (Some(d), Some(i)) = (data.dims(), indices.dims()) else {
        return Ok(());
    };
    if d.len() != i.len() {
        return Err(ShapeErrorKind::InputShape {
            op: OP,
            input: "indices",
            expected: "a tensor of the data's rank",
            shape: indices.clone(),
        });
    }
    let Some(axis) = axis else {
        return Ok(());
    };
    for (k, (x, y)) in d.iter().zip(i).enumerate() {
        if let (Some(x), Some(y), false) = (x.get(), y.get(), k == axis) {
            if y > x {
                return Err(ShapeErrorKind::InputShape {
                    op: OP,
                    input: "indices",
                    expected: "no larger than the data on every axis but the one scattered along",
                    shape: indices.clone(),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use ovir_tensor::Tensor;

    use super::*;

    const V12: ScatterElementsUpdate =
        ScatterElementsUpdate { reduction: ScatterElementsReduction::None, use_init_val: true, version: 12 };

    fn infer_with(
        op: ScatterElementsUpdate,
        types: [ElementType; 4],
        data: &str,
        indices: &str,
        updates: &str,
        axis: i64,
    ) -> Result<String, Vec<ShapeErrorKind>> {
        let data = PortFact::of(types[0], data.parse().unwrap());
        let indices = PortFact::of(types[1], indices.parse().unwrap());
        let updates = PortFact::of(types[2], updates.parse().unwrap());
        let mut axis = PortFact::known(Tensor::from_vec(&[1], vec![axis]).unwrap());
        if types[3] != ElementType::I64 {
            axis = PortFact::of(types[3], "[1]".parse().unwrap());
        }
        let inputs = [Input::new(&data), Input::new(&indices), Input::new(&updates), Input::new(&axis)];
        match op.infer(&inputs) {
            Ok(facts) => Ok(facts[0].shape.to_string()),
            Err(p) => Err(p.into_vec().into_iter().map(|p| p.kind).collect()),
        }
    }

    fn infer(data: &str, indices: &str, updates: &str, axis: i64) -> Result<String, Vec<ShapeErrorKind>> {
        use ElementType::{F32, I32, I64};
        infer_with(V12, [F32, I32, F32, I64], data, indices, updates, axis)
    }

    fn kind(r: Result<String, Vec<ShapeErrorKind>>) -> String {
        let errors = r.unwrap_err();
        format!("{:?}", errors[0]).split([' ', '{']).next().unwrap_or_default().to_owned()
    }

    /// OpenVINO's type_prop tests of ScatterElementsUpdate.
    #[test]
    fn shapes_infer_what_openvino_infers() {
        assert_eq!(infer("[2,4,5,7]", "[2,2,2,2]", "[2,2,2,2]", -1), Ok("[2,4,5,7]".into()));
        assert_eq!(infer("[2,4,5,7]", "[2,2,2,2]", "[2,2,2,2]", 3), Ok("[2,4,5,7]".into()));
        assert_eq!(infer("[?,4,2..5,7]", "[2,2,2,2]", "[2,2,2,2]", 1), Ok("[?,4,2..5,7]".into()));
        assert_eq!(infer("...", "[2,2,2,2]", "[2,2,2,2]", 1), Ok("[...]".into()));
        // Indices larger than the data along the axis are fine.
        assert_eq!(infer("[2,1,3]", "[2,4,3]", "[2,4,3]", 1), Ok("[2,1,3]".into()));
    }

    #[test]
    fn openvinos_refusals_are_refused() {
        use ElementType::{Boolean, F16, F32, I32, I64};
        // Updates of another shape than the indices.
        assert_eq!(kind(infer("[2,4,5,7]", "[2,2,2,2]", "[2,2,2,3]", 1)), "ScatterUpdates");
        // Indices of another rank than the data.
        assert_eq!(kind(infer("[2,4,5,7]", "[2,2,2]", "[2,2,2]", 1)), "InputShape");
        // An axis outside [-rank, rank).
        assert_eq!(kind(infer("[2,4,5,7]", "[2,2,2,2]", "[2,2,2,2]", -5)), "OpAxisOutOfRange");
        assert_eq!(kind(infer("[2,4,5,7]", "[2,2,2,2]", "[2,2,2,2]", 4)), "OpAxisOutOfRange");
        // Indices larger than the data on another axis.
        assert_eq!(kind(infer("[2,4,5,7]", "[3,2,2,2]", "[3,2,2,2]", 1)), "InputShape");
        let types = |t: [ElementType; 4]| infer_with(V12, t, "[2,4]", "[2,4]", "[2,4]", 0);
        assert_eq!(kind(types([F32, F16, F32, I64])), "IntegerInput");
        assert_eq!(kind(types([F32, I32, F32, F32])), "IntegerInput");
        assert_eq!(kind(types([F32, I32, F16, I64])), "InputTypes");
        // mean is refused for booleans; sum is not.
        let mean = ScatterElementsUpdate { reduction: ScatterElementsReduction::Mean, ..V12 };
        assert_eq!(kind(infer_with(mean, [Boolean, I32, Boolean, I64], "[2]", "[2]", "[2]", 0)), "InputType");
        let sum = ScatterElementsUpdate { reduction: ScatterElementsReduction::Sum, ..V12 };
        assert_eq!(infer_with(sum, [Boolean, I32, Boolean, I64], "[2]", "[2]", "[2]", 0), Ok("[2]".into()));
    }

    #[test]
    fn constant_indices_count_from_the_end() {
        let data = PortFact::of(ElementType::F32, "[3]".parse().unwrap());
        let updates = PortFact::of(ElementType::F32, "[2]".parse().unwrap());
        let axis = PortFact::known(Tensor::from_vec(&[], vec![0i64]).unwrap());
        for (values, error) in [
            (vec![2i64, -3], None),
            (vec![0, -4], Some("ScatterElementsUpdate index -4 at position [1] of its indices is out of range: an index must lie between -3 and 2")),
            (vec![3, 0], Some("ScatterElementsUpdate index 3 at position [0] of its indices is out of range: an index must lie between -3 and 2")),
        ] {
            let indices = PortFact::known(Tensor::from_vec(&[2], values).unwrap());
            let inputs = [Input::new(&data), Input::new(&indices), Input::new(&updates), Input::new(&axis)];
            let got = V12.infer(&inputs).map_err(|p| p.into_vec().remove(0).kind.to_string());
            assert_eq!(got.err().as_deref(), error);
        }
    }

    #[test]
    fn attributes_read_and_write_back() {
        crate::ops::check_round_trips::<ScatterElementsUpdate>();
        assert_eq!(ScatterElementsReduction::from_attr("MEAN"), Some(ScatterElementsReduction::Mean));
        assert_eq!(ScatterElementsReduction::from_attr("sub"), None);
    }
}
