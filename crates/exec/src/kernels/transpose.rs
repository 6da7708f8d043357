//! Transpose: the data's axes in another order.

use ovir_shape::ops::transpose::transpose_order_into;
use ovir_tensor::Tensor;
use smallvec::SmallVec;

use super::moves::{KeptView, Step, View};
use super::{ExecOptions, KernelError};

const OP: &str = "Transpose";

/// A permutation of axes, on the stack up to rank 8.
pub(crate) type Permutation = SmallVec<[usize; 8]>;

/// The permutation `order` gives data of rank `rank`: output axis `i` is
/// data axis `perm[i]`; an empty order reverses the axes.
pub(crate) fn permutation(order: &Tensor, rank: usize) -> Result<Permutation, KernelError> {
    let mut perm: Permutation = smallvec::smallvec![0; rank];
    transpose_order_into(order, &mut perm)?;
    Ok(perm)
}

/// The copy a Transpose by `perm` makes of data of shape `dims`: output
/// axis `i` walks data axis `perm[i]` by that axis's stride.
pub(crate) fn layout(dims: &[usize], perm: &[usize]) -> Result<View, KernelError> {
    let internal = || KernelError::Internal { op: OP, what: "the permutation does not fit the data" };
    let mut strides: SmallVec<[isize; 8]> = smallvec::smallvec![0; dims.len()];
    let mut stride = 1isize;
    for (s, &d) in strides.iter_mut().zip(dims).rev() {
        *s = stride;
        stride = isize::try_from(d).ok().and_then(|d| stride.checked_mul(d)).unwrap_or(isize::MAX);
    }
    let mut shape = Vec::with_capacity(perm.len());
    let mut axes: SmallVec<[(usize, Step); 8]> = SmallVec::new();
    for &p in perm {
        let (&d, &s) = dims.get(p).zip(strides.get(p)).ok_or_else(internal)?;
        shape.push(d);
        axes.push((d, Step::Stride(s)));
    }
    View::new(OP, dims, shape, 0, &axes)
}

/// The output shape of [`transpose`] for these inputs.
pub fn transpose_output_shape(data: &Tensor, order: &Tensor) -> Result<Vec<usize>, KernelError> {
    Ok(output_shape(data, order)?.to_vec())
}

/// [`transpose_output_shape`] on the stack up to rank 8.
pub(crate) fn output_shape(data: &Tensor, order: &Tensor) -> Result<SmallVec<[usize; 8]>, KernelError> {
    let perm = permutation(order, data.rank())?;
    Ok(perm.iter().filter_map(|&p| data.shape().get(p).copied()).collect())
}

/// What [`transpose_into`] keeps between calls: the copy worked out for
/// the last data shape and order, so that running it again on the same
/// ones allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct TransposeScratch {
    last: KeptView<Permutation>,
}

impl TransposeScratch {
    /// An empty scratch.
    pub fn new() -> TransposeScratch {
        TransposeScratch::default()
    }
}

/// Transpose-1: the data with its axes in the order `order` gives (a 1-D
/// integer tensor holding every axis once; empty, the axes reversed).
///
/// ```
/// use ovir_exec::kernels::transpose;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_vec(&[2, 3], vec![1i32, 2, 3, 4, 5, 6])?;
/// let out = transpose(&data, &Tensor::from_vec(&[2], vec![1i64, 0])?)?;
/// assert_eq!(out.shape(), &[3, 2]);
/// assert_eq!(out.to_vec::<i32>()?, vec![1, 4, 2, 5, 3, 6]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn transpose(data: &Tensor, order: &Tensor) -> Result<Tensor, KernelError> {
    let view = layout(data.shape(), &permutation(order, data.rank())?)?;
    let mut out = Tensor::zeros(data.element_type(), view.shape())?;
    view.run(data, &mut out, &ExecOptions::single_thread())?;
    Ok(out)
}

/// [`transpose`] into an output of the right type and shape, on several
/// threads when it is large, keeping the copy it works out in `scratch`.
pub fn transpose_into(
    data: &Tensor,
    order: &Tensor,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut TransposeScratch,
) -> Result<(), KernelError> {
    let perm = permutation(order, data.rank())?;
    let view = scratch.last.get(perm.clone(), data.shape(), || layout(data.shape(), &perm))?;
    view.run(data, out, options)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i64s(values: &[i64]) -> Tensor {
        Tensor::from_vec(&[values.len()], values.to_vec()).unwrap()
    }

    /// `np.transpose(np.arange(n).reshape(dims), perm)`, element by
    /// element from the definition: out[i0..ik] = data[j] with
    /// j[perm[a]] = i[a].
    fn naive(dims: &[usize], perm: &[usize]) -> Vec<i32> {
        let shape: Vec<usize> = perm.iter().map(|&p| dims[p]).collect();
        let n: usize = dims.iter().product();
        let mut out = Vec::with_capacity(n);
        for flat in 0..n {
            let mut rest = flat;
            let mut index = vec![0; shape.len()];
            for a in (0..shape.len()).rev() {
                index[a] = rest % shape[a];
                rest /= shape[a];
            }
            let mut source = vec![0; dims.len()];
            for (a, &p) in perm.iter().enumerate() {
                source[p] = index[a];
            }
            out.push(source.iter().zip(dims).fold(0, |acc, (&i, &d)| acc * d + i) as i32);
        }
        out
    }

    #[test]
    fn every_permutation_of_rank_four_matches_the_definition() {
        let dims = [2usize, 3, 1, 4];
        let data = Tensor::from_vec(&dims, (0..24).collect::<Vec<i32>>()).unwrap();
        let mut perms: Vec<Vec<usize>> = vec![vec![]];
        for _ in 0..4 {
            let mut longer = Vec::new();
            for p in &perms {
                for a in (0..4).filter(|a| !p.contains(a)) {
                    longer.push([p.as_slice(), &[a]].concat());
                }
            }
            perms = longer;
        }
        assert_eq!(perms.len(), 24);
        for perm in perms {
            let order: Vec<i64> = perm.iter().map(|&a| a as i64).collect();
            let out = transpose(&data, &i64s(&order)).unwrap();
            let shape: Vec<usize> = perm.iter().map(|&p| dims[p]).collect();
            assert_eq!(out.shape(), shape.as_slice(), "{perm:?}");
            assert_eq!(out.to_vec::<i32>().unwrap(), naive(&dims, &perm), "{perm:?}");
        }
    }

    #[test]
    fn an_empty_order_reverses_the_axes_and_a_bad_one_is_refused() {
        let data = Tensor::from_vec(&[2, 3, 4], (0..24).collect::<Vec<i32>>()).unwrap();
        let out = transpose(&data, &i64s(&[])).unwrap();
        assert_eq!(out.shape(), &[4, 3, 2]);
        assert_eq!(out.to_vec::<i32>().unwrap(), naive(&[2, 3, 4], &[2, 1, 0]));
        assert!(transpose(&data, &i64s(&[0, 0, 1])).is_err());
        assert!(transpose(&data, &i64s(&[0, 1])).is_err());
        assert!(transpose(&data, &i64s(&[0, 1, 3])).is_err());
    }

    #[test]
    fn channels_moved_inward_match_the_definition_across_tiles() {
        // NCHW to NHWC: three columns per output row, 12,000 rows, more
        // than one tile of the column walk for bytes.
        for (dims, ty) in [
            ([1usize, 3, 100, 120], ovir_tensor::ElementType::U8),
            ([2, 3, 20, 30], ovir_tensor::ElementType::I16),
        ] {
            let n: usize = dims.iter().product();
            let values = Tensor::from_vec(&dims, (0..n as i64).map(|v| v % 251).collect::<Vec<_>>()).unwrap();
            let data = crate::kernels::convert(&values, ty).unwrap();
            let out = transpose(&data, &i64s(&[0, 2, 3, 1])).unwrap();
            let back = crate::kernels::convert(&out, ovir_tensor::ElementType::I64).unwrap();
            let want: Vec<i64> =
                naive(&dims, &[0, 2, 3, 1]).into_iter().map(|v| i64::from(v) % 251).collect();
            assert_eq!(back.to_vec::<i64>().unwrap(), want, "{ty}");
        }
    }

    #[test]
    fn packed_codes_move_inside_their_bytes() {
        let codes = Tensor::from_vec(&[2, 3], (0..6i64).collect::<Vec<_>>()).unwrap();
        let data = crate::kernels::convert(&codes, ovir_tensor::ElementType::U4).unwrap();
        let out = transpose(&data, &i64s(&[1, 0])).unwrap();
        let back = crate::kernels::convert(&out, ovir_tensor::ElementType::I64).unwrap();
        assert_eq!(back.to_vec::<i64>().unwrap(), [0, 3, 1, 4, 2, 5]);
    }

    #[test]
    fn strings_and_threads_move_alike() {
        let words: Vec<String> = (0..6).map(|i| format!("w{i}")).collect();
        let data = Tensor::from_strings(&[2, 3], words).unwrap();
        let out = transpose(&data, &i64s(&[1, 0])).unwrap();
        assert_eq!(out.strings().unwrap(), ["w0", "w3", "w1", "w4", "w2", "w5"]);
        // An NHWC image of 64 rows as NCHW, on three threads.
        let dims = [1usize, 64, 48, 3];
        let n: usize = dims.iter().product();
        let data = Tensor::from_vec(&dims, (0..n as i32).collect::<Vec<i32>>()).unwrap();
        let mut out = Tensor::zeros(ovir_tensor::ElementType::I32, &[1, 3, 64, 48]).unwrap();
        let options = ExecOptions { threads: 3, min_bytes_per_thread: 1 };
        let mut scratch = TransposeScratch::new();
        transpose_into(&data, &i64s(&[0, 3, 1, 2]), &mut out, &options, &mut scratch).unwrap();
        assert_eq!(out.to_vec::<i32>().unwrap(), naive(&dims, &[0, 3, 1, 2]));
    }
}
