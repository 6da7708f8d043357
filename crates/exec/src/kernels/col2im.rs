//! Col2Im: an image put together from its sliding blocks, the values that
//! overlap added up.
//!
//! Column `(c * kh_n + kh) * kw_n + kw` of the data holds, for every block
//! `(r, q)`, the pixel of channel `c` at row `r * stride_h - pad_top + kh *
//! dilation_h` and column `q * stride_w - pad_left + kw * dilation_w`, when
//! that lies inside the image. Each output plane starts at zero and takes
//! its columns in order, kernel offset by kernel offset, each row of blocks
//! added along one strided row of the plane: so every pixel adds its
//! values in the order of the data, as OpenVINO's reference adds them, in
//! the element type ([`reduce::add_in_type`](super::reduce)): integers
//! wrap, booleans OR, `f16`, `bf16` and the 8-bit floats round after each
//! addition.

use ovir_shape::ops::{Col2Im, Col2ImSizes};
use ovir_tensor::Tensor;
use smallvec::SmallVec;

use super::checks::check_output;
use super::extract_image_patches::Axis;
use super::parallel::for_each_costly_chunk;
use super::reduce::{add_in_type, Adder};
use super::{ExecOptions, KernelError};

const OP: &str = "Col2Im";

/// One Col2Im's geometry in elements: what its kernel walks, worked out
/// once for a data shape and sizes (at compile time when they are known
/// then).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// `N * C`: the output planes, one per batch and channel.
    planes: usize,
    /// `[kh, kw]`.
    kernel: [usize; 2],
    /// `[H, W]`.
    image: [usize; 2],
    /// The blocks along the rows and columns.
    blocks: [usize; 2],
    strides: [usize; 2],
    dilations: [usize; 2],
    pads: [usize; 2],
    /// The output shape, `[N, C, H, W]` or `[C, H, W]`.
    shape: [usize; 4],
    rank: usize,
    /// The data shape it was worked out for.
    data: [usize; 3],
}

impl Layout {
    /// The layout of `op` for sizes its rules gave for data of shape
    /// `data`.
    fn new(op: &Col2Im, sizes: &Col2ImSizes, data: &[usize]) -> Result<Layout, KernelError> {
        let too_large = KernelError::Shape(ovir_shape::ShapeErrorKind::SizeOverflow { op: OP, axis: 0 });
        let size = |v: u64| usize::try_from(v).map_err(|_| too_large.clone());
        let pair = |v: [u64; 2]| Ok::<_, KernelError>([size(v[0])?, size(v[1])?]);
        let mut shape = [0; 4];
        let mut rank = 0;
        for d in sizes.output_shape() {
            shape[rank] = size(d)?;
            rank += 1;
        }
        if ovir_tensor::element_count(&shape[..rank]).is_none() {
            return Err(too_large);
        }
        Ok(Layout {
            planes: size(sizes.batch)?.checked_mul(size(sizes.channels)?).ok_or(too_large.clone())?,
            kernel: pair(sizes.kernel)?,
            image: pair(sizes.output)?,
            blocks: pair(sizes.blocks)?,
            strides: pair(op.strides)?,
            dilations: pair(op.dilations)?,
            pads: pair(op.pads_begin)?,
            shape,
            rank,
            data: match *data {
                [n, c, l] => [n, c, l],
                [c, l] => [1, c, l],
                _ => return Err(KernelError::Internal { op: OP, what: "the data is neither 2-D nor 3-D" }),
            },
        })
    }

    /// The layout for data of shape `data` and these sizes, checked.
    pub(crate) fn of(
        op: &Col2Im,
        data: &[usize],
        output_size: &Tensor,
        kernel_size: &Tensor,
    ) -> Result<Layout, KernelError> {
        Layout::new(op, &op.sizes(data, output_size, kernel_size)?, data)
    }

    /// The output shape.
    pub(crate) fn shape(&self) -> &[usize] {
        &self.shape[..self.rank]
    }

    /// The data shape the layout was worked out for.
    pub(crate) fn data_shape(&self) -> &[usize] {
        // Unbatched data has an output of rank 3, and no batch axis.
        &self.data[4 - self.rank..]
    }

    /// Spatial axis `k` (0 rows, 1 columns), for finding the blocks each
    /// kernel offset puts inside the image.
    fn axis(&self, k: usize) -> Axis {
        Axis {
            len: self.image[k] as i128,
            out: self.blocks[k],
            pad: self.pads[k] as i128,
            stride: self.strides[k] as i128,
            rate: self.dilations[k] as i128,
            size: self.kernel[k],
        }
    }

    /// Adds the data into `planes` (whole output planes, from plane
    /// `first` on), zeroed first, with `add`.
    fn add_into<T: bytemuck::Pod, A: Fn(T, T) -> T>(
        &self,
        data: &[T],
        planes: &mut [T],
        first: usize,
        add: A,
    ) -> Option<()> {
        planes.fill(T::zeroed());
        let [h, w] = self.image;
        let (area, column) = (h * w, self.blocks[0] * self.blocks[1]);
        if area == 0 || column == 0 {
            // No pixel, or no block: the zeros are the output.
            return Some(());
        }
        let (rows, cols) = (self.axis(0), self.axis(1));
        let [kh_n, kw_n] = self.kernel;
        let sw = self.strides[1];
        for (p, plane) in planes.chunks_exact_mut(area).enumerate() {
            // The plane's columns follow one another in the data.
            let columns = (first + p).checked_mul(kh_n * kw_n)?;
            for kh in 0..kh_n {
                let (r0, r1) = rows.inside(kh);
                for kw in 0..kw_n {
                    let (q0, q1) = cols.inside(kw);
                    if r0 >= r1 || q0 >= q1 {
                        continue;
                    }
                    let at = (columns + kh * kw_n + kw).checked_mul(column)?;
                    let blocks = data.get(at..at.checked_add(column)?)?;
                    let x0 = usize::try_from(cols.at(q0, kw)).ok()?;
                    for r in r0..r1 {
                        let y = usize::try_from(rows.at(r, kh)).ok()?;
                        let src = blocks.get(r * self.blocks[1] + q0..r * self.blocks[1] + q1)?;
                        let dst = plane.get_mut(y * w + x0..)?;
                        if sw == 1 {
                            for (d, &s) in dst.iter_mut().zip(src) {
                                *d = add(*d, s);
                            }
                        } else {
                            for (d, &s) in dst.iter_mut().step_by(sw).zip(src) {
                                *d = add(*d, s);
                            }
                        }
                    }
                }
            }
        }
        Some(())
    }

    /// Runs the layout: `data` into `out`, which has the output's type and
    /// shape, on several threads when it is large (each taking whole
    /// planes).
    pub(crate) fn run(
        &self,
        data: &Tensor,
        out: &mut Tensor,
        options: &ExecOptions,
    ) -> Result<(), KernelError> {
        let ty = data.element_type();
        check_output(OP, ty, self.shape(), out)?;
        let internal = KernelError::Internal { op: OP, what: "the data does not fit its layout" };
        let width = ty.byte_width().ok_or(KernelError::UnsupportedType { op: OP, ty })?;
        let plane_bytes = (self.image[0] * self.image[1]).saturating_mul(width);
        let src = data.bytes().ok_or(KernelError::UnsupportedType { op: OP, ty })?;
        let dst = out.try_bytes_mut()?;
        if dst.is_empty() {
            return Ok(());
        }
        // Each element costs a read, an add and a write where a copy
        // costs a read and a write.
        let cost = 2;
        add_in_type(OP, ty, Run { layout: self, src, dst, plane_bytes, options, cost })?.ok_or(internal)
    }
}

/// One run of a layout, handed to the adder of the element type.
struct Run<'a> {
    layout: &'a Layout,
    src: &'a [u8],
    dst: &'a mut [u8],
    plane_bytes: usize,
    options: &'a ExecOptions,
    cost: usize,
}

impl Adder for Run<'_> {
    type Out = Option<()>;

    fn add<T: bytemuck::Pod + Send + Sync, A: Fn(T, T) -> T + Copy + Send + Sync>(
        self,
        add: A,
    ) -> Option<()> {
        let data: &[T] = bytemuck::try_cast_slice(self.src).ok()?;
        let layout = self.layout;
        for_each_costly_chunk(self.options, self.dst, self.plane_bytes, self.cost, |first, chunk| {
            let planes: &mut [T] = bytemuck::try_cast_slice_mut(chunk).ok()?;
            layout.add_into(data, planes, first, add)
        })
    }
}

/// The output shape of [`col2im`] for data of shape `data` and these
/// sizes.
pub fn col2im_output_shape(
    data: &[usize],
    output_size: &Tensor,
    kernel_size: &Tensor,
    op: &Col2Im,
) -> Result<SmallVec<[usize; 4]>, KernelError> {
    Ok(SmallVec::from_slice(Layout::of(op, data, output_size, kernel_size)?.shape()))
}

/// Col2Im-15: data `[N, C * kh * kw, L]` (or `[C * kh * kw, L]`) of
/// blocks of `kernel_size` put back into an image of `output_size`,
/// `[N, C, H, W]` (or `[C, H, W]`), the values that overlap added up in
/// the order of the data, in the element type. Numbers and booleans only.
///
/// ```
/// use ovir_exec::kernels::col2im;
/// use ovir_shape::ops::Col2Im;
/// use ovir_tensor::Tensor;
///
/// // Four 2 x 2 blocks, one apart, over a 3 x 3 image of one channel: the
/// // middle pixel is in all four, the corners in one each.
/// let data = Tensor::from_vec(&[4, 4], vec![1i32; 16])?;
/// let output_size = Tensor::from_vec(&[2], vec![3i64, 3])?;
/// let kernel_size = Tensor::from_vec(&[2], vec![2i64, 2])?;
/// let image = col2im(&data, &output_size, &kernel_size, &Col2Im::default())?;
/// assert_eq!(image.shape(), &[1, 3, 3]);
/// assert_eq!(image.to_vec::<i32>()?, [1, 2, 1, 2, 4, 2, 1, 2, 1]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn col2im(
    data: &Tensor,
    output_size: &Tensor,
    kernel_size: &Tensor,
    op: &Col2Im,
) -> Result<Tensor, KernelError> {
    let layout = Layout::of(op, data.shape(), output_size, kernel_size)?;
    let mut out = Tensor::zeros(data.element_type(), layout.shape())?;
    layout.run(data, &mut out, &ExecOptions::single_thread())?;
    Ok(out)
}

/// [`col2im`] into an output of its type and shape, on several threads
/// when it is large. It allocates nothing.
pub fn col2im_into(
    data: &Tensor,
    output_size: &Tensor,
    kernel_size: &Tensor,
    op: &Col2Im,
    out: &mut Tensor,
    options: &ExecOptions,
) -> Result<(), KernelError> {
    Layout::of(op, data.shape(), output_size, kernel_size)?.run(data, out, options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::{bf16, f16};
    use ovir_shape::ShapeErrorKind;
    use ovir_tensor::ElementType;

    fn op(strides: [u64; 2], dilations: [u64; 2], pads_begin: [u64; 2], pads_end: [u64; 2]) -> Col2Im {
        Col2Im { strides, dilations, pads_begin, pads_end }
    }

    fn pair(v: [i64; 2]) -> Tensor {
        Tensor::from_vec(&[2], v.to_vec()).unwrap()
    }

    /// The definition, element by element, in i64, as the reference's
    /// loops read it.
    fn naive(data: &[i64], shape: &[usize], out: [usize; 2], k: [usize; 2], op: &Col2Im) -> Vec<i64> {
        let (n, ck, l) = match *shape {
            [n, ck, l] => (n, ck, l),
            [ck, l] => (1, ck, l),
            _ => unreachable!(),
        };
        let c = ck / (k[0] * k[1]);
        let blocks = |a: usize| op.blocks(a, out[a] as u64, k[a] as u64) as usize;
        let (bh, bw) = (blocks(0), blocks(1));
        assert_eq!(bh * bw, l);
        let mut img = vec![0i64; n * c * out[0] * out[1]];
        for b in 0..n {
            for col in 0..ck {
                let (kw, kh, ci) = (col % k[1], (col / k[1]) % k[0], col / (k[0] * k[1]));
                for r in 0..bh {
                    for q in 0..bw {
                        let y = (r * op.strides[0] as usize + kh * op.dilations[0] as usize) as i64
                            - op.pads_begin[0] as i64;
                        let x = (q * op.strides[1] as usize + kw * op.dilations[1] as usize) as i64
                            - op.pads_begin[1] as i64;
                        if (0..out[0] as i64).contains(&y) && (0..out[1] as i64).contains(&x) {
                            let at = ((b * c + ci) * out[0] + y as usize) * out[1] + x as usize;
                            img[at] += data[(b * ck + col) * l + r * bw + q];
                        }
                    }
                }
            }
        }
        img
    }

    #[test]
    fn matches_the_definition_on_every_geometry() {
        let mut checked = 0;
        for (strides, dilations, pads_begin, pads_end) in [
            ([1, 1], [1, 1], [0, 0], [0, 0]),
            ([2, 1], [1, 2], [1, 0], [0, 2]),
            ([2, 3], [2, 1], [2, 1], [1, 2]),
            ([1, 2], [0, 3], [0, 3], [3, 0]),
            ([3, 3], [1, 1], [0, 0], [0, 0]),
        ] {
            let o = op(strides, dilations, pads_begin, pads_end);
            for (out, k, batch) in
                [([5, 6], [2, 3], Some(2)), ([4, 7], [3, 1], None), ([1, 1], [2, 2], Some(1))]
            {
                let blocks = [0, 1].map(|a| o.blocks(a, out[a] as u64, k[a] as u64) as usize);
                let ck = 2 * k[0] * k[1];
                let shape: Vec<usize> = match batch {
                    Some(n) => vec![n, ck, blocks[0] * blocks[1]],
                    None => vec![ck, blocks[0] * blocks[1]],
                };
                let count: usize = shape.iter().product();
                let values: Vec<i64> = (0..count as i64).map(|v| v * 7 % 23 - 5).collect();
                let data = Tensor::from_vec(&shape, values.clone()).unwrap();
                let out_t = pair([out[0] as i64, out[1] as i64]);
                let got = col2im(&data, &out_t, &pair([k[0] as i64, k[1] as i64]), &o).unwrap();
                let want = naive(&values, &shape, out, k, &o);
                assert_eq!(got.to_vec::<i64>().unwrap(), want, "{o:?} {out:?} {k:?} {batch:?}");
                checked += 1;
            }
        }
        assert_eq!(checked, 15);
    }

    // OpenVINO's op_reference/col2im.cpp: data 1, 2, 3, ...
    #[test]
    fn op_reference_values() {
        let run = |shape: &[usize], out: [i64; 2], k: [i64; 2], o: Col2Im| {
            let n: usize = shape.iter().product();
            let data = Tensor::from_vec(shape, (1..=n as i32).collect::<Vec<_>>()).unwrap();
            col2im(&data, &pair(out), &pair(k), &o).unwrap().to_vec::<i32>().unwrap()
        };
        assert_eq!(run(&[3, 4], [2, 2], [1, 1], Col2Im::default()), (1..=12).collect::<Vec<_>>());
        assert_eq!(
            run(&[12, 9], [4, 4], [2, 2], Col2Im::default())[..16],
            [1, 12, 14, 12, 23, 66, 70, 45, 29, 78, 82, 51, 25, 60, 62, 36]
        );
        assert_eq!(
            run(&[12, 25], [4, 4], [2, 2], op([2, 2], [1, 1], [3, 3], [3, 3]))[..8],
            [82, 58, 83, 59, 37, 13, 38, 14]
        );
        assert_eq!(
            run(&[1, 4, 3], [4, 4], [2, 2], op([2, 2], [2, 2], [2, 0], [2, 0])),
            [9, 0, 15, 0, 0, 0, 0, 0, 11, 0, 17, 0, 0, 0, 0, 0]
        );
        assert_eq!(
            run(&[2, 8, 8], [5, 5], [2, 2], op([2, 2], [1, 1], [0, 2], [0, 2]))[..10],
            [2, 10, 3, 11, 4, 18, 26, 19, 27, 20]
        );
    }

    #[test]
    fn sums_follow_the_element_type() {
        let run =
            |data: Tensor| col2im(&data, &pair([1, 1]), &pair([5, 1]), &op([1, 1], [0, 1], [0, 0], [0, 0]));
        // Five kernel offsets, a dilation of 0: all land on one pixel, in
        // the order of the data.
        let sum = |v: Vec<i8>| run(Tensor::from_vec(&[5, 1], v).unwrap()).unwrap().to_vec::<i8>().unwrap();
        assert_eq!(sum(vec![100, 100, 1, 0, 0]), [-55]);
        let t = run(Tensor::from_vec(&[5, 1], vec![u64::MAX, 2, 0, 0, 0]).unwrap()).unwrap();
        assert_eq!(t.to_vec::<u64>().unwrap(), [1]);
        let t = run(Tensor::from_vec(&[5, 1], vec![false, true, false, true, true]).unwrap()).unwrap();
        assert_eq!(t.to_vec::<bool>().unwrap(), [true]);
        // f16 rounds after each addition, as the reference's float16 does:
        // 2048 + 1 is 2048 each time.
        let halves = [2048.0, 1.0, 1.0, 1.0, 1.0].map(f16::from_f32).to_vec();
        let t = run(Tensor::from_vec(&[5, 1], halves).unwrap()).unwrap();
        assert_eq!(t.to_vec::<f16>().unwrap(), [f16::from_f32(2048.0)]);
        // With the ones first, they add up before the large value.
        let halves = [1.0, 1.0, 1.0, 1.0, 2048.0].map(f16::from_f32).to_vec();
        let t = run(Tensor::from_vec(&[5, 1], halves).unwrap()).unwrap();
        assert_eq!(t.to_vec::<f16>().unwrap(), [f16::from_f32(2052.0)]);
        let b = [256.0, 1.0, 1.0, 1.0, 1.0].map(bf16::from_f32).to_vec();
        let t = run(Tensor::from_vec(&[5, 1], b).unwrap()).unwrap();
        assert_eq!(t.to_vec::<bf16>().unwrap(), [bf16::from_f32(256.0)]);
        // f32 adds in f32, in order: 1e8 + 1 + ... stays 1e8.
        let t = run(Tensor::from_vec(&[5, 1], vec![1e8f32, 1.0, 1.0, 1.0, 1.0]).unwrap()).unwrap();
        assert_eq!(t.to_vec::<f32>().unwrap(), [1e8]);
        let t = run(Tensor::from_vec(&[5, 1], vec![1.0f32, 1.0, 1.0, 1.0, 1e8]).unwrap()).unwrap();
        assert_eq!(t.to_vec::<f32>().unwrap(), [1e8 + 4.0]);
        // f8e4m3: 0x38 is 1.0; five of them make 5.0 (0x4A).
        let t = Tensor::from_bytes(ElementType::F8e4m3, &[5, 1], &[0x38; 5]).unwrap();
        assert_eq!(run(t).unwrap().bytes().unwrap(), [0x4A]);
    }

    #[test]
    fn zero_sized_and_blockless_outputs_are_zeros() {
        let d = Col2Im::default();
        // No batch, no channels.
        let data = Tensor::zeros(ElementType::F32, &[0, 4, 9]).unwrap();
        assert_eq!(col2im(&data, &pair([4, 4]), &pair([2, 2]), &d).unwrap().shape(), [0, 1, 4, 4]);
        let data = Tensor::zeros(ElementType::F32, &[0, 9]).unwrap();
        assert_eq!(col2im(&data, &pair([4, 4]), &pair([2, 2]), &d).unwrap().shape(), [0, 4, 4]);
        // A kernel longer than the image: no blocks, an image of zeros.
        let data = Tensor::zeros(ElementType::I32, &[8, 0]).unwrap();
        let out = col2im(&data, &pair([1, 3]), &pair([2, 2]), &d).unwrap();
        assert_eq!(out.to_vec::<i32>().unwrap(), [0, 0, 0, 0, 0, 0]);
        // Rows of padding only.
        let padded = op([1, 1], [1, 1], [1, 0], [1, 0]);
        let data = Tensor::from_vec(&[4, 2], vec![1.0f32; 8]).unwrap();
        assert_eq!(col2im(&data, &pair([0, 3]), &pair([2, 2]), &padded).unwrap().shape(), [1, 0, 3]);
        // A huge empty data tensor with a huge kernel finishes at once.
        let data = Tensor::zeros(ElementType::F32, &[1 << 40, 0]).unwrap();
        let out = col2im(&data, &pair([2, 2]), &pair([1 << 20, 1 << 20]), &d).unwrap();
        assert_eq!(out.shape(), [1, 2, 2]);
    }

    #[test]
    fn bad_sizes_are_errors() {
        let d = Col2Im::default();
        let data = Tensor::zeros(ElementType::F32, &[4, 4]).unwrap();
        assert_eq!(
            col2im(&data, &pair([3, 3]), &pair([2, 3]), &d),
            Err(KernelError::Shape(ShapeErrorKind::BlockDivide {
                op: OP,
                axis: 0,
                dim: ovir_tensor::Dim::fixed(4),
                divisor: 6
            }))
        );
        assert_eq!(
            col2im(&data, &pair([3, 4]), &pair([2, 2]), &d),
            Err(KernelError::Shape(ShapeErrorKind::Col2ImBlocks { blocks: [2, 3], found: 4 }))
        );
        // An image of more elements than memory can count is refused
        // before anything is allocated (one block fits each axis).
        let far = op([1 << 40, 1 << 40], [1, 1], [0, 0], [0, 0]);
        let data = Tensor::zeros(ElementType::F32, &[1, 1]).unwrap();
        assert_eq!(
            col2im(&data, &pair([1 << 40, 1 << 40]), &pair([1, 1]), &far),
            Err(KernelError::Shape(ShapeErrorKind::SizeOverflow { op: OP, axis: 0 }))
        );
        let s = Tensor::from_strings(&[4, 4], vec![String::new(); 16]).unwrap();
        assert_eq!(
            col2im(&s, &pair([3, 3]), &pair([2, 2]), &d),
            Err(KernelError::UnsupportedType { op: OP, ty: ElementType::String })
        );
    }

    #[test]
    fn several_threads_give_the_same_image() {
        let o = op([1, 2], [2, 1], [1, 1], [2, 0]);
        let (out, k) = ([9, 8], [3, 2]);
        let blocks = [0, 1].map(|a| o.blocks(a, out[a], k[a]) as usize);
        let shape = [5, 4 * 6, blocks[0] * blocks[1]];
        let values: Vec<f32> = (0..shape.iter().product::<usize>()).map(|v| (v % 97) as f32 * 0.25).collect();
        let data = Tensor::from_vec(&shape, values).unwrap();
        let (os, ks) = (pair([9, 8]), pair([3, 2]));
        let one = col2im(&data, &os, &ks, &o).unwrap();
        let mut many = Tensor::zeros(ElementType::F32, one.shape()).unwrap();
        let options = ExecOptions { threads: 3, min_bytes_per_thread: 1 };
        col2im_into(&data, &os, &ks, &o, &mut many, &options).unwrap();
        assert_eq!(one.bytes(), many.bytes());
    }
}
