//! GatherND-5 and GatherND-8: take slices of the data by tuples of indices.

use ovir_ir::Layer;
use ovir_tensor::{Dim, PartialShape, Tensor};

use crate::attrs;
use crate::dims::integer_input;
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};
use crate::ops::gather_elements::index_in;

const OP: &str = "GatherND";

/// For each tuple of the indices' last axis, the slice of the data it
/// picks, after `batch_dims` leading dimensions that data and indices
/// share: `out[b, i] = data[b, indices[b, i]]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GatherNd {
    /// The `batch_dims` attribute: leading dimensions of data and indices
    /// matched one to one.
    pub batch_dims: u64,
    /// The op version: 5 (opsets 5 to 7), whose output folds the batch
    /// dimensions into one, or 8, whose output keeps them. Both count
    /// negative indices from the end: GatherND-8's spec says so, and for
    /// GatherND-5, whose spec asks for `[0, s)`, OpenVINO's reference and
    /// CPU plugin both do.
    pub version: u32,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: OP,
    aliases: &[],
    versions: Versions::Opsets(5, 16),
    inputs: (2, Some(2)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for GatherNd {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, opset: u32) -> Result<Self, Problems> {
        let version = if opset >= 8 { 8 } else { 5 };
        let mut problems = Problems::new();
        let Some(batch_dims) = attrs::int_or(layer, "batch_dims", 0, &mut problems) else {
            return Err(problems);
        };
        match u64::try_from(batch_dims) {
            Ok(batch_dims) => Ok(GatherNd { batch_dims, version }),
            Err(_) => {
                problems.attr(
                    "batch_dims",
                    ShapeErrorKind::NegativeAttribute { op: OP, name: "batch_dims", value: batch_dims },
                );
                Err(problems)
            }
        }
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, format!("opset{}", self.version)).attr("batch_dims", self.batch_dims)
    }

    fn examples() -> Vec<Self> {
        vec![
            GatherNd { batch_dims: 0, version: 5 },
            GatherNd { batch_dims: 2, version: 5 },
            GatherNd { batch_dims: 0, version: 8 },
            GatherNd { batch_dims: 1, version: 8 },
        ]
    }
}

impl Operation for GatherNd {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, indices] = exactly::<2>(SPEC.name, inputs)?;
        let mut problems = Problems::new();
        integer_input(&mut problems, OP, "indices", indices.fact);
        let shape =
            match gather_nd_shape(&data.fact.shape, &indices.fact.shape, self.batch_dims, self.version) {
                Ok(s) => s,
                Err(kind) => {
                    problems.layer(kind);
                    return Err(problems);
                }
            };
        // Known indices are checked now, as the kernel checks them.
        if let (Some(values), Some(data)) = (&indices.fact.value, data.fact.shape.to_static()) {
            if let Err(kind) = check_tuples(values, &data, self.batch_dims, true) {
                problems.layer(kind);
            }
        }
        problems.or_ok(vec![PortFact::of(data.fact.element_type, shape)])
    }

    fn input_values(&self, input: usize, inputs: &[&PortFact]) -> ValueDomain {
        match input {
            // Each index picks from its own data dimension: indices below
            // the smallest of them suit every one.
            1 => {
                let size =
                    match (inputs.first().and_then(|d| d.shape.dims()), inputs.get(1).map(|i| &i.shape)) {
                        (Some(data), Some(indices)) => {
                            let length = indices.dims().and_then(|d| d.last()).and_then(|d| d.get());
                            let b = usize::try_from(self.batch_dims).unwrap_or(usize::MAX);
                            length.and_then(|l| {
                                let picked = data.get(b..b.checked_add(usize::try_from(l).ok()?)?)?;
                                picked.iter().map(|d| d.get()).collect::<Option<Vec<_>>>()?.into_iter().min()
                            })
                        }
                        _ => None,
                    };
                ValueDomain::Indices { size: size.map(Size::Known), negative: true }
            }
            _ => ValueDomain::Any,
        }
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        // The indices' batch dimensions follow the data's.
        let batch = usize::try_from(self.batch_dims).ok().filter(|&b| b > 0)?;
        match input {
            1 => {
                let rank = inputs.get(1)?.shape.rank()?;
                Some((0..rank).map(|k| (k < batch).then_some(Size::DimOf { input: 0, axis: k })).collect())
            }
            _ => None,
        }
    }
}

/// GatherND's output shape: the batch dimensions (merged from data and
/// indices), the indices' other dimensions but the last, then the data's
/// dimensions the tuples leave; GatherND-5 folds the batch dimensions into
/// one when there are two or more. Unknown when a rank, or the length of
/// the tuples, is.
pub fn gather_nd_shape(
    data: &PartialShape,
    indices: &PartialShape,
    batch_dims: u64,
    version: u32,
) -> Result<PartialShape, ShapeErrorKind> {
    let batch = usize::try_from(batch_dims).unwrap_or(usize::MAX);
    for (input, shape) in [("data", data), ("indices", indices)] {
        match shape.rank() {
            Some(0) => {
                return Err(ShapeErrorKind::InputShape {
                    op: OP,
                    input,
                    expected: "a tensor of rank 1 or more",
                    shape: shape.clone(),
                })
            }
            Some(rank) if batch >= rank => {
                return Err(ShapeErrorKind::GatherNdBatchDims { batch_dims, input, rank })
            }
            _ => {}
        }
    }
    let (Some(d), Some(i)) = (data.dims(), indices.dims()) else {
        return Ok(PartialShape::dynamic());
    };
    let Some(length) = i.last().and_then(|l| l.get()) else {
        return Ok(PartialShape::dynamic());
    };
    let too_long = ShapeErrorKind::GatherNdTupleLength { length, batch_dims, data_rank: d.len() };
    let rest = usize::try_from(length).ok().and_then(|l| l.checked_add(batch)).ok_or(too_long.clone())?;
    if rest > d.len() {
        return Err(too_long);
    }
    let mut out = Vec::with_capacity(d.len() + i.len());
    for (&x, &y) in d.iter().zip(i).take(batch) {
        out.push(x.merge(y).ok_or_else(|| ShapeErrorKind::GatherNdBatchMismatch {
            batch_dims,
            data: data.clone(),
            indices: indices.clone(),
        })?);
    }
    if version < 8 && batch > 1 {
        let folded = out.iter().fold(Dim::fixed(1), |acc, &d| multiply(acc, d));
        out = vec![folded];
    }
    out.extend(i.get(batch..i.len() - 1).unwrap_or_default());
    out.extend(d.get(rest..).unwrap_or_default());
    Ok(PartialShape::new(out))
}

/// The product of two dimensions: the products of their bounds.
fn multiply(a: Dim, b: Dim) -> Dim {
    let min = a.min().saturating_mul(b.min());
    let max = a.max().zip(b.max()).and_then(|(x, y)| x.checked_mul(y));
    Dim::interval(min, max).unwrap_or(Dim::DYNAMIC)
}

/// Checks every index of `indices` (an integer tensor whose last axis
/// holds the tuples) against the data dimension it picks from, after
/// `batch_dims` batch dimensions: `[0, s)`, or `[-s, s)` when `negative`.
/// The first that does not fit is an error naming its position.
pub fn check_tuples(
    indices: &Tensor,
    data: &[usize],
    batch_dims: u64,
    negative: bool,
) -> Result<(), ShapeErrorKind> {
    let length = indices.shape().last().copied().unwrap_or(0);
    let batch = usize::try_from(batch_dims).unwrap_or(usize::MAX);
    let mut at = 0usize;
    let read = crate::try_for_each_integer(indices, |i| {
        let k = batch.saturating_add(at % length.max(1));
        let size = data.get(k).copied().unwrap_or(0) as u64;
        index_in(OP, i, size, negative, at, indices.shape())?;
        at += 1;
        Ok(())
    });
    read.unwrap_or(Err(ShapeErrorKind::IntegerInput {
        op: OP,
        input: "indices",
        found: indices.element_type(),
    }))
}

#[cfg(test)]
mod tests {
    use ovir_tensor::ElementType;

    use super::*;

    fn infer(
        version: u32,
        batch_dims: u64,
        data: &str,
        indices: &str,
    ) -> Result<String, Vec<ShapeErrorKind>> {
        let data = PortFact::of(ElementType::F32, data.parse().unwrap());
        let indices = PortFact::of(ElementType::I32, indices.parse().unwrap());
        let inputs = [Input::new(&data), Input::new(&indices)];
        match (GatherNd { batch_dims, version }).infer(&inputs) {
            Ok(facts) => Ok(facts[0].shape.to_string()),
            Err(p) => Err(p.into_vec().into_iter().map(|p| p.kind).collect()),
        }
    }

    /// OpenVINO's type_prop tests of GatherND-5 and GatherND-8: (batch_dims,
    /// data, indices, GatherND-5's shape, GatherND-8's shape).
    #[test]
    fn shapes_infer_what_openvino_infers() {
        let table = [
            (1, "[8,3,11,12]", "[8,4,2]", "[8,4,12]", "[8,4,12]"),
            (1, "[8,3,11,12]", "[8,4,3]", "[8,4]", "[8,4]"),
            (1, "[8,3,11,12]", "[8,4,?]", "[...]", "[...]"),
            (1, "[2..6,3..7,8..10,12..14]", "[4..8,6..10,2]", "[4..6,6..10,12..14]", "[4..6,6..10,12..14]"),
            (0, "[2,3,11,12]", "[2,3,2]", "[2,3,11,12]", "[2,3,11,12]"),
            (2, "[2,3,11,12]", "[2,3,2]", "[6]", "[2,3]"),
            (2, "[7,5,11,12,32]", "[7,5,3,1]", "[35,3,12,32]", "[7,5,3,12,32]"),
            (2, "[7,?,11,12,32]", "[7,5,3,1]", "[35,3,12,32]", "[7,5,3,12,32]"),
            (2, "[7,?,?,12,32]", "[7,5,3,1]", "[35,3,12,32]", "[7,5,3,12,32]"),
            (2, "[7,?,?,12,?]", "[7,5,3,1]", "[35,3,12,?]", "[7,5,3,12,?]"),
            (0, "[7,?,?,12,?]", "[7,5,3,?]", "[...]", "[...]"),
            (0, "[2,2]", "[2,2]", "[2]", "[2]"),
            (0, "[2,2]", "[2,1]", "[2,2]", "[2,2]"),
            (0, "[2,2,2]", "[2,3]", "[2]", "[2]"),
            (0, "[2,2,2]", "[2,2]", "[2,2]", "[2,2]"),
            (0, "[2,2,2]", "[1,1]", "[1,2,2]", "[1,2,2]"),
            (0, "[2,2]", "[2,1,2]", "[2,1]", "[2,1]"),
            (0, "[2,2]", "[2,1,1]", "[2,1,2]", "[2,1,2]"),
            (0, "[2,2,2]", "[2,2,3]", "[2,2]", "[2,2]"),
            (0, "[2,2,2]", "[2,2,2]", "[2,2,2]", "[2,2,2]"),
            (0, "[2,2,2]", "[2,1,1]", "[2,1,2,2]", "[2,1,2,2]"),
            (2, "[2..6,3..7,8..10,12..14]", "[4..8,6..10,2]", "[24..42]", "[4..6,6..7]"),
            (2, "[2..6,3..7,8..10,12..14]", "[4..8,6..10,1]", "[24..42,12..14]", "[4..6,6..7,12..14]"),
            (0, "...", "[2,1]", "[...]", "[...]"),
            (1, "[2,3]", "...", "[...]", "[...]"),
        ];
        for (batch_dims, data, indices, v5, v8) in table {
            assert_eq!(
                infer(5, batch_dims, data, indices),
                Ok(v5.to_owned()),
                "v5 {batch_dims} {data} {indices}"
            );
            assert_eq!(
                infer(8, batch_dims, data, indices),
                Ok(v8.to_owned()),
                "v8 {batch_dims} {data} {indices}"
            );
        }
    }

    #[test]
    fn openvinos_refusals_are_refused() {
        let kind = |r: Result<String, Vec<ShapeErrorKind>>| {
            let errors = r.unwrap_err();
            format!("{:?}", errors[0]).split([' ', '{']).next().unwrap_or_default().to_owned()
        };
        for version in [5, 8] {
            assert_eq!(kind(infer(version, 3, "[2,3,4,5]", "[2,1]")), "GatherNdBatchDims");
            assert_eq!(kind(infer(version, 2, "[2,3,4,5]", "[2,1,2]")), "GatherNdBatchMismatch");
            assert_eq!(kind(infer(version, 2, "[2,1,4,5]", "[2,1,5,3]")), "GatherNdTupleLength");
            assert_eq!(kind(infer(version, 0, "[]", "[2,1,1]")), "InputShape");
            assert_eq!(kind(infer(version, 0, "[2,2,2]", "[]")), "InputShape");
        }
        let data = PortFact::of(ElementType::F32, "[2,2,2]".parse().unwrap());
        let indices = PortFact::of(ElementType::F32, "[2,1,1]".parse().unwrap());
        let err = GatherNd { batch_dims: 0, version: 8 }.infer(&[Input::new(&data), Input::new(&indices)]);
        let kinds: Vec<ShapeErrorKind> = err.unwrap_err().into_vec().into_iter().map(|p| p.kind).collect();
        assert_eq!(
            kinds,
            [ShapeErrorKind::IntegerInput { op: OP, input: "indices", found: ElementType::F32 }]
        );
        // A negative batch_dims is refused as the layer is read.
        let layer = OpLayer::builtin(&SPEC, "opset8").attr("batch_dims", -1).to_layer_with(2);
        assert!(GatherNd::build(&layer, 8).is_err());
    }

    #[test]
    fn constant_indices_are_checked_when_the_model_loads() {
        let data = PortFact::of(ElementType::F32, "[2,3]".parse().unwrap());
        let indices = PortFact::known(Tensor::from_vec(&[2, 2], vec![1i64, -1, 0, 2]).unwrap());
        let inputs = [Input::new(&data), Input::new(&indices)];
        assert!((GatherNd { batch_dims: 0, version: 8 }).infer(&inputs).is_ok());
        assert!((GatherNd { batch_dims: 0, version: 5 }).infer(&inputs).is_ok());
        let indices = PortFact::known(Tensor::from_vec(&[2, 2], vec![1i64, -4, 0, 2]).unwrap());
        let inputs = [Input::new(&data), Input::new(&indices)];
        for version in [5, 8] {
            let err =
                (GatherNd { batch_dims: 0, version }).infer(&inputs).unwrap_err().into_vec().remove(0).kind;
            assert_eq!(
                err.to_string(),
                "GatherND index -4 at position [0, 1] of its indices is out of range: an index must lie between -3 and 2"
            );
        }
    }

    #[test]
    fn the_version_follows_the_opset() {
        for (opset, version) in [(5, 5), (7, 5), (8, 8), (16, 8)] {
            let layer =
                OpLayer::builtin(&SPEC, format!("opset{opset}")).attr("batch_dims", 1).to_layer_with(2);
            assert_eq!(GatherNd::build(&layer, opset), Ok(GatherNd { batch_dims: 1, version }));
        }
    }
}
