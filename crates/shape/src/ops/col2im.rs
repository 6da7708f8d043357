//! Col2Im-15: an image put together from its sliding blocks, the values
//! that overlap added up.
//!
//! Data `[N, C * kh * kw, L]` (or `[C * kh * kw, L]`, unbatched) with
//! `output_size` `[H, W]` and `kernel_size` `[kh, kw]` (two inputs, i32 or
//! i64, of one type) gives `[N, C, H, W]` (or `[C, H, W]`). Along each
//! spatial axis the blocks are `floor((size + pads_begin + pads_end -
//! dilation * (kernel - 1) - 1) / stride) + 1`, and `L` must be the product
//! of the two. As OpenVINO infers: the batch passes through, `C` is known
//! when the kernel size is and the data's second-to-last dimension is
//! static (it must then be a multiple of `kh * kw`), `H` and `W` are the
//! output size's values, intervals too when it is a shape computed in the
//! graph, and `L` is checked once the sizes and `L` are all known.
//!
//! Where the witnesses part:
//! - An axis the kernel does not fit in (its span longer than the padded
//!   size) holds no blocks here, so that `L` must be 0. OpenVINO works the
//!   count out in unsigned arithmetic there, which wraps: it asks for a
//!   negative or huge `L` and so refuses every data shape, and its CPU
//!   plugin, given the sizes at run time, runs such a model on a count it
//!   made up.
//! - Kernel sizes must be 1 or more each; OpenVINO checks only that their
//!   product is positive, so it takes `[-2, -2]`.
//! - `strides` must be two values of 1 or more, and `dilations`,
//!   `pads_begin` and `pads_end` two of 0 or more; absent ones take the
//!   spec's defaults (1, 1, 0, 0), where OpenVINO's reader crashes.
//! - The data must be numbers or booleans: values that overlap add up
//!   (booleans as OR), which strings and the packed types cannot.

use ovir_ir::Layer;
use ovir_tensor::{Dim, ElementType, PartialShape, Tensor};

use crate::attrs::pair;
use crate::dims::dims_of;
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, Size, ValueDomain, Versions,
};
use crate::ops::scatter_nd_update::reduces;
use crate::values::try_for_each_integer;

const OP: &str = "Col2Im";

/// Puts sliding blocks back into an image, adding up the values that
/// overlap; the image's size and the blocks' are its second and third
/// inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Col2Im {
    /// `[rows, cols]`, 1 or more: how far blocks start apart.
    pub strides: [u64; 2],
    /// `[rows, cols]`: how far a block's elements lie apart in the image.
    pub dilations: [u64; 2],
    /// `[rows, cols]`: the image's padding before its first row and column.
    pub pads_begin: [u64; 2],
    /// `[rows, cols]`: the image's padding after its last row and column.
    pub pads_end: [u64; 2],
}

impl Default for Col2Im {
    /// The spec's defaults: strides and dilations of 1, no padding.
    fn default() -> Self {
        Col2Im { strides: [1, 1], dilations: [1, 1], pads_begin: [0, 0], pads_end: [0, 0] }
    }
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: OP,
    aliases: &[],
    versions: Versions::Opsets(15, 16),
    inputs: (3, Some(3)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for Col2Im {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let d = Col2Im::default();
        let strides = pair(layer, OP, "strides", 1, Some(d.strides), &mut problems);
        let dilations = pair(layer, OP, "dilations", 0, Some(d.dilations), &mut problems);
        let pads_begin = pair(layer, OP, "pads_begin", 0, Some(d.pads_begin), &mut problems);
        let pads_end = pair(layer, OP, "pads_end", 0, Some(d.pads_end), &mut problems);
        match (strides, dilations, pads_begin, pads_end) {
            (Some(strides), Some(dilations), Some(pads_begin), Some(pads_end)) => {
                Ok(Col2Im { strides, dilations, pads_begin, pads_end })
            }
            _ => Err(problems),
        }
    }

    fn write(&self) -> OpLayer {
        // OpenVINO writes a list with a space after each comma.
        let pair = |v: [u64; 2]| format!("{}, {}", v[0], v[1]);
        OpLayer::builtin(&SPEC, "opset15")
            .attr("strides", pair(self.strides))
            .attr("dilations", pair(self.dilations))
            .attr("pads_begin", pair(self.pads_begin))
            .attr("pads_end", pair(self.pads_end))
    }

    fn examples() -> Vec<Self> {
        vec![
            Col2Im::default(),
            Col2Im { strides: [2, 1], dilations: [2, 0], pads_begin: [1, 3], pads_end: [0, 2] },
        ]
    }
}

/// The sizes of one Col2Im, from its data shape, output size and kernel
/// size: what the kernel walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Col2ImSizes {
    /// The data is `[N, C * kh * kw, L]` rather than `[C * kh * kw, L]`.
    pub batched: bool,
    /// `N` (1 when unbatched).
    pub batch: u64,
    /// `C`.
    pub channels: u64,
    /// `[kh, kw]`.
    pub kernel: [u64; 2],
    /// `[H, W]`.
    pub output: [u64; 2],
    /// The blocks along the rows and the columns; their product is `L`.
    pub blocks: [u64; 2],
}

impl Col2ImSizes {
    /// The output shape: `[N, C, H, W]`, or `[C, H, W]` unbatched.
    pub fn output_shape(&self) -> impl Iterator<Item = u64> {
        let [h, w] = self.output;
        let batch = self.batched.then_some(self.batch);
        batch.into_iter().chain([self.channels, h, w])
    }
}

impl Col2Im {
    /// The blocks along spatial axis `k` (0 rows, 1 columns) of an output
    /// of `size` elements for a kernel of `kernel` (1 or more): as many as
    /// start a stride apart with the kernel's span inside the padded size,
    /// none when it does not fit.
    pub fn blocks(&self, k: usize, size: u64, kernel: u64) -> u64 {
        let padded = u128::from(size) + u128::from(self.pads_begin[k]) + u128::from(self.pads_end[k]);
        let span = u128::from(self.dilations[k]) * u128::from(kernel.saturating_sub(1)) + 1;
        let stride = u128::from(self.strides[k].max(1));
        match padded.checked_sub(span) {
            // At most 2^66 / 1 + 1: a u64 holds it unless the size is
            // beyond any tensor.
            Some(room) => u64::try_from(room / stride + 1).unwrap_or(u64::MAX),
            None => 0,
        }
    }

    /// The output shape for data of shape `data` and the facts of
    /// `output_size` and `kernel_size`, checked as OpenVINO checks them.
    pub fn output_shape(
        &self,
        data: &PartialShape,
        output_size: &PortFact,
        kernel_size: &PortFact,
    ) -> Result<PartialShape, Problems> {
        let mut problems = Problems::new();
        let types_ok = index_types(&mut problems, output_size.element_type, kernel_size.element_type);
        for (input, fact) in [("output_size", output_size), ("kernel_size", kernel_size)] {
            if let Err(kind) = two_values(input, &fact.shape) {
                problems.layer(kind);
            }
        }
        let dims = data.dims();
        if let Some(dims) = dims {
            if !matches!(dims.len(), 2 | 3) {
                problems.layer(data_rank(data));
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let kernel = match kernel_size.value.as_ref().filter(|_| types_ok) {
            Some(t) => Some(kernel_values(t).map_err(Problems::one)?),
            None => None,
        };
        let output = match output_size.value.as_ref().filter(|_| types_ok) {
            Some(t) => Some(output_values(t).map_err(Problems::one)?),
            None => None,
        };
        let Some(dims) = dims else {
            return Ok(PartialShape::dynamic());
        };
        let batched = dims.len() == 3;
        let (column, blocks) = (dims[dims.len() - 2], dims[dims.len() - 1]);
        let channels = match (kernel, column.get()) {
            (Some(kernel), Some(column)) => {
                Dim::fixed(channels(column, kernel, batched).map_err(Problems::one)?)
            }
            _ => Dim::DYNAMIC,
        };
        // The output size as dimensions: its values, or the intervals a
        // shape computed in the graph is known to lie in.
        let spatial = match output {
            Some(o) => Some([Dim::fixed(o[0]), Dim::fixed(o[1])]),
            None => dims_of(output_size).and_then(|d| <[Dim; 2]>::try_from(d).ok()),
        };
        if let (Some(kernel), Some([h, w]), Some(found)) = (kernel, spatial, blocks.get()) {
            if let (Some(h), Some(w)) = (h.get(), w.get()) {
                self.check_blocks([h, w], kernel, found).map_err(Problems::one)?;
            }
        }
        let [h, w] = spatial.unwrap_or([Dim::DYNAMIC, Dim::DYNAMIC]);
        let mut out = Vec::with_capacity(4);
        if batched {
            out.push(dims[0]);
        }
        out.extend([channels, h, w]);
        Ok(PartialShape::new(out))
    }

    /// The blocks along each axis for an output of `output` and a kernel
    /// of `kernel`, checked against the `found` the data holds.
    fn check_blocks(
        &self,
        output: [u64; 2],
        kernel: [u64; 2],
        found: u64,
    ) -> Result<[u64; 2], ShapeErrorKind> {
        let blocks = [self.blocks(0, output[0], kernel[0]), self.blocks(1, output[1], kernel[1])];
        if u128::from(blocks[0]) * u128::from(blocks[1]) != u128::from(found) {
            return Err(ShapeErrorKind::Col2ImBlocks { blocks, found });
        }
        Ok(blocks)
    }

    /// The sizes of a Col2Im run on data of shape `data`, with its
    /// `output_size` and `kernel_size`, checked as at load time. Nothing is
    /// allocated unless a check fails, so the executor calls it on every
    /// run whose sizes arrive then.
    ///
    /// ```
    /// use ovir_shape::ops::Col2Im;
    /// use ovir_tensor::Tensor;
    ///
    /// // Two channels of 2 x 2 blocks, one apart, in a 3 x 4 image: 2 x 3 blocks.
    /// let output_size = Tensor::from_vec(&[2], vec![3i64, 4])?;
    /// let kernel_size = Tensor::from_vec(&[2], vec![2i64, 2])?;
    /// let sizes = Col2Im::default().sizes(&[8, 6], &output_size, &kernel_size)?;
    /// assert_eq!(sizes.output_shape().collect::<Vec<_>>(), [2, 3, 4]);
    /// assert_eq!(sizes.blocks, [2, 3]);
    /// // Seven blocks do not fit that image.
    /// assert!(Col2Im::default().sizes(&[8, 7], &output_size, &kernel_size).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sizes(
        &self,
        data: &[usize],
        output_size: &Tensor,
        kernel_size: &Tensor,
    ) -> Result<Col2ImSizes, ShapeErrorKind> {
        let mut problems = Problems::new();
        index_types(&mut problems, output_size.element_type(), kernel_size.element_type());
        if let Some(problem) = problems.into_vec().into_iter().next() {
            return Err(problem.kind);
        }
        for (input, t) in [("output_size", output_size), ("kernel_size", kernel_size)] {
            // The shape is written out only for the error.
            if t.shape() != [2] {
                two_values(input, &PartialShape::from_static(t.shape()))?;
            }
        }
        let (batched, batch, column, found) = match *data {
            [n, c, l] => (true, n as u64, c as u64, l as u64),
            [c, l] => (false, 1, c as u64, l as u64),
            _ => return Err(data_rank(&PartialShape::from_static(data))),
        };
        let kernel = kernel_values(kernel_size)?;
        let output = output_values(output_size)?;
        let channels = channels(column, kernel, batched)?;
        let blocks = self.check_blocks(output, kernel, found)?;
        Ok(Col2ImSizes { batched, batch, channels, kernel, output, blocks })
    }
}

/// Checks that `output_size` and `kernel_size` are i32 or i64 and of one
/// type, when their types are known; `false` when they are not.
fn index_types(problems: &mut Problems, output_size: ElementType, kernel_size: ElementType) -> bool {
    let mut ok = true;
    for (input, ty) in [("output_size", output_size), ("kernel_size", kernel_size)] {
        if ty.is_static() && !matches!(ty, ElementType::I32 | ElementType::I64) {
            problems.layer(ShapeErrorKind::IndexType { op: OP, input, found: ty });
            ok = false;
        }
    }
    if ok && output_size.is_static() && kernel_size.is_static() && output_size != kernel_size {
        problems.layer(ShapeErrorKind::Col2ImIndexTypes { output_size, kernel_size });
        ok = false;
    }
    ok
}

/// Checks that an input is a 1-D tensor of two elements, when its rank
/// is known. As in OpenVINO, a dimension not known to be 2 is refused.
fn two_values(input: &'static str, shape: &PartialShape) -> Result<(), ShapeErrorKind> {
    match shape.dims() {
        Some([d]) if d.get() == Some(2) => Ok(()),
        None => Ok(()),
        Some(_) => Err(ShapeErrorKind::InputShape {
            op: OP,
            input,
            expected: "a 1-D tensor of 2 elements",
            shape: shape.clone(),
        }),
    }
}

fn data_rank(shape: &PartialShape) -> ShapeErrorKind {
    ShapeErrorKind::InputShape {
        op: OP,
        input: "data",
        expected: "2-D [C * kernel size, L] or 3-D [N, C * kernel size, L]",
        shape: shape.clone(),
    }
}

/// The two values of a 1-D integer tensor of two elements, each checked
/// by `check` (given its position), read without allocating.
fn two(
    t: &Tensor,
    mut check: impl FnMut(usize, i128) -> Result<u64, ShapeErrorKind>,
) -> Result<[u64; 2], ShapeErrorKind> {
    let mut out = [0u64; 2];
    let mut index = 0;
    let read = try_for_each_integer(t, |v| {
        let slot =
            out.get_mut(index).ok_or(ShapeErrorKind::UnreadableValues { element_type: t.element_type() })?;
        *slot = check(index, v)?;
        index += 1;
        Ok(())
    });
    match read {
        Some(Ok(())) if index == 2 => Ok(out),
        Some(Err(e)) => Err(e),
        _ => Err(ShapeErrorKind::UnreadableValues { element_type: t.element_type() }),
    }
}

fn saturate(v: i128) -> i64 {
    v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// The kernel size, each value 1 or more.
fn kernel_values(t: &Tensor) -> Result<[u64; 2], ShapeErrorKind> {
    two(t, |index, v| match u64::try_from(v) {
        Ok(v) if v >= 1 => Ok(v),
        _ => Err(ShapeErrorKind::Col2ImKernel { index, value: saturate(v) }),
    })
}

/// The output size, each value 0 or more.
fn output_values(t: &Tensor) -> Result<[u64; 2], ShapeErrorKind> {
    two(t, |index, v| {
        u64::try_from(v).map_err(|_| ShapeErrorKind::NegativeValue {
            op: OP,
            input: "output_size",
            index,
            value: saturate(v),
        })
    })
}

/// The channels of data whose second-to-last axis holds `column` elements
/// per block, which must be a multiple of the kernel's area.
fn channels(column: u64, kernel: [u64; 2], batched: bool) -> Result<u64, ShapeErrorKind> {
    let area = u128::from(kernel[0]) * u128::from(kernel[1]);
    if u128::from(column) % area != 0 {
        return Err(ShapeErrorKind::BlockDivide {
            op: OP,
            axis: usize::from(batched),
            dim: Dim::fixed(column),
            divisor: u64::try_from(area).unwrap_or(u64::MAX),
        });
    }
    Ok(u64::try_from(u128::from(column) / area).unwrap_or(0))
}

impl Operation for Col2Im {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, output_size, kernel_size] = exactly::<3>(SPEC.name, inputs)?;
        let ty = data.fact.element_type;
        let mut problems = Problems::new();
        if ty.is_static() && !reduces(ty) {
            problems.layer(ShapeErrorKind::InputType {
                op: OP,
                input: "data",
                expected: "numbers or booleans (the values that overlap add up)",
                found: ty,
            });
        }
        match self.output_shape(&data.fact.shape, output_size.fact, kernel_size.fact) {
            Ok(shape) => problems.or_ok(vec![PortFact::of(ty, shape)]),
            Err(more) => {
                for p in more.into_vec() {
                    problems.layer(p.kind);
                }
                Err(problems)
            }
        }
    }

    fn input_values(&self, input: usize, inputs: &[&PortFact]) -> ValueDomain {
        // A kernel of 1 x 1 and an image of one row of L: every block is
        // one pixel, which fits whenever blocks start one apart without
        // padding.
        let simple = self.strides == [1, 1] && self.pads_begin == [0, 0] && self.pads_end == [0, 0];
        let rank = inputs.first().and_then(|d| d.shape.rank());
        match (input, rank) {
            (1, Some(rank @ (2 | 3))) if simple => {
                ValueDomain::Dims(vec![Some(Size::Known(1)), Some(Size::DimOf { input: 0, axis: rank - 1 })])
            }
            (2, _) if simple => ValueDomain::Dims(vec![Some(Size::Known(1)), Some(Size::Known(1))]),
            (1 | 2, _) => ValueDomain::Lengths { max: None },
            _ => ValueDomain::Any,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(strides: [u64; 2], dilations: [u64; 2], pads_begin: [u64; 2], pads_end: [u64; 2]) -> Col2Im {
        Col2Im { strides, dilations, pads_begin, pads_end }
    }

    fn pair_of(ty: ElementType, values: [i64; 2]) -> PortFact {
        let t = match ty {
            ElementType::I32 => Tensor::from_vec(&[2], values.map(|v| v as i32).to_vec()),
            _ => Tensor::from_vec(&[2], values.to_vec()),
        };
        PortFact::known(t.unwrap())
    }

    fn param(ty: ElementType, shape: &str) -> PortFact {
        PortFact::of(ty, shape.parse().unwrap())
    }

    fn infer(
        op: Col2Im,
        data: PortFact,
        output_size: PortFact,
        kernel_size: PortFact,
    ) -> Result<String, Vec<ShapeErrorKind>> {
        op.infer(&[Input::new(&data), Input::new(&output_size), Input::new(&kernel_size)])
            .map(|f| f[0].shape.to_string())
            .map_err(|p| p.into_vec().into_iter().map(|p| p.kind).collect())
    }

    const I64: ElementType = ElementType::I64;
    const I32: ElementType = ElementType::I32;

    // OpenVINO's type_prop/col2im.cpp cases and its answers.
    #[test]
    fn the_shapes_are_openvinos() {
        let data = |s: &str| param(I64, s);
        let two = op([2, 2], [2, 2], [2, 2], [2, 2]);
        let three = op([2, 2], [2, 2], [3, 3], [3, 3]);
        // default_ctor, non_default_args: sizes at run time.
        assert_eq!(
            infer(Col2Im::default(), data("3,12,225"), param(I64, "2"), param(I64, "2")).unwrap(),
            "[3,?,?,?]"
        );
        assert_eq!(infer(two, data("3,12,81"), param(I64, "2"), param(I64, "2")).unwrap(), "[3,?,?,?]");
        // batched_const_values, unbatched_const_values.
        assert_eq!(
            infer(two, data("3,12,81"), pair_of(I64, [16, 16]), pair_of(I64, [2, 2])).unwrap(),
            "[3,3,16,16]"
        );
        assert_eq!(
            infer(three, data("12,324"), pair_of(I64, [32, 32]), pair_of(I64, [2, 2])).unwrap(),
            "[3,32,32]"
        );
        // incorrect_L, incorrect_first_non_batch_dimension.
        assert_eq!(
            infer(three, data("12,325"), pair_of(I64, [32, 32]), pair_of(I64, [2, 2])),
            Err(vec![ShapeErrorKind::Col2ImBlocks { blocks: [18, 18], found: 325 }])
        );
        assert_eq!(
            infer(three, data("13,324"), pair_of(I64, [32, 32]), pair_of(I64, [2, 2])),
            Err(vec![ShapeErrorKind::BlockDivide { op: OP, axis: 0, dim: Dim::fixed(13), divisor: 4 }])
        );
        // dynamic_input_shapes, static_batch, 2D_dynamic_input.
        let dynamic = || param(I64, "...");
        assert_eq!(infer(three, data("..."), dynamic(), dynamic()).unwrap(), "[...]");
        assert_eq!(infer(three, data("5,?,?"), dynamic(), dynamic()).unwrap(), "[5,?,?,?]");
        assert_eq!(infer(three, data("?,?"), dynamic(), dynamic()).unwrap(), "[?,?,?]");
    }

    // What OpenVINO 2026.4 infers beyond its type_prop cases, measured.
    #[test]
    fn intervals_and_partly_known_sizes_follow_openvino() {
        let d = Col2Im::default();
        let data = |s: &str| param(ElementType::F32, s);
        // A known output size with the kernel at run time, and the reverse.
        assert_eq!(infer(d, data("2,4..8,9"), pair_of(I64, [4, 4]), param(I64, "2")).unwrap(), "[2,?,4,4]");
        assert_eq!(infer(d, data("2,4..8,9"), param(I64, "2"), pair_of(I64, [2, 2])).unwrap(), "[2,?,?,?]");
        assert_eq!(infer(d, data("2,12,?"), param(I64, "2"), pair_of(I64, [2, 2])).unwrap(), "[2,3,?,?]");
        // An interval of channels leaves C unknown.
        assert_eq!(
            infer(d, data("2,10..13,24"), param(I64, "2"), pair_of(I64, [2, 2])).unwrap(),
            "[2,?,?,?]"
        );
        // A rank not known keeps the output's unknown too.
        assert_eq!(infer(d, data("..."), pair_of(I64, [4, 4]), pair_of(I64, [2, 2])).unwrap(), "[...]");
        // The output size as a shape computed in the graph: its intervals.
        let mut shape = param(I64, "2");
        shape.value_dims = Some(vec![Dim::interval(3, Some(5)).unwrap(), Dim::fixed(7)]);
        assert_eq!(infer(d, data("2,12,?"), shape.clone(), pair_of(I64, [2, 2])).unwrap(), "[2,3,3..5,7]");
        shape.value_dims = Some(vec![Dim::fixed(5), Dim::fixed(7)]);
        assert_eq!(infer(d, data("2,12,24"), shape.clone(), pair_of(I64, [2, 2])).unwrap(), "[2,3,5,7]");
        assert_eq!(
            infer(d, data("2,12,25"), shape, pair_of(I64, [2, 2])),
            Err(vec![ShapeErrorKind::Col2ImBlocks { blocks: [4, 6], found: 25 }])
        );
        // i32 sizes.
        assert_eq!(infer(d, data("4,4"), pair_of(I32, [3, 3]), pair_of(I32, [2, 2])).unwrap(), "[1,3,3]");
    }

    #[test]
    fn the_block_counts_are_the_specs() {
        let d = Col2Im::default();
        // (size + pads - dilation * (kernel - 1) - 1) / stride + 1.
        assert_eq!(d.blocks(0, 4, 2), 3);
        assert_eq!(op([2, 2], [1, 1], [0, 0], [0, 0]).blocks(1, 5, 2), 2);
        assert_eq!(op([2, 2], [2, 2], [1, 1], [1, 1]).blocks(0, 16, 3), 7);
        assert_eq!(op([1, 1], [2, 2], [3, 3], [3, 3]).blocks(0, 32, 2), 36);
        // A dilation of 0 reads one pixel for every kernel offset.
        assert_eq!(op([1, 1], [0, 0], [0, 0], [0, 0]).blocks(0, 3, 3), 3);
        // No block fits: the kernel spans more than the padded size.
        assert_eq!(d.blocks(0, 1, 2), 0);
        assert_eq!(op([3, 3], [1, 1], [0, 0], [0, 0]).blocks(0, 0, 4), 0);
        // Pads make room where the size alone has none.
        assert_eq!(op([1, 1], [1, 1], [1, 0], [1, 0]).blocks(0, 0, 2), 1);
        // Nothing overflows.
        assert_eq!(op([1, 1], [u64::MAX, 1], [u64::MAX, 0], [u64::MAX, 0]).blocks(0, u64::MAX, u64::MAX), 0);
        assert_eq!(op([1, 1], [1, 1], [u64::MAX, 0], [u64::MAX, 0]).blocks(0, u64::MAX, 1), u64::MAX);
    }

    #[test]
    fn bad_inputs_are_refused_with_what_is_wrong() {
        let d = Col2Im::default();
        let data = |s: &str| param(ElementType::F32, s);
        let kinds = |r: Result<String, Vec<ShapeErrorKind>>| r.unwrap_err();
        assert_eq!(
            kinds(infer(d, data("4,4"), pair_of(I32, [3, 3]), pair_of(I64, [2, 2]))),
            [ShapeErrorKind::Col2ImIndexTypes { output_size: I32, kernel_size: I64 }]
        );
        assert_eq!(
            kinds(infer(d, data("4,4"), param(ElementType::U8, "2"), param(ElementType::F32, "2"))),
            [
                ShapeErrorKind::IndexType { op: OP, input: "output_size", found: ElementType::U8 },
                ShapeErrorKind::IndexType { op: OP, input: "kernel_size", found: ElementType::F32 },
            ]
        );
        for shape in ["3", "2,2", "1,2", "?", "1..3", ""] {
            assert_eq!(
                kinds(infer(d, data("4,4"), param(I64, shape), param(I64, "2"))),
                [ShapeErrorKind::InputShape {
                    op: OP,
                    input: "output_size",
                    expected: "a 1-D tensor of 2 elements",
                    shape: shape.parse().unwrap(),
                }],
                "{shape}"
            );
        }
        for shape in ["4", "2,3,4,5", ""] {
            assert!(
                matches!(
                    &kinds(infer(d, data(shape), param(I64, "2"), param(I64, "2")))[..],
                    [ShapeErrorKind::InputShape { input: "data", .. }]
                ),
                "{shape}"
            );
        }
        assert_eq!(
            kinds(infer(d, data("4,4"), pair_of(I64, [-3, 3]), pair_of(I64, [2, 2]))),
            [ShapeErrorKind::NegativeValue { op: OP, input: "output_size", index: 0, value: -3 }]
        );
        // OpenVINO takes [-2, -2], whose product is positive.
        for (k, index, value) in [([0, 2], 0, 0), ([2, -1], 1, -1), ([-2, -2], 0, -2)] {
            assert_eq!(
                kinds(infer(d, data("4,4"), pair_of(I64, [3, 3]), pair_of(I64, k))),
                [ShapeErrorKind::Col2ImKernel { index, value }]
            );
        }
        for ty in [ElementType::String, ElementType::U4, ElementType::I4, ElementType::U1] {
            assert_eq!(
                kinds(infer(d, param(ty, "4,4"), pair_of(I64, [3, 3]), pair_of(I64, [2, 2]))),
                [ShapeErrorKind::InputType {
                    op: OP,
                    input: "data",
                    expected: "numbers or booleans (the values that overlap add up)",
                    found: ty,
                }]
            );
        }
        for ty in [ElementType::Boolean, ElementType::F8e4m3, ElementType::Bf16, ElementType::U64] {
            assert_eq!(
                infer(d, param(ty, "4,4"), pair_of(I64, [3, 3]), pair_of(I64, [2, 2])).unwrap(),
                "[1,3,3]"
            );
        }
    }

    #[test]
    fn run_time_sizes_are_checked_as_at_load_time() {
        let t = |v: [i64; 2]| Tensor::from_vec(&[2], v.to_vec()).unwrap();
        let d = Col2Im::default();
        let sizes = d.sizes(&[2, 12, 9], &t([4, 4]), &t([2, 2])).unwrap();
        assert_eq!(
            sizes,
            Col2ImSizes {
                batched: true,
                batch: 2,
                channels: 3,
                kernel: [2, 2],
                output: [4, 4],
                blocks: [3, 3]
            }
        );
        assert_eq!(sizes.output_shape().collect::<Vec<_>>(), [2, 3, 4, 4]);
        assert_eq!(
            d.sizes(&[12, 8], &t([4, 4]), &t([2, 2])),
            Err(ShapeErrorKind::Col2ImBlocks { blocks: [3, 3], found: 8 })
        );
        assert_eq!(
            d.sizes(&[13, 9], &t([4, 4]), &t([2, 2])),
            Err(ShapeErrorKind::BlockDivide { op: OP, axis: 0, dim: Dim::fixed(13), divisor: 4 })
        );
        assert_eq!(
            d.sizes(&[4, 4], &t([3, 3]), &t([2, 0])),
            Err(ShapeErrorKind::Col2ImKernel { index: 1, value: 0 })
        );
        assert!(matches!(
            d.sizes(&[4], &t([3, 3]), &t([2, 2])),
            Err(ShapeErrorKind::InputShape { input: "data", .. })
        ));
        let three = Tensor::from_vec(&[3], vec![1i64, 1, 1]).unwrap();
        assert!(matches!(d.sizes(&[4, 4], &three, &t([2, 2])), Err(ShapeErrorKind::InputShape { .. })));
        let small = Tensor::from_vec(&[2], vec![3i32, 3]).unwrap();
        assert_eq!(
            d.sizes(&[4, 4], &small, &t([2, 2])),
            Err(ShapeErrorKind::Col2ImIndexTypes { output_size: I32, kernel_size: I64 })
        );
        // Huge sizes are counted without overflowing, then refused.
        let huge = t([i64::MAX, i64::MAX]);
        assert!(matches!(d.sizes(&[1, 1], &huge, &t([1, 1])), Err(ShapeErrorKind::Col2ImBlocks { .. })));
        // Zero-sized: no batch, no channels, no rows.
        assert_eq!(
            d.sizes(&[0, 4, 9], &t([4, 4]), &t([2, 2])).unwrap().output_shape().collect::<Vec<_>>(),
            [0, 1, 4, 4]
        );
        assert_eq!(d.sizes(&[0, 9], &t([4, 4]), &t([2, 2])).unwrap().channels, 0);
        let padded = op([1, 1], [1, 1], [1, 0], [1, 0]);
        assert_eq!(
            padded.sizes(&[4, 2], &t([0, 3]), &t([2, 2])).unwrap().output_shape().collect::<Vec<_>>(),
            [1, 0, 3]
        );
    }

    #[test]
    fn attributes_read_as_openvino_writes_them() {
        let layer = |attrs: &[(&str, &str)]| {
            let mut l = OpLayer::builtin(&SPEC, "opset15");
            for (k, v) in attrs {
                l = l.attr(*k, *v);
            }
            Col2Im::build(&l.to_layer_with(3), 15).map_err(|p| p.into_vec().remove(0).kind)
        };
        let all = [("strides", "2, 1"), ("dilations", "0, 3"), ("pads_begin", "1, 0"), ("pads_end", "0, 4")];
        assert_eq!(layer(&all), Ok(op([2, 1], [0, 3], [1, 0], [0, 4])));
        assert_eq!(layer(&[]), Ok(Col2Im::default()));
        assert_eq!(
            layer(&[("strides", "0, 1")]),
            Err(ShapeErrorKind::PairValue { op: OP, name: "strides", value: 0, min: 1 })
        );
        assert_eq!(
            layer(&[("pads_end", "-1, 1")]),
            Err(ShapeErrorKind::PairValue { op: OP, name: "pads_end", value: -1, min: 0 })
        );
        assert_eq!(
            layer(&[("dilations", "1, 1, 1")]),
            Err(ShapeErrorKind::PairAttribute { op: OP, name: "dilations", value: "1, 1, 1".into() })
        );
        crate::ops::check_round_trips::<Col2Im>();
    }
}
