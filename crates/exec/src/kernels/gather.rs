//! Gather: slices of the data along one axis, picked by indices.

use ovir_shape::ops::gather::gather_shape;
use ovir_shape::ShapeErrorKind;
use ovir_tensor::{ElementType, PartialShape, Tensor};

use super::checks::input_shape_error;
use super::integers::{read_ints, Wide};
use super::moves::{Dim, Moves, Piece, Step, View, ZERO};
use super::{ExecOptions, KernelError, ReverseScratch};

const OP: &str = "Gather";

/// Reverse flags, one per data axis, on the stack up to rank 8.
type Flags = smallvec::SmallVec<[bool; 8]>;

/// A Gather by constant indices, worked out when the model compiles.
#[derive(Debug)]
pub(crate) enum Fixed {
    /// The indices take the whole axis back to front: a Reverse with
    /// these flags.
    Reverse(Vec<bool>),
    /// Any other indices: the copy they make.
    Copy(Box<View>),
}

/// How one Gather runs on data and indices of given shapes: the output
/// shape and the flattened sizes. A plan whose axis is constant and whose
/// data and indices shapes are static works it out when the model
/// compiles; the indices themselves are read on every run.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    data_shape: Vec<usize>,
    indices_shape: Vec<usize>,
    shape: Vec<usize>,
    /// Product of the first `batch_dims` dimensions.
    batches: usize,
    /// Product of the data dimensions between `batch_dims` and the axis.
    outer: usize,
    /// The size of the data axis.
    axis_len: usize,
    /// Product of the data dimensions after the axis.
    inner: usize,
    /// Indices per batch.
    per_batch: usize,
    /// The data axis gathered along.
    axis: usize,
}

/// The [`Layout`] of a Gather of data of shape `data` by indices of type
/// `indices_type` and shape `indices`.
pub(crate) fn layout(
    data: &[usize],
    indices_type: ElementType,
    indices: &[usize],
    axis: &Tensor,
    batch_dims: i64,
) -> Result<Layout, KernelError> {
    if !indices_type.is_integral() {
        return Err(ShapeErrorKind::IntegerInput { op: OP, input: "indices", found: indices_type }.into());
    }
    let axis_type = axis.element_type();
    let axis_value = match read_ints(axis, Wide::Refuse).as_deref() {
        Some([a]) => *a,
        Some(_) => return Err(input_shape_error(OP, "axis", "a scalar or a tensor of one element", axis)),
        None => return Err(ShapeErrorKind::IntegerInput { op: OP, input: "axis", found: axis_type }.into()),
    };
    let g = gather_shape(
        &PartialShape::from_static(data),
        &PartialShape::from_static(indices),
        Some(axis_value),
        batch_dims,
    )?;
    let internal = KernelError::Internal {
        op: OP,
        what: "the layout of static shapes left the shape, axis or batch_dims unknown",
    };
    let (Some(shape), Some(a), Some(b)) = (g.shape.to_static(), g.axis, g.batch_dims) else {
        return Err(internal);
    };
    let d = data;
    let count = |s: &[usize]| ovir_tensor::element_count(s);
    Ok(Layout {
        data_shape: data.to_vec(),
        indices_shape: indices.to_vec(),
        shape,
        batches: d.get(..b).and_then(count).ok_or_else(|| internal.clone())?,
        outer: d.get(b..a).and_then(count).ok_or_else(|| internal.clone())?,
        axis_len: d.get(a).copied().ok_or_else(|| internal.clone())?,
        inner: d.get(a + 1..).and_then(count).ok_or_else(|| internal.clone())?,
        per_batch: indices.get(b..).and_then(count).ok_or(internal)?,
        axis: a,
    })
}

/// The output shape of [`gather`] for these inputs.
pub fn gather_output_shape(
    data: &Tensor,
    indices: &Tensor,
    axis: &Tensor,
    batch_dims: i64,
) -> Result<Vec<usize>, KernelError> {
    Ok(layout(data.shape(), indices.element_type(), indices.shape(), axis, batch_dims)?.shape)
}

/// Gather-8: for each index along `axis` (the value of a one-element
/// integer tensor), the slice of `data` at that index. Negative indices
/// count from the end of the axis; an index outside the axis gives a slice
/// of zeros (empty strings), as OpenVINO's reference does. The first
/// `batch_dims` dimensions of data and indices are matched one to one.
///
/// ```
/// use ovir_exec::kernels::gather;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_vec(&[3, 2], vec![1i32, 2, 3, 4, 5, 6])?;
/// let indices = Tensor::from_vec(&[2], vec![-1i64, 0])?;
/// let axis = Tensor::from_vec(&[], vec![0i32])?;
/// assert_eq!(gather(&data, &indices, &axis, 0)?.to_vec::<i32>()?, vec![5, 6, 1, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn gather(
    data: &Tensor,
    indices: &Tensor,
    axis: &Tensor,
    batch_dims: i64,
) -> Result<Tensor, KernelError> {
    let shape = gather_output_shape(data, indices, axis, batch_dims)?;
    let mut out = Tensor::zeros(data.element_type(), &shape)?;
    gather_into(data, indices, axis, batch_dims, &mut out, &mut GatherScratch::new())?;
    Ok(out)
}

/// What [`gather_into`] keeps between calls: the indices, as read, and
/// the copies they make, so that running it again on indices of the same
/// size allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct GatherScratch {
    indices: Vec<i128>,
    moves: Moves,
    reverse: ReverseScratch,
}

impl GatherScratch {
    /// An empty scratch; it allocates on first use and then keeps its
    /// memory.
    pub fn new() -> GatherScratch {
        GatherScratch::default()
    }
}

/// [`gather`] into an output of the right type and shape, reading the
/// indices into `scratch`, so that running it again on indices of the same
/// size allocates nothing.
pub fn gather_into(
    data: &Tensor,
    indices: &Tensor,
    axis: &Tensor,
    batch_dims: i64,
    out: &mut Tensor,
    scratch: &mut GatherScratch,
) -> Result<(), KernelError> {
    layout(data.shape(), indices.element_type(), indices.shape(), axis, batch_dims)?.run(
        data,
        indices,
        out,
        scratch,
        &ExecOptions::single_thread(),
    )
}

impl Layout {
    /// Whether this layout was worked out for data and indices of these
    /// shapes.
    pub(crate) fn fits(&self, data: &Tensor, indices: &Tensor) -> bool {
        data.shape() == self.data_shape.as_slice() && indices.shape() == self.indices_shape.as_slice()
    }

    /// The output shape.
    pub(crate) fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Gathers from `data` by `indices`, which must fit this layout, into
    /// `out`, reading the indices into `scratch`. Indices that take the
    /// whole axis back to front (a channel swap, a flip written as a
    /// Gather) run as a Reverse.
    pub(crate) fn run(
        &self,
        data: &Tensor,
        indices: &Tensor,
        out: &mut Tensor,
        scratch: &mut GatherScratch,
        options: &ExecOptions,
    ) -> Result<(), KernelError> {
        let internal =
            || KernelError::Internal { op: OP, what: "the indices do not fit the layout or the output" };
        if !self.fits(data, indices) {
            return Err(internal());
        }
        super::checks::check_output(OP, data.element_type(), &self.shape, out)?;
        let GatherScratch { indices: values, moves, reverse } = scratch;
        values.clear();
        super::error::try_reserve(values, indices.len(), OP, "indices")?;
        let read = ovir_shape::try_for_each_integer(indices, |i| {
            values.push(i);
            Ok::<(), KernelError>(())
        });
        read.ok_or_else(internal)??;
        match self.describe(values, moves)? {
            Some(flags) => super::reverse_into(data, &flags, out, options, reverse),
            None => {
                moves.check(OP, &[data.len()], out.len())?;
                moves.play(OP, &[data], out, options)
            }
        }
    }

    /// Describes the gather by index values `values` into `moves`, or,
    /// when they take the whole axis back to front (a channel swap, a flip
    /// written as a Gather), gives the flags of the Reverse it is.
    fn describe(&self, values: &[i128], moves: &mut Moves) -> Result<Option<Flags>, KernelError> {
        let internal =
            || KernelError::Internal { op: OP, what: "the indices do not fit the layout or the output" };
        let axis_len = self.axis_len as i128;
        let reversed = self.batches == 1
            && self.shape == self.data_shape
            && self.per_batch == self.axis_len
            && values.iter().enumerate().all(|(j, &i)| {
                let k = if i < 0 { i + axis_len } else { i };
                k == axis_len - 1 - j as i128
            });
        if reversed {
            return Ok(Some((0..self.data_shape.len()).map(|k| k == self.axis).collect()));
        }
        let wide = |n: usize| isize::try_from(n).map_err(|_| internal());
        let (inner, row) =
            (wide(self.inner)?, wide(self.axis_len.checked_mul(self.inner).ok_or_else(internal)?)?);
        let offset = |i: i128| {
            let k = if i < 0 { i + axis_len } else { i };
            if (0..axis_len).contains(&k) {
                isize::try_from(k).ok().and_then(|k| k.checked_mul(inner)).unwrap_or(ZERO)
            } else {
                ZERO
            }
        };
        let batch_src = row.checked_mul(wide(self.outer)?).ok_or_else(internal)?;
        let batch_dst = self.per_batch.checked_mul(self.inner).and_then(|n| n.checked_mul(self.outer));
        let batch_dst = batch_dst.ok_or_else(internal)?;
        if self.batches == 1 {
            moves.reset(0, 0);
            let (step, shift) = moves.table(OP, values.iter().map(|&i| offset(i)))?;
            moves.dense(
                shift,
                &[(self.outer, Step::Stride(row)), (self.per_batch, step), (self.inner, Step::Stride(1))],
            );
        } else {
            moves.reset(1, self.batches.checked_mul(batch_dst).ok_or_else(internal)?);
            for b in 0..self.batches {
                let list = values.get(b * self.per_batch..(b + 1) * self.per_batch).ok_or_else(internal)?;
                let (step, shift) = moves.table(OP, list.iter().map(|&i| offset(i)))?;
                let src = wide(b)?
                    .checked_mul(batch_src)
                    .and_then(|s| s.checked_add(shift))
                    .ok_or_else(internal)?;
                let per_index = self.inner;
                let dims = smallvec::smallvec![
                    Dim::strided(self.outer, row, self.per_batch * per_index),
                    Dim { count: self.per_batch, src: step, dst: per_index },
                    Dim::strided(self.inner, 1, 1),
                ];
                moves.push(Piece { input: 0, src, dst: b * batch_dst, outer: Step::Stride(0), dims });
            }
        }
        Ok(None)
    }

    /// The gather by constant `indices`, worked out once: the Reverse it
    /// is, or its copy as a [`View`] of the data.
    pub(crate) fn fixed(&self, indices: &Tensor) -> Result<Fixed, KernelError> {
        let values = indices.integer_values().ok_or(ShapeErrorKind::IntegerInput {
            op: OP,
            input: "indices",
            found: indices.element_type(),
        })?;
        let mut moves = Moves::default();
        Ok(match self.describe(&values, &mut moves)? {
            Some(flags) => Fixed::Reverse(flags.to_vec()),
            None => Fixed::Copy(Box::new(View::from_moves(OP, &self.data_shape, self.shape.clone(), moves)?)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i64s(shape: &[usize], values: Vec<i64>) -> Tensor {
        Tensor::from_vec(shape, values).unwrap()
    }

    #[test]
    fn indices_that_take_an_axis_back_to_front_flip_it() {
        // A BGR <-> RGB swap of two pixels, as np.take(x, [2, 1, 0], axis=-1).
        let pixels = Tensor::from_vec(&[1, 2, 3], vec![1u8, 2, 3, 4, 5, 6]).unwrap();
        let axis = i64s(&[], vec![-1]);
        for indices in [vec![2, 1, 0], vec![-1, -2, -3], vec![2, -2, 0]] {
            let out = gather(&pixels, &i64s(&[3], indices), &axis, 0).unwrap();
            assert_eq!(out.to_vec::<u8>().unwrap(), [3, 2, 1, 6, 5, 4]);
        }
        // Rows back to front along axis 0 of a [3, 2] f32.
        let rows = Tensor::from_vec(&[3, 2], vec![0f32, 1., 2., 3., 4., 5.]).unwrap();
        let out = gather(&rows, &i64s(&[3], vec![2, 1, 0]), &i64s(&[], vec![0]), 0).unwrap();
        assert_eq!(out.to_vec::<f32>().unwrap(), [4., 5., 2., 3., 0., 1.]);
        // Indices in another shape reverse too, their output shaped by them.
        let out = gather(&rows, &i64s(&[1, 3], vec![2, 1, 0]), &i64s(&[], vec![0]), 0).unwrap();
        assert_eq!(out.shape(), [1, 3, 2]);
        assert_eq!(out.to_vec::<f32>().unwrap(), [4., 5., 2., 3., 0., 1.]);
    }
}
