//! Unique: the distinct elements (or slices along an axis) of the data,
//! where each first occurs, which one every element is, and how often
//! each occurs.
//!
//! [`ovir_shape::ops::unique::Uniques`] finds them (the search shape
//! inference runs on known data); the uniques are then one gather of the
//! data along the axis by the indices of their first occurrences, played
//! by the moves player, so every element type moves, strings and packed
//! types too.

use ovir_shape::ops::unique::{unique_axis, Uniques};
use ovir_shape::ops::Unique;
use ovir_shape::ShapeErrorKind;
use ovir_tensor::{ElementType, Tensor};

use super::checks::{check_output, input_shape_error};
use super::integers::{read_ints, Wide};
use super::moves::{Moves, Step};
use super::{ExecOptions, KernelError};

const OP: &str = "Unique";

/// What [`unique_into`] keeps between calls: the search's buffers, the
/// description of the uniques' copy and their shape, so that a run on
/// data of the same size allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct UniqueScratch {
    uniques: Uniques,
    moves: Moves,
    shape: Vec<usize>,
    axis: Option<usize>,
}

impl UniqueScratch {
    /// An empty scratch; it allocates on first use and then keeps its
    /// memory.
    pub fn new() -> UniqueScratch {
        UniqueScratch::default()
    }

    /// Finds the uniques of `data` as `op` asks, flattened or along
    /// `axis` (as given, counted from the end when negative), checking
    /// that its index and count types can count them. Their sizes are
    /// then [`UniqueScratch::shapes`].
    pub fn find(&mut self, data: &Tensor, axis: Option<i64>, op: &Unique) -> Result<(), KernelError> {
        let axis = axis.map(|a| unique_axis(a, data.rank())).transpose()?;
        self.axis = axis;
        self.uniques.find(data, axis, op.sorted)?;
        self.uniques.check_types(op.index_type, op.count_type)?;
        let n = self.uniques.len();
        self.shape.clear();
        match axis {
            Some(a) => {
                self.shape.extend(data.shape().iter().enumerate().map(|(k, &d)| if k == a { n } else { d }))
            }
            None => self.shape.push(n),
        }
        Ok(())
    }

    /// The shapes of the four outputs of the last search: the uniques, and
    /// the lengths of the first indices, the inverse and the counts.
    pub fn shapes(&self) -> (&[usize], usize, usize, usize) {
        let n = self.uniques.len();
        (&self.shape, n, self.uniques.slices(), n)
    }

    /// Writes output 0, the uniques of `data` (the data of the last
    /// search), into `out`.
    pub fn write_values(
        &mut self,
        data: &Tensor,
        out: &mut Tensor,
        options: &ExecOptions,
    ) -> Result<(), KernelError> {
        check_output(OP, data.element_type(), &self.shape, out)?;
        let internal = || KernelError::Internal { op: OP, what: "the uniques do not fit the data" };
        let shape = data.shape();
        let (outer, slices, inner) = match self.axis {
            None => (1, data.len(), 1),
            Some(a) => (
                shape.get(..a).map_or(0, |d| d.iter().product()),
                shape.get(a).copied().unwrap_or(0),
                shape.get(a + 1..).map_or(0, |d| d.iter().product()),
            ),
        };
        if out.is_empty() {
            return Ok(());
        }
        let wide = |n: usize| isize::try_from(n).map_err(|_| internal());
        let (inner_w, row) = (wide(inner)?, wide(slices.checked_mul(inner).ok_or_else(internal)?)?);
        let moves = &mut self.moves;
        moves.reset(0, 0);
        let firsts = self.uniques.firsts();
        // Every first is below `slices`, and `slices * inner` fits an isize.
        let offsets = firsts.iter().map(|&s| s as isize * inner_w);
        let (step, shift) = moves.table(OP, offsets)?;
        moves.dense(shift, &[(outer, Step::Stride(row)), (firsts.len(), step), (inner, Step::Stride(1))]);
        moves.check(OP, &[data.len()], out.len())?;
        moves.play(OP, &[data], out, options)
    }

    /// Writes outputs 1 to 3 of the last search: where each unique first
    /// occurs and the inverse as i32 or i64 (the type of `firsts` and
    /// `inverse`), and the counts (the type of `counts`).
    pub fn write_indices(
        &self,
        firsts: &mut Tensor,
        inverse: &mut Tensor,
        counts: &mut Tensor,
    ) -> Result<(), KernelError> {
        write_all(firsts, self.uniques.firsts())?;
        write_all(inverse, self.uniques.inverse())?;
        write_all(counts, self.uniques.counts())
    }
}

/// Writes `values` into a 1-D i32 or i64 tensor of as many elements.
fn write_all(out: &mut Tensor, values: &[usize]) -> Result<(), KernelError> {
    let ty = out.element_type();
    let wrong = KernelError::Internal { op: OP, what: "an index output of the wrong type or size" };
    if out.shape() != [values.len()] {
        return Err(wrong);
    }
    let bytes = out.try_bytes_mut()?;
    match ty {
        ElementType::I32 => {
            for (chunk, &v) in bytes.chunks_exact_mut(4).zip(values) {
                let v = i32::try_from(v).map_err(|_| wrong.clone())?;
                chunk.copy_from_slice(&v.to_le_bytes());
            }
        }
        ElementType::I64 => {
            for (chunk, &v) in bytes.chunks_exact_mut(8).zip(values) {
                let v = i64::try_from(v).map_err(|_| wrong.clone())?;
                chunk.copy_from_slice(&v.to_le_bytes());
            }
        }
        _ => return Err(wrong),
    }
    Ok(())
}

/// The axis a Unique's axis input holds: an i32 or i64 scalar or tensor
/// of one element.
pub fn unique_axis_value(axis: &Tensor) -> Result<i64, KernelError> {
    let ty = axis.element_type();
    if !matches!(ty, ElementType::I32 | ElementType::I64) {
        return Err(ShapeErrorKind::IndexType { op: OP, input: "axis", found: ty }.into());
    }
    match read_ints(axis, Wide::Refuse).as_deref() {
        Some(&[a]) => Ok(a),
        _ => Err(input_shape_error(OP, "axis", "a scalar or a tensor of one element", axis)),
    }
}

/// Unique-10 into outputs of the types and shapes
/// [`UniqueScratch::shapes`] gives after [`UniqueScratch::find`]: the
/// search, then the writes. Running it again on data of the same size
/// allocates nothing.
pub fn unique_into(
    data: &Tensor,
    axis: Option<i64>,
    op: &Unique,
    outputs: [&mut Tensor; 4],
    scratch: &mut UniqueScratch,
) -> Result<(), KernelError> {
    scratch.find(data, axis, op)?;
    let [values, firsts, inverse, counts] = outputs;
    scratch.write_values(data, values, &ExecOptions::single_thread())?;
    scratch.write_indices(firsts, inverse, counts)
}

/// Unique-10: `[uniques, first indices, inverse, counts]` of `data`,
/// flattened or along the axis `axis` holds, as `op` asks.
///
/// ```
/// use ovir_exec::kernels::unique;
/// use ovir_shape::ops::Unique;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_vec(&[7], vec![1i32, 3, 5, 3, 2, 4, 2])?;
/// let [values, firsts, inverse, counts] = unique(&data, None, &Unique::default())?;
/// assert_eq!(values.to_vec::<i32>()?, [1, 2, 3, 4, 5]);
/// assert_eq!(firsts.to_vec::<i64>()?, [0, 4, 1, 5, 2]);
/// assert_eq!(inverse.to_vec::<i64>()?, [0, 2, 4, 2, 1, 3, 1]);
/// assert_eq!(counts.to_vec::<i64>()?, [1, 2, 2, 1, 1]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn unique(data: &Tensor, axis: Option<&Tensor>, op: &Unique) -> Result<[Tensor; 4], KernelError> {
    let axis = axis.map(unique_axis_value).transpose()?;
    let mut scratch = UniqueScratch::new();
    scratch.find(data, axis, op)?;
    let (shape, n, slices, _) = scratch.shapes();
    let mut values = Tensor::zeros(data.element_type(), shape)?;
    let mut firsts = Tensor::zeros(op.index_type, &[n])?;
    let mut inverse = Tensor::zeros(op.index_type, &[slices])?;
    let mut counts = Tensor::zeros(op.count_type, &[n])?;
    scratch.write_values(data, &mut values, &ExecOptions::single_thread())?;
    scratch.write_indices(&mut firsts, &mut inverse, &mut counts)?;
    Ok([values, firsts, inverse, counts])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(data: &Tensor, axis: Option<i64>, sorted: bool) -> [Tensor; 4] {
        let op = Unique { sorted, ..Unique::default() };
        let axis = axis.map(|a| Tensor::from_vec(&[], vec![a]).unwrap());
        unique(data, axis.as_ref(), &op).unwrap()
    }

    fn ints(t: &Tensor) -> Vec<i64> {
        t.integer_values().unwrap().into_iter().map(|v| v as i64).collect()
    }

    /// A naive Unique of rows along axis 0, written out for 2-D data of
    /// i32 (NumPy's `np.unique(x, axis=0, return_index=True,
    /// return_inverse=True, return_counts=True)` when sorted).
    fn naive_rows(rows: &[Vec<i32>], sorted: bool) -> (Vec<Vec<i32>>, Vec<i64>, Vec<i64>, Vec<i64>) {
        let mut uniques: Vec<(Vec<i32>, i64)> = Vec::new();
        for (i, r) in rows.iter().enumerate() {
            if !uniques.iter().any(|(u, _)| u == r) {
                uniques.push((r.clone(), i as i64));
            }
        }
        if sorted {
            uniques.sort();
        }
        let inverse = rows.iter().map(|r| uniques.iter().position(|(u, _)| u == r).unwrap() as i64).collect();
        let counts = uniques.iter().map(|(u, _)| rows.iter().filter(|r| *r == u).count() as i64).collect();
        (
            uniques.iter().map(|(u, _)| u.clone()).collect(),
            uniques.iter().map(|(_, i)| *i).collect(),
            inverse,
            counts,
        )
    }

    #[test]
    fn rows_and_columns_match_a_naive_search() {
        // Rows with repeats, small values so that many repeat.
        let rows: Vec<Vec<i32>> = (0..40i32).map(|i| vec![i * 7 % 5, i * 3 % 4, 1]).collect();
        let flat: Vec<i32> = rows.iter().flatten().copied().collect();
        let data = Tensor::from_vec(&[40, 3], flat).unwrap();
        for sorted in [true, false] {
            let (values, firsts, inverse, counts) = naive_rows(&rows, sorted);
            let [v, f, i, c] = run(&data, Some(0), sorted);
            assert_eq!(v.shape(), [values.len(), 3]);
            assert_eq!(v.to_vec::<i32>().unwrap(), values.concat());
            assert_eq!((ints(&f), ints(&i), ints(&c)), (firsts, inverse, counts));
            // The same columns of the transpose, along axis 1 (and -1).
            let mut t = vec![0i32; 120];
            for (r, row) in rows.iter().enumerate() {
                for (k, &x) in row.iter().enumerate() {
                    t[k * 40 + r] = x;
                }
            }
            let transposed = Tensor::from_vec(&[3, 40], t).unwrap();
            let [v2, f2, i2, c2] = run(&transposed, Some(-1), sorted);
            assert_eq!(v2.shape(), [3, values.len()]);
            let columns: Vec<i32> = (0..3).flat_map(|k| values.iter().map(move |u| u[k])).collect();
            assert_eq!(v2.to_vec::<i32>().unwrap(), columns);
            assert_eq!((ints(&f2), ints(&i2), ints(&c2)), (ints(&f), ints(&i), ints(&c)));
        }
    }

    #[test]
    fn every_element_type_moves() {
        // Strings, u4 and f16 with repeats: [b, a, b], codes [3, 1, 3], [1.5, 3, 1.5].
        let words = Tensor::from_strings(&[3], ["b", "a", "b"].map(String::from).to_vec()).unwrap();
        let [v, f, ..] = run(&words, None, true);
        assert_eq!(v.strings().unwrap(), ["a", "b"]);
        assert_eq!(ints(&f), [1, 0]);
        let codes = Tensor::from_bytes(ElementType::U4, &[3], &[0x13, 0x03]).unwrap();
        let [v, _, i, c] = run(&codes, None, false);
        assert_eq!(v.integer_values().unwrap(), [3, 1]);
        assert_eq!((ints(&i), ints(&c)), (vec![0, 1, 0], vec![2, 1]));
        let halves = Tensor::from_vec(
            &[3],
            vec![half::f16::from_f32(1.5), half::f16::from_f32(3.0), half::f16::from_f32(1.5)],
        )
        .unwrap();
        let [v, ..] = run(&halves, None, true);
        assert_eq!(v.to_vec::<half::f16>().unwrap(), [half::f16::from_f32(1.5), half::f16::from_f32(3.0)]);
        // -0.0 then 0.0: the first occurrence's bits are kept.
        let zeros = Tensor::from_vec(&[3], vec![-0.0f32, 0.0, 1.0]).unwrap();
        let [v, ..] = run(&zeros, None, true);
        assert_eq!(
            v.to_vec::<f32>().unwrap().iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            [0x8000_0000, 0x3f80_0000]
        );
    }

    #[test]
    fn small_floats_compare_as_their_values() {
        // bf16 [1.5, -1.0, NaN, 1.5, -0.0, 0.0]: -1 < -0 = 0 < 1.5, the NaN
        // last and alone.
        let bits: Vec<u8> = [0x3fc0u16, 0xbf80, 0x7fc0, 0x3fc0, 0x8000, 0x0000]
            .iter()
            .flat_map(|b| b.to_le_bytes())
            .collect();
        let halves = Tensor::from_bytes(ElementType::Bf16, &[6], &bits).unwrap();
        let [v, f, i, c] = run(&halves, None, true);
        assert_eq!(v.bytes().unwrap(), [0x80, 0xbf, 0x00, 0x80, 0xc0, 0x3f, 0xc0, 0x7f]);
        assert_eq!(
            (ints(&f), ints(&i), ints(&c)),
            (vec![1, 4, 0, 2], vec![2, 0, 3, 2, 1, 1], vec![1, 2, 2, 1])
        );
        // f8e4m3 codes of -0.5, 0.5, 0, -0 and NaN (0x7f), unsorted.
        let eights =
            Tensor::from_bytes(ElementType::F8e4m3, &[6], &[0xb0, 0x30, 0x00, 0x80, 0x7f, 0xb0]).unwrap();
        let [v, _, i, c] = run(&eights, None, false);
        assert_eq!(v.bytes().unwrap(), [0xb0, 0x30, 0x00, 0x7f]);
        assert_eq!((ints(&i), ints(&c)), (vec![0, 1, 2, 2, 3, 0], vec![2, 1, 2, 1]));
    }

    #[test]
    fn index_types_and_errors() {
        let data = Tensor::from_vec(&[4], vec![2u8, 2, 1, 2]).unwrap();
        let op = Unique { sorted: true, index_type: ElementType::I32, count_type: ElementType::I32 };
        let [_, f, i, c] = unique(&data, None, &op).unwrap();
        assert_eq!((f.element_type(), c.element_type()), (ElementType::I32, ElementType::I32));
        assert_eq!((f.to_vec::<i32>().unwrap(), i.to_vec::<i32>().unwrap()), (vec![2, 0], vec![1, 1, 0, 1]));
        assert_eq!(c.to_vec::<i32>().unwrap(), [1, 3]);
        let axis = Tensor::from_vec(&[], vec![1i64]).unwrap();
        assert!(matches!(
            unique(&data, Some(&axis), &op),
            Err(KernelError::Shape(ShapeErrorKind::OpAxisOutOfRange { .. }))
        ));
        let float_axis = Tensor::from_vec(&[], vec![0f32]).unwrap();
        assert!(matches!(
            unique(&data, Some(&float_axis), &op),
            Err(KernelError::Shape(ShapeErrorKind::IndexType { .. }))
        ));
        // Empty data: nothing unique.
        let empty = Tensor::from_vec(&[0], Vec::<f32>::new()).unwrap();
        let [v, f, i, c] = run(&empty, None, true);
        assert_eq!((v.shape(), f.shape(), i.shape(), c.shape()), (&[0][..], &[0][..], &[0][..], &[0][..]));
    }
}
