//! Pad: the data with elements added before and after each axis (or
//! removed, for a negative pad), in one of four modes.

use ovir_shape::ops::pad::{pad_shape_into, PadMode};
use ovir_shape::ShapeErrorKind;
use ovir_tensor::{PartialShape, Tensor};
use smallvec::SmallVec;

use super::moves::{AxisRuns, KeptView, Moves, Run, View};
use super::{ExecOptions, KernelError};

const OP: &str = "Pad";

/// Each axis's pads before and after, on the stack up to rank 8.
pub(crate) type Pads = SmallVec<[(i64, i64); 8]>;

/// An output shape on the stack up to rank 8.
pub(crate) type Shape = SmallVec<[usize; 8]>;

/// The output shape and each axis's pads of a Pad of data of shape `dims`
/// in `mode`, from the pads' tensors.
pub(crate) fn output(
    mode: PadMode,
    dims: &[usize],
    begins: &Tensor,
    ends: &Tensor,
) -> Result<(Shape, Pads), KernelError> {
    let mut shape: Shape = smallvec::smallvec![0; dims.len()];
    let mut pads: Pads = smallvec::smallvec![(0, 0); dims.len()];
    pad_shape_into(mode, dims, begins, ends, &mut pads, &mut shape)?;
    Ok((shape, pads))
}

/// Where output index `i` of an axis of `n` elements padded by `begin`
/// reads in `mode`: a data index, or `None` for the pad value.
fn source(mode: PadMode, n: i64, begin: i64, i: i64) -> Option<i64> {
    let v = i - begin;
    if (0..n).contains(&v) {
        return Some(v);
    }
    match mode {
        PadMode::Constant => None,
        PadMode::Edge => Some(v.clamp(0, n - 1)),
        PadMode::Reflect if v < 0 => Some(-v),
        PadMode::Reflect => Some(2 * (n - 1) - v),
        PadMode::Symmetric if v < 0 => Some(-v - 1),
        PadMode::Symmetric => Some(2 * n - 1 - v),
    }
}

/// The stretches of an output axis of `size` elements, padded from an
/// axis of `n` by `begin` in `mode`: index by index, runs of the pad
/// value or of data indices a fixed step apart (at most five for pads
/// the shape rules accept).
fn axis_runs(mode: PadMode, n: usize, begin: i64, size: usize) -> Result<AxisRuns, KernelError> {
    let overflow = KernelError::Internal { op: OP, what: "a pad overflows" };
    let n = i64::try_from(n).map_err(|_| overflow.clone())?;
    let size = i64::try_from(size).map_err(|_| overflow.clone())?;
    let mut runs = AxisRuns::new();
    // The axis is three regions, before the data, the data and after it,
    // each one run: a fill, or data indices a fixed step apart (mirrored
    // ones step back). A region is worked out from its ends, not index by
    // index, so that a pad of any length costs the same.
    let data_end = begin.checked_add(n).ok_or(overflow.clone())?;
    let cuts = [0, begin.clamp(0, size), data_end.clamp(0, size), size];
    for w in cuts.windows(2) {
        let (a, b) = (w[0], w[1].max(w[0]));
        if a == b {
            continue;
        }
        let first = source(mode, n, begin, a);
        let step = match (first, source(mode, n, begin, a + 1)) {
            (Some(x), Some(y)) if b - a > 1 => y - x,
            _ => 1,
        };
        let last = source(mode, n, begin, b - 1);
        let run = match first {
            None if last.is_none() => {
                Run::Fill { count: usize::try_from(b - a).map_err(|_| overflow.clone())? }
            }
            Some(x) if last == step.checked_mul(b - 1 - a).and_then(|d| x.checked_add(d)) => {
                if !(0..n).contains(&x) || last.is_none_or(|l| !(0..n).contains(&l)) {
                    return Err(KernelError::Internal { op: OP, what: "a pad reads outside its axis" });
                }
                let count = usize::try_from(b - a).map_err(|_| overflow.clone())?;
                let start = isize::try_from(x).map_err(|_| overflow.clone())?;
                let step = isize::try_from(step).map_err(|_| overflow.clone())?;
                Run::Data { count, start, step }
            }
            _ => return Err(KernelError::Internal { op: OP, what: "a pad region is not one run" }),
        };
        runs.push(run);
    }
    Ok(runs)
}

/// The copy a Pad in `mode` by `pads` makes of data of shape `dims` into
/// an output of shape `shape`; in constant mode its new elements read the
/// fill value ([`View::run_filled`]), known to be zero when `fill_is_zero`.
pub(crate) fn layout(
    mode: PadMode,
    dims: &[usize],
    pads: &[(i64, i64)],
    shape: &[usize],
    fill_is_zero: bool,
) -> Result<View, KernelError> {
    let mut axes: SmallVec<[AxisRuns; 8]> = SmallVec::new();
    for ((&n, &(begin, _)), &size) in dims.iter().zip(pads).zip(shape) {
        axes.push(axis_runs(mode, n, begin, size)?);
    }
    let mut moves = Moves::default();
    moves.runs(OP, dims, &axes, fill_is_zero)?;
    match mode {
        PadMode::Constant => View::from_filled_moves(OP, dims, shape.to_vec(), moves),
        _ => View::from_moves(OP, dims, shape.to_vec(), moves),
    }
}

/// Checks the pad value of constant mode: one element of the data's type.
pub(crate) fn check_value(data: &Tensor, value: &Tensor) -> Result<(), KernelError> {
    if value.rank() != 0 {
        return Err(ShapeErrorKind::InputShape {
            op: OP,
            input: "pad_value",
            expected: "a scalar",
            shape: PartialShape::from_static(value.shape()),
        }
        .into());
    }
    if value.element_type() != data.element_type() {
        let (found, expected) = (value.element_type(), data.element_type());
        return Err(ShapeErrorKind::InputTypes { op: OP, input: 3, found, expected }.into());
    }
    Ok(())
}

/// What [`pad_into`] keeps between calls: the copy worked out for the
/// last data shape and pads, and a zero of the data's type for constant
/// mode without a pad value, so that running it again allocates nothing.
#[derive(Debug, Default)]
pub struct PadScratch {
    last: KeptView<Pads>,
    pub(crate) zero: Option<Tensor>,
}

impl PadScratch {
    /// An empty scratch.
    pub fn new() -> PadScratch {
        PadScratch::default()
    }
}

/// The output shape of [`pad`] for these inputs.
pub fn pad_output_shape(
    data: &Tensor,
    begins: &Tensor,
    ends: &Tensor,
    mode: PadMode,
) -> Result<Vec<usize>, KernelError> {
    Ok(output(mode, data.shape(), begins, ends)?.0.to_vec())
}

/// Pad-1 and Pad-12: the data with `begins[i]` elements added before axis
/// `i` and `ends[i]` after it (a negative pad removes elements). In
/// `Constant` mode the new elements are `value` (a scalar of the data's
/// type) or zero; `Edge` repeats the edge element, `Reflect` mirrors the
/// elements next to the edge without it and `Symmetric` with it.
///
/// ```
/// use ovir_exec::kernels::pad;
/// use ovir_shape::ops::pad::PadMode;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_vec(&[3], vec![1i32, 2, 3])?;
/// let (begins, ends) = (Tensor::from_vec(&[1], vec![2i64])?, Tensor::from_vec(&[1], vec![1i64])?);
/// let out = pad(&data, &begins, &ends, None, PadMode::Reflect)?;
/// assert_eq!(out.to_vec::<i32>()?, vec![3, 2, 1, 2, 3, 2]);
/// let nine = Tensor::from_vec(&[], vec![9i32])?;
/// let out = pad(&data, &begins, &ends, Some(&nine), PadMode::Constant)?;
/// assert_eq!(out.to_vec::<i32>()?, vec![9, 9, 1, 2, 3, 9]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn pad(
    data: &Tensor,
    begins: &Tensor,
    ends: &Tensor,
    value: Option<&Tensor>,
    mode: PadMode,
) -> Result<Tensor, KernelError> {
    let (shape, _) = output(mode, data.shape(), begins, ends)?;
    let mut out = Tensor::zeros(data.element_type(), &shape)?;
    pad_into(
        data,
        begins,
        ends,
        value,
        mode,
        &mut out,
        &ExecOptions::single_thread(),
        &mut PadScratch::new(),
    )?;
    Ok(out)
}

/// [`pad`] into an output of the right type and shape, on several threads
/// when it is large, keeping the copy it works out in `scratch`.
#[allow(clippy::too_many_arguments, reason = "the op's four inputs and its mode, then the usual three")]
pub fn pad_into(
    data: &Tensor,
    begins: &Tensor,
    ends: &Tensor,
    value: Option<&Tensor>,
    mode: PadMode,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut PadScratch,
) -> Result<(), KernelError> {
    let (shape, pads) = output(mode, data.shape(), begins, ends)?;
    let view = scratch
        .last
        .get(pads.clone(), data.shape(), || layout(mode, data.shape(), &pads, &shape, value.is_none()))?;
    play(view, mode, data, value, out, options, &mut scratch.zero)
}

/// Plays a Pad's view: in constant mode with `value`, or a zero of the
/// data's type kept in `zero`.
pub(crate) fn play(
    view: &View,
    mode: PadMode,
    data: &Tensor,
    value: Option<&Tensor>,
    out: &mut Tensor,
    options: &ExecOptions,
    zero: &mut Option<Tensor>,
) -> Result<(), KernelError> {
    if mode != PadMode::Constant {
        return view.run(data, out, options);
    }
    let fill = match value {
        Some(v) => {
            check_value(data, v)?;
            v
        }
        None => {
            if zero.as_ref().is_none_or(|z| z.element_type() != data.element_type()) {
                *zero = Some(Tensor::zeros(data.element_type(), &[])?);
            }
            zero.as_ref().ok_or(KernelError::Internal { op: OP, what: "the zero was not kept" })?
        }
    };
    view.run_filled(data, fill, out, options)
}

#[cfg(test)]
mod tests {
    use ovir_tensor::ElementType;

    use super::*;

    fn i64s(values: &[i64]) -> Tensor {
        Tensor::from_vec(&[values.len()], values.to_vec()).unwrap()
    }

    const MODES: [PadMode; 4] = [PadMode::Constant, PadMode::Edge, PadMode::Reflect, PadMode::Symmetric];

    /// The data index each output index of an axis of `n` padded by `b`
    /// and `e` reads (`None`: the pad value), as NumPy's `np.pad` builds
    /// it: the mirrored or repeated pieces put before and after the axis,
    /// then negative pads cut from its ends.
    fn axis_by_definition(mode: PadMode, n: i64, b: i64, e: i64) -> Vec<Option<i64>> {
        let (before, after): (Vec<Option<i64>>, Vec<Option<i64>>) = match mode {
            PadMode::Constant => (vec![None; b.max(0) as usize], vec![None; e.max(0) as usize]),
            PadMode::Edge => (vec![Some(0); b.max(0) as usize], vec![Some(n - 1); e.max(0) as usize]),
            PadMode::Reflect => {
                ((1..=b).rev().map(Some).collect(), (0..e).map(|k| Some(n - 2 - k)).collect())
            }
            PadMode::Symmetric => {
                ((0..b).rev().map(Some).collect(), (0..e).map(|k| Some(n - 1 - k)).collect())
            }
        };
        let mut all: Vec<Option<i64>> = before.into_iter().chain((0..n).map(Some)).chain(after).collect();
        if e < 0 {
            all.truncate((all.len() as i64 + e).max(0) as usize);
        }
        if b < 0 {
            all.drain(..(-b as usize).min(all.len()));
        }
        all
    }

    /// The whole output, data 0..n, the pad value -1.
    fn by_definition(mode: PadMode, dims: &[usize], pads: &[(i64, i64)]) -> (Vec<usize>, Vec<i64>) {
        let axes: Vec<Vec<Option<i64>>> =
            dims.iter().zip(pads).map(|(&n, &(b, e))| axis_by_definition(mode, n as i64, b, e)).collect();
        let shape: Vec<usize> = axes.iter().map(Vec::len).collect();
        let count: usize = shape.iter().product();
        let values = (0..count)
            .map(|flat| {
                let mut rest = flat;
                let mut index = vec![0; shape.len()];
                for a in (0..shape.len()).rev() {
                    index[a] = rest % shape[a];
                    rest /= shape[a];
                }
                let mut at = 0i64;
                for (a, &i) in index.iter().enumerate() {
                    match axes[a][i] {
                        Some(j) => at = at * dims[a] as i64 + j,
                        None => return -1,
                    }
                }
                at
            })
            .collect();
        (shape, values)
    }

    #[test]
    fn every_mode_and_pad_within_its_limits_matches_the_definition() {
        let dims = [3usize, 4];
        let data = Tensor::from_vec(&dims, (0..12).collect::<Vec<i64>>()).unwrap();
        let value = Tensor::from_vec(&[], vec![-1i64]).unwrap();
        for mode in MODES {
            for b0 in -2..=3 {
                for e1 in -3..=4 {
                    let pads = [(b0, 1), (2, e1)];
                    let (begins, ends) = (i64s(&[b0, 2]), i64s(&[1, e1]));
                    // Reflect takes pads below the dim, symmetric up to it.
                    let refused = match mode {
                        PadMode::Reflect => b0 > 2 || e1 > 3,
                        PadMode::Symmetric => b0 > 3 || e1 > 4,
                        _ => false,
                    };
                    let got = pad(&data, &begins, &ends, Some(&value), mode);
                    assert_eq!(got.is_err(), refused, "{mode:?} {pads:?}");
                    let Ok(out) = got else { continue };
                    let (shape, want) = by_definition(mode, &dims, &pads);
                    assert_eq!(out.shape(), shape.as_slice(), "{mode:?} {pads:?}");
                    assert_eq!(out.to_vec::<i64>().unwrap(), want, "{mode:?} {pads:?}");
                }
            }
        }
    }

    #[test]
    fn every_width_strings_and_packed_codes_pad_alike() {
        let (begins, ends) = (i64s(&[1, 2]), i64s(&[0, 1]));
        for mode in MODES {
            let (shape, want) = by_definition(mode, &[2, 3], &[(1, 0), (2, 1)]);
            for ty in [ElementType::U8, ElementType::I16, ElementType::F32, ElementType::I64, ElementType::U4]
            {
                let data =
                    super::super::convert(&Tensor::from_vec(&[2, 3], (0..6i64).collect()).unwrap(), ty)
                        .unwrap();
                let value = super::super::convert(&Tensor::from_vec(&[], vec![9i64]).unwrap(), ty).unwrap();
                let out = pad(&data, &begins, &ends, Some(&value), mode).unwrap();
                assert_eq!(out.shape(), shape.as_slice());
                let got = super::super::convert(&out, ElementType::I64).unwrap().to_vec::<i64>().unwrap();
                let want: Vec<i64> = want.iter().map(|&v| if v < 0 { 9 } else { v }).collect();
                assert_eq!(got, want, "{ty} {mode:?}");
            }
        }
        let words: Vec<String> = (0..6).map(|i| format!("w{i}")).collect();
        let data = Tensor::from_strings(&[2, 3], words.clone()).unwrap();
        let out = pad(&data, &begins, &ends, None, PadMode::Constant).unwrap();
        let (_, want) = by_definition(PadMode::Constant, &[2, 3], &[(1, 0), (2, 1)]);
        let want: Vec<String> =
            want.iter().map(|&v| if v < 0 { String::new() } else { words[v as usize].clone() }).collect();
        assert_eq!(out.strings().unwrap(), want.as_slice());
    }

    /// OpenVINO's op_reference table for constant mode (pads 4 and 5 of
    /// [1, 2, 3, 4, 5, 6] with 2112), and the other modes on the same
    /// input, worked out by hand.
    #[test]
    fn op_reference_tables() {
        let data = Tensor::from_vec(&[6], vec![1f32, 2., 3., 4., 5., 6.]).unwrap();
        let (begins, ends) = (i64s(&[4]), i64s(&[5]));
        let value = Tensor::from_vec(&[], vec![2112f32]).unwrap();
        let out = pad(&data, &begins, &ends, Some(&value), PadMode::Constant).unwrap();
        let mut want = vec![2112f32; 4];
        want.extend([1., 2., 3., 4., 5., 6.]);
        want.extend([2112.; 5]);
        assert_eq!(out.to_vec::<f32>().unwrap(), want);
        let out = pad(&data, &begins, &ends, None, PadMode::Edge).unwrap();
        assert_eq!(
            out.to_vec::<f32>().unwrap(),
            [1., 1., 1., 1., 1., 2., 3., 4., 5., 6., 6., 6., 6., 6., 6.]
        );
        let (begins, ends) = (i64s(&[4]), i64s(&[5]));
        let out = pad(&data, &begins, &ends, None, PadMode::Reflect).unwrap();
        assert_eq!(
            out.to_vec::<f32>().unwrap(),
            [5., 4., 3., 2., 1., 2., 3., 4., 5., 6., 5., 4., 3., 2., 1.]
        );
        let out = pad(&data, &begins, &ends, None, PadMode::Symmetric).unwrap();
        assert_eq!(
            out.to_vec::<f32>().unwrap(),
            [4., 3., 2., 1., 1., 2., 3., 4., 5., 6., 6., 5., 4., 3., 2.]
        );
    }

    #[test]
    fn bad_pad_values_and_pads_are_refused_with_the_rule() {
        let data = Tensor::from_vec(&[3], vec![1f32, 2., 3.]).unwrap();
        let (begins, ends) = (i64s(&[1]), i64s(&[1]));
        let wrong = Tensor::from_vec(&[], vec![1i32]).unwrap();
        let err = pad(&data, &begins, &ends, Some(&wrong), PadMode::Constant).unwrap_err();
        assert!(matches!(err, KernelError::Shape(ShapeErrorKind::InputTypes { .. })), "{err:?}");
        let vector = Tensor::from_vec(&[1], vec![1f32]).unwrap();
        let err = pad(&data, &begins, &ends, Some(&vector), PadMode::Constant).unwrap_err();
        assert!(matches!(err, KernelError::Shape(ShapeErrorKind::InputShape { .. })), "{err:?}");
        let err = pad(&data, &i64s(&[3]), &ends, None, PadMode::Reflect).unwrap_err();
        assert!(matches!(err, KernelError::Shape(ShapeErrorKind::PadModeLimit { .. })), "{err:?}");
        let err = pad(&data, &i64s(&[-5]), &ends, None, PadMode::Constant).unwrap_err();
        assert!(matches!(err, KernelError::Shape(ShapeErrorKind::PadSize { .. })), "{err:?}");
        // The value is read only in constant mode.
        assert!(pad(&data, &begins, &ends, Some(&wrong), PadMode::Edge).is_ok());
    }

    #[test]
    fn a_scratch_keeps_the_copy_for_the_same_pads() {
        let data = Tensor::from_vec(&[2], vec![1i16, 2]).unwrap();
        let mut scratch = PadScratch::new();
        let options = ExecOptions::single_thread();
        for (b, want) in [(1, vec![0, 1, 2]), (1, vec![0, 1, 2]), (2, vec![0, 0, 1, 2])] {
            let mut out = Tensor::zeros(ElementType::I16, &[want.len()]).unwrap();
            pad_into(
                &data,
                &i64s(&[b]),
                &i64s(&[0]),
                None,
                PadMode::Constant,
                &mut out,
                &options,
                &mut scratch,
            )
            .unwrap();
            assert_eq!(out.to_vec::<i16>().unwrap(), want);
        }
    }

    #[test]
    fn pads_of_any_length_are_worked_out_at_once() {
        // Each axis is at most three runs, worked out from their ends: a
        // pad of 10^18 elements is refused at once (the output overflows),
        // not walked index by index.
        let data = Tensor::from_vec(&[2, 2], vec![1i32, 2, 3, 4]).unwrap();
        let begins = Tensor::from_vec(&[2], vec![1_676_976_733_972_070_401i64, 95_325]).unwrap();
        let ends = Tensor::from_vec(&[2], vec![3i64, 4]).unwrap();
        for mode in [PadMode::Constant, PadMode::Edge] {
            assert!(pad(&data, &begins, &ends, None, mode).is_err(), "{mode:?}");
        }
        let runs = axis_runs(PadMode::Edge, 3, 1 << 40, (1 << 41) + 3).unwrap();
        let want: AxisRuns = smallvec::smallvec![
            Run::Data { count: 1 << 40, start: 0, step: 0 },
            Run::Data { count: 3, start: 0, step: 1 },
            Run::Data { count: 1 << 40, start: 2, step: 0 },
        ];
        assert_eq!(runs, want);
        let runs = axis_runs(PadMode::Reflect, 4, 3, 9).unwrap();
        let want: AxisRuns = smallvec::smallvec![
            Run::Data { count: 3, start: 3, step: -1 },
            Run::Data { count: 4, start: 0, step: 1 },
            Run::Data { count: 2, start: 2, step: -1 },
        ];
        assert_eq!(runs, want);
    }
}
