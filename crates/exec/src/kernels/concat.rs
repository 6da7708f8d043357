//! Concat: tensors joined along one axis.

use ovir_shape::ops::concat::concat_shape;
use ovir_shape::ShapeErrorKind;
use ovir_tensor::{ElementType, PartialShape, Tensor};

use super::moves::{Dim, Moves, Piece, Step};
use super::{ExecOptions, KernelError};

const OP: &str = "Concat";

/// The element type the inputs share, or which input differs.
fn common_type(inputs: &[&Tensor]) -> Result<ElementType, KernelError> {
    let first = inputs.first().ok_or(KernelError::Internal { op: OP, what: "there are no inputs" })?;
    for (k, t) in inputs.iter().enumerate() {
        if t.element_type() != first.element_type() {
            return Err(ShapeErrorKind::InputTypes {
                op: OP,
                input: k,
                found: t.element_type(),
                expected: first.element_type(),
            }
            .into());
        }
    }
    Ok(first.element_type())
}

/// How one Concat runs on inputs of given shapes. A plan whose inputs all
/// have static shapes works it out when the model compiles.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    input_shapes: Vec<Vec<usize>>,
    shape: Vec<usize>,
    /// Per index before the axis, one run of each input in turn.
    moves: Moves,
}

/// The [`Layout`] of a Concat of inputs of these shapes along `axis`.
pub(crate) fn layout(shapes: &[&[usize]], axis: i64) -> Result<Layout, KernelError> {
    let partial: Vec<PartialShape> = shapes.iter().map(|s| PartialShape::from_static(s)).collect();
    let (shape, a) = concat_shape(&partial, axis)?;
    let (Some(shape), Some(a)) = (shape.to_static(), a) else {
        return Err(KernelError::Internal {
            op: OP,
            what: "the concatenation of static shapes gave a dynamic shape",
        });
    };
    let internal = || KernelError::Internal { op: OP, what: "the element count of an input block overflows" };
    let count = |s: &[usize]| ovir_tensor::element_count(s).ok_or_else(internal);
    let outer = count(shape.get(..a).unwrap_or_default())?;
    let unit = count(shape.get(a..).unwrap_or_default())?;
    // Each input adds one block per index before the axis: its length
    // along the axis times the size of the axes after it.
    let mut moves = Moves::new(outer, unit);
    let mut sizes = Vec::with_capacity(shapes.len());
    let mut at = 0usize;
    for (k, s) in shapes.iter().enumerate() {
        let block = count(s.get(a..).unwrap_or_default())?;
        sizes.push(count(s)?);
        if block > 0 {
            let stride = isize::try_from(block).map_err(|_| internal())?;
            let dims = smallvec::smallvec![Dim::strided(block, 1, 1)];
            moves.push(Piece { input: k, src: 0, dst: at, outer: Step::Stride(stride), dims });
        }
        at = at.checked_add(block).ok_or_else(internal)?;
    }
    moves.check(OP, &sizes, count(&shape)?)?;
    Ok(Layout { input_shapes: shapes.iter().map(|s| s.to_vec()).collect(), shape, moves })
}

/// The layout for these inputs, once their types are checked.
fn layout_of(inputs: &[&Tensor], axis: i64) -> Result<Layout, KernelError> {
    common_type(inputs)?;
    let shapes: Vec<&[usize]> = inputs.iter().map(|t| t.shape()).collect();
    layout(&shapes, axis)
}

impl Layout {
    /// Whether this layout was worked out for inputs of these shapes.
    pub(crate) fn fits(&self, inputs: &[&Tensor]) -> bool {
        inputs.len() == self.input_shapes.len()
            && inputs.iter().zip(&self.input_shapes).all(|(t, s)| t.shape() == s.as_slice())
    }

    /// The output shape.
    pub(crate) fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Joins `inputs`, which must fit this layout, into `out`, on several
    /// threads when it is large; allocates nothing.
    pub(crate) fn run(
        &self,
        inputs: &[&Tensor],
        out: &mut Tensor,
        options: &ExecOptions,
    ) -> Result<(), KernelError> {
        if !self.fits(inputs) {
            return Err(KernelError::Internal {
                op: OP,
                what: "the inputs' shapes are not the ones the layout was made for",
            });
        }
        let ty = common_type(inputs)?;
        super::checks::check_output(OP, ty, &self.shape, out)?;
        self.moves.play(OP, inputs, out, options)
    }
}

/// The output shape of [`concat()`] for these inputs.
pub fn concat_output_shape(inputs: &[&Tensor], axis: i64) -> Result<Vec<usize>, KernelError> {
    Ok(layout_of(inputs, axis)?.shape)
}

/// Concat-1: the inputs, which share their element type and every
/// dimension but `axis` (negative counts from the end), joined along
/// `axis`.
///
/// ```
/// use ovir_exec::kernels::concat;
/// use ovir_tensor::Tensor;
/// let a = Tensor::from_vec(&[1], vec![4i64])?;
/// let b = Tensor::from_vec(&[2], vec![5i64, 6])?;
/// assert_eq!(concat(&[&a, &b], 0)?.to_vec::<i64>()?, vec![4, 5, 6]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn concat(inputs: &[&Tensor], axis: i64) -> Result<Tensor, KernelError> {
    let layout = layout_of(inputs, axis)?;
    let ty = common_type(inputs)?;
    let mut out = Tensor::zeros(ty, &layout.shape)?;
    layout.run(inputs, &mut out, &ExecOptions::single_thread())?;
    Ok(out)
}

/// [`concat()`] into an output of the right type and shape.
pub fn concat_into(inputs: &[&Tensor], axis: i64, out: &mut Tensor) -> Result<(), KernelError> {
    layout_of(inputs, axis)?.run(inputs, out, &ExecOptions::single_thread())
}
