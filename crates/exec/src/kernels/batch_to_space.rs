//! BatchToSpace and SpaceToBatch: blocks of the batch moved into the
//! spatial axes and cropped, and the spatial axes padded and moved into
//! the batch.
//!
//! Data `[B, D1..DN]` with blocks `b1..bN` has its batch index made of the
//! block offsets `i1..iN`, outermost first, then the batch `B / Πb` that
//! is left. BatchToSpace writes output axis `k` as `Dk` blocks of `bk`
//! elements, element `x` reading data row `x / bk` of batch block `x %
//! bk`: one strided view of the data, whose crops are a source offset and
//! shorter counts (a table of offsets when they cut a block). SpaceToBatch
//! writes output image `(i1..iN, n)`, element `y` of axis `k` reading
//! `y * bk + ik - pads_begin[k]`, or zero in the pads: the spatial axes
//! split where the pads begin and end into boxes that are, for each
//! image, either all data (a strided walk) or all pads (zeros).

use ovir_shape::ops::batch_to_space::block_batch_shape_into;
use ovir_tensor::Tensor;
use smallvec::SmallVec;

use super::integers::{read_ints, SmallInts, Wide};
use super::moves::{Dim, KeptView, Moves, Piece, Step, View, ZERO};
use super::{ExecOptions, KernelError};

/// The block, and the crops or the pads, of a BatchToSpace (`to_batch`
/// false) or SpaceToBatch, as read and checked for one data shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BlockBatch {
    to_batch: bool,
    block: SmallInts,
    begin: SmallInts,
    end: SmallInts,
}

/// The op's name.
pub(crate) fn op_name(to_batch: bool) -> &'static str {
    if to_batch {
        "SpaceToBatch"
    } else {
        "BatchToSpace"
    }
}

impl BlockBatch {
    /// Reads and checks block, crops or pads for data of shape `shape` as
    /// the shape rules check them (and a block of 1 on the batch, as the
    /// spec asks), and gives the output shape.
    pub(crate) fn read(
        to_batch: bool,
        shape: &[usize],
        block: &Tensor,
        begin: &Tensor,
        end: &Tensor,
    ) -> Result<(BlockBatch, SmallVec<[usize; 8]>), KernelError> {
        let op = op_name(to_batch);
        let mut out: SmallVec<[usize; 8]> = smallvec::smallvec![0; shape.len()];
        block_batch_shape_into(op, to_batch, shape, block, begin, end, &mut out)?;
        let read = |t: &Tensor| {
            read_ints(t, Wide::Saturate)
                .ok_or(KernelError::Internal { op, what: "checked values are unreadable" })
        };
        let params = BlockBatch { to_batch, block: read(block)?, begin: read(begin)?, end: read(end)? };
        match params.block.first() {
            Some(1) => Ok((params, out)),
            Some(&value) => Err(KernelError::BatchBlock { op, value }),
            None => Err(KernelError::Internal { op, what: "a checked block has no values" }),
        }
    }

    fn op(&self) -> &'static str {
        op_name(self.to_batch)
    }

    /// Whether the output is the data itself: blocks of 1, nothing
    /// cropped or padded.
    pub(crate) fn moves_nothing(&self) -> bool {
        self.block.iter().all(|&b| b == 1) && self.begin.iter().chain(&self.end).all(|&v| v == 0)
    }

    /// The copy the op makes of data of shape `shape` into an output of
    /// shape `out` (what [`BlockBatch::read`] gave).
    pub(crate) fn layout(&self, shape: &[usize], out: &[usize]) -> Result<View, KernelError> {
        let op = self.op();
        if out.contains(&0) || shape.contains(&0) && !self.to_batch {
            return View::new(op, shape, out.to_vec(), 0, &[]);
        }
        let overflow = KernelError::Internal { op, what: "an offset overflows" };
        let int = |v: usize| isize::try_from(v).map_err(|_| overflow.clone());
        let mut strides: SmallVec<[isize; 8]> = smallvec::smallvec![0; shape.len()];
        let mut stride = 1isize;
        for (s, &d) in strides.iter_mut().zip(shape).rev() {
            *s = stride;
            stride = stride.checked_mul(int(d)?).ok_or(overflow.clone())?;
        }
        // `read` checked every value: blocks 1 or more, crops and pads 0
        // or more, and sizes that fit.
        let value =
            |v: &SmallInts, k: usize| v.get(k).and_then(|&v| isize::try_from(v).ok()).ok_or(overflow.clone());
        let moves = if self.to_batch {
            self.padded(shape, out, &strides, &value)?
        } else {
            self.cropped(out, &strides, &value)?
        };
        View::from_moves(op, shape, out.to_vec(), moves)
    }

    /// BatchToSpace: output axis `k` walks data axis `k` and the batch
    /// block `k` in turn, from the first element the crops leave.
    fn cropped(
        &self,
        out: &[usize],
        strides: &[isize],
        value: &dyn Fn(&SmallInts, usize) -> Result<isize, KernelError>,
    ) -> Result<Moves, KernelError> {
        let op = self.op();
        let overflow = KernelError::Internal { op, what: "an offset overflows" };
        let (mut moves, mut src) = (Moves::default(), 0isize);
        let batch = *out.first().ok_or(overflow.clone())?;
        let mut axes: SmallVec<[(usize, Step); 16]> = SmallVec::new();
        axes.push((batch, Step::Stride(strides[0])));
        // Batch block k moves by the batch left times the blocks after it.
        let mut block_strides: SmallVec<[isize; 8]> = smallvec::smallvec![0; out.len()];
        let mut step = strides[0].checked_mul(isize::try_from(batch).map_err(|_| overflow.clone())?);
        for k in (1..out.len()).rev() {
            block_strides[k] = step.ok_or(overflow.clone())?;
            step = step.and_then(|s| s.checked_mul(value(&self.block, k).ok()?));
        }
        for (k, &len) in out.iter().enumerate().skip(1) {
            let (b, crop, s, bs) =
                (value(&self.block, k)?, value(&self.begin, k)?, strides[k], block_strides[k]);
            let ylen = isize::try_from(len).map_err(|_| overflow.clone())?;
            if b == 1 {
                axes.push((len, Step::Stride(s)));
                src = crop.checked_mul(s).and_then(|o| src.checked_add(o)).ok_or(overflow.clone())?;
            } else if crop % b == 0 && ylen % b == 0 {
                axes.push(((ylen / b) as usize, Step::Stride(s)));
                axes.push((b as usize, Step::Stride(bs)));
                src = (crop / b).checked_mul(s).and_then(|o| src.checked_add(o)).ok_or(overflow.clone())?;
            } else {
                let past = crop.checked_add(ylen).ok_or(overflow.clone())?;
                let offsets = (crop..past).map(|x| (x / b) * s + (x % b) * bs);
                let (step, shift) = moves.table(op, offsets)?;
                axes.push((len, step));
                src = src.checked_add(shift).ok_or(overflow.clone())?;
            }
        }
        moves.dense(src, &axes);
        Ok(moves)
    }

    /// SpaceToBatch: one unit per output image; each box of the spatial
    /// axes between the points where some block offset's data begins or
    /// ends is one piece, read for the images whose block offsets see data
    /// there and zero for the others.
    fn padded(
        &self,
        shape: &[usize],
        out: &[usize],
        strides: &[isize],
        value: &dyn Fn(&SmallInts, usize) -> Result<isize, KernelError>,
    ) -> Result<Moves, KernelError> {
        let op = self.op();
        let overflow = KernelError::Internal { op, what: "an offset overflows" };
        let rank = shape.len();
        let images = *out.first().ok_or(overflow.clone())?;
        let unit = ovir_tensor::element_count(&out[1..]).ok_or(overflow.clone())?;
        let mut moves = Moves::new(images, unit);
        // Per spatial axis: where each segment begins and ends, and the
        // output stride of the axis.
        let mut cuts: SmallVec<[SmallVec<[usize; 6]>; 8]> = SmallVec::new();
        let mut out_strides: SmallVec<[usize; 8]> = smallvec::smallvec![0; rank];
        let mut step = 1usize;
        for k in (1..rank).rev() {
            out_strides[k] = step;
            step = step.checked_mul(out[k]).ok_or(overflow.clone())?;
        }
        for k in 1..rank {
            // Pads may be far larger than the data: wide integers.
            let (b, pad) = (i128::from(self.block[k]), i128::from(self.begin[k]));
            let (d, len) = (shape[k] as i128, out[k]);
            // Offset i sees data at y in [first(i), past(i)); both fall as
            // i grows, by at most one over the block.
            let clamp = |v: i128| usize::try_from(v.max(0)).map_or(len, |v| v.min(len));
            let first = |i: i128| clamp(ceil_div(pad - i, b));
            let past = |i: i128| clamp(ceil_div(pad + d - i, b));
            let mut at: SmallVec<[usize; 6]> = [0, first(b - 1), first(0), past(b - 1), past(0), len].into();
            at.sort_unstable();
            at.dedup();
            cuts.push(at);
        }
        // Every box: one segment of each axis, counted like digits.
        let mut pick: SmallVec<[usize; 8]> = smallvec::smallvec![0; rank - 1];
        loop {
            let segment = |k: usize| {
                let at = &cuts[k - 1];
                (at[pick[k - 1]], at[pick[k - 1] + 1])
            };
            let mut dims: SmallVec<[Dim; 4]> = SmallVec::new();
            let mut dst = 0usize;
            for k in 1..rank {
                let (y0, y1) = segment(k);
                let src = match y1 - y0 {
                    1 => 1,
                    _ => value(&self.block, k)?.checked_mul(strides[k]).ok_or(overflow.clone())?,
                };
                dims.push(Dim::strided(y1 - y0, src, out_strides[k]));
                dst += y0 * out_strides[k];
            }
            // The images: block offsets outermost (the first axis's
            // outermost of all), then the data's batch.
            let batch = shape[0];
            let offsets = (0..images).map(|image| {
                let mut rest = image / batch.max(1);
                let mut offset = (image % batch.max(1)) as isize * strides[0];
                for k in (1..rank).rev() {
                    let b = self.block[k] as usize;
                    let i = rest % b;
                    rest /= b;
                    let (y0, y1) = segment(k);
                    // The box holds data for this offset or none of it.
                    let wide = |v: usize| v as i128;
                    let b = wide(b);
                    let x0 = wide(y0) * b + wide(i) - i128::from(self.begin[k]);
                    let last = x0 + wide(y1 - y0 - 1) * b;
                    if x0 < 0 || last >= wide(shape[k]) {
                        return ZERO;
                    }
                    // Inside the data: the offset fits.
                    offset += x0 as isize * strides[k];
                }
                offset
            });
            let (outer, shift) = moves.table(op, offsets)?;
            moves.push(Piece { input: 0, src: shift, dst, outer, dims });
            // The next box.
            let mut k = rank - 1;
            loop {
                if k == 0 {
                    return Ok(moves);
                }
                pick[k - 1] += 1;
                if pick[k - 1] + 1 < cuts[k - 1].len() {
                    break;
                }
                pick[k - 1] = 0;
                k -= 1;
            }
        }
    }

    fn run(&self, data: &Tensor, out: &[usize]) -> Result<Tensor, KernelError> {
        let view = self.layout(data.shape(), out)?;
        let mut out = Tensor::zeros(data.element_type(), view.shape())?;
        view.run(data, &mut out, &ExecOptions::single_thread())?;
        Ok(out)
    }
}

/// `a / b` rounded up, for `b` of 1 or more.
fn ceil_div(a: i128, b: i128) -> i128 {
    a.div_euclid(b) + i128::from(a.rem_euclid(b) != 0)
}

/// What [`batch_to_space_into`] and [`space_to_batch_into`] keep between
/// calls: the copy worked out for the last data shape, block and crops or
/// pads, so that running it again on the same ones allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct BatchToSpaceScratch {
    last: KeptView<BlockBatch>,
}

impl BatchToSpaceScratch {
    /// An empty scratch.
    pub fn new() -> BatchToSpaceScratch {
        BatchToSpaceScratch::default()
    }
}

fn run_into(
    to_batch: bool,
    [data, block, begin, end]: [&Tensor; 4],
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut BatchToSpaceScratch,
) -> Result<(), KernelError> {
    let (params, shape) = BlockBatch::read(to_batch, data.shape(), block, begin, end)?;
    let view = scratch.last.get(params.clone(), data.shape(), || params.layout(data.shape(), &shape))?;
    view.run(data, out, options)
}

/// The output shape of [`batch_to_space`] for these inputs.
pub fn batch_to_space_output_shape(
    data_shape: &[usize],
    block_shape: &Tensor,
    crops_begin: &Tensor,
    crops_end: &Tensor,
) -> Result<Vec<usize>, KernelError> {
    Ok(BlockBatch::read(false, data_shape, block_shape, crops_begin, crops_end)?.1.to_vec())
}

/// The output shape of [`space_to_batch`] for these inputs.
pub fn space_to_batch_output_shape(
    data_shape: &[usize],
    block_shape: &Tensor,
    pads_begin: &Tensor,
    pads_end: &Tensor,
) -> Result<Vec<usize>, KernelError> {
    Ok(BlockBatch::read(true, data_shape, block_shape, pads_begin, pads_end)?.1.to_vec())
}

/// BatchToSpace-2: the batch of data `[B, D1..DN]` split into blocks of
/// `block_shape` (one integer per axis, 1 on the batch) that move into the
/// spatial axes, each then cropped by `crops_begin` and `crops_end`:
/// `[B / Πb, D1 * b1 - crops1, ..]`.
///
/// ```
/// use ovir_exec::kernels::batch_to_space;
/// use ovir_tensor::Tensor;
/// let ints = |v: [i64; 2]| Tensor::from_vec(&[2], v.to_vec());
/// // Two batches of three become one row of six, interleaved.
/// let data = Tensor::from_vec(&[2, 3], vec![1i32, 2, 3, 4, 5, 6])?;
/// let out = batch_to_space(&data, &ints([1, 2])?, &ints([0, 1])?, &ints([0, 0])?)?;
/// assert_eq!(out.shape(), &[1, 5]);
/// assert_eq!(out.to_vec::<i32>()?, vec![4, 2, 5, 3, 6]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn batch_to_space(
    data: &Tensor,
    block_shape: &Tensor,
    crops_begin: &Tensor,
    crops_end: &Tensor,
) -> Result<Tensor, KernelError> {
    let (params, shape) = BlockBatch::read(false, data.shape(), block_shape, crops_begin, crops_end)?;
    params.run(data, &shape)
}

/// [`batch_to_space`] into an output of the right type and shape, on
/// several threads when it is large, keeping the copy it works out in
/// `scratch`.
pub fn batch_to_space_into(
    data: &Tensor,
    block_shape: &Tensor,
    crops_begin: &Tensor,
    crops_end: &Tensor,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut BatchToSpaceScratch,
) -> Result<(), KernelError> {
    run_into(false, [data, block_shape, crops_begin, crops_end], out, options, scratch)
}

/// SpaceToBatch-2: each spatial axis of data `[B, D1..DN]` padded with
/// zeros by `pads_begin` and `pads_end` and split into blocks of
/// `block_shape` (one integer per axis, 1 on the batch), whose offsets
/// move into the batch: `[B * Πb, (D1 + pads1) / b1, ..]`.
///
/// ```
/// use ovir_exec::kernels::space_to_batch;
/// use ovir_tensor::Tensor;
/// let ints = |v: [i64; 2]| Tensor::from_vec(&[2], v.to_vec());
/// // A row of five, padded by one in front, as two rows of three.
/// let data = Tensor::from_vec(&[1, 5], vec![1i32, 2, 3, 4, 5])?;
/// let out = space_to_batch(&data, &ints([1, 2])?, &ints([0, 1])?, &ints([0, 0])?)?;
/// assert_eq!(out.shape(), &[2, 3]);
/// assert_eq!(out.to_vec::<i32>()?, vec![0, 2, 4, 1, 3, 5]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn space_to_batch(
    data: &Tensor,
    block_shape: &Tensor,
    pads_begin: &Tensor,
    pads_end: &Tensor,
) -> Result<Tensor, KernelError> {
    let (params, shape) = BlockBatch::read(true, data.shape(), block_shape, pads_begin, pads_end)?;
    params.run(data, &shape)
}

/// [`space_to_batch`] into an output of the right type and shape, on
/// several threads when it is large, keeping the copy it works out in
/// `scratch`.
pub fn space_to_batch_into(
    data: &Tensor,
    block_shape: &Tensor,
    pads_begin: &Tensor,
    pads_end: &Tensor,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut BatchToSpaceScratch,
) -> Result<(), KernelError> {
    run_into(true, [data, block_shape, pads_begin, pads_end], out, options, scratch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ovir_tensor::ElementType;

    fn ints(v: &[i64]) -> Tensor {
        Tensor::from_vec(&[v.len()], v.to_vec()).unwrap()
    }

    fn arange(dims: &[usize]) -> Tensor {
        let n: usize = dims.iter().product();
        Tensor::from_vec(dims, (0..n as i32).collect::<Vec<_>>()).unwrap()
    }

    fn unflat(mut f: usize, dims: &[usize]) -> Vec<usize> {
        let mut index = vec![0; dims.len()];
        for a in (0..dims.len()).rev() {
            index[a] = f % dims[a];
            f /= dims[a];
        }
        index
    }

    fn flat(index: &[usize], dims: &[usize]) -> usize {
        index.iter().zip(dims).fold(0, |acc, (&i, &d)| acc * d + i)
    }

    /// BatchToSpace of `np.arange` data from the spec, element by element:
    /// out[n, y1..] with x = y + crop, reads batch (x % b blocks, outermost
    /// first) * B' + n at x / b.
    fn naive_b2s(dims: &[usize], block: &[usize], crops: &[usize], out: &[usize]) -> Vec<i32> {
        let total: usize = out.iter().product();
        let blocks = &block[1..];
        (0..total)
            .map(|f| {
                let o = unflat(f, out);
                let mut src = vec![0; dims.len()];
                let mut offsets = vec![];
                for k in 1..dims.len() {
                    let x = o[k] + crops[k];
                    src[k] = x / block[k];
                    offsets.push(x % block[k]);
                }
                src[0] = flat(&offsets, blocks) * out[0] + o[0];
                flat(&src, dims) as i32
            })
            .collect()
    }

    /// SpaceToBatch from the spec: out[(i1..iN) * B + n, y1..] reads data
    /// [n, y * b + i - pad] or is 0 in the pads (data values are shifted
    /// by one so that 0 means a pad).
    fn naive_s2b(dims: &[usize], block: &[usize], pads: &[usize], out: &[usize]) -> Vec<i32> {
        let total: usize = out.iter().product();
        (0..total)
            .map(|f| {
                let o = unflat(f, out);
                let offsets = unflat(o[0] / dims[0], &block[1..]);
                let mut src = vec![o[0] % dims[0]];
                for k in 1..dims.len() {
                    let x = (o[k] * block[k] + offsets[k - 1]) as isize - pads[k] as isize;
                    if x < 0 || x >= dims[k] as isize {
                        return 0;
                    }
                    src.push(x as usize);
                }
                flat(&src, dims) as i32 + 1
            })
            .collect()
    }

    #[test]
    fn batch_to_space_matches_the_definition() {
        for (dims, block, begin, end) in [
            (vec![4usize, 3], vec![1i64, 2], vec![0i64, 0], vec![0i64, 0]),
            (vec![4, 1, 2, 3], vec![1, 1, 2, 2], vec![0, 0, 1, 0], vec![0, 0, 1, 0]),
            (vec![4, 1, 2, 3], vec![1, 1, 2, 2], vec![0, 0, 0, 2], vec![0, 0, 0, 0]),
            (vec![12, 2, 3, 4], vec![1, 1, 3, 2], vec![0, 1, 1, 1], vec![0, 0, 2, 3]),
            (vec![16, 3, 4, 5], vec![1, 1, 2, 4], vec![0, 0, 1, 0], vec![0, 0, 0, 3]),
            (vec![8, 2, 3, 2], vec![1, 2, 2, 2], vec![0, 0, 2, 0], vec![0, 1, 0, 2]),
            (vec![6, 2, 5], vec![1, 1, 1], vec![0, 1, 2], vec![0, 0, 1]),
        ] {
            let data = arange(&dims);
            let out = batch_to_space(&data, &ints(&block), &ints(&begin), &ints(&end)).unwrap();
            let b: Vec<usize> = block.iter().map(|&v| v as usize).collect();
            let c: Vec<usize> = begin.iter().map(|&v| v as usize).collect();
            assert_eq!(
                out.to_vec::<i32>().unwrap(),
                naive_b2s(&dims, &b, &c, out.shape()),
                "{dims:?} {block:?}"
            );
        }
    }

    #[test]
    fn space_to_batch_matches_the_definition() {
        for (dims, block, begin, end) in [
            (vec![1usize, 5], vec![1i64, 2], vec![0i64, 1], vec![0i64, 0]),
            (vec![1, 1, 3, 2, 1], vec![1, 1, 3, 2, 2], vec![0, 0, 1, 0, 3], vec![0, 0, 2, 0, 0]),
            (vec![2, 3, 4, 5], vec![1, 1, 2, 4], vec![0, 0, 0, 1], vec![0, 0, 0, 2]),
            (vec![2, 2, 5, 7], vec![1, 2, 3, 2], vec![0, 1, 2, 0], vec![0, 1, 2, 1]),
            (vec![1, 1, 4, 4], vec![1, 1, 1, 1], vec![0, 0, 1, 0], vec![0, 0, 0, 0]),
            (vec![3, 1, 1], vec![1, 1, 4], vec![0, 0, 5], vec![0, 0, 2]),
            (vec![2, 0, 3], vec![1, 1, 2], vec![0, 1, 1], vec![0, 1, 0]),
        ] {
            let n: usize = dims.iter().product();
            let data = Tensor::from_vec(&dims, (1..=n as i32).collect::<Vec<_>>()).unwrap();
            let out = space_to_batch(&data, &ints(&block), &ints(&begin), &ints(&end)).unwrap();
            let b: Vec<usize> = block.iter().map(|&v| v as usize).collect();
            let p: Vec<usize> = begin.iter().map(|&v| v as usize).collect();
            assert_eq!(
                out.to_vec::<i32>().unwrap(),
                naive_s2b(&dims, &b, &p, out.shape()),
                "{dims:?} {block:?}"
            );
            // BatchToSpace with the pads as crops undoes it.
            let back = batch_to_space(&out, &ints(&block), &ints(&begin), &ints(&end)).unwrap();
            assert_eq!(back.to_vec::<i32>().unwrap(), data.to_vec::<i32>().unwrap());
        }
    }

    #[test]
    fn bad_parameters_are_refused() {
        let data = arange(&[4, 3]);
        assert!(batch_to_space(&data, &ints(&[1, 3]), &ints(&[0, 0]), &ints(&[0, 0])).is_err());
        assert!(batch_to_space(&data, &ints(&[1, 2]), &ints(&[0, 4]), &ints(&[0, 3])).is_err());
        assert!(batch_to_space(&data, &ints(&[1, 2]), &ints(&[0, -1]), &ints(&[0, 0])).is_err());
        assert!(batch_to_space(&data, &ints(&[1, 0]), &ints(&[0, 0]), &ints(&[0, 0])).is_err());
        assert!(batch_to_space(&data, &ints(&[1, 2, 1]), &ints(&[0, 0, 0]), &ints(&[0, 0, 0])).is_err());
        assert!(matches!(
            batch_to_space(&data, &ints(&[2, 1]), &ints(&[0, 0]), &ints(&[0, 0])),
            Err(KernelError::BatchBlock { value: 2, .. })
        ));
        assert!(space_to_batch(&data, &ints(&[1, 2]), &ints(&[0, 0]), &ints(&[0, 0])).is_err());
        assert!(space_to_batch(&data, &ints(&[1, 2]), &ints(&[0, -1]), &ints(&[0, 2])).is_err());
        assert!(
            space_to_batch(&data, &ints(&[1, i64::MAX]), &ints(&[0, i64::MAX - 3]), &ints(&[0, 0])).is_err()
        );
        // Pads past the i64 range once the data is added: an output of
        // 2^63 + 1 elements, refused when it is allocated, not before.
        let data = arange(&[1, 1, 3]);
        let huge = space_to_batch(&data, &ints(&[1, 1, 3]), &ints(&[0, 0, i64::MAX - 1]), &ints(&[0, 0, 0]));
        assert!(matches!(huge, Err(KernelError::Tensor(_))), "{huge:?}");
    }

    #[test]
    fn strings_packed_codes_and_threads_move_alike() {
        let words: Vec<String> = (0..6).map(|i| format!("w{i}")).collect();
        let data = Tensor::from_strings(&[1, 6], words).unwrap();
        let out = space_to_batch(&data, &ints(&[1, 2]), &ints(&[0, 1]), &ints(&[0, 1])).unwrap();
        assert_eq!(out.strings().unwrap(), ["", "w1", "w3", "w5", "w0", "w2", "w4", ""]);
        let back = batch_to_space(&out, &ints(&[1, 2]), &ints(&[0, 1]), &ints(&[0, 1])).unwrap();
        assert_eq!(back.strings().unwrap(), data.strings().unwrap());
        let codes = Tensor::from_vec(&[2, 3], (1..7i64).collect::<Vec<_>>()).unwrap();
        let data = crate::kernels::convert(&codes, ElementType::U4).unwrap();
        let out = space_to_batch(&data, &ints(&[1, 2]), &ints(&[0, 0]), &ints(&[0, 1])).unwrap();
        let back = crate::kernels::convert(&out, ElementType::I64).unwrap();
        assert_eq!(back.to_vec::<i64>().unwrap(), [1, 3, 4, 6, 2, 0, 5, 0]);
        let dims = [2usize, 3, 40, 30];
        let n: usize = dims.iter().product();
        let data = Tensor::from_vec(&dims, (1..=n as i32).collect::<Vec<_>>()).unwrap();
        let (block, begin, end) = (ints(&[1, 1, 2, 4]), ints(&[0, 0, 1, 3]), ints(&[0, 0, 1, 3]));
        let mut out = Tensor::zeros(ElementType::I32, &[16, 3, 21, 9]).unwrap();
        let options = ExecOptions { threads: 3, min_bytes_per_thread: 1 };
        let mut scratch = BatchToSpaceScratch::new();
        for _ in 0..2 {
            space_to_batch_into(&data, &block, &begin, &end, &mut out, &options, &mut scratch).unwrap();
            assert_eq!(
                out.to_vec::<i32>().unwrap(),
                naive_s2b(&dims, &[1, 1, 2, 4], &[0, 0, 1, 3], &[16, 3, 21, 9])
            );
        }
    }
}
