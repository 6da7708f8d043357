//! DepthToSpace and SpaceToDepth: blocks of channels moved into the
//! spatial axes, and back.
//!
//! Each is a reshape, a transpose and a reshape of the data, so its output
//! is one strided view of the data: DepthToSpace on data `[N, C, D1..Dk]`
//! walks `N`, the `C / bs^k` channels left, then each `Di` followed by its
//! block offset; SpaceToDepth walks `N`, the block offsets and the
//! channels (in the order the mode gives), then each spatial axis a block
//! at a time. The block offsets are the outer part of the channel index in
//! `blocks_first` mode and the inner part in `depth_first`.

use ovir_shape::ops::depth_to_space::{block_shape_into, BlockMode};
use ovir_tensor::Tensor;
use smallvec::SmallVec;

use super::moves::{KeptView, Step, View};
use super::{ExecOptions, KernelError};

/// The loops of a view of rank-8 data, on the stack.
type Axes = SmallVec<[(usize, Step); 16]>;

/// Which of the two ops, with its attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Blocks {
    /// SpaceToDepth when true, DepthToSpace when false.
    pub(crate) to_depth: bool,
    pub(crate) mode: BlockMode,
    pub(crate) block_size: u64,
}

impl Blocks {
    pub(crate) fn op(self) -> &'static str {
        if self.to_depth {
            "SpaceToDepth"
        } else {
            "DepthToSpace"
        }
    }

    /// The output shape for data of shape `dims`, on the stack up to rank 8.
    pub(crate) fn output_shape(self, dims: &[usize]) -> Result<SmallVec<[usize; 8]>, KernelError> {
        let mut shape: SmallVec<[usize; 8]> = smallvec::smallvec![0; dims.len()];
        block_shape_into(self.op(), dims, self.block_size, self.to_depth, &mut shape)?;
        Ok(shape)
    }

    /// The copy the op makes of data of shape `dims`.
    pub(crate) fn layout(self, dims: &[usize]) -> Result<View, KernelError> {
        let op = self.op();
        let shape = self.output_shape(dims)?.to_vec();
        if shape.contains(&0) {
            return View::new(op, dims, shape, 0, &[]);
        }
        let overflow = KernelError::Internal { op, what: "a stride overflows" };
        let int = |v: usize| isize::try_from(v).map_err(|_| overflow.clone());
        let mul = |a: isize, b: isize| a.checked_mul(b).ok_or(overflow.clone());
        let mut strides: SmallVec<[isize; 8]> = smallvec::smallvec![0; dims.len()];
        let mut stride = 1isize;
        for (s, &d) in strides.iter_mut().zip(dims).rev() {
            *s = stride;
            stride = mul(stride, int(d)?)?;
        }
        // block_shape_into checked that the block size fits, and that the
        // data's dims are 3 or more.
        let block = usize::try_from(self.block_size).map_err(|_| overflow.clone())?;
        let bs = int(block)?;
        let spatial = dims.len() - 2;
        let (n, channels) = (strides[0], strides[1]);
        let mut axes = Axes::new();
        axes.push((dims[0], Step::Stride(n)));
        if self.to_depth {
            // Data [N, C, X1..Xk], Xi = Di * bs: the block offset along Xi
            // moves by Xi's stride, the block along it by bs of them.
            let blocks = (0..spatial).map(|i| (block, Step::Stride(strides[2 + i])));
            let depth = (dims[1], Step::Stride(channels));
            match self.mode {
                BlockMode::BlocksFirst => {
                    axes.extend(blocks);
                    axes.push(depth);
                }
                BlockMode::DepthFirst => {
                    axes.push(depth);
                    axes.extend(blocks);
                }
            }
            for i in 0..spatial {
                axes.push((shape[2 + i], Step::Stride(mul(bs, strides[2 + i])?)));
            }
        } else {
            // Data [N, C, D1..Dk], C = C' * bs^k: the channel index is
            // (b1..bk, c') in blocks_first mode, (c', b1..bk) in depth_first.
            let depth = shape[1];
            let (depth_stride, mut block_stride) = match self.mode {
                BlockMode::BlocksFirst => (channels, mul(int(depth)?, channels)?),
                BlockMode::DepthFirst => (mul(int(dims[1] / depth)?, channels)?, channels),
            };
            axes.push((depth, Step::Stride(depth_stride)));
            let mut block_strides: SmallVec<[isize; 8]> = smallvec::smallvec![0; spatial];
            for s in block_strides.iter_mut().rev() {
                *s = block_stride;
                block_stride = mul(block_stride, bs)?;
            }
            for (i, &b) in block_strides.iter().enumerate() {
                axes.push((dims[2 + i], Step::Stride(strides[2 + i])));
                axes.push((block, Step::Stride(b)));
            }
        }
        View::new(op, dims, shape, 0, &axes)
    }

    fn run(self, data: &Tensor) -> Result<Tensor, KernelError> {
        let view = self.layout(data.shape())?;
        let mut out = Tensor::zeros(data.element_type(), view.shape())?;
        view.run(data, &mut out, &ExecOptions::single_thread())?;
        Ok(out)
    }

    fn run_into(
        self,
        data: &Tensor,
        out: &mut Tensor,
        options: &ExecOptions,
        scratch: &mut DepthToSpaceScratch,
    ) -> Result<(), KernelError> {
        scratch.last.get(self, data.shape(), || self.layout(data.shape()))?.run(data, out, options)
    }
}

/// What [`depth_to_space_into`] and [`space_to_depth_into`] keep between
/// calls: the copy worked out for the last data shape and attributes, so
/// that running it again on the same ones allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct DepthToSpaceScratch {
    last: KeptView<Blocks>,
}

impl DepthToSpaceScratch {
    /// An empty scratch.
    pub fn new() -> DepthToSpaceScratch {
        DepthToSpaceScratch::default()
    }
}

/// The output shape of [`depth_to_space`] for data of shape `data_shape`:
/// the channels (axis 1) divided by `block_size^k` and each of the `k`
/// spatial axes multiplied by `block_size`.
pub fn depth_to_space_output_shape(data_shape: &[usize], block_size: u64) -> Result<Vec<usize>, KernelError> {
    let blocks = Blocks { to_depth: false, mode: BlockMode::BlocksFirst, block_size };
    Ok(blocks.output_shape(data_shape)?.to_vec())
}

/// The output shape of [`space_to_depth`] for data of shape `data_shape`:
/// each of the `k` spatial axes divided by `block_size` and the channels
/// (axis 1) multiplied by `block_size^k`.
pub fn space_to_depth_output_shape(data_shape: &[usize], block_size: u64) -> Result<Vec<usize>, KernelError> {
    let blocks = Blocks { to_depth: true, mode: BlockMode::BlocksFirst, block_size };
    Ok(blocks.output_shape(data_shape)?.to_vec())
}

/// DepthToSpace-1: blocks of `block_size^k` channels of data `[N, C, D1..Dk]`
/// moved into its `k` spatial axes, giving `[N, C / bs^k, D1 * bs, ..,
/// Dk * bs]`; `mode` says whether the block offset is the outer
/// (`BlocksFirst`) or the inner (`DepthFirst`) part of the channel index.
///
/// ```
/// use ovir_exec::kernels::depth_to_space;
/// use ovir_shape::ops::BlockMode;
/// use ovir_tensor::Tensor;
/// // Four channels of one pixel become a 2x2 image.
/// let data = Tensor::from_vec(&[1, 4, 1, 1], vec![1i32, 2, 3, 4])?;
/// let out = depth_to_space(&data, BlockMode::BlocksFirst, 2)?;
/// assert_eq!(out.shape(), &[1, 1, 2, 2]);
/// assert_eq!(out.to_vec::<i32>()?, vec![1, 2, 3, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn depth_to_space(data: &Tensor, mode: BlockMode, block_size: u64) -> Result<Tensor, KernelError> {
    Blocks { to_depth: false, mode, block_size }.run(data)
}

/// [`depth_to_space`] into an output of the right type and shape, on
/// several threads when it is large, keeping the copy it works out in
/// `scratch`.
pub fn depth_to_space_into(
    data: &Tensor,
    mode: BlockMode,
    block_size: u64,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut DepthToSpaceScratch,
) -> Result<(), KernelError> {
    Blocks { to_depth: false, mode, block_size }.run_into(data, out, options, scratch)
}

/// SpaceToDepth-1: blocks of `block_size` elements of each of the `k`
/// spatial axes of data `[N, C, D1..Dk]` moved into the channels, giving
/// `[N, C * bs^k, D1 / bs, .., Dk / bs]`; `mode` says whether the block
/// offset becomes the outer (`BlocksFirst`) or the inner (`DepthFirst`)
/// part of the channel index.
///
/// ```
/// use ovir_exec::kernels::space_to_depth;
/// use ovir_shape::ops::BlockMode;
/// use ovir_tensor::Tensor;
/// // A 2x2 image of two channels becomes eight channels of one pixel.
/// let data = Tensor::from_vec(&[1, 2, 2, 2], vec![0i32, 1, 2, 3, 10, 11, 12, 13])?;
/// let out = space_to_depth(&data, BlockMode::DepthFirst, 2)?;
/// assert_eq!(out.shape(), &[1, 8, 1, 1]);
/// assert_eq!(out.to_vec::<i32>()?, vec![0, 1, 2, 3, 10, 11, 12, 13]);
/// let out = space_to_depth(&data, BlockMode::BlocksFirst, 2)?;
/// assert_eq!(out.to_vec::<i32>()?, vec![0, 10, 1, 11, 2, 12, 3, 13]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn space_to_depth(data: &Tensor, mode: BlockMode, block_size: u64) -> Result<Tensor, KernelError> {
    Blocks { to_depth: true, mode, block_size }.run(data)
}

/// [`space_to_depth`] into an output of the right type and shape, on
/// several threads when it is large, keeping the copy it works out in
/// `scratch`.
pub fn space_to_depth_into(
    data: &Tensor,
    mode: BlockMode,
    block_size: u64,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut DepthToSpaceScratch,
) -> Result<(), KernelError> {
    Blocks { to_depth: true, mode, block_size }.run_into(data, out, options, scratch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ovir_tensor::ElementType;

    /// Row-major flat index of `index` in `dims`.
    fn flat(index: &[usize], dims: &[usize]) -> usize {
        index.iter().zip(dims).fold(0, |acc, (&i, &d)| acc * d + i)
    }

    /// Index of flat element `f` in `dims`.
    fn unflat(mut f: usize, dims: &[usize]) -> Vec<usize> {
        let mut index = vec![0; dims.len()];
        for a in (0..dims.len()).rev() {
            index[a] = f % dims[a];
            f /= dims[a];
        }
        index
    }

    /// DepthToSpace of `np.arange` data written out from the spec, element
    /// by element: out[n, c', d1*bs+b1, ..] = data[n, c, d1, ..] with c =
    /// (b1..bk) * C' + c' (blocks_first) or c' * bs^k + (b1..bk).
    fn naive_d2s(dims: &[usize], mode: BlockMode, bs: usize) -> Vec<i32> {
        let k = dims.len() - 2;
        let vol = bs.pow(k as u32);
        let depth = dims[1] / vol;
        let shape: Vec<usize> = dims
            .iter()
            .enumerate()
            .map(|(a, &d)| {
                if a == 0 {
                    d
                } else if a == 1 {
                    depth
                } else {
                    d * bs
                }
            })
            .collect();
        let n: usize = shape.iter().product();
        (0..n)
            .map(|f| {
                let o = unflat(f, &shape);
                let blocks: Vec<usize> = o[2..].iter().map(|&y| y % bs).collect();
                let block = flat(&blocks, &vec![bs; k]);
                let c = match mode {
                    BlockMode::BlocksFirst => block * depth + o[1],
                    BlockMode::DepthFirst => o[1] * vol + block,
                };
                let mut src = vec![o[0], c];
                src.extend(o[2..].iter().map(|&y| y / bs));
                flat(&src, dims) as i32
            })
            .collect()
    }

    /// SpaceToDepth from the spec: out[n, c_out, d1, ..] = data[n, c,
    /// d1*bs+b1, ..] with c_out = (b1..bk) * C + c (blocks_first) or
    /// c * bs^k + (b1..bk).
    fn naive_s2d(dims: &[usize], mode: BlockMode, bs: usize) -> Vec<i32> {
        let k = dims.len() - 2;
        let vol = bs.pow(k as u32);
        let shape: Vec<usize> = dims
            .iter()
            .enumerate()
            .map(|(a, &d)| {
                if a == 0 {
                    d
                } else if a == 1 {
                    d * vol
                } else {
                    d / bs
                }
            })
            .collect();
        let n: usize = shape.iter().product();
        (0..n)
            .map(|f| {
                let o = unflat(f, &shape);
                let (c, block) = match mode {
                    BlockMode::BlocksFirst => (o[1] % dims[1], o[1] / dims[1]),
                    BlockMode::DepthFirst => (o[1] / vol, o[1] % vol),
                };
                let blocks = unflat(block, &vec![bs; k]);
                let mut src = vec![o[0], c];
                src.extend(o[2..].iter().zip(&blocks).map(|(&d, &b)| d * bs + b));
                flat(&src, dims) as i32
            })
            .collect()
    }

    fn arange(dims: &[usize]) -> Tensor {
        let n: usize = dims.iter().product();
        Tensor::from_vec(dims, (0..n as i32).collect::<Vec<_>>()).unwrap()
    }

    const MODES: [BlockMode; 2] = [BlockMode::BlocksFirst, BlockMode::DepthFirst];

    #[test]
    fn both_ops_match_the_definition_in_both_modes() {
        for mode in MODES {
            for (dims, bs) in [
                (vec![1usize, 8, 2], 2usize),
                (vec![2, 8, 2, 3], 2),
                (vec![1, 16, 2, 1], 4),
                (vec![2, 27, 2, 1], 3),
                (vec![2, 16, 2, 3, 1], 2),
                (vec![3, 5, 2, 2], 1),
            ] {
                let out = depth_to_space(&arange(&dims), mode, bs as u64).unwrap();
                assert_eq!(
                    out.to_vec::<i32>().unwrap(),
                    naive_d2s(&dims, mode, bs),
                    "{dims:?} {mode:?} {bs}"
                );
                assert_eq!(out.shape(), depth_to_space_output_shape(&dims, bs as u64).unwrap().as_slice());
            }
            for (dims, bs) in [
                (vec![1usize, 2, 6], 3usize),
                (vec![2, 3, 4, 6], 2),
                (vec![1, 2, 6, 3], 3),
                (vec![2, 2, 4, 2, 6], 2),
            ] {
                let out = space_to_depth(&arange(&dims), mode, bs as u64).unwrap();
                assert_eq!(
                    out.to_vec::<i32>().unwrap(),
                    naive_s2d(&dims, mode, bs),
                    "{dims:?} {mode:?} {bs}"
                );
                assert_eq!(out.shape(), space_to_depth_output_shape(&dims, bs as u64).unwrap().as_slice());
                // SpaceToDepth undoes DepthToSpace in the same mode.
                let back = depth_to_space(&out, mode, bs as u64).unwrap();
                assert_eq!(back.to_vec::<i32>().unwrap(), arange(&dims).to_vec::<i32>().unwrap());
            }
        }
    }

    #[test]
    fn openvinos_reference_values() {
        // op_reference depth_to_space_depth_first_2K_BS2.
        let data = Tensor::from_vec(
            &[1, 8, 2, 2],
            vec![
                0i64, 2, 8, 10, 16, 18, 24, 26, 1, 3, 9, 11, 17, 19, 25, 27, 4, 6, 12, 14, 20, 22, 28, 30, 5,
                7, 13, 15, 21, 23, 29, 31,
            ],
        )
        .unwrap();
        let out = depth_to_space(&data, BlockMode::DepthFirst, 2).unwrap();
        assert_eq!(
            out.to_vec::<i64>().unwrap(),
            [
                0, 16, 2, 18, 1, 17, 3, 19, 8, 24, 10, 26, 9, 25, 11, 27, 4, 20, 6, 22, 5, 21, 7, 23, 12, 28,
                14, 30, 13, 29, 15, 31
            ]
        );
        // space_to_depth_block_first_K1_BS3.
        let data = Tensor::from_vec(&[1, 2, 6], vec![0u8, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]).unwrap();
        let out = space_to_depth(&data, BlockMode::BlocksFirst, 3).unwrap();
        assert_eq!(out.shape(), &[1, 6, 2]);
        assert_eq!(out.to_vec::<u8>().unwrap(), (0..12).collect::<Vec<u8>>());
    }

    #[test]
    fn bad_shapes_are_refused_and_empty_ones_run() {
        let data = arange(&[1, 6, 2, 2]);
        assert!(depth_to_space(&data, BlockMode::BlocksFirst, 2).is_err());
        assert!(space_to_depth(&data, BlockMode::BlocksFirst, 3).is_err());
        assert!(depth_to_space(&arange(&[4, 4]), BlockMode::BlocksFirst, 2).is_err());
        assert!(depth_to_space(&data, BlockMode::BlocksFirst, 0).is_err());
        assert!(depth_to_space(&data, BlockMode::BlocksFirst, u64::MAX).is_err());
        let empty = Tensor::zeros(ElementType::F32, &[0, 8, 2, 2]).unwrap();
        assert_eq!(depth_to_space(&empty, BlockMode::DepthFirst, 2).unwrap().shape(), &[0, 2, 4, 4]);
        let empty = Tensor::zeros(ElementType::F32, &[2, 0, 2, 2]).unwrap();
        assert_eq!(depth_to_space(&empty, BlockMode::DepthFirst, 2).unwrap().shape(), &[2, 0, 4, 4]);
        assert_eq!(space_to_depth(&empty, BlockMode::DepthFirst, 2).unwrap().shape(), &[2, 0, 1, 1]);
    }

    #[test]
    fn strings_packed_codes_and_threads_move_alike() {
        let words: Vec<String> = (0..8).map(|i| format!("w{i}")).collect();
        let data = Tensor::from_strings(&[1, 4, 1, 2], words).unwrap();
        let out = depth_to_space(&data, BlockMode::BlocksFirst, 2).unwrap();
        let want: Vec<String> =
            naive_d2s(&[1, 4, 1, 2], BlockMode::BlocksFirst, 2).iter().map(|i| format!("w{i}")).collect();
        assert_eq!(out.strings().unwrap(), want.as_slice());

        let codes = Tensor::from_vec(&[1, 2, 2, 4], (0..16i64).collect::<Vec<_>>()).unwrap();
        let data = crate::kernels::convert(&codes, ElementType::U4).unwrap();
        let out = space_to_depth(&data, BlockMode::DepthFirst, 2).unwrap();
        let back = crate::kernels::convert(&out, ElementType::I64).unwrap();
        let want: Vec<i64> =
            naive_s2d(&[1, 2, 2, 4], BlockMode::DepthFirst, 2).into_iter().map(i64::from).collect();
        assert_eq!(back.to_vec::<i64>().unwrap(), want);

        // A pixel shuffle of 64 rows on three threads, twice on one scratch.
        let dims = [2usize, 12, 32, 16];
        let data = arange(&dims);
        let mut out = Tensor::zeros(ElementType::I32, &[2, 3, 64, 32]).unwrap();
        let options = ExecOptions { threads: 3, min_bytes_per_thread: 1 };
        let mut scratch = DepthToSpaceScratch::new();
        for _ in 0..2 {
            depth_to_space_into(&data, BlockMode::DepthFirst, 2, &mut out, &options, &mut scratch).unwrap();
            assert_eq!(out.to_vec::<i32>().unwrap(), naive_d2s(&dims, BlockMode::DepthFirst, 2));
        }
        let mut out = Tensor::zeros(ElementType::I32, &[2, 48, 16, 8]).unwrap();
        space_to_depth_into(&data, BlockMode::BlocksFirst, 2, &mut out, &options, &mut scratch).unwrap();
        assert_eq!(out.to_vec::<i32>().unwrap(), naive_s2d(&dims, BlockMode::BlocksFirst, 2));
    }
}
