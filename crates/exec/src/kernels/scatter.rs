//! ScatterUpdate and ScatterNDUpdate: a copy of the data in which units of
//! consecutive elements, one per index (ScatterUpdate) or per tuple of
//! indices (ScatterNDUpdate), are replaced by (or, with a reduction,
//! combined with) units of the updates.
//!
//! The data is copied into the output by the moves player (a dense view,
//! worked out once per data shape), then the updates are written unit by
//! unit in index order: where indices repeat, which the specs leave
//! undefined, the last update wins, and a reduction combines them in that
//! order. The narrow floats reduce in `f32`: the data is widened into the
//! scratch, the updates combined there, and the result rounded into the
//! output once (see [`reduce`](super::reduce)). An index out of range is
//! an error naming it and its position, found before anything is written.

use ovir_shape::ops::gather_elements::index_in;
use ovir_shape::ops::scatter_nd_update::check_nd_updates;
use ovir_shape::ops::scatter_update::{check_updates, scatter_update_axis};
use ovir_shape::ShapeErrorKind;
use ovir_tensor::packed::{code_at, is_packed, set_code};
use ovir_tensor::{ElementType, PartialShape, Tensor};
use smallvec::SmallVec;

use super::integers::{read_ints, Wide};
use super::moves::{Step, View};
use super::reduce::{combine, combine_wide, narrow, widen, widens, Reduction};
use super::{ExecOptions, KernelError};

const UPDATE: &str = "ScatterUpdate";
const ND: &str = "ScatterNDUpdate";

/// How a scatter runs on inputs of given shapes: the copy of the data and
/// where each unit of the updates lands. A plan whose shapes are static
/// works it out when the model compiles; the indices are read on every
/// run.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    op: &'static str,
    /// ScatterUpdate's axis as given (0 for ScatterNDUpdate): with the
    /// shapes, what the layout was made for.
    key: i64,
    data_shape: Vec<usize>,
    indices_shape: Vec<usize>,
    updates_shape: Vec<usize>,
    /// Blocks of the data the units land in one by one: the data's
    /// dimensions before ScatterUpdate's axis (1 for ScatterNDUpdate).
    outer: usize,
    /// Elements of each such block.
    outer_stride: usize,
    /// Units of updates per block: one per index, or per tuple.
    count: usize,
    /// Elements of each unit.
    unit: usize,
    /// For each index of a tuple (one for ScatterUpdate), the size of the
    /// data dimension it picks from and that dimension's stride.
    picks: SmallVec<[(u64, usize); 8]>,
    /// Negative indices count from the end.
    negative: bool,
    /// The data copied whole into the output.
    copy: View,
}

fn internal(op: &'static str) -> KernelError {
    KernelError::Internal { op, what: "a scatter's sizes do not agree" }
}

fn count(op: &'static str, s: Option<&[usize]>) -> Result<usize, KernelError> {
    s.and_then(ovir_tensor::element_count).ok_or_else(|| internal(op))
}

/// The dense copy of data of shape `shape` into an output of that shape.
fn whole(op: &'static str, shape: &[usize]) -> Result<View, KernelError> {
    let n = count(op, Some(shape))?;
    View::new(op, shape, shape.to_vec(), 0, &[(n, Step::Stride(1))])
}

/// The [`Layout`] of a ScatterUpdate of data of shape `data` by indices of
/// type `indices_type` and shape `indices`, with updates of shape
/// `updates`, along `axis`.
pub(crate) fn update_layout(
    data: &[usize],
    indices_type: ElementType,
    indices: &[usize],
    updates: &[usize],
    axis: i64,
) -> Result<Layout, KernelError> {
    let op = UPDATE;
    if !indices_type.is_integral() {
        return Err(ShapeErrorKind::IntegerInput { op, input: "indices", found: indices_type }.into());
    }
    let d = PartialShape::from_static(data);
    let axis_at = scatter_update_axis(&d, Some(axis))?.ok_or_else(|| internal(op))?;
    check_updates(
        &d,
        &PartialShape::from_static(indices),
        &PartialShape::from_static(updates),
        Some(axis_at),
    )?;
    let size = data.get(axis_at).copied().ok_or_else(|| internal(op))?;
    let unit = count(op, data.get(axis_at + 1..))?;
    Ok(Layout {
        op,
        key: axis,
        outer: count(op, data.get(..axis_at))?,
        outer_stride: size.checked_mul(unit).ok_or_else(|| internal(op))?,
        count: count(op, Some(indices))?,
        unit,
        picks: smallvec::smallvec![(size as u64, unit)],
        negative: false,
        copy: whole(op, data)?,
        data_shape: data.to_vec(),
        indices_shape: indices.to_vec(),
        updates_shape: updates.to_vec(),
    })
}

impl Layout {
    /// The output shape: the data's.
    pub(crate) fn shape(&self) -> &[usize] {
        &self.data_shape
    }

    /// Whether this layout was made for data of shape `data`, these
    /// indices and updates, and this key (ScatterUpdate's axis).
    pub(crate) fn fits(&self, data: &[usize], indices: &Tensor, updates: &Tensor, key: i64) -> bool {
        key == self.key
            && data == self.data_shape.as_slice()
            && indices.shape() == self.indices_shape.as_slice()
            && updates.shape() == self.updates_shape.as_slice()
    }

    /// Reads `indices` into `offsets` (emptied first): the element of its
    /// block each unit lands on, in index order. An index out of range is
    /// an error naming it.
    fn offsets(&self, indices: &Tensor, offsets: &mut Vec<usize>) -> Result<(), KernelError> {
        let op = self.op;
        offsets.clear();
        super::error::try_reserve(offsets, self.count, op, "indices")?;
        if self.picks.is_empty() {
            offsets.resize(self.count, 0);
            return Ok(());
        }
        let (mut k, mut offset, mut flat) = (0usize, 0usize, 0usize);
        let read = ovir_shape::try_for_each_integer(indices, |i| {
            let &(size, stride) = self.picks.get(k).ok_or_else(|| internal(op))?;
            let at = index_in(op, i, size, self.negative, flat, indices.shape())?;
            let step = usize::try_from(at).ok().and_then(|a| a.checked_mul(stride));
            offset = step.and_then(|s| offset.checked_add(s)).ok_or_else(|| internal(op))?;
            flat += 1;
            k += 1;
            if k == self.picks.len() {
                offsets.push(offset);
                (k, offset) = (0, 0);
            }
            Ok::<(), KernelError>(())
        });
        read.ok_or(ShapeErrorKind::IntegerInput { op, input: "indices", found: indices.element_type() })??;
        if offsets.len() != self.count {
            return Err(internal(op));
        }
        Ok(())
    }

    /// Scatters `updates` into a copy of `data` at the places `indices`
    /// give, combining them with `reduction` when there is one, into
    /// `out`; with no `data`, `out` already holds it and is updated in
    /// place. The inputs must fit this layout. `work` is working memory
    /// kept between runs.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        &self,
        data: Option<&Tensor>,
        indices: &Tensor,
        updates: &Tensor,
        reduction: Option<Reduction>,
        out: &mut Tensor,
        options: &ExecOptions,
        work: &mut Work,
    ) -> Result<(), KernelError> {
        let op = self.op;
        let ty = data.map_or(out.element_type(), Tensor::element_type);
        super::checks::check_output(op, ty, &self.data_shape, out)?;
        if updates.element_type() != ty {
            return Err(ShapeErrorKind::InputTypes {
                op,
                input: 2,
                found: updates.element_type(),
                expected: ty,
            }
            .into());
        }
        if let (Some(_), false) = (reduction, super::reduce::reduces(ty)) {
            return Err(KernelError::UnsupportedType { op, ty });
        }
        // Every index is read and checked before anything is written.
        let Work { offsets, wide } = work;
        self.offsets(indices, offsets)?;
        let units = self.outer.checked_mul(self.count).and_then(|n| n.checked_mul(self.unit));
        if units != Some(updates.len()) || out.len() != self.outer.saturating_mul(self.outer_stride) {
            return Err(internal(op));
        }
        let places = (0..self.outer).flat_map(|o| {
            offsets
                .iter()
                .enumerate()
                .map(move |(j, &at)| (o * self.outer_stride + at, (o * self.count + j) * self.unit))
        });
        match reduction {
            Some(r) if widens(ty) => {
                // In place too, the whole data is widened, so that repeated
                // indices round once.
                let bytes = data.unwrap_or(&*out).bytes().ok_or(KernelError::UnsupportedType { op, ty })?;
                wide.clear();
                super::error::try_reserve(wide, out.len(), op, "data")?;
                wide.resize(out.len(), 0.0);
                widen(op, ty, bytes, wide)?;
                let src = updates.bytes().ok_or(KernelError::UnsupportedType { op, ty })?;
                let w = ty.byte_width().ok_or(KernelError::UnsupportedType { op, ty })?;
                let bad = || KernelError::Internal { op, what: "a unit of updates lands outside the output" };
                for (d, s) in places {
                    let to = wide.get_mut(d..d.checked_add(self.unit).ok_or_else(bad)?).ok_or_else(bad)?;
                    let at = s.checked_mul(w).ok_or_else(bad)?;
                    let from = src.get(at..at.checked_add(self.unit * w).ok_or_else(bad)?).ok_or_else(bad)?;
                    combine_wide(op, ty, r, to, from)?;
                }
                let dst = out.bytes_mut().ok_or(KernelError::UnsupportedType { op, ty })?;
                narrow(op, ty, wide, dst)
            }
            _ => {
                if let Some(data) = data {
                    self.copy.run(data, out, options)?;
                }
                write_units(op, ty, self.unit, places, updates, out, reduction)
            }
        }
    }
}

/// Writes (or combines) the unit of `unit` elements of `updates` starting
/// at each source element into `out` at each destination element, in
/// order.
fn write_units(
    op: &'static str,
    ty: ElementType,
    unit: usize,
    places: impl Iterator<Item = (usize, usize)>,
    updates: &Tensor,
    out: &mut Tensor,
    reduction: Option<Reduction>,
) -> Result<(), KernelError> {
    let bad = || KernelError::Internal { op, what: "a unit of updates lands outside the output" };
    if unit == 0 {
        return Ok(());
    }
    if ty == ElementType::String {
        let src = updates.strings().ok_or_else(bad)?;
        let dst = out.strings_mut().ok_or_else(bad)?;
        for (d, s) in places {
            let to = dst.get_mut(d..d.checked_add(unit).ok_or_else(bad)?).ok_or_else(bad)?;
            let from = src.get(s..s.checked_add(unit).ok_or_else(bad)?).ok_or_else(bad)?;
            for (t, f) in to.iter_mut().zip(from) {
                t.clone_from(f);
            }
        }
        return Ok(());
    }
    let src = updates.bytes().ok_or(KernelError::UnsupportedType { op, ty })?;
    let dst = out.bytes_mut().ok_or_else(bad)?;
    if is_packed(ty) {
        for (d, s) in places {
            for e in 0..unit {
                let code = code_at(src, ty, s + e).ok_or_else(bad)?;
                set_code(dst, ty, d + e, code).ok_or_else(bad)?;
            }
        }
        return Ok(());
    }
    let w = ty.byte_width().ok_or(KernelError::UnsupportedType { op, ty })?;
    let len = unit.checked_mul(w).ok_or_else(bad)?;
    for (d, s) in places {
        let range = |e: usize| e.checked_mul(w).and_then(|b| Some(b..b.checked_add(len)?));
        let to = range(d).and_then(|r| dst.get_mut(r)).ok_or_else(bad)?;
        let from = range(s).and_then(|r| src.get(r)).ok_or_else(bad)?;
        match reduction {
            None => to.copy_from_slice(from),
            Some(r) => combine(op, ty, r, to, from)?,
        }
    }
    Ok(())
}

/// What a scatter keeps between runs: the offsets its indices give, and
/// the layout worked out for the last shapes when the plan could not work
/// it out at compile time, so that running it again on inputs of the
/// same shapes allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct ScatterScratch {
    work: Work,
    layout: Option<Layout>,
}

/// The memory a scatter works in: the offsets its indices give, and the
/// output widened to `f32` for a reduction of narrow floats.
#[derive(Clone, Debug, Default)]
pub(crate) struct Work {
    offsets: Vec<usize>,
    wide: Vec<f32>,
}

impl ScatterScratch {
    /// An empty scratch; it allocates on first use and then keeps its
    /// memory.
    pub fn new() -> ScatterScratch {
        ScatterScratch::default()
    }

    /// The working memory, for a layout kept elsewhere.
    pub(crate) fn work(&mut self) -> &mut Work {
        &mut self.work
    }

    /// Runs a scatter on inputs whose layout `make` works out, keeping the
    /// layout for the next run on the same shapes and `key`. Data of shape
    /// `shape` is copied from `data`, or with no `data` already in `out`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        &mut self,
        data: Option<&Tensor>,
        shape: &[usize],
        indices: &Tensor,
        updates: &Tensor,
        key: i64,
        reduction: Option<Reduction>,
        out: &mut Tensor,
        options: &ExecOptions,
        make: impl FnOnce() -> Result<Layout, KernelError>,
    ) -> Result<(), KernelError> {
        let kept = self.layout.as_ref().is_some_and(|l| l.fits(shape, indices, updates, key));
        if !kept {
            self.layout = None;
            self.layout = Some(make()?);
        }
        let ScatterScratch { work, layout } = self;
        let layout = layout.as_ref().ok_or_else(|| internal("scatter"))?;
        layout.run(data, indices, updates, reduction, out, options, work)
    }
}

/// ScatterUpdate's axis input: one integer.
pub(crate) fn read_axis(axis: &Tensor) -> Result<i64, KernelError> {
    match read_ints(axis, Wide::Saturate).as_deref() {
        Some(&[a]) => Ok(a),
        Some(_) => {
            Err(super::checks::input_shape_error(UPDATE, "axis", "a scalar or a tensor of one element", axis))
        }
        None => {
            Err(ShapeErrorKind::IntegerInput { op: UPDATE, input: "axis", found: axis.element_type() }.into())
        }
    }
}

/// The output shape of [`scatter_update`] for these inputs (the data's),
/// once they are checked to fit one another.
pub fn scatter_update_output_shape(
    data: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
    axis: &Tensor,
) -> Result<Vec<usize>, KernelError> {
    let axis = read_axis(axis)?;
    Ok(update_layout(data.shape(), indices.element_type(), indices.shape(), updates.shape(), axis)?
        .data_shape)
}

/// ScatterUpdate-3: a copy of `data` in which the slice at `indices[i...]`
/// along `axis` (a scalar or one-element integer tensor, negative counting
/// from the end) is replaced by the slice of `updates` at `i...`, for every
/// position `i...` of `indices`. `updates` has shape `data[:axis] +
/// indices + data[axis+1:]`. Indices are of any integer type and must lie
/// in `[0, s)`: a negative one or one past the end is an error naming it
/// and its position. Where indices repeat, the last update wins.
///
/// ```
/// use ovir_exec::kernels::scatter_update;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_vec(&[3, 2], vec![0i32; 6])?;
/// let indices = Tensor::from_vec(&[2], vec![2i64, 0])?;
/// let updates = Tensor::from_vec(&[2, 2], vec![1i32, 2, 3, 4])?;
/// let axis = Tensor::from_vec(&[], vec![0i64])?;
/// let out = scatter_update(&data, &indices, &updates, &axis)?;
/// assert_eq!(out.to_vec::<i32>()?, vec![3, 4, 0, 0, 1, 2]);
/// let negative = Tensor::from_vec(&[2], vec![-1i64, 0])?;
/// assert!(scatter_update(&data, &negative, &updates, &axis).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn scatter_update(
    data: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
    axis: &Tensor,
) -> Result<Tensor, KernelError> {
    let shape = scatter_update_output_shape(data, indices, updates, axis)?;
    let mut out = Tensor::zeros(data.element_type(), &shape)?;
    let options = ExecOptions::single_thread();
    scatter_update_into(data, indices, updates, axis, &mut out, &options, &mut ScatterScratch::new())?;
    Ok(out)
}

/// [`scatter_update`] into an output of the data's type and shape, keeping
/// its working memory in `scratch`.
pub fn scatter_update_into(
    data: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
    axis: &Tensor,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut ScatterScratch,
) -> Result<(), KernelError> {
    let axis = read_axis(axis)?;
    scratch.run(Some(data), data.shape(), indices, updates, axis, None, out, options, || {
        update_layout(data.shape(), indices.element_type(), indices.shape(), updates.shape(), axis)
    })
}

/// The [`Layout`] of a ScatterNDUpdate of data of shape `data` by indices
/// of type `indices_type` and shape `indices`, with updates of shape
/// `updates`.
pub(crate) fn nd_layout(
    data: &[usize],
    indices_type: ElementType,
    indices: &[usize],
    updates: &[usize],
) -> Result<Layout, KernelError> {
    let op = ND;
    if !matches!(indices_type, ElementType::I32 | ElementType::I64) {
        return Err(ShapeErrorKind::IndexType { op, input: "indices", found: indices_type }.into());
    }
    let (d, i) = (PartialShape::from_static(data), PartialShape::from_static(indices));
    check_nd_updates(&d, &i, &PartialShape::from_static(updates))?;
    let length = indices.last().copied().ok_or_else(|| internal(op))?;
    let mut picks = SmallVec::new();
    for k in 0..length {
        let size = data.get(k).copied().ok_or_else(|| internal(op))?;
        picks.push((size as u64, count(op, data.get(k + 1..))?));
    }
    Ok(Layout {
        op,
        key: 0,
        outer: 1,
        outer_stride: count(op, Some(data))?,
        count: count(op, indices.get(..indices.len() - 1))?,
        unit: count(op, data.get(length..))?,
        picks,
        negative: true,
        copy: whole(op, data)?,
        data_shape: data.to_vec(),
        indices_shape: indices.to_vec(),
        updates_shape: updates.to_vec(),
    })
}

/// The output shape of [`scatter_nd_update`] for these inputs (the
/// data's), once they are checked to fit one another.
pub fn scatter_nd_update_output_shape(
    data: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
) -> Result<Vec<usize>, KernelError> {
    Ok(nd_layout(data.shape(), indices.element_type(), indices.shape(), updates.shape())?.data_shape)
}

/// ScatterNDUpdate-3 (`reduction` `None`) and ScatterNDUpdate-15: a copy
/// of `data` in which, for each tuple along the last axis of `indices`
/// (`i32` or `i64`), the element or slice it picks is replaced by the
/// matching slice of `updates`, or combined with it by `reduction`
/// (see [`Reduction`]). `updates` has shape `indices[:-1] +
/// data[k:]`, `k` the length of the tuples (one element where that is a
/// scalar). Indices lie in `[-s, s)`, negative ones counting from the end;
/// one outside is an error naming it and its position. Tuples are applied
/// in index order: where they repeat, the last update wins, or the
/// reduction combines them in that order.
///
/// ```
/// use ovir_exec::kernels::{scatter_nd_update, Reduction};
/// use ovir_tensor::Tensor;
/// // The spec's example: four single elements.
/// let data = Tensor::from_vec(&[8], vec![1i32, 2, 3, 4, 5, 6, 7, 8])?;
/// let indices = Tensor::from_vec(&[4, 1], vec![4i64, 3, 1, 7])?;
/// let updates = Tensor::from_vec(&[4], vec![9i32, 10, 11, 12])?;
/// let out = scatter_nd_update(&data, &indices, &updates, None)?;
/// assert_eq!(out.to_vec::<i32>()?, vec![1, 11, 3, 10, 9, 6, 7, 12]);
/// // Summed, with a negative index and a repeated one.
/// let data = Tensor::from_vec(&[4], vec![1i32, 2, 3, 4])?;
/// let indices = Tensor::from_vec(&[5, 1], vec![0i32, 2, -3, -3, 0])?;
/// let updates = Tensor::from_vec(&[5], vec![10i32, 20, 30, 40, 50])?;
/// let out = scatter_nd_update(&data, &indices, &updates, Some(Reduction::Sum))?;
/// assert_eq!(out.to_vec::<i32>()?, vec![61, 72, 23, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn scatter_nd_update(
    data: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
    reduction: Option<Reduction>,
) -> Result<Tensor, KernelError> {
    let shape = scatter_nd_update_output_shape(data, indices, updates)?;
    let mut out = Tensor::zeros(data.element_type(), &shape)?;
    let options = ExecOptions::single_thread();
    scatter_nd_update_into(
        data,
        indices,
        updates,
        reduction,
        &mut out,
        &options,
        &mut ScatterScratch::new(),
    )?;
    Ok(out)
}

/// [`scatter_nd_update`] into an output of the data's type and shape,
/// keeping its working memory in `scratch`.
pub fn scatter_nd_update_into(
    data: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
    reduction: Option<Reduction>,
    out: &mut Tensor,
    options: &ExecOptions,
    scratch: &mut ScatterScratch,
) -> Result<(), KernelError> {
    scratch.run(Some(data), data.shape(), indices, updates, 0, reduction, out, options, || {
        nd_layout(data.shape(), indices.element_type(), indices.shape(), updates.shape())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(a: i64) -> Tensor {
        Tensor::from_vec(&[1], vec![a]).unwrap()
    }

    /// ScatterUpdate from its definition, element by element: for every
    /// position of the updates, the data element it replaces.
    fn naive(
        data: &[i32],
        dims: &[usize],
        indices: &[i64],
        ishape: &[usize],
        updates: &[i32],
        axis: usize,
    ) -> Vec<i32> {
        let mut out = data.to_vec();
        let outer: usize = dims[..axis].iter().product();
        let inner: usize = dims[axis + 1..].iter().product();
        let n: usize = ishape.iter().product();
        for o in 0..outer {
            for (j, &i) in indices.iter().enumerate().take(n) {
                for e in 0..inner {
                    out[(o * dims[axis] + i as usize) * inner + e] = updates[(o * n + j) * inner + e];
                }
            }
        }
        out
    }

    #[test]
    fn every_axis_matches_the_definition() {
        let dims = [3usize, 4, 5];
        let data: Vec<i32> = (0..60).collect();
        let t = Tensor::from_vec(&dims, data.clone()).unwrap();
        for a in 0..3usize {
            for ishape in [vec![], vec![2], vec![2, 2]] {
                let n: usize = ishape.iter().product();
                let indices: Vec<i64> = (0..n).map(|j| ((j * 3 + 1) % dims[a]) as i64).collect();
                let mut ushape = dims[..a].to_vec();
                ushape.extend(&ishape);
                ushape.extend(&dims[a + 1..]);
                let u: Vec<i32> = (0..ushape.iter().product::<usize>() as i32).map(|v| 1000 + v).collect();
                let want = naive(&data, &dims, &indices, &ishape, &u, a);
                let it = Tensor::from_vec(&ishape, indices).unwrap();
                let ut = Tensor::from_vec(&ushape, u).unwrap();
                for given in [a as i64, a as i64 - 3] {
                    let got = scatter_update(&t, &it, &ut, &axis(given)).unwrap();
                    assert_eq!(got.shape(), dims);
                    assert_eq!(got.to_vec::<i32>().unwrap(), want, "axis {given} indices {ishape:?}");
                }
            }
        }
    }

    /// The spec's example 2, and OpenVINO's op_reference values.
    #[test]
    fn the_specs_example() {
        let data = Tensor::from_vec(
            &[3, 5],
            vec![-1.0f32, 1.0, -1.0, 3.0, 4.0, -1.0, 6.0, -1.0, 8.0, 9.0, -1.0, 11.0, 1.0, 13.0, 14.0],
        )
        .unwrap();
        let indices = Tensor::from_vec(&[2], vec![0i32, 2]).unwrap();
        let updates = Tensor::from_vec(&[3, 2], vec![1.0f32, 1.0, 1.0, 1.0, 1.0, 2.0]).unwrap();
        let out = scatter_update(&data, &indices, &updates, &axis(1)).unwrap();
        assert_eq!(
            out.to_vec::<f32>().unwrap(),
            [1.0, 1.0, 1.0, 3.0, 4.0, 1.0, 6.0, 1.0, 8.0, 9.0, 1.0, 11.0, 2.0, 13.0, 14.0]
        );
    }

    /// Where indices repeat, the updates are written in index order: the
    /// last one wins.
    #[test]
    fn the_last_of_repeated_indices_wins() {
        let data = Tensor::from_vec(&[6, 4], vec![0f32; 24]).unwrap();
        let indices = Tensor::from_vec(&[7], vec![2i64, 3, 2, 2, 5, 3, 2]).unwrap();
        let updates = Tensor::from_vec(&[7, 4], (0..28).map(|v| v as f32).collect::<Vec<_>>()).unwrap();
        let out = scatter_update(&data, &indices, &updates, &axis(0)).unwrap().to_vec::<f32>().unwrap();
        let row = |r: usize| out[r * 4..r * 4 + 4].to_vec();
        assert_eq!(row(2), [24.0, 25.0, 26.0, 27.0]);
        assert_eq!(row(3), [20.0, 21.0, 22.0, 23.0]);
        assert_eq!(row(5), [16.0, 17.0, 18.0, 19.0]);
        assert_eq!(row(0), [0.0; 4]);
    }

    #[test]
    fn negative_and_past_the_end_indices_name_themselves() {
        let data = Tensor::from_vec(&[2, 3], vec![1u8; 6]).unwrap();
        let updates = Tensor::from_vec(&[2, 2, 2], vec![0u8; 8]).unwrap();
        for (idx, bad, at) in [([0i32, 1, 3, 2], 3, vec![1, 0]), ([0, -1, 2, 1], -1, vec![0, 1])] {
            let indices = Tensor::from_vec(&[2, 2], idx.to_vec()).unwrap();
            let err = scatter_update(&data, &indices, &updates, &axis(1)).unwrap_err();
            let want = ShapeErrorKind::IndexOutOfRange {
                op: UPDATE,
                position: at,
                index: bad,
                size: 3,
                negative: false,
            };
            assert_eq!(err, KernelError::Shape(want));
            assert!(err.to_string().contains("between 0 and 2"), "{err}");
        }
        // The output is left as it was: nothing is written before the
        // indices are checked.
        let mut out = Tensor::from_vec(&[2, 3], vec![9u8; 6]).unwrap();
        let indices = Tensor::from_vec(&[2, 2], vec![0i32, 1, 3, 2]).unwrap();
        let options = ExecOptions::single_thread();
        let mut scratch = ScatterScratch::new();
        assert!(scatter_update_into(&data, &indices, &updates, &axis(1), &mut out, &options, &mut scratch)
            .is_err());
        assert_eq!(out.to_vec::<u8>().unwrap(), [9; 6]);
    }

    #[test]
    fn every_integer_type_indexes_and_floats_are_refused() {
        let data = Tensor::from_vec(&[3], vec![10i16, 11, 12]).unwrap();
        let updates = Tensor::from_vec(&[2], vec![20i16, 21]).unwrap();
        for ty in [
            ElementType::I8,
            ElementType::U8,
            ElementType::I16,
            ElementType::U16,
            ElementType::I32,
            ElementType::U32,
            ElementType::I64,
            ElementType::U64,
            ElementType::U4,
            ElementType::I4,
        ] {
            let indices = super::super::convert(&Tensor::from_vec(&[2], vec![2i64, 0]).unwrap(), ty).unwrap();
            let out = scatter_update(&data, &indices, &updates, &axis(0)).unwrap();
            assert_eq!(out.to_vec::<i16>().unwrap(), [21, 11, 20], "{ty}");
        }
        let floats = Tensor::from_vec(&[2], vec![0f32, 1.0]).unwrap();
        assert_eq!(
            scatter_update(&data, &floats, &updates, &axis(0)).unwrap_err(),
            KernelError::Shape(ShapeErrorKind::IntegerInput {
                op: UPDATE,
                input: "indices",
                found: ElementType::F32
            })
        );
        let two = Tensor::from_vec(&[2], vec![0i64, 0]).unwrap();
        let indices = Tensor::from_vec(&[2], vec![0i64, 1]).unwrap();
        assert!(scatter_update(&data, &indices, &updates, &two).is_err());
        assert!(scatter_update(&data, &indices, &updates, &axis(1)).is_err());
    }

    #[test]
    fn strings_and_packed_types_move_element_by_element() {
        let words =
            Tensor::from_strings(&[3, 2], ["a", "bc", "", "d", "e", "f"].map(String::from).to_vec()).unwrap();
        let indices = Tensor::from_vec(&[1], vec![1i32]).unwrap();
        let new = Tensor::from_strings(&[1, 2], ["xyz", ""].map(String::from).to_vec()).unwrap();
        let out = scatter_update(&words, &indices, &new, &axis(0)).unwrap();
        assert_eq!(out.strings().unwrap(), ["a", "bc", "xyz", "", "e", "f"]);
        let values = Tensor::from_vec(&[2, 3], vec![1i64, 2, 3, 4, 5, 15]).unwrap();
        let codes = super::super::convert(&values, ElementType::U4).unwrap();
        let new = super::super::convert(&Tensor::from_vec(&[2, 1], vec![7i64, 9]).unwrap(), ElementType::U4)
            .unwrap();
        let indices = Tensor::from_vec(&[1], vec![0i32]).unwrap();
        let out = scatter_update(&codes, &indices, &new, &axis(-1)).unwrap();
        let back = super::super::convert(&out, ElementType::I64).unwrap();
        assert_eq!(back.to_vec::<i64>().unwrap(), [7, 2, 3, 9, 5, 15]);
    }

    #[test]
    fn empty_inputs_give_the_data() {
        let data = Tensor::from_vec(&[2, 3], vec![1f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        let none = Tensor::from_vec(&[0], Vec::<i64>::new()).unwrap();
        let updates = Tensor::from_vec(&[2, 0], Vec::<f32>::new()).unwrap();
        let out = scatter_update(&data, &none, &updates, &axis(1)).unwrap();
        assert_eq!(out.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let data = Tensor::from_vec(&[0, 3], Vec::<f32>::new()).unwrap();
        let indices = Tensor::from_vec(&[2], vec![2i64, 0]).unwrap();
        let updates = Tensor::from_vec(&[0, 2], Vec::<f32>::new()).unwrap();
        assert_eq!(scatter_update(&data, &indices, &updates, &axis(1)).unwrap().shape(), [0, 3]);
    }

    #[test]
    fn a_scratch_keeps_its_layout_for_the_same_shapes() {
        let data = Tensor::from_vec(&[4], vec![0i32; 4]).unwrap();
        let updates = Tensor::from_vec(&[1], vec![5i32]).unwrap();
        let mut scratch = ScatterScratch::new();
        let options = ExecOptions::single_thread();
        let mut out = Tensor::from_vec(&[4], vec![0i32; 4]).unwrap();
        for k in 0..4i64 {
            let indices = Tensor::from_vec(&[1], vec![k]).unwrap();
            scatter_update_into(&data, &indices, &updates, &axis(0), &mut out, &options, &mut scratch)
                .unwrap();
            let mut want = [0; 4];
            want[k as usize] = 5;
            assert_eq!(out.to_vec::<i32>().unwrap(), want);
        }
    }

    /// ScatterNDUpdate from its definition: for each tuple in order, the
    /// slice it picks combined with (or replaced by) its updates, element
    /// by element.
    fn naive_nd(
        data: &[i32],
        dims: &[usize],
        indices: &[i64],
        length: usize,
        updates: &[i32],
        reduction: Option<Reduction>,
    ) -> Vec<i32> {
        let mut out = data.to_vec();
        let slice: usize = dims[length..].iter().product();
        for (t, tuple) in indices.chunks(length.max(1)).enumerate() {
            let mut at = 0usize;
            for (k, &i) in tuple.iter().enumerate().take(length) {
                let size = dims[k] as i64;
                at = at * dims[k] + (if i < 0 { i + size } else { i }) as usize;
            }
            for e in 0..slice {
                let (a, b) = (out[at * slice + e], updates[t * slice + e]);
                out[at * slice + e] = match reduction {
                    None => b,
                    Some(Reduction::Sum) => a.wrapping_add(b),
                    Some(Reduction::Sub) => a.wrapping_sub(b),
                    Some(Reduction::Prod) => a.wrapping_mul(b),
                    Some(Reduction::Min) => a.min(b),
                    Some(Reduction::Max) => a.max(b),
                };
            }
        }
        out
    }

    #[test]
    fn every_tuple_length_and_reduction_matches_the_definition() {
        let dims = [3usize, 4, 5];
        let data: Vec<i32> = (0..60).collect();
        let t = Tensor::from_vec(&dims, data.clone()).unwrap();
        let reductions = [
            None,
            Some(Reduction::Sum),
            Some(Reduction::Sub),
            Some(Reduction::Prod),
            Some(Reduction::Min),
            Some(Reduction::Max),
        ];
        for length in 1..=3usize {
            // Seven tuples, some repeated, some negative.
            let indices: Vec<i64> = (0..7 * length)
                .map(|i| {
                    let size = dims[i % length] as i64;
                    let v = (i as i64 * 5 / 3) % size;
                    if i % 4 == 1 {
                        v - size
                    } else {
                        v
                    }
                })
                .collect();
            let slice: usize = dims[length..].iter().product();
            let updates: Vec<i32> = (0..(7 * slice) as i32).map(|v| 100 - 7 * v).collect();
            let mut ushape = vec![7];
            ushape.extend(&dims[length..]);
            let it = Tensor::from_vec(&[7, length], indices.clone()).unwrap();
            let ut = Tensor::from_vec(&ushape, updates.clone()).unwrap();
            for r in reductions {
                let want = naive_nd(&data, &dims, &indices, length, &updates, r);
                let got = scatter_nd_update(&t, &it, &ut, r).unwrap();
                assert_eq!(got.to_vec::<i32>().unwrap(), want, "length {length} {r:?}");
            }
        }
    }

    /// OpenVINO's op_reference values: repeated tuples, the last wins.
    #[test]
    fn repeated_tuples_apply_in_index_order() {
        let data = Tensor::from_vec(&[8], vec![1i32, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        let indices = Tensor::from_vec(&[5, 1], vec![4i32, 3, 1, 7, 1]).unwrap();
        let updates = Tensor::from_vec(&[5], vec![9i32, 10, 11, 12, 22]).unwrap();
        let out = scatter_nd_update(&data, &indices, &updates, None).unwrap();
        assert_eq!(out.to_vec::<i32>().unwrap(), [1, 22, 3, 10, 9, 6, 7, 12]);
        // The spec's example 3 (sub) and, computed by hand, its example 4
        // (prod), whose values in the spec do not follow from its inputs.
        let data = Tensor::from_vec(&[4], vec![1i32, 2, 3, 4]).unwrap();
        let indices = Tensor::from_vec(&[5, 1], vec![0i32, 2, -3, -3, 0]).unwrap();
        let updates = Tensor::from_vec(&[5], vec![10i32, 20, 30, 40, 50]).unwrap();
        let run = |r| scatter_nd_update(&data, &indices, &updates, r).unwrap().to_vec::<i32>().unwrap();
        assert_eq!(run(Some(Reduction::Sub)), [-59, -68, -17, 4]);
        assert_eq!(run(Some(Reduction::Prod)), [500, 2400, 60, 4]);
        assert_eq!(run(None), [50, 40, 20, 4]);
    }

    #[test]
    fn narrow_floats_reduce_in_f32_and_round_once() {
        let data =
            Tensor::from_vec(&[2], vec![half::f16::from_f32(2048.0), half::f16::from_f32(1.0)]).unwrap();
        let indices = Tensor::from_vec(&[4, 1], vec![0i64; 4]).unwrap();
        let updates = Tensor::from_vec(&[4], vec![half::f16::from_f32(1.0); 4]).unwrap();
        let out = scatter_nd_update(&data, &indices, &updates, Some(Reduction::Sum)).unwrap();
        assert_eq!(
            out.to_vec::<half::f16>().unwrap(),
            [half::f16::from_f32(2052.0), half::f16::from_f32(1.0)]
        );
        let data = Tensor::from_vec(&[1], vec![half::bf16::from_f32(256.0)]).unwrap();
        let updates = Tensor::from_vec(&[4], vec![half::bf16::from_f32(1.0); 4]).unwrap();
        let out = scatter_nd_update(&data, &indices, &updates, Some(Reduction::Sum)).unwrap();
        assert_eq!(out.to_vec::<half::bf16>().unwrap(), [half::bf16::from_f32(260.0)]);
    }

    #[test]
    fn nd_indices_out_of_range_and_of_other_types_are_refused() {
        let data = Tensor::from_vec(&[2, 3], vec![1u8; 6]).unwrap();
        let updates = Tensor::from_vec(&[2], vec![0u8; 2]).unwrap();
        for (idx, bad, at, size) in [([0i32, 1, -3, 0], -3, vec![1, 0], 2), ([0, 3, 1, 1], 3, vec![0, 1], 3)]
        {
            let indices = Tensor::from_vec(&[2, 2], idx.to_vec()).unwrap();
            let err = scatter_nd_update(&data, &indices, &updates, None).unwrap_err();
            let want =
                ShapeErrorKind::IndexOutOfRange { op: ND, position: at, index: bad, size, negative: true };
            assert_eq!(err, KernelError::Shape(want));
        }
        let indices = Tensor::from_vec(&[2, 2], vec![0u8, 1, 1, 1]).unwrap();
        assert_eq!(
            scatter_nd_update(&data, &indices, &updates, None).unwrap_err(),
            KernelError::Shape(ShapeErrorKind::IndexType {
                op: ND,
                input: "indices",
                found: ElementType::U8
            })
        );
        // Updates of the wrong shape, and a reduction on strings.
        let indices = Tensor::from_vec(&[2, 2], vec![0i32, 1, 1, 1]).unwrap();
        let three = Tensor::from_vec(&[3], vec![0u8; 3]).unwrap();
        assert!(scatter_nd_update(&data, &indices, &three, None).is_err());
        let words = Tensor::from_strings(&[2], ["a", "b"].map(String::from).to_vec()).unwrap();
        let one = Tensor::from_vec(&[1, 1], vec![0i32]).unwrap();
        let new = Tensor::from_strings(&[1], ["c"].map(String::from).to_vec()).unwrap();
        assert_eq!(scatter_nd_update(&words, &one, &new, None).unwrap().strings().unwrap(), ["c", "b"]);
        assert!(scatter_nd_update(&words, &one, &new, Some(Reduction::Sum)).is_err());
    }

    #[test]
    fn tuples_of_no_index_take_the_whole_data_and_a_scalar_update_may_be_one_element() {
        let data = Tensor::from_vec(&[2, 2], vec![1i32, 2, 3, 4]).unwrap();
        let none = Tensor::from_vec(&[2, 0], Vec::<i64>::new()).unwrap();
        let updates = Tensor::from_vec(&[2, 2, 2], vec![10i32, 20, 30, 40, 1, 1, 1, 1]).unwrap();
        let out = scatter_nd_update(&data, &none, &updates, Some(Reduction::Sum)).unwrap();
        assert_eq!(out.to_vec::<i32>().unwrap(), [12, 23, 34, 45]);
        let pair = Tensor::from_vec(&[2], vec![1i64, 0]).unwrap();
        let one = Tensor::from_vec(&[1], vec![9i32]).unwrap();
        assert_eq!(
            scatter_nd_update(&data, &pair, &one, None).unwrap().to_vec::<i32>().unwrap(),
            [1, 2, 9, 4]
        );
    }
}
