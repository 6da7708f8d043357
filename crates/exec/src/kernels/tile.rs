//! Tile: the data repeated along each axis.

use ovir_shape::ops::tile::tile_shape_into;
use ovir_shape::ShapeErrorKind;
use ovir_tensor::Tensor;
use smallvec::SmallVec;

use super::moves::{KeptView, Step, View};
use super::{ExecOptions, KernelError};

const OP: &str = "Tile";

/// An output shape on the stack up to rank 8.
pub(crate) type Shape = SmallVec<[usize; 8]>;

/// The output shape of a Tile of data of shape `dims` by `repeats` (a 1-D
/// integer tensor; a negative repeat counts as 0): as many axes as the
/// longer of the two, lined up from the last.
pub(crate) fn output_shape(dims: &[usize], repeats: &Tensor) -> Result<Shape, KernelError> {
    let mut out: Shape = smallvec::smallvec![0; dims.len().max(repeats.len())];
    tile_shape_into(dims, repeats, &mut out)?;
    // Each axis fits a size; their product must too.
    let mut count = 1usize;
    for (axis, &d) in out.iter().enumerate() {
        count = count.checked_mul(d).ok_or(ShapeErrorKind::SizeOverflow { op: OP, axis })?;
    }
    Ok(out)
}

/// The copy a Tile makes of data of shape `dims` into an output of shape
/// `out` (from [`output_shape`]): each output axis is its repeats, which
/// walk nothing (stride 0), around the data axis, which it walks.
pub(crate) fn layout(dims: &[usize], out: &[usize]) -> Result<View, KernelError> {
    let internal = || KernelError::Internal { op: OP, what: "the repeats do not fit the data" };
    let lead = out.len().checked_sub(dims.len()).ok_or_else(internal)?;
    let mut axes: SmallVec<[(usize, Step); 16]> = SmallVec::new();
    let mut stride = 1isize;
    let mut strides: SmallVec<[isize; 8]> = smallvec::smallvec![0; out.len()];
    for (a, s) in strides.iter_mut().enumerate().rev() {
        *s = stride;
        let d = if a >= lead { dims[a - lead] } else { 1 };
        stride = isize::try_from(d).ok().and_then(|d| stride.checked_mul(d)).unwrap_or(isize::MAX);
    }
    for (a, (&o, &s)) in out.iter().zip(&strides).enumerate() {
        let d = if a >= lead { dims[a - lead] } else { 1 };
        let times = o.checked_div(d).unwrap_or(o);
        axes.push((times, Step::Stride(0)));
        axes.push((d.min(o), Step::Stride(s)));
    }
    View::new(OP, dims, out.to_vec(), 0, &axes)
}

/// What [`tile_into`] keeps between calls: the copy worked out for the
/// last data shape and output shape, so that running it again on the
/// same ones allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct TileScratch {
    last: KeptView<Shape>,
}

impl TileScratch {
    /// An empty scratch.
    pub fn new() -> TileScratch {
        TileScratch::default()
    }
}

/// The output shape of [`tile`] for these inputs.
pub fn tile_output_shape(data: &Tensor, repeats: &Tensor) -> Result<Vec<usize>, KernelError> {
    Ok(output_shape(data.shape(), repeats)?.to_vec())
}

/// Tile-1: the data repeated `repeats[i]` times along axis `i`, the
/// repeats lined up with the data's last axes; shorter repeats leave the
/// first axes once, longer ones add axes of size 1 in front of the data,
/// and a negative repeat counts as 0.
///
/// ```
/// use ovir_exec::kernels::tile;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_vec(&[2], vec![1i32, 2])?;
/// let out = tile(&data, &Tensor::from_vec(&[2], vec![2i64, 3])?)?;
/// assert_eq!(out.shape(), &[2, 6]);
/// assert_eq!(out.to_vec::<i32>()?, vec![1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn tile(data: &Tensor, repeats: &Tensor) -> Result<Tensor, KernelError> {
    let view = layout(data.shape(), &output_shape(data.shape(), repeats)?)?;
    let mut out = Tensor::zeros(data.element_type(), view.shape())?;
    view.run(data, &mut out, &ExecOptions::single_thread())?;
    Ok(out)
}

/// [`tile`] into an output of the right type and shape, on several
/// threads when it is large, keeping the copy it works out in `scratch`.
pub fn tile_into(
    data: &Tensor,
    repeats: &Tensor,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut TileScratch,
) -> Result<(), KernelError> {
    let shape = output_shape(data.shape(), repeats)?;
    let view = scratch.last.get(shape.clone(), data.shape(), || layout(data.shape(), &shape))?;
    view.run(data, out, options)
}

#[cfg(test)]
mod tests {
    use ovir_tensor::ElementType;

    use super::*;

    fn i64s(values: &[i64]) -> Tensor {
        Tensor::from_vec(&[values.len()], values.to_vec()).unwrap()
    }

    /// `np.tile(np.arange(n).reshape(dims), reps)` from the definition:
    /// out[i] = data[i mod dims] on every axis, the data's shape padded
    /// with leading 1s.
    fn naive(dims: &[usize], reps: &[usize]) -> (Vec<usize>, Vec<i32>) {
        let rank = dims.len().max(reps.len());
        let d: Vec<usize> = std::iter::repeat_n(1, rank - dims.len()).chain(dims.iter().copied()).collect();
        let r: Vec<usize> = std::iter::repeat_n(1, rank - reps.len()).chain(reps.iter().copied()).collect();
        let shape: Vec<usize> = d.iter().zip(&r).map(|(a, b)| a * b).collect();
        let n: usize = shape.iter().product();
        let out = (0..n)
            .map(|flat| {
                let mut rest = flat;
                let mut index = vec![0; rank];
                for a in (0..rank).rev() {
                    index[a] = rest % shape[a];
                    rest /= shape[a];
                }
                index.iter().enumerate().fold(0, |acc, (a, &i)| acc * d[a] + i % d[a]) as i32
            })
            .collect();
        (shape, out)
    }

    #[test]
    fn repeats_shorter_longer_and_as_long_as_the_rank_match_the_definition() {
        let dims = [2usize, 3];
        let data = Tensor::from_vec(&dims, (0..6).collect::<Vec<i32>>()).unwrap();
        for reps in [vec![2], vec![1, 1], vec![3, 2], vec![2, 1, 3], vec![1, 2, 1, 2], vec![0, 2], vec![]] {
            let out = tile(&data, &i64s(&reps.iter().map(|&r| r as i64).collect::<Vec<_>>())).unwrap();
            let (shape, want) = naive(&dims, &reps);
            assert_eq!(out.shape(), shape.as_slice(), "{reps:?}");
            assert_eq!(out.to_vec::<i32>().unwrap(), want, "{reps:?}");
        }
    }

    /// OpenVINO's op_reference table: data [2, 1, 3] (1..6) by [2, 1].
    #[test]
    fn op_reference_table() {
        let data = Tensor::from_vec(&[2, 1, 3], (1..=6).collect::<Vec<i64>>()).unwrap();
        let out = tile(&data, &i64s(&[2, 1])).unwrap();
        assert_eq!(out.shape(), &[2, 2, 3]);
        assert_eq!(out.to_vec::<i64>().unwrap(), [1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6]);
    }

    #[test]
    fn negative_repeats_count_as_zero_and_strings_and_packed_codes_repeat_whole() {
        let data = Tensor::from_vec(&[2], vec![1u8, 2]).unwrap();
        assert_eq!(tile(&data, &i64s(&[-3])).unwrap().shape(), &[0]);
        let words = Tensor::from_strings(&[2], vec!["a".into(), "bc".into()]).unwrap();
        let out = tile(&words, &i64s(&[2])).unwrap();
        assert_eq!(out.strings().unwrap(), ["a", "bc", "a", "bc"].map(String::from));
        let codes =
            super::super::convert(&Tensor::from_vec(&[3], vec![1i64, 2, 3]).unwrap(), ElementType::U2)
                .unwrap();
        let out = super::super::convert(&tile(&codes, &i64s(&[3])).unwrap(), ElementType::I64).unwrap();
        assert_eq!(out.to_vec::<i64>().unwrap(), [1, 2, 3, 1, 2, 3, 1, 2, 3]);
    }

    #[test]
    fn repeats_too_large_for_memory_are_an_error_not_an_abort() {
        let data = Tensor::from_vec(&[2], vec![1f32, 2.0]).unwrap();
        let err = tile(&data, &i64s(&[1_000_000_000, 1_000_000_000])).unwrap_err();
        assert!(matches!(err, KernelError::Tensor(_)), "{err:?}");
        let err = tile(&data, &i64s(&[i64::MAX, i64::MAX])).unwrap_err();
        assert!(matches!(err, KernelError::Shape(ShapeErrorKind::SizeOverflow { .. })), "{err:?}");
    }

    #[test]
    fn a_scratch_keeps_the_copy_for_the_same_repeats() {
        let data = Tensor::from_vec(&[2], vec![1i16, 2]).unwrap();
        let mut scratch = TileScratch::new();
        let options = ExecOptions::single_thread();
        for (reps, want) in [(2, vec![1, 2, 1, 2]), (2, vec![1, 2, 1, 2]), (3, vec![1, 2, 1, 2, 1, 2])] {
            let mut out = Tensor::zeros(ElementType::I16, &[want.len()]).unwrap();
            tile_into(&data, &i64s(&[reps]), &mut out, &options, &mut scratch).unwrap();
            assert_eq!(out.to_vec::<i16>().unwrap(), want);
        }
    }
}
