//! ExtractImagePatches: the patches a convolution would see, stacked
//! along the channels.
//!
//! Output channel `(kh * size_cols + kw) * C + c` at `(oh, ow)` reads the
//! data at row `oh * stride_rows - pad_top + kh * rate_rows` and column
//! `ow * stride_cols - pad_left + kw * rate_cols` of channel `c`, or is
//! zero where that lies outside the data. Seen as `[N, KH, KW, C, OH,
//! OW]`, an output with nothing outside is one strided view of the data.
//! With padding, each plane `[OH, OW]` is cut into boxes between the rows
//! and columns where some kernel offset's reads enter or leave the data;
//! each box is one piece, read for the planes whose offset sees data
//! there and zero for the others.

use ovir_shape::ops::ExtractImagePatches;
use ovir_tensor::{PartialShape, Tensor};
use smallvec::SmallVec;

use super::moves::{Dim, KeptView, Moves, Piece, Step, View, ZERO};
use super::{ExecOptions, KernelError};

const OP: &str = "ExtractImagePatches";

/// The output shape of [`extract_image_patches`] for data of shape
/// `shape`, which must be 4-D.
pub fn extract_image_patches_output_shape(
    shape: &[usize],
    op: &ExtractImagePatches,
) -> Result<Vec<usize>, KernelError> {
    let out = op.output_shape(&PartialShape::from_static(shape))?;
    out.to_static().ok_or(KernelError::Internal { op: OP, what: "an output dimension overflows" })
}

/// `a / b` rounded up, for `b` of 1 or more.
fn ceil_div(a: i128, b: i128) -> i128 {
    a.div_euclid(b) + i128::from(a.rem_euclid(b) != 0)
}

/// One spatial axis: where each kernel offset's reads lie in the data
/// (Col2Im's blocks lie in its image alike).
pub(crate) struct Axis {
    /// The data's length.
    pub(crate) len: i128,
    /// The output's length.
    pub(crate) out: usize,
    /// Zeros before the data.
    pub(crate) pad: i128,
    pub(crate) stride: i128,
    pub(crate) rate: i128,
    /// The kernel offsets.
    pub(crate) size: usize,
}

impl Axis {
    /// The data index output index `o` reads for kernel offset `j`.
    pub(crate) fn at(&self, o: usize, j: usize) -> i128 {
        o as i128 * self.stride - self.pad + j as i128 * self.rate
    }

    /// The output indices `[first, past)` whose reads for kernel offset
    /// `j` lie inside the data.
    pub(crate) fn inside(&self, j: usize) -> (usize, usize) {
        let clamp = |v: i128| usize::try_from(v.max(0)).map_or(self.out, |v| v.min(self.out));
        let shift = j as i128 * self.rate - self.pad;
        (clamp(ceil_div(-shift, self.stride)), clamp(ceil_div(self.len - shift, self.stride)))
    }

    /// The output indices where some kernel offset's reads enter or leave
    /// the data, with both ends: between two of them, each offset reads
    /// the data throughout or not at all.
    fn cuts(&self) -> SmallVec<[usize; 8]> {
        let mut at: SmallVec<[usize; 8]> = smallvec::smallvec![0, self.out];
        for j in 0..self.size {
            let (first, past) = self.inside(j);
            at.extend([first, past]);
        }
        at.sort_unstable();
        at.dedup();
        at
    }
}

/// The copy an ExtractImagePatches makes of data of shape `shape`.
pub(crate) fn layout(op: &ExtractImagePatches, shape: &[usize]) -> Result<View, KernelError> {
    let out = extract_image_patches_output_shape(shape, op)?;
    if out.contains(&0) {
        return View::new(OP, shape, out, 0, &[]);
    }
    let overflow = KernelError::Internal { op: OP, what: "an offset overflows" };
    let &[n, c, h, w] = shape else {
        return Err(overflow);
    };
    let axis = |k: usize, len: usize| Axis {
        len: len as i128,
        out: out[2 + k],
        pad: i128::from(op.pad_before(k, len as u64)),
        stride: i128::from(op.strides[k]),
        rate: i128::from(op.rates[k]),
        size: op.sizes[k] as usize,
    };
    let (rows, cols) = (axis(0, h), axis(1, w));
    let wide = |v: i128| isize::try_from(v).map_err(|_| overflow.clone());
    let (hw, chw) = (h as i128 * w as i128, c as i128 * h as i128 * w as i128);
    let everywhere = |a: &Axis| (0..a.size).all(|j| a.inside(j) == (0, a.out));
    if everywhere(&rows) && everywhere(&cols) {
        // No read falls outside: one strided view, [N, KH, KW, C, OH, OW].
        let axes = [
            (n, Step::Stride(wide(chw)?)),
            (rows.size, Step::Stride(wide(rows.rate * w as i128)?)),
            (cols.size, Step::Stride(wide(cols.rate)?)),
            (c, Step::Stride(wide(hw)?)),
            (rows.out, Step::Stride(wide(rows.stride * w as i128)?)),
            (cols.out, Step::Stride(wide(cols.stride)?)),
        ];
        let src = wide(-rows.pad * w as i128 - cols.pad)?;
        return View::new(OP, shape, out, src, &axes);
    }
    let planes = n
        .checked_mul(rows.size)
        .and_then(|v| v.checked_mul(cols.size))
        .and_then(|v| v.checked_mul(c))
        .ok_or(overflow.clone())?;
    let mut moves = Moves::new(planes, rows.out.checked_mul(cols.out).ok_or(overflow.clone())?);
    let (row_cuts, col_cuts) = (rows.cuts(), cols.cuts());
    for y in row_cuts.windows(2) {
        for x in col_cuts.windows(2) {
            let ((y0, y1), (x0, x1)) = ((y[0], y[1]), (x[0], x[1]));
            let dims: SmallVec<[Dim; 4]> = SmallVec::from_slice(&[
                Dim::strided(y1 - y0, wide(rows.stride * w as i128)?, cols.out),
                Dim::strided(x1 - x0, wide(cols.stride)?, 1),
            ]);
            // The planes in order: batch, kernel row, kernel column, channel.
            let offsets = (0..planes).map(|plane| {
                let ci = plane % c;
                let kw = (plane / c) % cols.size;
                let kh = (plane / (c * cols.size)) % rows.size;
                let b = plane / (c * cols.size * rows.size);
                let (iy, ix) = (rows.at(y0, kh), cols.at(x0, kw));
                // The box reads data for this offset throughout, or none.
                if !(0..rows.len).contains(&iy) || !(0..cols.len).contains(&ix) {
                    return ZERO;
                }
                let offset = b as i128 * chw + ci as i128 * hw + iy * w as i128 + ix;
                isize::try_from(offset).unwrap_or(ZERO)
            });
            let (outer, shift) = moves.table(OP, offsets)?;
            moves.push(Piece { input: 0, src: shift, dst: y0 * cols.out + x0, outer, dims });
        }
    }
    View::from_moves(OP, shape, out, moves)
}

/// What [`extract_image_patches_into`] keeps between calls: the copy
/// worked out for the last data shape and attributes, so that running it
/// again on the same ones allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct ExtractImagePatchesScratch {
    last: KeptView<Option<ExtractImagePatches>>,
}

impl ExtractImagePatchesScratch {
    /// An empty scratch.
    pub fn new() -> ExtractImagePatchesScratch {
        ExtractImagePatchesScratch::default()
    }
}

/// ExtractImagePatches-3: from data `[N, C, H, W]`, the patches of
/// `op.sizes` elements, `op.strides` apart and reading every
/// `op.rates`-th element, as `[N, KH * KW * C, OH, OW]`; output channel
/// `(kh * KW + kw) * C + c` holds element `(kh, kw)` of each patch of
/// channel `c`. Reads outside the data (with `same_upper` or
/// `same_lower` padding) give zeros, or empty strings.
///
/// ```
/// use ovir_exec::kernels::extract_image_patches;
/// use ovir_shape::ops::{ExtractImagePatches, PatchPadding};
/// use ovir_tensor::Tensor;
/// // 2 x 2 patches, 2 apart, of a 4 x 4 image: four patches.
/// let op = ExtractImagePatches { sizes: [2, 2], strides: [2, 2], rates: [1, 1], padding: PatchPadding::Valid };
/// let image = Tensor::from_vec(&[1, 1, 4, 4], (0..16).collect::<Vec<i32>>())?;
/// let out = extract_image_patches(&image, &op)?;
/// assert_eq!(out.shape(), &[1, 4, 2, 2]);
/// // Channel 0: each patch's top left element; channel 3: its bottom right.
/// assert_eq!(out.to_vec::<i32>()?[..4], [0, 2, 8, 10]);
/// assert_eq!(out.to_vec::<i32>()?[12..], [5, 7, 13, 15]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn extract_image_patches(data: &Tensor, op: &ExtractImagePatches) -> Result<Tensor, KernelError> {
    let view = layout(op, data.shape())?;
    let mut out = Tensor::zeros(data.element_type(), view.shape())?;
    view.run(data, &mut out, &ExecOptions::single_thread())?;
    Ok(out)
}

/// [`extract_image_patches`] into an output of its type and shape, on
/// several threads when it is large, keeping the copy it works out in
/// `scratch`.
pub fn extract_image_patches_into(
    data: &Tensor,
    op: &ExtractImagePatches,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut ExtractImagePatchesScratch,
) -> Result<(), KernelError> {
    let view = scratch.last.get(Some(*op), data.shape(), || layout(op, data.shape()))?;
    view.run(data, out, options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ovir_shape::ops::PatchPadding;
    use ovir_tensor::ElementType;

    fn op(sizes: [u64; 2], strides: [u64; 2], rates: [u64; 2], padding: PatchPadding) -> ExtractImagePatches {
        ExtractImagePatches { sizes, strides, rates, padding }
    }

    fn seq(dims: &[usize], from: i32) -> Tensor {
        let n: usize = dims.iter().product();
        Tensor::from_vec(dims, (from..from + n as i32).collect::<Vec<_>>()).unwrap()
    }

    /// The definition, element by element, with the padding worked out
    /// here as the reference does: total = (ceil(n / s) - 1) * s + eff - n,
    /// half before (the odd one after for same_upper, before for
    /// same_lower); -1 marks a zero.
    fn naive(dims: &[usize], op: &ExtractImagePatches) -> (Vec<usize>, Vec<i32>) {
        let [n, c, h, w] = [dims[0], dims[1], dims[2], dims[3]];
        let pads: Vec<i64> = (0..2)
            .map(|k| {
                let len = [h, w][k] as i64;
                let (size, s, r) = (op.sizes[k] as i64, op.strides[k] as i64, op.rates[k] as i64);
                let eff = size + (r - 1) * (size - 1);
                let total = ((len + s - 1) / s - 1) * s + eff - len;
                match op.padding {
                    PatchPadding::Valid => 0,
                    _ if total <= 0 => 0,
                    PatchPadding::SameLower => (total + 1) / 2,
                    PatchPadding::SameUpper => total / 2,
                }
            })
            .collect();
        let outs: Vec<usize> = (0..2)
            .map(|k| {
                let len = [h, w][k] as i64;
                let (size, s, r) = (op.sizes[k] as i64, op.strides[k] as i64, op.rates[k] as i64);
                match op.padding {
                    // The part of the axis a patch can start in, rounded
                    // up to strides (none when the patch is longer than
                    // the axis), as OpenVINO 2026 infers it.
                    PatchPadding::Valid => ((len - r * (size - 1)).max(0) + s - 1) as usize / s as usize,
                    _ => ((len - 1) / s + 1) as usize,
                }
            })
            .collect();
        let (kh_n, kw_n) = (op.sizes[0] as usize, op.sizes[1] as usize);
        let shape = vec![n, kh_n * kw_n * c, outs[0], outs[1]];
        let mut values = Vec::new();
        for b in 0..n {
            for kh in 0..kh_n {
                for kw in 0..kw_n {
                    for ci in 0..c {
                        for oh in 0..outs[0] {
                            for ow in 0..outs[1] {
                                let y = (oh as i64) * op.strides[0] as i64 - pads[0]
                                    + kh as i64 * op.rates[0] as i64;
                                let x = (ow as i64) * op.strides[1] as i64 - pads[1]
                                    + kw as i64 * op.rates[1] as i64;
                                let inside = (0..h as i64).contains(&y) && (0..w as i64).contains(&x);
                                values.push(if inside {
                                    (((b * c + ci) * h) as i64 * w as i64 + y * w as i64 + x) as i32
                                } else {
                                    -1
                                });
                            }
                        }
                    }
                }
            }
        }
        (shape, values)
    }

    /// The data `0..`, and -1 where the output reads nothing, since the
    /// kernel gives zeros there: every element read is told apart.
    fn run(dims: &[usize], op: &ExtractImagePatches) -> (Vec<usize>, Vec<i32>) {
        let out = extract_image_patches(&seq(dims, 1), op).unwrap();
        let values = out.to_vec::<i32>().unwrap().into_iter().map(|v| v - 1).collect();
        (out.shape().to_vec(), values)
    }

    #[test]
    fn every_padding_size_stride_and_rate_matches_the_definition() {
        use PatchPadding::*;
        for padding in [Valid, SameUpper, SameLower] {
            for dims in [[1usize, 1, 10, 10], [2, 3, 7, 5], [1, 2, 1, 9], [1, 1, 4, 3]] {
                for sizes in [[1u64, 1], [2, 3], [3, 3], [4, 1], [5, 6]] {
                    for strides in [[1u64, 1], [2, 3], [5, 5], [9, 2]] {
                        for rates in [[1u64, 1], [2, 2], [1, 3]] {
                            let op = op(sizes, strides, rates, padding);
                            assert_eq!(run(&dims, &op), naive(&dims, &op), "{dims:?} {op:?}");
                        }
                    }
                }
            }
        }
    }

    // OpenVINO's op_reference extract_image_patches.cpp cases (the spec's
    // examples): data 1..=100 (1..=50 for the two-channel one).
    #[test]
    fn openvinos_reference_values() {
        use PatchPadding::*;
        let image = seq(&[1, 1, 10, 10], 1);
        let got = |op: ExtractImagePatches, data: &Tensor| {
            let out = extract_image_patches(data, &op).unwrap();
            (out.shape().to_vec(), out.to_vec::<i32>().unwrap())
        };
        assert_eq!(
            got(op([3, 3], [5, 5], [1, 1], Valid), &image),
            (
                vec![1, 9, 2, 2],
                vec![
                    1, 6, 51, 56, 2, 7, 52, 57, 3, 8, 53, 58, 11, 16, 61, 66, 12, 17, 62, 67, 13, 18, 63, 68,
                    21, 26, 71, 76, 22, 27, 72, 77, 23, 28, 73, 78
                ]
            )
        );
        assert_eq!(
            got(op([4, 4], [8, 8], [1, 1], Valid), &image),
            (vec![1, 16, 1, 1], vec![1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24, 31, 32, 33, 34])
        );
        assert_eq!(
            got(op([4, 4], [9, 9], [1, 1], SameUpper), &image),
            (
                vec![1, 16, 2, 2],
                vec![
                    0, 0, 0, 89, 0, 0, 81, 90, 0, 0, 82, 0, 0, 0, 83, 0, 0, 9, 0, 99, 1, 10, 91, 100, 2, 0,
                    92, 0, 3, 0, 93, 0, 0, 19, 0, 0, 11, 20, 0, 0, 12, 0, 0, 0, 13, 0, 0, 0, 0, 29, 0, 0, 21,
                    30, 0, 0, 22, 0, 0, 0, 23, 0, 0, 0
                ]
            )
        );
        assert_eq!(
            got(op([3, 3], [5, 5], [2, 2], Valid), &image),
            (
                vec![1, 9, 2, 2],
                vec![
                    1, 6, 51, 56, 3, 8, 53, 58, 5, 10, 55, 60, 21, 26, 71, 76, 23, 28, 73, 78, 25, 30, 75,
                    80, 41, 46, 91, 96, 43, 48, 93, 98, 45, 50, 95, 100
                ]
            )
        );
        assert_eq!(
            got(op([2, 2], [3, 3], [1, 1], Valid), &seq(&[1, 2, 5, 5], 1)),
            (
                vec![1, 8, 2, 2],
                vec![
                    1, 4, 16, 19, 26, 29, 41, 44, 2, 5, 17, 20, 27, 30, 42, 45, 6, 9, 21, 24, 31, 34, 46, 49,
                    7, 10, 22, 25, 32, 35, 47, 50
                ]
            )
        );
    }

    #[test]
    fn empty_shapes_and_bad_ranks() {
        let valid = op([3, 3], [5, 5], [1, 1], PatchPadding::Valid);
        let empty = Tensor::zeros(ElementType::F32, &[64, 0, 0, 0]).unwrap();
        assert_eq!(extract_image_patches(&empty, &valid).unwrap().shape(), &[64, 0, 0, 0]);
        // A patch larger than the data: no patches.
        let small = seq(&[1, 1, 2, 9], 0);
        assert_eq!(extract_image_patches(&small, &valid).unwrap().shape(), &[1, 9, 0, 2]);
        let none = op([0, 2], [1, 1], [1, 1], PatchPadding::SameUpper);
        assert_eq!(extract_image_patches(&small, &none).unwrap().shape(), &[1, 0, 2, 9]);
        assert!(extract_image_patches(&seq(&[1, 4, 4], 0), &valid).is_err());
    }

    #[test]
    fn strings_packed_codes_and_threads_move_alike() {
        let same = op([2, 2], [1, 1], [1, 1], PatchPadding::SameUpper);
        let words: Vec<String> = (0..4).map(|i| format!("w{i}")).collect();
        let data = Tensor::from_strings(&[1, 1, 2, 2], words).unwrap();
        let out = extract_image_patches(&data, &same).unwrap();
        // Padded after: the last row and column read nothing.
        assert_eq!(out.strings().unwrap()[..4], ["w0", "w1", "w2", "w3"]);
        assert_eq!(out.strings().unwrap()[12..], ["w3", "", "", ""]);
        let codes = Tensor::from_vec(&[1, 1, 2, 2], vec![1i64, 2, 3, 4]).unwrap();
        let packed = crate::kernels::convert(&codes, ElementType::U4).unwrap();
        let out = crate::kernels::convert(&extract_image_patches(&packed, &same).unwrap(), ElementType::I64)
            .unwrap();
        assert_eq!(out.to_vec::<i64>().unwrap(), [1, 2, 3, 4, 2, 0, 4, 0, 3, 4, 0, 0, 4, 0, 0, 0]);
        let dims = [2usize, 8, 33, 40];
        let lower = op([3, 3], [2, 2], [1, 2], PatchPadding::SameLower);
        let (shape, want) = naive(&dims, &lower);
        let mut out = Tensor::zeros(ElementType::I32, &shape).unwrap();
        let options = ExecOptions { threads: 3, min_bytes_per_thread: 1 };
        let mut scratch = ExtractImagePatchesScratch::new();
        for _ in 0..2 {
            extract_image_patches_into(&seq(&dims, 1), &lower, &mut out, &options, &mut scratch).unwrap();
            let got: Vec<i32> = out.to_vec::<i32>().unwrap().into_iter().map(|v| v - 1).collect();
            assert_eq!(got, want);
        }
    }
}
