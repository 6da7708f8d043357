//! StringTensorUnpack-15 and StringTensorPack-15: a string tensor as the
//! three tensors OpenVINO lays strings out in, and back.
//!
//! Unpack gives, for data of shape `S`, `begins` and `ends` of shape `S`
//! (i32) and `symbols`, every string's UTF-8 bytes one after another
//! (u8, 1-D). String `i` is `symbols[begins[i]..ends[i]]`. Pack takes the
//! three (begins and ends i32 or i64, of one compatible shape) and gives
//! the strings, of the begins' shape.

use ovir_ir::Layer;
use ovir_tensor::{Dim, ElementType, PartialShape};

use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, Versions};

/// A string tensor unpacked into `begins`, `ends` and `symbols`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StringTensorUnpack;

/// `begins`, `ends` and `symbols` packed into a string tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StringTensorPack;

pub(crate) const UNPACK: OpSpec = OpSpec {
    name: "StringTensorUnpack",
    aliases: &[],
    versions: Versions::Opsets(15, 16),
    inputs: (1, Some(1)),
    outputs: (3, Some(3)),
};

pub(crate) const PACK: OpSpec = OpSpec {
    name: "StringTensorPack",
    aliases: &[],
    versions: Versions::Opsets(15, 16),
    inputs: (3, Some(3)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for StringTensorUnpack {
    const SPEC: OpSpec = UNPACK;

    fn build(_layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        Ok(StringTensorUnpack)
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&UNPACK, "opset15")
    }

    fn examples() -> Vec<Self> {
        vec![StringTensorUnpack]
    }
}

impl BuiltinOp for StringTensorPack {
    const SPEC: OpSpec = PACK;

    fn build(_layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        Ok(StringTensorPack)
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&PACK, "opset15")
    }

    fn examples() -> Vec<Self> {
        vec![StringTensorPack]
    }
}

/// The bytes strings take together, `None` when the sum overflows.
pub fn symbols_length(strings: &[String]) -> Option<u64> {
    strings.iter().try_fold(0u64, |n, s| n.checked_add(s.len() as u64))
}

/// The most bytes StringTensorUnpack's i32 `begins` and `ends` can count.
pub const MAX_SYMBOLS: u64 = i32::MAX as u64;

impl Operation for StringTensorUnpack {
    fn name(&self) -> &str {
        UNPACK.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data] = exactly::<1>(UNPACK.name, inputs)?;
        let found = data.fact.element_type;
        if found.is_static() && found != ElementType::String {
            return Err(Problems::one(ShapeErrorKind::InputType {
                op: UNPACK.name,
                input: "data",
                expected: "string",
                found,
            }));
        }
        // The symbols' length is known when the strings are.
        let length = match data.fact.value.as_ref().and_then(|v| v.strings()) {
            Some(strings) => {
                let n = symbols_length(strings).filter(|&n| n <= MAX_SYMBOLS);
                Dim::fixed(n.ok_or(Problems::one(ShapeErrorKind::StringsTooLong {
                    bytes: symbols_length(strings),
                }))?)
            }
            None => Dim::DYNAMIC,
        };
        let shape = data.fact.shape.clone();
        Ok(vec![
            PortFact::of(ElementType::I32, shape.clone()),
            PortFact::of(ElementType::I32, shape),
            PortFact::of(ElementType::U8, PartialShape::new(vec![length])),
        ])
    }
}

/// Checks constant `begins` or `ends` as OpenVINO's shape inference does:
/// the first is 0 or more, the last at most `symbols` (when known), and
/// they ascend.
pub fn check_string_indices(
    input: &'static str,
    values: &[i64],
    symbols: Option<u64>,
) -> Result<(), ShapeErrorKind> {
    let (Some(&first), Some(&last)) = (values.first(), values.last()) else {
        return Ok(());
    };
    if first < 0 {
        return Err(ShapeErrorKind::StringIndices { input, problem: "must be 0 or more" });
    }
    if symbols.is_some_and(|n| u64::try_from(last).is_ok_and(|last| last > n)) {
        return Err(ShapeErrorKind::StringIndices {
            input,
            problem: "must be at most the length of symbols",
        });
    }
    if values.windows(2).any(|w| w[0] > w[1]) {
        return Err(ShapeErrorKind::StringIndices { input, problem: "must be in ascending order" });
    }
    Ok(())
}

impl Operation for StringTensorPack {
    fn name(&self) -> &str {
        PACK.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [begins, ends, symbols] = exactly::<3>(PACK.name, inputs)?;
        let mut problems = Problems::new();
        let (tb, te) = (begins.fact.element_type, ends.fact.element_type);
        for (input, found) in [("begins", tb), ("ends", te)] {
            if found.is_static() && !matches!(found, ElementType::I32 | ElementType::I64) {
                problems.layer(ShapeErrorKind::InputType {
                    op: PACK.name,
                    input,
                    expected: "i32 or i64",
                    found,
                });
            }
        }
        if tb.is_static() && te.is_static() && tb != te {
            problems.layer(ShapeErrorKind::InputTypes { op: PACK.name, input: 1, found: te, expected: tb });
        }
        let ts = symbols.fact.element_type;
        if ts.is_static() && ts != ElementType::U8 {
            problems.layer(ShapeErrorKind::InputType {
                op: PACK.name,
                input: "symbols",
                expected: "u8",
                found: ts,
            });
        }
        let symbols_len = match symbols.fact.shape.dims() {
            Some([n]) => n.get(),
            Some(_) => {
                problems.layer(ShapeErrorKind::InputShape {
                    op: PACK.name,
                    input: "symbols",
                    expected: "1-D",
                    shape: symbols.fact.shape.clone(),
                });
                None
            }
            None => None,
        };
        for (input, fact) in [("begins", begins.fact), ("ends", ends.fact)] {
            if let Some(values) = fact.value.as_ref().and_then(crate::dims::int_values) {
                if let Err(kind) = check_string_indices(input, &values, symbols_len) {
                    problems.layer(kind);
                }
            }
        }
        let shape = begins.fact.shape.merge(&ends.fact.shape);
        if shape.is_none() {
            problems.layer(ShapeErrorKind::StringPackShapes {
                begins: begins.fact.shape.clone(),
                ends: ends.fact.shape.clone(),
            });
        }
        let shape = shape.unwrap_or_else(PartialShape::dynamic);
        problems.or_ok(vec![PortFact::of(ElementType::String, shape)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ovir_tensor::Tensor;

    fn fact(ty: ElementType, shape: &str) -> PortFact {
        PortFact::of(ty, shape.parse().unwrap())
    }

    fn unpack(data: PortFact) -> Result<Vec<String>, ShapeErrorKind> {
        StringTensorUnpack
            .infer(&[Input::new(&data)])
            .map(|f| f.iter().map(|f| format!("{} {}", f.element_type, f.shape)).collect())
            .map_err(|p| p.into_vec().remove(0).kind)
    }

    fn pack(begins: PortFact, ends: PortFact, symbols: PortFact) -> Result<String, ShapeErrorKind> {
        StringTensorPack
            .infer(&[Input::new(&begins), Input::new(&ends), Input::new(&symbols)])
            .map(|f| format!("{} {}", f[0].element_type, f[0].shape))
            .map_err(|p| p.into_vec().remove(0).kind)
    }

    // OpenVINO's type_prop string_tensor_unpack.cpp and _pack.cpp, in
    // substance: shapes pass through, the symbols' length is known for
    // constant strings.
    #[test]
    fn unpack_shapes_are_openvinos() {
        assert_eq!(unpack(fact(ElementType::String, "2,3")).unwrap(), ["i32 [2,3]", "i32 [2,3]", "u8 [?]"]);
        assert_eq!(unpack(fact(ElementType::String, "...")).unwrap(), ["i32 [...]", "i32 [...]", "u8 [?]"]);
        assert_eq!(unpack(fact(ElementType::String, "1..3,?")).unwrap()[0], "i32 [1..3,?]");
        let words =
            Tensor::from_strings(&[5], ["OMZ", "", "GenAI", " ", "2024"].map(String::from).to_vec()).unwrap();
        let mut constant = fact(ElementType::String, "5");
        constant.value = Some(words);
        assert_eq!(unpack(constant).unwrap(), ["i32 [5]", "i32 [5]", "u8 [13]"]);
        assert!(matches!(unpack(fact(ElementType::U8, "3")), Err(ShapeErrorKind::InputType { .. })));
        assert_eq!(unpack(fact(ElementType::Dynamic, "3")).unwrap()[2], "u8 [?]");
    }

    #[test]
    fn pack_shapes_are_openvinos() {
        let ok = |b: &str, e: &str, s: &str| {
            pack(fact(ElementType::I64, b), fact(ElementType::I64, e), fact(ElementType::U8, s))
        };
        assert_eq!(ok("2", "2", "13").unwrap(), "string [2]");
        assert_eq!(ok("2,?", "?,3", "?").unwrap(), "string [2,3]");
        assert_eq!(ok("...", "1..4", "...").unwrap(), "string [1..4]");
        assert!(matches!(ok("2", "3", "13"), Err(ShapeErrorKind::StringPackShapes { .. })));
        assert!(matches!(ok("2", "2", "2,2"), Err(ShapeErrorKind::InputShape { .. })));
        let typed = |b, e, s| pack(fact(b, "2"), fact(e, "2"), fact(s, "4"));
        use ElementType::*;
        assert_eq!(typed(I32, I32, U8).unwrap(), "string [2]");
        assert!(matches!(typed(I32, I64, U8), Err(ShapeErrorKind::InputTypes { .. })));
        assert!(matches!(typed(U32, U32, U8), Err(ShapeErrorKind::InputType { .. })));
        assert!(matches!(typed(I32, I32, I8), Err(ShapeErrorKind::InputType { .. })));
    }

    // shape inference's checks of constant indices.
    #[test]
    fn constant_indices_are_checked_as_openvino_checks_them() {
        let with = |values: &[i64], symbols: &str| {
            let mut begins = fact(ElementType::I64, &values.len().to_string());
            begins.value = Some(Tensor::from_vec(&[values.len()], values.to_vec()).unwrap());
            let ends = fact(ElementType::I64, &values.len().to_string());
            pack(begins, ends, fact(ElementType::U8, symbols))
        };
        assert!(with(&[0, 5], "13").is_ok());
        assert!(with(&[0, 13], "13").is_ok());
        assert!(with(&[0, 14], "?").is_ok());
        let problem = |r: Result<String, ShapeErrorKind>| match r {
            Err(ShapeErrorKind::StringIndices { problem, .. }) => problem,
            other => panic!("{other:?}"),
        };
        assert_eq!(problem(with(&[-1, 5], "13")), "must be 0 or more");
        assert_eq!(problem(with(&[0, 14], "13")), "must be at most the length of symbols");
        assert_eq!(problem(with(&[5, 0], "13")), "must be in ascending order");
        crate::ops::check_round_trips::<StringTensorPack>();
        crate::ops::check_round_trips::<StringTensorUnpack>();
    }
}
