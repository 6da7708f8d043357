//! ScatterElementsUpdate-3 and ScatterElementsUpdate-12: a copy of the data
//! in which each element of the updates replaces (or, with a reduction,
//! combines with) the element at its own position but with the index
//! along the axis that the indices give.
//!
//! Every index is read and checked before anything is written: one
//! outside `[-s, s)` is an error naming it and its position; negative ones
//! count from the end. The updates apply in index order, so where
//! indices repeat with no reduction the last update wins, and a reduction
//! combines them in that order. With a reduction and `use_init_val`
//! false, each element an update lands on starts from the reduction's
//! neutral value (0 for `sum` and `mean`, 1 for `prod`, the type's
//! largest finite value for `min` and its lowest for `max`), as
//! OpenVINO's reference does; `mean` divides the sum by the number of
//! updates (plus one with `use_init_val`), integers rounding toward −∞.
//! `f16` and `bf16` reduce in `f32` and round once (see
//! [`reduce`](super::reduce)); the 8-bit floats, strings and packed types
//! take no reduction.

use ovir_shape::ops::gather_elements::index_in;
use ovir_shape::ops::scatter_elements_update::check_elements_updates;
use ovir_shape::ops::ScatterElementsReduction;
use ovir_shape::ShapeErrorKind;
use ovir_tensor::packed::{code_at, is_packed, set_code};
use ovir_tensor::{ElementType, PartialShape, Tensor};
use smallvec::SmallVec;

use super::reduce::{combine, combine_wide, narrow, reduces, widen, Reduction};
use super::{ExecOptions, KernelError};

const OP: &str = "ScatterElementsUpdate";

/// What ScatterElementsUpdate keeps between runs: the output element each
/// update lands on, the count of updates per element (for `mean`) and
/// the output widened to `f32` (for reductions of `f16` and `bf16`), so
/// that running it again on inputs of the same sizes allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct ScatterElementsScratch {
    offsets: Vec<usize>,
    counts: Vec<u32>,
    wide: Vec<f32>,
}

impl ScatterElementsScratch {
    /// An empty scratch; it allocates on first use and then keeps its
    /// memory.
    pub fn new() -> ScatterElementsScratch {
        ScatterElementsScratch::default()
    }
}

fn internal() -> KernelError {
    KernelError::Internal { op: OP, what: "a scatter's sizes do not agree" }
}

/// Checks the inputs' shapes and types against one another and gives the
/// axis, normalised. Allocates nothing unless they do not fit.
fn checked_axis(
    (ty, d): (ElementType, &[usize]),
    indices: &Tensor,
    updates: &Tensor,
    axis: &Tensor,
) -> Result<usize, KernelError> {
    let ity = indices.element_type();
    if !ity.is_integral() {
        return Err(ShapeErrorKind::IntegerInput { op: OP, input: "indices", found: ity }.into());
    }
    let uty = updates.element_type();
    if ty != uty {
        return Err(ShapeErrorKind::InputTypes { op: OP, input: 2, found: uty, expected: ty }.into());
    }
    if axis.len() != 1 {
        return Err(super::checks::input_shape_error(
            OP,
            "axis",
            "a scalar or a tensor of one element",
            axis,
        ));
    }
    let mut value = 0i128;
    ovir_shape::try_for_each_integer(axis, |a| {
        value = a;
        Ok::<(), ()>(())
    })
    .ok_or(ShapeErrorKind::IntegerInput { op: OP, input: "axis", found: axis.element_type() })?
    .map_err(|()| internal())?;
    let i = indices.shape();
    let rank = d.len();
    let a = i64::try_from(value).unwrap_or(i64::MIN);
    let at = ovir_tensor::normalize_axis(a, rank).ok_or(ShapeErrorKind::OpAxisOutOfRange {
        op: OP,
        what: "axis",
        axis: a,
        rank,
    })?;
    let fits = i.len() == rank
        && updates.shape() == i
        && d.iter().zip(i).enumerate().all(|(k, (&x, &y))| k == at || y <= x);
    if !fits {
        // Only now are the shapes written out, for the error.
        let shape = PartialShape::from_static;
        check_elements_updates(&shape(d), &shape(i), &shape(updates.shape()), Some(at))?;
        return Err(internal());
    }
    Ok(at)
}

/// The output shape of [`scatter_elements_update`] for these inputs (the
/// data's), once they are checked to fit one another.
pub fn scatter_elements_update_output_shape(
    data: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
    axis: &Tensor,
) -> Result<Vec<usize>, KernelError> {
    checked_axis((data.element_type(), data.shape()), indices, updates, axis)?;
    Ok(data.shape().to_vec())
}

/// ScatterElementsUpdate-3 (`reduction` `None`) and ScatterElementsUpdate-12:
/// a copy of `data` in which, for every position `p` of `indices` (an
/// integer tensor of the data's rank, no larger than it on the axes other
/// than `axis`), the element at `p` with `p[axis]` replaced by
/// `indices[p]` becomes `updates[p]` (of the indices' shape), or that
/// combined with it by `reduction`. `axis` is one integer in `[-r, r)`.
/// Indices lie in `[-s, s)`, negative ones counting from the end; one
/// outside is an error naming it and its position. Updates apply in index
/// order: where indices repeat, the last wins, or the reduction combines
/// them in that order. `use_init_val` false starts each element an update
/// lands on from the reduction's neutral value instead of the data's.
///
/// ```
/// use ovir_exec::kernels::scatter_elements_update;
/// use ovir_shape::ops::ScatterElementsReduction;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_vec(&[2, 3], vec![0i32, 0, 0, 0, 0, 0])?;
/// let indices = Tensor::from_vec(&[2, 2], vec![2i64, 0, -1, 2])?;
/// let updates = Tensor::from_vec(&[2, 2], vec![1i32, 2, 3, 4])?;
/// let axis = Tensor::from_vec(&[], vec![1i32])?;
/// let none = ScatterElementsReduction::None;
/// let out = scatter_elements_update(&data, &indices, &updates, &axis, none, true)?;
/// assert_eq!(out.to_vec::<i32>()?, vec![2, 0, 1, 0, 0, 4]);
/// // The mean of 3 and 4 with the 0 already there, rounded down.
/// let mean = ScatterElementsReduction::Mean;
/// let out = scatter_elements_update(&data, &indices, &updates, &axis, mean, true)?;
/// assert_eq!(out.to_vec::<i32>()?, vec![1, 0, 0, 0, 0, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn scatter_elements_update(
    data: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
    axis: &Tensor,
    reduction: ScatterElementsReduction,
    use_init_val: bool,
) -> Result<Tensor, KernelError> {
    let shape = scatter_elements_update_output_shape(data, indices, updates, axis)?;
    let mut out = Tensor::zeros(data.element_type(), &shape)?;
    let options = ExecOptions::single_thread();
    let mut scratch = ScatterElementsScratch::new();
    scatter_elements_update_into(
        data,
        indices,
        updates,
        axis,
        reduction,
        use_init_val,
        &mut out,
        &options,
        &mut scratch,
    )?;
    Ok(out)
}

/// [`scatter_elements_update`] into an output of the data's type and
/// shape, keeping its working memory in `scratch`.
#[allow(clippy::too_many_arguments)]
pub fn scatter_elements_update_into(
    data: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
    axis: &Tensor,
    reduction: ScatterElementsReduction,
    use_init_val: bool,
    out: &mut Tensor,
    _options: &ExecOptions,
    scratch: &mut ScatterElementsScratch,
) -> Result<(), KernelError> {
    let inputs = [indices, updates, axis];
    scatter_elements_into(Some(data), inputs, reduction, use_init_val, out, scratch)
}

/// [`scatter_elements_update_into`] from a copy of `data`, or with no
/// `data` in place: `out` already holds it.
pub(crate) fn scatter_elements_into(
    data: Option<&Tensor>,
    [indices, updates, axis]: [&Tensor; 3],
    reduction: ScatterElementsReduction,
    use_init_val: bool,
    out: &mut Tensor,
    scratch: &mut ScatterElementsScratch,
) -> Result<(), KernelError> {
    let ty = data.map_or(out.element_type(), Tensor::element_type);
    let shape: SmallVec<[usize; 8]> = data.map_or(out.shape(), Tensor::shape).into();
    let axis = checked_axis((ty, &shape), indices, updates, axis)?;
    super::checks::check_output(OP, ty, &shape, out)?;
    let r = match reduction {
        ScatterElementsReduction::None => None,
        ScatterElementsReduction::Sum | ScatterElementsReduction::Mean => Some(Reduction::Sum),
        ScatterElementsReduction::Prod => Some(Reduction::Prod),
        ScatterElementsReduction::Min => Some(Reduction::Min),
        ScatterElementsReduction::Max => Some(Reduction::Max),
    };
    let mean = reduction == ScatterElementsReduction::Mean;
    if r.is_some()
        && (!reduces(ty) || matches!(ty, ElementType::F8e4m3 | ElementType::F8e5m2 | ElementType::F8e8m0))
    {
        return Err(KernelError::UnsupportedType { op: OP, ty });
    }
    if mean && ty == ElementType::Boolean {
        return Err(ShapeErrorKind::InputType {
            op: OP,
            input: "data",
            expected: "a number type for the mean reduction",
            found: ty,
        }
        .into());
    }
    let ScatterElementsScratch { offsets, counts, wide } = scratch;
    landing(&shape, indices, axis, offsets)?;
    if let Some(data) = data {
        copy(ty, data, out)?;
    }
    let len = out.len();
    let Some(r) = r else {
        return write(ty, offsets, updates, out);
    };
    let wide_type = matches!(ty, ElementType::F16 | ElementType::Bf16);
    let w = ty.byte_width().ok_or(KernelError::UnsupportedType { op: OP, ty })?;
    let src = updates.bytes().ok_or(KernelError::UnsupportedType { op: OP, ty })?;
    let bad = || KernelError::Internal { op: OP, what: "an update lands outside the output" };
    if wide_type {
        wide.clear();
        super::error::try_reserve(wide, len, OP, "data")?;
        wide.resize(len, 0.0);
        widen(OP, ty, out.bytes().ok_or_else(bad)?, wide)?;
        if !use_init_val {
            let n = neutral_wide(ty, reduction);
            for &o in offsets.iter() {
                *wide.get_mut(o).ok_or_else(bad)? = n;
            }
        }
        for (j, &o) in offsets.iter().enumerate() {
            let to = wide.get_mut(o..o + 1).ok_or_else(bad)?;
            let from = src.get(j * w..(j + 1) * w).ok_or_else(bad)?;
            combine_wide(OP, ty, r, to, from)?;
        }
        if mean {
            averaged(offsets, counts, len, use_init_val, |o, n| {
                *wide.get_mut(o).ok_or_else(bad)? /= n as f32;
                Ok(())
            })?;
        }
        return narrow(OP, ty, wide, out.bytes_mut().ok_or_else(bad)?);
    }
    let dst = out.bytes_mut().ok_or_else(bad)?;
    if !use_init_val {
        for &o in offsets.iter() {
            neutral(ty, reduction, dst.get_mut(o * w..(o + 1) * w).ok_or_else(bad)?);
        }
    }
    for (j, &o) in offsets.iter().enumerate() {
        let to = dst.get_mut(o * w..(o + 1) * w).ok_or_else(bad)?;
        let from = src.get(j * w..(j + 1) * w).ok_or_else(bad)?;
        combine(OP, ty, r, to, from)?;
    }
    if mean {
        averaged(offsets, counts, len, use_init_val, |o, n| {
            divide(ty, dst.get_mut(o * w..(o + 1) * w).ok_or_else(bad)?, n);
            Ok(())
        })?;
    }
    Ok(())
}

/// Reads `indices` into `offsets` (emptied first): the output element each
/// update lands on, in index order. An index out of range is an error
/// naming it; nothing has been written then.
fn landing(
    data: &[usize],
    indices: &Tensor,
    axis: usize,
    offsets: &mut Vec<usize>,
) -> Result<(), KernelError> {
    let ishape = indices.shape();
    let mut strides: SmallVec<[usize; 8]> = SmallVec::from_elem(0, data.len());
    let mut step = 1usize;
    for (s, &d) in strides.iter_mut().zip(data).rev() {
        *s = step;
        step = step.checked_mul(d).ok_or_else(internal)?;
    }
    let size = data.get(axis).copied().ok_or_else(internal)? as u64;
    let axis_stride = strides.get(axis).copied().ok_or_else(internal)?;
    offsets.clear();
    super::error::try_reserve(offsets, indices.len(), OP, "indices")?;
    let mut coord: SmallVec<[usize; 8]> = SmallVec::from_elem(0, ishape.len());
    // The offset of the current position with 0 along the axis.
    let mut base = 0usize;
    let mut flat = 0usize;
    let read = ovir_shape::try_for_each_integer(indices, |i| {
        let at = index_in(OP, i, size, true, flat, ishape)?;
        let at = usize::try_from(at).map_err(|_| internal())?;
        offsets.push(base + at * axis_stride);
        flat += 1;
        // The next position, last axis fastest.
        for k in (0..coord.len()).rev() {
            let (c, &n, &s) = match (coord.get_mut(k), ishape.get(k), strides.get(k)) {
                (Some(c), Some(n), Some(s)) => (c, n, s),
                _ => return Err(internal()),
            };
            let along = if k == axis { 0 } else { s };
            *c += 1;
            if *c < n {
                base += along;
                break;
            }
            base -= along * (n - 1);
            *c = 0;
        }
        Ok::<(), KernelError>(())
    });
    read.ok_or(ShapeErrorKind::IntegerInput { op: OP, input: "indices", found: indices.element_type() })??;
    Ok(())
}

/// The data copied whole into `out`, of its type and shape.
fn copy(ty: ElementType, data: &Tensor, out: &mut Tensor) -> Result<(), KernelError> {
    if ty == ElementType::String {
        let (src, dst) = (data.strings().ok_or_else(internal)?, out.strings_mut().ok_or_else(internal)?);
        if src.len() != dst.len() {
            return Err(internal());
        }
        for (d, s) in dst.iter_mut().zip(src) {
            d.clone_from(s);
        }
        return Ok(());
    }
    let (src, dst) = (data.bytes().ok_or_else(internal)?, out.bytes_mut().ok_or_else(internal)?);
    dst.get_mut(..src.len()).ok_or_else(internal)?.copy_from_slice(src);
    Ok(())
}

/// Each update written over the output element it lands on, in order.
fn write(ty: ElementType, offsets: &[usize], updates: &Tensor, out: &mut Tensor) -> Result<(), KernelError> {
    let bad = || KernelError::Internal { op: OP, what: "an update lands outside the output" };
    if ty == ElementType::String {
        let (src, dst) = (updates.strings().ok_or_else(bad)?, out.strings_mut().ok_or_else(bad)?);
        for (j, &o) in offsets.iter().enumerate() {
            dst.get_mut(o).ok_or_else(bad)?.clone_from(src.get(j).ok_or_else(bad)?);
        }
        return Ok(());
    }
    let src = updates.bytes().ok_or(KernelError::UnsupportedType { op: OP, ty })?;
    let dst = out.bytes_mut().ok_or_else(bad)?;
    if is_packed(ty) {
        for (j, &o) in offsets.iter().enumerate() {
            let code = code_at(src, ty, j).ok_or_else(bad)?;
            set_code(dst, ty, o, code).ok_or_else(bad)?;
        }
        return Ok(());
    }
    let w = ty.byte_width().ok_or(KernelError::UnsupportedType { op: OP, ty })?;
    for (j, &o) in offsets.iter().enumerate() {
        let to = dst.get_mut(o * w..(o + 1) * w).ok_or_else(bad)?;
        to.copy_from_slice(src.get(j * w..(j + 1) * w).ok_or_else(bad)?);
    }
    Ok(())
}

/// Calls `divide` once for each output element updates landed on (of
/// `len`), with the number of values its sum holds: the updates, plus
/// one with `use_init_val`. `counts` is working memory.
fn averaged(
    offsets: &[usize],
    counts: &mut Vec<u32>,
    len: usize,
    use_init_val: bool,
    mut divide: impl FnMut(usize, u32) -> Result<(), KernelError>,
) -> Result<(), KernelError> {
    counts.clear();
    super::error::try_reserve(counts, len, OP, "data")?;
    counts.resize(len, 0);
    for &o in offsets {
        let c = counts.get_mut(o).ok_or_else(internal)?;
        *c = c.saturating_add(1);
    }
    for &o in offsets {
        let c = counts.get_mut(o).ok_or_else(internal)?;
        if *c > 0 {
            let n = c.saturating_add(u32::from(use_init_val));
            *c = 0;
            divide(o, n)?;
        }
    }
    Ok(())
}

/// The reduction's neutral value of a type that reduces in `f32`, as the
/// type holds it.
fn neutral_wide(ty: ElementType, reduction: ScatterElementsReduction) -> f32 {
    let big = if ty == ElementType::Bf16 { half::bf16::MAX.to_f32() } else { half::f16::MAX.to_f32() };
    match reduction {
        ScatterElementsReduction::Prod => 1.0,
        ScatterElementsReduction::Min => big,
        ScatterElementsReduction::Max => -big,
        _ => 0.0,
    }
}

macro_rules! neutral_of {
    ($t:ty, $reduction:expr, $b:expr, $one:expr) => {{
        let v: $t = match $reduction {
            ScatterElementsReduction::Prod => $one,
            ScatterElementsReduction::Min => <$t>::MAX,
            ScatterElementsReduction::Max => <$t>::MIN,
            _ => <$t>::default(),
        };
        $b.copy_from_slice(&v.to_le_bytes());
    }};
}

/// Writes the reduction's neutral value into `b`, one element of `ty`.
/// `MIN` of the float types is their lowest finite value. On booleans,
/// `min` starts true and `max` false, which with AND and OR leave the
/// first update as it is.
fn neutral(ty: ElementType, reduction: ScatterElementsReduction, b: &mut [u8]) {
    use ElementType as E;
    match ty {
        E::Boolean => {
            let one = matches!(reduction, ScatterElementsReduction::Prod | ScatterElementsReduction::Min);
            b.fill(u8::from(one));
        }
        E::I8 => neutral_of!(i8, reduction, b, 1),
        E::U8 => neutral_of!(u8, reduction, b, 1),
        E::I16 => neutral_of!(i16, reduction, b, 1),
        E::U16 => neutral_of!(u16, reduction, b, 1),
        E::I32 => neutral_of!(i32, reduction, b, 1),
        E::U32 => neutral_of!(u32, reduction, b, 1),
        E::I64 => neutral_of!(i64, reduction, b, 1),
        E::U64 => neutral_of!(u64, reduction, b, 1),
        E::F32 => neutral_of!(f32, reduction, b, 1.0),
        E::F64 => neutral_of!(f64, reduction, b, 1.0),
        _ => {}
    }
}

macro_rules! divide_int {
    ($t:ty, $b:expr, $n:expr) => {{
        let mut a = [0u8; std::mem::size_of::<$t>()];
        a.copy_from_slice($b);
        let v = <$t>::from_le_bytes(a);
        // As the reference: in f64, rounded toward −∞.
        let m = (v as f64 / f64::from($n)).floor() as $t;
        $b.copy_from_slice(&m.to_le_bytes());
    }};
}

/// Divides the element in `b` (one of `ty`) by `n`: floats in their type,
/// integers in `f64` rounded toward −∞.
fn divide(ty: ElementType, b: &mut [u8], n: u32) {
    use ElementType as E;
    match ty {
        E::I8 => divide_int!(i8, b, n),
        E::U8 => divide_int!(u8, b, n),
        E::I16 => divide_int!(i16, b, n),
        E::U16 => divide_int!(u16, b, n),
        E::I32 => divide_int!(i32, b, n),
        E::U32 => divide_int!(u32, b, n),
        E::I64 => divide_int!(i64, b, n),
        E::U64 => divide_int!(u64, b, n),
        E::F32 => {
            let mut a = [0u8; 4];
            a.copy_from_slice(b);
            b.copy_from_slice(&(f32::from_le_bytes(a) / n as f32).to_le_bytes());
        }
        E::F64 => {
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            b.copy_from_slice(&(f64::from_le_bytes(a) / f64::from(n)).to_le_bytes());
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScatterElementsReduction as R;

    /// The op from its definition, element by element, on 2-D `i32` data:
    /// each update replaces, or combines by `f`, the element it lands on.
    fn naive(
        data: &[i32],
        cols: usize,
        indices: &[i64],
        icols: usize,
        updates: &[i32],
        axis: usize,
        f: Option<fn(i32, i32) -> i32>,
    ) -> Vec<i32> {
        let mut out = data.to_vec();
        let rows = data.len() / cols;
        for (j, (&i, &u)) in indices.iter().zip(updates).enumerate() {
            let (r, c) = (j / icols, j % icols);
            let size = if axis == 0 { rows } else { cols } as i64;
            let i = if i < 0 { i + size } else { i } as usize;
            let at = if axis == 0 { i * cols + c } else { r * cols + i };
            out[at] = match f {
                None => u,
                Some(f) => f(out[at], u),
            };
        }
        out
    }

    fn run(
        data: (&[usize], Vec<i32>),
        indices: (&[usize], Vec<i64>),
        updates: Vec<i32>,
        axis: i64,
        r: R,
        init: bool,
    ) -> Result<Vec<i32>, KernelError> {
        let d = Tensor::from_vec(data.0, data.1).unwrap();
        let i = Tensor::from_vec(indices.0, indices.1).unwrap();
        let u = Tensor::from_vec(indices.0, updates).unwrap();
        let a = Tensor::from_vec(&[1], vec![axis]).unwrap();
        Ok(scatter_elements_update(&d, &i, &u, &a, r, init)?.to_vec::<i32>().unwrap())
    }

    #[test]
    fn every_axis_matches_the_definition() {
        let data: Vec<i32> = (0..12).collect();
        let indices = vec![2i64, -1, 0, 1, -3, 3];
        let updates = vec![100, 101, 102, 103, 104, 105];
        // Axis 1 of a [3, 4] by indices [3, 2]; axis 0 of a [4, 3] by [2, 3].
        let got = run((&[3, 4], data.clone()), (&[3, 2], indices.clone()), updates.clone(), 1, R::None, true);
        assert_eq!(got.unwrap(), naive(&data, 4, &indices, 2, &updates, 1, None));
        let indices0 = vec![2i64, -1, 0, 1, -3, 3];
        let got =
            run((&[4, 3], data.clone()), (&[2, 3], indices0.clone()), updates.clone(), -2, R::None, true);
        assert_eq!(got.unwrap(), naive(&data, 3, &indices0, 3, &updates, 0, None));
        let got = run((&[4, 3], data.clone()), (&[2, 3], indices0.clone()), updates.clone(), 0, R::Sum, true);
        assert_eq!(got.unwrap(), naive(&data, 3, &indices0, 3, &updates, 0, Some(|a, b| a + b)));
    }

    /// Repeated indices: the last update wins, or all combine.
    #[test]
    fn repeated_indices_apply_in_order() {
        let d = || (&[4usize][..], vec![10i32, 20, 30, 40]);
        let i = || (&[4usize][..], vec![1i64, 1, -3, 3]);
        let u = || vec![1i32, 2, 3, 4];
        assert_eq!(run(d(), i(), u(), 0, R::None, true).unwrap(), vec![10, 3, 30, 4]);
        assert_eq!(run(d(), i(), u(), 0, R::Sum, true).unwrap(), vec![10, 26, 30, 44]);
        assert_eq!(run(d(), i(), u(), 0, R::Sum, false).unwrap(), vec![10, 6, 30, 4]);
        assert_eq!(run(d(), i(), u(), 0, R::Prod, false).unwrap(), vec![10, 6, 30, 4]);
        assert_eq!(run(d(), i(), u(), 0, R::Max, true).unwrap(), vec![10, 20, 30, 40]);
        assert_eq!(run(d(), i(), u(), 0, R::Min, false).unwrap(), vec![10, 1, 30, 4]);
        // (20 + 1 + 2 + 3) / 4 = 6.5 -> 6; (40 + 4) / 2 = 22.
        assert_eq!(run(d(), i(), u(), 0, R::Mean, true).unwrap(), vec![10, 6, 30, 22]);
        // (1 + 2 + 3) / 3 = 2; 4 / 1.
        assert_eq!(run(d(), i(), u(), 0, R::Mean, false).unwrap(), vec![10, 2, 30, 4]);
    }

    #[test]
    fn integer_mean_rounds_toward_minus_infinity() {
        let d = (&[2usize][..], vec![0i32, 0]);
        let i = (&[3usize][..], vec![0i64, 0, 1]);
        // (-1 - 2) / 2 = -1.5 -> -2; -1 / 1 with the 0: -0.5 -> -1.
        assert_eq!(run(d, i, vec![-1, -2, -1], 0, R::Mean, false).unwrap(), vec![-2, -1]);
    }

    #[test]
    fn bad_indices_are_errors_naming_them() {
        let d = || (&[2usize, 3][..], vec![0i32; 6]);
        let err = run(d(), (&[2, 2], vec![0, 1, 2, 3]), vec![0; 4], 1, R::None, true).unwrap_err();
        assert_eq!(
            err.to_string(),
            "ScatterElementsUpdate index 3 at position [1, 1] of its indices is out of range: an index must lie between -3 and 2"
        );
        let err = run(d(), (&[2, 2], vec![0, 1, -4, 0]), vec![0; 4], 1, R::None, true).unwrap_err();
        assert!(err.to_string().contains("index -4 at position [1, 0]"), "{err}");
        // Indices wider than the data off the axis.
        assert!(run(d(), (&[3, 1], vec![0, 0, 0]), vec![0; 3], 1, R::None, true).is_err());
    }

    #[test]
    fn booleans_or_and_and_and_refuse_mean() {
        let d = Tensor::from_vec(&[2], vec![false, true]).unwrap();
        let i = Tensor::from_vec(&[4], vec![0i32, 0, 1, 1]).unwrap();
        let u = Tensor::from_vec(&[4], vec![true, false, false, true]).unwrap();
        let a = Tensor::from_vec(&[], vec![0i64]).unwrap();
        let got =
            |r, init| scatter_elements_update(&d, &i, &u, &a, r, init).map(|t| t.to_vec::<bool>().unwrap());
        assert_eq!(got(R::Sum, true).unwrap(), vec![true, true]);
        assert_eq!(got(R::Prod, true).unwrap(), vec![false, false]);
        assert_eq!(got(R::Max, false).unwrap(), vec![true, true]);
        assert_eq!(got(R::Min, false).unwrap(), vec![false, false]);
        assert!(got(R::Mean, true).is_err());
    }

    #[test]
    fn narrow_floats_reduce_wide_and_strings_move() {
        use half::f16;
        let d = Tensor::from_vec(&[1], vec![f16::from_f32(2048.0)]).unwrap();
        let i = Tensor::from_vec(&[4], vec![0i64; 4]).unwrap();
        let u = Tensor::from_vec(&[4], vec![f16::from_f32(1.0); 4]).unwrap();
        let a = Tensor::from_vec(&[], vec![0i64]).unwrap();
        let out = scatter_elements_update(&d, &i, &u, &a, R::Sum, true).unwrap();
        assert_eq!(out.to_vec::<f16>().unwrap(), vec![f16::from_f32(2052.0)]);
        let out = scatter_elements_update(&d, &i, &u, &a, R::Mean, true).unwrap();
        // (2048 + 4) / 5 = 410.4, rounded once to f16.
        assert_eq!(out.to_vec::<f16>().unwrap(), vec![f16::from_f32(410.4)]);
        let s = Tensor::from_strings(&[3], vec!["a".into(), "b".into(), "c".into()]).unwrap();
        let u = Tensor::from_strings(&[2], vec!["x".into(), "y".into()]).unwrap();
        let i = Tensor::from_vec(&[2], vec![-1i64, 0]).unwrap();
        let out = scatter_elements_update(&s, &i, &u, &a, R::None, true).unwrap();
        assert_eq!(out.strings().unwrap(), &["y".to_string(), "b".into(), "x".into()]);
    }
}
