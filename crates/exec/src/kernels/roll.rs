//! Roll: the data's elements shifted along some axes, wrapping around.

use ovir_shape::ops::roll::roll_shifts_into;
use ovir_tensor::Tensor;
use smallvec::SmallVec;

use super::moves::{AxisRuns, KeptView, Moves, Run, View};
use super::{ExecOptions, KernelError};

const OP: &str = "Roll";

/// How far each axis moves, on the stack up to rank 8.
pub(crate) type Shifts = SmallVec<[usize; 8]>;

/// The shift of every axis of data of shape `dims` that `shift` and
/// `axes` give, each in `0..dim`.
pub(crate) fn shifts(dims: &[usize], shift: &Tensor, axes: &Tensor) -> Result<Shifts, KernelError> {
    let mut shifts: Shifts = smallvec::smallvec![0; dims.len()];
    roll_shifts_into(dims, shift, axes, &mut shifts)?;
    Ok(shifts)
}

/// The copy a Roll by `shifts` (one per axis, each below its dim) makes
/// of data of shape `dims`: a rolled axis is two stretches, its last
/// `shift` indices and then the rest.
pub(crate) fn layout(dims: &[usize], shifts: &[usize]) -> Result<View, KernelError> {
    let axes: SmallVec<[AxisRuns; 8]> = dims
        .iter()
        .zip(shifts)
        .map(|(&n, &s)| {
            let rest = Run::Data { count: n - s.min(n), start: 0, step: 1 };
            match s.min(n) {
                0 => smallvec::smallvec![rest],
                s => smallvec::smallvec![Run::Data { count: s, start: (n - s) as isize, step: 1 }, rest],
            }
        })
        .collect();
    let mut moves = Moves::default();
    moves.runs(OP, dims, &axes, true)?;
    View::from_moves(OP, dims, dims.to_vec(), moves)
}

/// What [`roll_into`] keeps between calls: the copy worked out for the
/// last data shape and shifts, so that running it again on the same ones
/// allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct RollScratch {
    last: KeptView<Shifts>,
}

impl RollScratch {
    /// An empty scratch.
    pub fn new() -> RollScratch {
        RollScratch::default()
    }
}

/// Roll-7: the data with its elements moved by `shift` along `axes`,
/// wrapping around. Both are i32 or i64, scalars or 1-D: a vector of
/// shifts has one per axis, a scalar one moves every axis listed, an axis
/// listed twice moves by the sum, a negative shift moves towards the
/// start, and axes may count from the end.
///
/// ```
/// use ovir_exec::kernels::roll;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_vec(&[2, 3], vec![1i32, 2, 3, 4, 5, 6])?;
/// let out = roll(&data, &Tensor::from_vec(&[2], vec![1i64, -1])?, &Tensor::from_vec(&[2], vec![0i64, 1])?)?;
/// assert_eq!(out.to_vec::<i32>()?, vec![5, 6, 4, 2, 3, 1]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn roll(data: &Tensor, shift: &Tensor, axes: &Tensor) -> Result<Tensor, KernelError> {
    let view = layout(data.shape(), &shifts(data.shape(), shift, axes)?)?;
    let mut out = Tensor::zeros(data.element_type(), data.shape())?;
    view.run(data, &mut out, &ExecOptions::single_thread())?;
    Ok(out)
}

/// [`roll`] into an output of the data's type and shape, on several
/// threads when it is large, keeping the copy it works out in `scratch`.
pub fn roll_into(
    data: &Tensor,
    shift: &Tensor,
    axes: &Tensor,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut RollScratch,
) -> Result<(), KernelError> {
    let by = shifts(data.shape(), shift, axes)?;
    let view = scratch.last.get(by.clone(), data.shape(), || layout(data.shape(), &by))?;
    view.run(data, out, options)
}

#[cfg(test)]
mod tests {
    use ovir_shape::ShapeErrorKind;
    use ovir_tensor::ElementType;

    use super::*;

    fn i64s(values: &[i64]) -> Tensor {
        Tensor::from_vec(&[values.len()], values.to_vec()).unwrap()
    }

    /// `np.roll(np.arange(n).reshape(dims), shifts, axis=range(rank))`,
    /// from the definition: out[(i + s) % n] = data[i] on every axis.
    fn naive(dims: &[usize], shifts: &[usize]) -> Vec<i32> {
        let n: usize = dims.iter().product();
        let mut out = vec![0; n];
        for flat in 0..n {
            let mut rest = flat;
            let mut index = vec![0; dims.len()];
            for a in (0..dims.len()).rev() {
                index[a] = rest % dims[a];
                rest /= dims[a];
            }
            let to =
                index.iter().enumerate().fold(0, |acc, (a, &i)| acc * dims[a] + (i + shifts[a]) % dims[a]);
            out[to] = flat as i32;
        }
        out
    }

    #[test]
    fn every_shift_of_every_axis_matches_the_definition() {
        let dims = [2usize, 3, 4];
        let data = Tensor::from_vec(&dims, (0..24).collect::<Vec<i32>>()).unwrap();
        for s0 in 0..2 {
            for s1 in 0..3 {
                for s2 in 0..4 {
                    let out = roll(&data, &i64s(&[s0, s1, s2]), &i64s(&[0, 1, 2])).unwrap();
                    let want = naive(&dims, &[s0 as usize, s1 as usize, s2 as usize]);
                    assert_eq!(out.to_vec::<i32>().unwrap(), want, "{s0} {s1} {s2}");
                }
            }
        }
    }

    /// OpenVINO's op_reference tables: repeated axes, and negative axes
    /// with negative shifts past the dim.
    #[test]
    fn op_reference_tables() {
        let data = Tensor::from_vec(&[4, 3], (1..=12).collect::<Vec<i64>>()).unwrap();
        let out = roll(&data, &i64s(&[1, 2, 1]), &i64s(&[0, 1, 0])).unwrap();
        assert_eq!(out.to_vec::<i64>().unwrap(), [8, 9, 7, 11, 12, 10, 2, 3, 1, 5, 6, 4]);
        let data = Tensor::from_vec(&[4, 2, 3], (1..=24).collect::<Vec<u8>>()).unwrap();
        let out = roll(&data, &i64s(&[2, -1, -7]), &i64s(&[-1, -1, -2])).unwrap();
        let want = [6, 4, 5, 3, 1, 2, 12, 10, 11, 9, 7, 8, 18, 16, 17, 15, 13, 14, 24, 22, 23, 21, 19, 20];
        assert_eq!(out.to_vec::<u8>().unwrap(), want);
    }

    #[test]
    fn shifts_wrap_add_up_and_count_back() {
        let data = Tensor::from_vec(&[5], (0..5).collect::<Vec<i32>>()).unwrap();
        // 7 is 2 past the length, -3 is 2 forward, and 1 + 1 is 2.
        for (shift, axes) in [(vec![7], vec![0]), (vec![-3], vec![-1]), (vec![1, 1], vec![0, 0])] {
            let out = roll(&data, &i64s(&shift), &i64s(&axes)).unwrap();
            assert_eq!(out.to_vec::<i32>().unwrap(), [3, 4, 0, 1, 2], "{shift:?} {axes:?}");
        }
        // A scalar shift moves every axis listed.
        let data = Tensor::from_vec(&[2, 2], vec![1u8, 2, 3, 4]).unwrap();
        let scalar = Tensor::from_vec(&[], vec![1i32]).unwrap();
        let out = roll(&data, &scalar, &Tensor::from_vec(&[2], vec![0i32, 1]).unwrap()).unwrap();
        assert_eq!(out.to_vec::<u8>().unwrap(), [4, 3, 2, 1]);
    }

    #[test]
    fn strings_and_packed_codes_roll_whole() {
        let words: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let data = Tensor::from_strings(&[3], words).unwrap();
        let out = roll(&data, &i64s(&[1]), &i64s(&[0])).unwrap();
        assert_eq!(out.strings().unwrap(), ["c", "a", "b"].map(String::from));
        let codes =
            super::super::convert(&Tensor::from_vec(&[6], (0..6i64).collect()).unwrap(), ElementType::U4)
                .unwrap();
        let out = roll(&codes, &i64s(&[2]), &i64s(&[0])).unwrap();
        let back = super::super::convert(&out, ElementType::I64).unwrap();
        assert_eq!(back.to_vec::<i64>().unwrap(), [4, 5, 0, 1, 2, 3]);
    }

    #[test]
    fn bad_shifts_and_axes_are_refused_with_the_rule() {
        let data = Tensor::from_vec(&[2, 3], vec![0f32; 6]).unwrap();
        let err = roll(&data, &i64s(&[1]), &i64s(&[2])).unwrap_err();
        assert!(matches!(err, KernelError::Shape(ShapeErrorKind::OpAxisOutOfRange { axis: 2, rank: 2, .. })));
        let err = roll(&data, &i64s(&[1, 2]), &i64s(&[0])).unwrap_err();
        assert!(matches!(err, KernelError::Shape(ShapeErrorKind::RollLengths { .. })), "{err:?}");
        let floats = Tensor::from_vec(&[1], vec![1f32]).unwrap();
        let err = roll(&data, &floats, &i64s(&[0])).unwrap_err();
        assert!(matches!(err, KernelError::Shape(ShapeErrorKind::IndexType { .. })), "{err:?}");
    }

    #[test]
    fn a_scratch_keeps_the_copy_for_the_same_shifts() {
        let data = Tensor::from_vec(&[4], vec![1i16, 2, 3, 4]).unwrap();
        let mut out = Tensor::zeros(ElementType::I16, &[4]).unwrap();
        let mut scratch = RollScratch::new();
        let options = ExecOptions::single_thread();
        for (shift, want) in [(1, [4, 1, 2, 3]), (1, [4, 1, 2, 3]), (-1, [2, 3, 4, 1])] {
            roll_into(&data, &i64s(&[shift]), &i64s(&[0]), &mut out, &options, &mut scratch).unwrap();
            assert_eq!(out.to_vec::<i16>().unwrap(), want);
        }
    }
}
