//! GatherTree-1: the whole beams of a beam search, from the token each beam
//! took at each step and the beam it came from.

use ovir_ir::Layer;
use ovir_tensor::{ElementType, PartialShape};

use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};

const OP: &str = "GatherTree";

/// Follows each beam back from its last step through `parent_idx` and
/// gathers the tokens of `step_ids` along the way; past the first
/// `end_token` of a beam, every token is `end_token`. The inputs are
/// `step_ids` and `parent_idx` of shape `[MAX_TIME, BATCH, BEAM]`,
/// `max_seq_len` of shape `[BATCH]` and the scalar `end_token`, all of one
/// numeric type; the output has the shape and type of `step_ids`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GatherTree;

pub(crate) const SPEC: OpSpec = OpSpec {
    name: OP,
    aliases: &[],
    versions: Versions::Opsets(1, 16),
    inputs: (4, Some(4)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for GatherTree {
    const SPEC: OpSpec = SPEC;

    fn build(_layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        Ok(GatherTree)
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset1")
    }

    fn examples() -> Vec<Self> {
        vec![GatherTree]
    }
}

/// Whether GatherTree runs on elements of type `ty`: the integers of 8 to
/// 64 bits and the reals f16, bf16, f32 and f64 (the spec allows any
/// numeric type; the packed and 8-bit float types are not run).
pub fn gather_tree_type(ty: ElementType) -> bool {
    use ElementType::*;
    matches!(ty, I8 | I16 | I32 | I64 | U8 | U16 | U32 | U64 | F16 | Bf16 | F32 | F64)
}

impl Operation for GatherTree {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [step_ids, parent_idx, max_seq_len, end_token] = exactly::<4>(OP, inputs)?;
        let mut problems = Problems::new();
        let mut ty = step_ids.fact.element_type;
        for (k, input) in [parent_idx, max_seq_len, end_token].iter().enumerate() {
            let found = input.fact.element_type;
            match ty.merge(found) {
                Some(t) => ty = t,
                None => {
                    problems.layer(ShapeErrorKind::InputTypes { op: OP, input: k + 1, found, expected: ty })
                }
            }
        }
        if ty.is_static() && !gather_tree_type(ty) {
            problems.layer(ShapeErrorKind::GatherTreeType { found: ty });
        }
        let shapes =
            [&step_ids.fact.shape, &parent_idx.fact.shape, &max_seq_len.fact.shape, &end_token.fact.shape];
        match gather_tree_shape(shapes) {
            Ok(shape) => problems.or_ok(vec![PortFact::of(ty, shape)]),
            Err(kind) => {
                problems.layer(kind);
                Err(problems)
            }
        }
    }

    fn input_values(&self, input: usize, _inputs: &[&PortFact]) -> ValueDomain {
        match input {
            1 => ValueDomain::Indices { size: Some(Size::DimOf { input: 0, axis: 2 }), negative: false },
            2 => ValueDomain::Lengths { max: Some(Size::DimOf { input: 0, axis: 0 }) },
            _ => ValueDomain::Any,
        }
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        let dim = |axis| Some(Size::DimOf { input: 0, axis });
        match input {
            1 => Some(vec![dim(0), dim(1), dim(2)]),
            2 => crate::operation::vector_of(inputs.get(2), Size::DimOf { input: 0, axis: 1 }),
            3 => Some(Vec::new()),
            _ => None,
        }
    }
}

/// GatherTree's output shape from the shapes of `step_ids`, `parent_idx`,
/// `max_seq_len` and `end_token`: `step_ids` and `parent_idx` of one shape
/// of rank 3, `max_seq_len` a vector as long as their second dimension and
/// `end_token` a scalar. What is known of each dimension on any side is
/// kept.
pub fn gather_tree_shape(shapes: [&PartialShape; 4]) -> Result<PartialShape, ShapeErrorKind> {
    let [step_ids, parent_idx, max_seq_len, end_token] = shapes;
    let expected = "a tensor of rank 3 ([MAX_TIME, BATCH, BEAM]) with the shape of step_ids";
    let mismatch = |input, shape: &PartialShape| ShapeErrorKind::InputShape {
        op: OP,
        input,
        expected,
        shape: shape.clone(),
    };
    let mut out = PartialShape::with_rank(3);
    for (input, shape) in [("step_ids", step_ids), ("parent_idx", parent_idx)] {
        out = out.merge(shape).ok_or_else(|| mismatch(input, shape))?;
    }
    if max_seq_len.rank().is_some_and(|r| r != 1) {
        return Err(ShapeErrorKind::InputShape {
            op: OP,
            input: "max_seq_len",
            expected: "a vector (one length per batch)",
            shape: max_seq_len.clone(),
        });
    }
    if let (Some(dims), Some([count])) = (out.dims(), max_seq_len.dims()) {
        let mut dims = dims.to_vec();
        if let Some(batch) = dims.get_mut(1) {
            *batch = batch.merge(*count).ok_or_else(|| ShapeErrorKind::InputShape {
                op: OP,
                input: "max_seq_len",
                expected: "a vector as long as the BATCH dimension of step_ids",
                shape: max_seq_len.clone(),
            })?;
        }
        out = PartialShape::new(dims);
    }
    if end_token.rank().is_some_and(|r| r != 0) {
        return Err(ShapeErrorKind::InputShape {
            op: OP,
            input: "end_token",
            expected: "a scalar",
            shape: end_token.clone(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn infer(ty: [ElementType; 4], shapes: [&str; 4]) -> Result<(ElementType, String), Vec<ShapeErrorKind>> {
        let parse = |s: &str| if s == "-" { PartialShape::scalar() } else { s.parse().unwrap() };
        let facts: Vec<PortFact> = ty.iter().zip(shapes).map(|(&t, s)| PortFact::of(t, parse(s))).collect();
        let inputs: Vec<Input<'_>> = facts.iter().map(Input::new).collect();
        match GatherTree.infer(&inputs) {
            Ok(f) => Ok((f[0].element_type, f[0].shape.to_string())),
            Err(p) => Err(p.into_vec().into_iter().map(|p| p.kind).collect()),
        }
    }

    fn kinds(r: Result<(ElementType, String), Vec<ShapeErrorKind>>) -> Vec<String> {
        r.unwrap_err().iter().map(|k| format!("{k:?}").split(' ').next().unwrap_or("").to_owned()).collect()
    }

    const F32: [ElementType; 4] = [ElementType::F32; 4];

    /// OpenVINO's type_prop tests of GatherTree-1.
    #[test]
    fn shapes_infer_what_openvino_infers() {
        let table: &[([&str; 2], &str)] = &[
            (["[1,2,3]", "[2]"], "[1,2,3]"),
            (["[1,2,3]", "[?]"], "[1,2,3]"),
            (["[?,2,?]", "[2]"], "[?,2,?]"),
            (["[?,?,?]", "[4]"], "[?,4,?]"),
            (["[?,3..5,?]", "[1..3]"], "[?,3,?]"),
            (["...", "..."], "[?,?,?]"),
        ];
        for &([steps, lengths], want) in table {
            let got = infer(F32, [steps, steps, lengths, "-"]);
            assert_eq!(got, Ok((ElementType::F32, want.to_owned())), "{steps} {lengths}");
        }
        let i32s = [ElementType::I32; 4];
        let got = infer(i32s, ["[2..5,4..8,3..6]", "[3..7,3..7,1..4]", "[2..6]", "-"]);
        assert_eq!(got, Ok((ElementType::I32, "[3..5,4..6,3..4]".to_owned())));
        for ty in [ElementType::U8, ElementType::I64, ElementType::F64, ElementType::U32] {
            assert!(infer([ty; 4], ["[1,2,3]", "[1,2,3]", "[2]", "-"]).is_ok(), "{ty}");
        }
    }

    #[test]
    fn openvinos_refusals_are_refused() {
        let base = ["[1,2,3]", "[1,2,3]", "[2]", "-"];
        assert_eq!(kinds(infer([ElementType::Boolean; 4], base)), ["GatherTreeType"]);
        assert_eq!(kinds(infer([ElementType::U4; 4], base)), ["GatherTreeType"]);
        for k in 0..4 {
            let mut ty = F32;
            ty[k] = ElementType::I32;
            let want = if k == 0 { vec!["InputTypes"; 3] } else { vec!["InputTypes"] };
            assert_eq!(kinds(infer(ty, base)), want, "{k}");
        }
        for (steps, parents) in [
            ("[1]", "[1,2,3]"),
            ("[1,2,3]", "[3,3,3,3]"),
            ("[?,?,3]", "[?,?,?,?]"),
            ("[?,?]", "..."),
            ("[1,2,3]", "[?,3..5,3]"),
        ] {
            assert_eq!(kinds(infer(F32, [steps, parents, "[?]", "-"])), ["InputShape"], "{steps} {parents}");
        }
        for lengths in ["-", "[?,1]", "[?,?,?]", "[1,2,3,4]"] {
            assert_eq!(kinds(infer(F32, ["[1,2,3]", "[1,2,3]", lengths, "-"])), ["InputShape"], "{lengths}");
        }
        for (steps, lengths) in [("[1,2,3]", "[4]"), ("[?,2,3]", "[3..6]")] {
            assert_eq!(kinds(infer(F32, [steps, steps, lengths, "-"])), ["InputShape"], "{steps} {lengths}");
        }
        for end in ["[3]", "[?,1]", "[?,?,?]", "[1,2,3,4]"] {
            assert_eq!(kinds(infer(F32, ["[1,2,3]", "[1,2,3]", "[2]", end])), ["InputShape"], "{end}");
        }
    }

    #[test]
    fn round_trips() {
        crate::ops::check_round_trips::<GatherTree>();
    }
}
