//! ShuffleChannels: the groups of one axis interleaved.
//!
//! The data seen as `[outer, group, n / group, inner]` around the axis is
//! transposed to `[outer, n / group, group, inner]`: one strided view of
//! the data, whose rows of `inner` elements move whole.

use ovir_shape::ops::shuffle_channels::shuffle_axis;
use ovir_tensor::{Dim, Tensor};
use smallvec::SmallVec;

use super::moves::{KeptView, Step, View};
use super::{ExecOptions, KernelError};

const OP: &str = "ShuffleChannels";

/// The axis (normalised) a ShuffleChannels by `group` along `axis`
/// shuffles in data of shape `shape`, checked as the shape rules check it.
pub(crate) fn checked_axis(shape: &[usize], axis: i64, group: u64) -> Result<usize, KernelError> {
    let dims: SmallVec<[Dim; 8]> = shape.iter().map(|&d| Dim::fixed(d as u64)).collect();
    Ok(shuffle_axis(&dims, axis, group)?)
}

/// The copy a ShuffleChannels by `group` along `axis` makes of data of
/// shape `shape`.
pub(crate) fn layout(shape: &[usize], axis: i64, group: u64) -> Result<View, KernelError> {
    let a = checked_axis(shape, axis, group)?;
    let out = shape.to_vec();
    if shape.contains(&0) {
        return View::new(OP, shape, out, 0, &[]);
    }
    let overflow = KernelError::Internal { op: OP, what: "a stride overflows" };
    let product = |dims: &[usize]| ovir_tensor::element_count(dims).ok_or(overflow.clone());
    let (outer, inner) = (product(&shape[..a])?, product(&shape[a + 1..])?);
    // shuffle_axis checked that the group divides the axis.
    let group = usize::try_from(group).map_err(|_| overflow.clone())?;
    let n = shape[a];
    let per_group = n / group;
    let stride =
        |v: usize, by: usize| v.checked_mul(by).and_then(|s| isize::try_from(s).ok()).ok_or(overflow.clone());
    let axes = [
        (outer, Step::Stride(stride(n, inner)?)),
        (per_group, Step::Stride(stride(1, inner)?)),
        (group, Step::Stride(stride(per_group, inner)?)),
        (inner, Step::Stride(1)),
    ];
    View::new(OP, shape, out, 0, &axes)
}

/// What [`shuffle_channels_into`] keeps between calls: the copy worked out
/// for the last data shape, axis and group, so that running it again on
/// the same ones allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct ShuffleChannelsScratch {
    last: KeptView<(i64, u64)>,
}

impl ShuffleChannelsScratch {
    /// An empty scratch.
    pub fn new() -> ShuffleChannelsScratch {
        ShuffleChannelsScratch::default()
    }
}

/// The output shape of [`shuffle_channels`]: the data's, once the axis is
/// checked to lie in the rank and to hold a multiple of `group`.
pub fn shuffle_channels_output_shape(
    data_shape: &[usize],
    axis: i64,
    group: u64,
) -> Result<Vec<usize>, KernelError> {
    checked_axis(data_shape, axis, group)?;
    Ok(data_shape.to_vec())
}

/// ShuffleChannels-1: the `n` elements along `axis` (negative counts from
/// the end) split into `group` groups of `n / group` and interleaved, so
/// that output index `j * group + g` holds input index `g * (n / group) +
/// j`.
///
/// ```
/// use ovir_exec::kernels::shuffle_channels;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_vec(&[1, 6], vec![0i32, 1, 2, 3, 4, 5])?;
/// let out = shuffle_channels(&data, -1, 2)?;
/// assert_eq!(out.to_vec::<i32>()?, vec![0, 3, 1, 4, 2, 5]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn shuffle_channels(data: &Tensor, axis: i64, group: u64) -> Result<Tensor, KernelError> {
    let view = layout(data.shape(), axis, group)?;
    let mut out = Tensor::zeros(data.element_type(), view.shape())?;
    view.run(data, &mut out, &ExecOptions::single_thread())?;
    Ok(out)
}

/// [`shuffle_channels`] into an output of the data's type and shape, on
/// several threads when it is large, keeping the copy it works out in
/// `scratch`.
pub fn shuffle_channels_into(
    data: &Tensor,
    axis: i64,
    group: u64,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut ShuffleChannelsScratch,
) -> Result<(), KernelError> {
    let view = scratch.last.get((axis, group), data.shape(), || layout(data.shape(), axis, group))?;
    view.run(data, out, options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ovir_tensor::ElementType;

    /// ShuffleChannels of `np.arange` data from the spec, element by
    /// element: output index j * group + g along the axis reads input index
    /// g * (n / group) + j.
    fn naive(dims: &[usize], axis: usize, group: usize) -> Vec<i32> {
        let n = dims[axis];
        let inner: usize = dims[axis + 1..].iter().product();
        let total: usize = dims.iter().product();
        (0..total)
            .map(|f| {
                let (o, rest) = (f / (n * inner), f % (n * inner));
                let (c, i) = (rest / inner, rest % inner);
                let (j, g) = (c / group, c % group);
                (o * n * inner + (g * (n / group) + j) * inner + i) as i32
            })
            .collect()
    }

    fn arange(dims: &[usize]) -> Tensor {
        let n: usize = dims.iter().product();
        Tensor::from_vec(dims, (0..n as i32).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn every_axis_and_group_matches_the_definition() {
        for (dims, axis, group) in [
            (vec![1usize, 15, 2, 2], 1i64, 5u64),
            (vec![15, 2, 1, 2], -4, 5),
            (vec![6, 1, 1, 1], 0, 2),
            (vec![15], 0, 5),
            (vec![2, 2, 15, 2, 2], 2, 3),
            (vec![2, 3, 12], -1, 4),
            (vec![2, 12, 3], 1, 12),
            (vec![2, 12, 3], 1, 1),
        ] {
            let out = shuffle_channels(&arange(&dims), axis, group).unwrap();
            let a = if axis < 0 { dims.len() - axis.unsigned_abs() as usize } else { axis as usize };
            assert_eq!(out.shape(), dims.as_slice());
            assert_eq!(
                out.to_vec::<i32>().unwrap(),
                naive(&dims, a, group as usize),
                "{dims:?} {axis} {group}"
            );
        }
    }

    #[test]
    fn openvinos_reference_values() {
        // op_reference shuffle_channels_1d.
        let out = shuffle_channels(&arange(&[15]), 0, 5).unwrap();
        assert_eq!(out.to_vec::<i32>().unwrap(), [0, 3, 6, 9, 12, 1, 4, 7, 10, 13, 2, 5, 8, 11, 14]);
    }

    #[test]
    fn bad_axes_and_groups_are_refused_and_empty_data_runs() {
        let data = arange(&[2, 6]);
        assert!(shuffle_channels(&data, 1, 4).is_err());
        assert!(shuffle_channels(&data, 2, 2).is_err());
        assert!(shuffle_channels(&data, -3, 2).is_err());
        assert!(shuffle_channels(&data, 1, 0).is_err());
        assert!(shuffle_channels(&Tensor::from_vec(&[], vec![1i32]).unwrap(), 0, 1).is_err());
        let empty = Tensor::zeros(ElementType::F32, &[0, 6]).unwrap();
        assert_eq!(shuffle_channels(&empty, 1, 3).unwrap().shape(), &[0, 6]);
    }

    #[test]
    fn strings_packed_codes_and_threads_move_alike() {
        let words: Vec<String> = (0..6).map(|i| format!("w{i}")).collect();
        let data = Tensor::from_strings(&[6], words).unwrap();
        let out = shuffle_channels(&data, 0, 3).unwrap();
        assert_eq!(out.strings().unwrap(), ["w0", "w2", "w4", "w1", "w3", "w5"]);
        let codes = Tensor::from_vec(&[2, 6], (0..12i64).collect::<Vec<_>>()).unwrap();
        let data = crate::kernels::convert(&codes, ElementType::U4).unwrap();
        let out = shuffle_channels(&data, 1, 2).unwrap();
        let back = crate::kernels::convert(&out, ElementType::I64).unwrap();
        assert_eq!(back.to_vec::<i64>().unwrap(), [0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11]);
        let dims = [4usize, 24, 16, 16];
        let mut out = Tensor::zeros(ElementType::I32, &dims).unwrap();
        let options = ExecOptions { threads: 3, min_bytes_per_thread: 1 };
        let mut scratch = ShuffleChannelsScratch::new();
        for _ in 0..2 {
            shuffle_channels_into(&arange(&dims), 1, 3, &mut out, &options, &mut scratch).unwrap();
            assert_eq!(out.to_vec::<i32>().unwrap(), naive(&dims, 1, 3));
        }
    }
}
