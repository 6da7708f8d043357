//! SliceScatter: a copy of the data with the region a Slice would take
//! replaced by the updates.
//!
//! The region is Slice's ([`super::slice()`]: the same reading of start,
//! stop, step and axes, the same clamping); the output is the data copied
//! whole, then the updates written over the region one row of the
//! innermost axis at a time: one copy per row where the innermost step is
//! 1, else element by element.

use ovir_shape::ops::slice::SliceRange;
use ovir_shape::ShapeErrorKind;
use ovir_tensor::packed::{code_at, is_packed, set_code};
use ovir_tensor::{ElementType, PartialShape, Tensor};
use smallvec::SmallVec;

use super::checks::check_output;
use super::slice::{ranges, shape_of};
use super::{ExecOptions, KernelError};

const OP: &str = "SliceScatter";

/// The region of data of one shape that a SliceScatter replaces, worked
/// out once: a plan whose bounds are constant and whose data shape is
/// static does this when the model compiles, so that running it reads no
/// bounds and allocates nothing.
#[derive(Clone, Debug)]
pub struct SliceRegion {
    data_shape: Vec<usize>,
    ranges: Vec<SliceRange>,
    /// The region's shape, which the updates must have.
    slice: Vec<usize>,
}

impl SliceRegion {
    /// The region of data of shape `data_shape` that these bounds take
    /// (`axes` as Slice-8 reads them).
    pub fn new(
        data_shape: &[usize],
        start: &Tensor,
        stop: &Tensor,
        step: &Tensor,
        axes: Option<&Tensor>,
    ) -> Result<SliceRegion, KernelError> {
        if data_shape.is_empty() {
            let shape = PartialShape::scalar();
            let expected = "a tensor of rank 1 or more";
            return Err(ShapeErrorKind::InputShape { op: OP, input: "data", expected, shape }.into());
        }
        let ranges = ranges(OP, data_shape, start, stop, step, axes)?.to_vec();
        let slice = shape_of(&ranges)?;
        Ok(SliceRegion { data_shape: data_shape.to_vec(), ranges, slice })
    }

    /// The data shape this region was worked out for.
    pub fn data_shape(&self) -> &[usize] {
        &self.data_shape
    }

    /// Writes `data` with `updates` over the region into `out`, which has
    /// the data's type and shape.
    pub fn run(&self, data: &Tensor, updates: &Tensor, out: &mut Tensor) -> Result<(), KernelError> {
        self.update(Some(data), updates, out)
    }

    /// [`run`](Self::run), or with no `data` in place: `out` already
    /// holds it.
    pub(crate) fn update(
        &self,
        data: Option<&Tensor>,
        updates: &Tensor,
        out: &mut Tensor,
    ) -> Result<(), KernelError> {
        let (ty, shape) = data.map_or((out.element_type(), out.shape()), |d| (d.element_type(), d.shape()));
        if shape != self.data_shape {
            return Err(KernelError::Internal { op: OP, what: "the data does not fit the region" });
        }
        self.check_updates(ty, updates)?;
        check_output(OP, ty, &self.data_shape, out)?;
        if let Some(data) = data {
            copy_whole(data, out)?;
        }
        self.scatter(updates, out)
    }

    fn check_updates(&self, expected: ElementType, updates: &Tensor) -> Result<(), KernelError> {
        let found = updates.element_type();
        if found != expected {
            return Err(ShapeErrorKind::InputTypes { op: OP, input: 1, found, expected }.into());
        }
        if updates.shape() != self.slice {
            return Err(ShapeErrorKind::SliceScatterUpdates {
                updates: PartialShape::from_static(updates.shape()),
                slice: PartialShape::from_static(&self.slice),
            }
            .into());
        }
        Ok(())
    }

    /// Writes `updates` (of the region's shape) over the region of `out`.
    fn scatter(&self, updates: &Tensor, out: &mut Tensor) -> Result<(), KernelError> {
        let internal = || KernelError::Internal { op: OP, what: "the region left the output" };
        let ty = out.element_type();
        if let (Some(src), Some(dst)) = (updates.strings(), out.strings_mut()) {
            return self.rows(|to, from, len, step| {
                for j in 0..len {
                    let (Some(d), Some(s)) = (dst.get_mut(at(to, j, step)?), src.get(from + j)) else {
                        return Err(internal());
                    };
                    d.clone_from(s);
                }
                Ok(())
            });
        }
        let src = updates.bytes().ok_or_else(internal)?;
        let dst = out.try_bytes_mut()?;
        if is_packed(ty) {
            return self.rows(|to, from, len, step| {
                for j in 0..len {
                    let code = code_at(src, ty, from + j).ok_or_else(internal)?;
                    set_code(dst, ty, at(to, j, step)?, code).ok_or_else(internal)?;
                }
                Ok(())
            });
        }
        let w = ty.byte_width().ok_or(KernelError::UnsupportedType { op: OP, ty })?;
        self.rows(|to, from, len, step| {
            if step == 1 {
                let d = dst.get_mut(to * w..(to + len) * w).ok_or_else(internal)?;
                d.copy_from_slice(src.get(from * w..(from + len) * w).ok_or_else(internal)?);
                return Ok(());
            }
            for j in 0..len {
                let t = at(to, j, step)? * w;
                let d = dst.get_mut(t..t + w).ok_or_else(internal)?;
                d.copy_from_slice(src.get((from + j) * w..(from + j + 1) * w).ok_or_else(internal)?);
            }
            Ok(())
        })
    }

    /// Calls `row(to, from, len, step)` for each row of the innermost
    /// axis of the region, in order: `len` updates from element `from`
    /// land at output elements `to`, `to + step`, and so on.
    fn rows(
        &self,
        mut row: impl FnMut(usize, usize, usize, isize) -> Result<(), KernelError>,
    ) -> Result<(), KernelError> {
        let internal = || KernelError::Internal { op: OP, what: "the region does not fit a usize" };
        let (Some(inner), Some(&last)) = (self.ranges.last(), self.data_shape.last()) else {
            return Ok(());
        };
        if self.slice.contains(&0) {
            return Ok(());
        }
        let len = usize::try_from(inner.len).map_err(|_| internal())?;
        let step = isize::try_from(inner.step).map_err(|_| internal())?;
        let outer = self.ranges.len() - 1;
        // Each outer axis's stride in the output, in elements.
        let mut strides: SmallVec<[usize; 8]> = SmallVec::new();
        let mut stride = last;
        for &d in self.data_shape[..outer].iter().rev() {
            strides.push(stride);
            stride = stride.checked_mul(d).ok_or_else(internal)?;
        }
        strides.reverse();
        let first = |k: usize, i: usize| -> Result<usize, KernelError> {
            let r = self.ranges.get(k).ok_or_else(internal)?;
            let idx = i128::from(r.first) + i128::from(r.step) * i128::try_from(i).map_err(|_| internal())?;
            let idx = usize::try_from(idx).map_err(|_| internal())?;
            idx.checked_mul(*strides.get(k).ok_or_else(internal)?).ok_or_else(internal)
        };
        let mut index: SmallVec<[usize; 8]> = SmallVec::from_elem(0, outer);
        let inner_first = usize::try_from(inner.first).map_err(|_| internal())?;
        let mut from = 0usize;
        loop {
            let mut to = inner_first;
            for (k, &i) in index.iter().enumerate() {
                to = to.checked_add(first(k, i)?).ok_or_else(internal)?;
            }
            row(to, from, len, step)?;
            from += len;
            // The next row: the odometer over the outer axes.
            let mut k = outer;
            loop {
                if k == 0 {
                    return Ok(());
                }
                k -= 1;
                let (Some(i), Some(&n)) = (index.get_mut(k), self.slice.get(k)) else {
                    return Err(internal());
                };
                *i += 1;
                if *i < n {
                    break;
                }
                *i = 0;
            }
        }
    }
}

/// The output element `j` steps of `step` after element `to`.
fn at(to: usize, j: usize, step: isize) -> Result<usize, KernelError> {
    let off = isize::try_from(j).ok().and_then(|j| j.checked_mul(step));
    off.and_then(|o| to.checked_add_signed(o))
        .ok_or(KernelError::Internal { op: OP, what: "the region left the output" })
}

/// Copies `data` whole into `out`, of the same type and shape.
fn copy_whole(data: &Tensor, out: &mut Tensor) -> Result<(), KernelError> {
    if let (Some(src), Some(dst)) = (data.strings(), out.strings_mut()) {
        for (d, s) in dst.iter_mut().zip(src) {
            d.clone_from(s);
        }
        return Ok(());
    }
    let src = data.bytes().ok_or(KernelError::Internal { op: OP, what: "numeric data has no bytes" })?;
    let dst = out.try_bytes_mut()?;
    if dst.len() != src.len() {
        return Err(KernelError::Internal { op: OP, what: "the output's size is not the data's" });
    }
    dst.copy_from_slice(src);
    Ok(())
}

/// The output shape of [`slice_scatter`] for these inputs: the data's,
/// once the updates are checked against the slice.
pub fn slice_scatter_output_shape(
    data: &Tensor,
    updates: &Tensor,
    start: &Tensor,
    stop: &Tensor,
    step: &Tensor,
    axes: Option<&Tensor>,
) -> Result<Vec<usize>, KernelError> {
    let region = SliceRegion::new(data.shape(), start, stop, step, axes)?;
    region.check_updates(data.element_type(), updates)?;
    Ok(data.shape().to_vec())
}

/// SliceScatter-15: a copy of `data` with `updates` written over the
/// elements that Slice-8 with these `start`, `stop`, `step` and `axes`
/// takes, as NumPy's `out[slices] = updates`: negative bounds count from
/// the end, bounds outside an axis are clamped, negative steps walk back.
/// The updates have the data's type and the slice's shape; every element
/// type moves, strings and packed types included.
///
/// ```
/// use ovir_exec::kernels::slice_scatter;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_vec(&[2, 5], (0..10).map(|v| v as f32).collect())?;
/// let updates = Tensor::from_vec(&[2, 3], vec![10f32, 20.0, 30.0, 40.0, 50.0, 60.0])?;
/// let v = |x: i64| Tensor::from_vec(&[1], vec![x]);
/// // out[:, -25:25:2] = updates
/// let out = slice_scatter(&data, &updates, &v(-25)?, &v(25)?, &v(2)?, Some(&v(1)?))?;
/// assert_eq!(out.to_vec::<f32>()?, [10.0, 1.0, 20.0, 3.0, 30.0, 40.0, 6.0, 50.0, 8.0, 60.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn slice_scatter(
    data: &Tensor,
    updates: &Tensor,
    start: &Tensor,
    stop: &Tensor,
    step: &Tensor,
    axes: Option<&Tensor>,
) -> Result<Tensor, KernelError> {
    let region = SliceRegion::new(data.shape(), start, stop, step, axes)?;
    region.check_updates(data.element_type(), updates)?;
    let mut out = Tensor::zeros(data.element_type(), data.shape())?;
    region.run(data, updates, &mut out)?;
    Ok(out)
}

/// What [`slice_scatter_into`] keeps between calls: the region worked out
/// for the last data shape and bounds, so that a run on the same ones
/// reads no bounds and allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct SliceScatterScratch {
    /// The data shape and the bounds' types, lengths and bytes the region
    /// was worked out for.
    key: Vec<u8>,
    /// The same for the current call.
    next: Vec<u8>,
    region: Option<SliceRegion>,
}

impl SliceScatterScratch {
    /// An empty scratch; it allocates on first use and then keeps its
    /// memory.
    pub fn new() -> SliceScatterScratch {
        SliceScatterScratch::default()
    }

    /// The region for these inputs, worked out again only when they
    /// differ from the last call's.
    fn region(&mut self, shape: &[usize], bounds: [Option<&Tensor>; 4]) -> Result<&SliceRegion, KernelError> {
        let next = &mut self.next;
        next.clear();
        let mut keyed = true;
        for &d in shape {
            next.extend_from_slice(&d.to_le_bytes());
        }
        for t in bounds {
            next.push(t.map_or(0xff, |t| t.element_type() as u8));
            if let Some(t) = t {
                next.extend_from_slice(&t.len().to_le_bytes());
                match t.bytes() {
                    Some(b) => next.extend_from_slice(b),
                    None => keyed = false,
                }
            }
        }
        let region = match self.region.take() {
            Some(r) if keyed && self.key == self.next => r,
            _ => {
                let [Some(start), Some(stop), Some(step), axes] = bounds else {
                    return Err(KernelError::Internal { op: OP, what: "a bound is missing" });
                };
                let r = SliceRegion::new(shape, start, stop, step, axes)?;
                self.key.clear();
                self.key.extend_from_slice(&self.next);
                r
            }
        };
        Ok(self.region.insert(region))
    }
}

/// [`slice_scatter`] into an output of the data's type and shape, keeping
/// the region in `scratch` for the next call.
#[allow(clippy::too_many_arguments)]
pub fn slice_scatter_into(
    data: &Tensor,
    updates: &Tensor,
    start: &Tensor,
    stop: &Tensor,
    step: &Tensor,
    axes: Option<&Tensor>,
    out: &mut Tensor,
    _options: &ExecOptions,
    scratch: &mut SliceScatterScratch,
) -> Result<(), KernelError> {
    slice_scatter_in(Some(data), updates, [start, stop, step], axes, out, scratch)
}

/// [`slice_scatter_into`] from a copy of `data`, or with no `data` in
/// place: `out` already holds it.
pub(crate) fn slice_scatter_in(
    data: Option<&Tensor>,
    updates: &Tensor,
    [start, stop, step]: [&Tensor; 3],
    axes: Option<&Tensor>,
    out: &mut Tensor,
    scratch: &mut SliceScatterScratch,
) -> Result<(), KernelError> {
    let shape: SmallVec<[usize; 8]> = data.map_or(out.shape(), Tensor::shape).into();
    scratch.region(&shape, [Some(start), Some(stop), Some(step), axes])?.update(data, updates, out)
}

#[cfg(test)]
mod tests {

    use super::*;

    fn v(values: &[i64]) -> Tensor {
        Tensor::from_vec(&[values.len()], values.to_vec()).unwrap()
    }

    /// Three numbers per axis: start, stop and step, or first, step and
    /// length.
    type Bounds = (i64, i64, i64);

    /// NumPy's `out[slices] = updates`, written out: each update lands at
    /// the data position the slice takes it from.
    fn naive(data: &[i32], dims: &[usize], updates: &[i32], ranges: &[(i64, i64, i64)]) -> Vec<i32> {
        let mut out = data.to_vec();
        let shape: Vec<usize> = ranges.iter().map(|r| r.2 as usize).collect();
        for (flat, &u) in updates.iter().enumerate() {
            let mut rest = flat;
            let mut at = vec![0usize; dims.len()];
            for k in (0..dims.len()).rev() {
                let i = rest % shape[k];
                rest /= shape[k];
                at[k] = (ranges[k].0 + ranges[k].1 * i as i64) as usize;
            }
            out[at.iter().zip(dims).fold(0, |acc, (&i, &d)| acc * d + i)] = u;
        }
        out
    }

    #[test]
    fn every_region_matches_numpy_assignment() {
        let dims = [4usize, 5, 6];
        let data: Vec<i32> = (0..120).collect();
        let t = Tensor::from_vec(&dims, data.clone()).unwrap();
        // (start, stop, step) per axis, and the (first, step, len) it takes.
        let cases: &[([Bounds; 3], [Bounds; 3])] = &[
            ([(0, 4, 1), (1, 4, 1), (0, 6, 2)], [(0, 1, 4), (1, 1, 3), (0, 2, 3)]),
            ([(-1, -100, -1), (4, 0, -2), (5, -7, -3)], [(3, -1, 4), (4, -2, 2), (5, -3, 2)]),
            ([(1, 2, 1), (-25, 25, 1), (2, 3, 1)], [(1, 1, 1), (0, 1, 5), (2, 1, 1)]),
            ([(0, 4, 1), (0, 5, 1), (0, 6, 1)], [(0, 1, 4), (0, 1, 5), (0, 1, 6)]),
        ];
        for (bounds, taken) in cases {
            let n: usize = taken.iter().map(|t| t.2 as usize).product();
            let updates: Vec<i32> = (0..n as i32).map(|u| 1000 + u).collect();
            let shape: Vec<usize> = taken.iter().map(|t| t.2 as usize).collect();
            let want = naive(&data, &dims, &updates, taken);
            let (s, e, st): (Vec<i64>, Vec<i64>, Vec<i64>) = (
                bounds.iter().map(|b| b.0).collect(),
                bounds.iter().map(|b| b.1).collect(),
                bounds.iter().map(|b| b.2).collect(),
            );
            let u = Tensor::from_vec(&shape, updates).unwrap();
            let got = slice_scatter(&t, &u, &v(&s), &v(&e), &v(&st), None).unwrap();
            assert_eq!(got.to_vec::<i32>().unwrap(), want, "{bounds:?}");
            // The same region by axes listed back to front, counted from the end.
            let rev = |x: &Vec<i64>| x.iter().rev().copied().collect::<Vec<_>>();
            let got =
                slice_scatter(&t, &u, &v(&rev(&s)), &v(&rev(&e)), &v(&rev(&st)), Some(&v(&[-1, -2, -3])))
                    .unwrap();
            assert_eq!(got.to_vec::<i32>().unwrap(), want, "{bounds:?} by axes");
        }
    }

    #[test]
    fn an_empty_region_or_no_bounds_at_all() {
        let data = Tensor::from_vec(&[4], vec![1u8, 2, 3, 4]).unwrap();
        let none = Tensor::from_vec(&[0], Vec::<i64>::new()).unwrap();
        let all = Tensor::from_vec(&[4], vec![10u8, 20, 30, 40]).unwrap();
        let out = slice_scatter(&data, &all, &none, &none, &none, None).unwrap();
        assert_eq!(out.to_vec::<u8>().unwrap(), [10, 20, 30, 40]);
        let empty = Tensor::from_vec(&[0], Vec::<u8>::new()).unwrap();
        let out = slice_scatter(&data, &empty, &v(&[3]), &v(&[1]), &v(&[1]), None).unwrap();
        assert_eq!(out.to_vec::<u8>().unwrap(), [1, 2, 3, 4]);
    }

    #[test]
    fn strings_and_packed_types_move_element_by_element() {
        let words = Tensor::from_strings(&[2, 2], ["a", "b", "c", "d"].map(String::from).to_vec()).unwrap();
        let new = Tensor::from_strings(&[2, 1], ["X", "Y"].map(String::from).to_vec()).unwrap();
        let out = slice_scatter(&words, &new, &v(&[-1]), &v(&[-2]), &v(&[-1]), Some(&v(&[1]))).unwrap();
        assert_eq!(out.strings().unwrap(), ["a", "X", "c", "Y"]);
        let codes = super::super::convert(&v(&[1, 2, 3, 4, 5, 6, 7]), ElementType::U4).unwrap();
        let upd = super::super::convert(&v(&[15, 14, 13]), ElementType::U4).unwrap();
        let out = slice_scatter(&codes, &upd, &v(&[0]), &v(&[7]), &v(&[3]), None).unwrap();
        let back = super::super::convert(&out, ElementType::I64).unwrap();
        assert_eq!(back.to_vec::<i64>().unwrap(), [15, 2, 3, 14, 5, 6, 13]);
    }

    #[test]
    fn bad_updates_and_bounds_are_errors() {
        let data = Tensor::from_vec(&[2, 5], vec![0f32; 10]).unwrap();
        let wrong = Tensor::from_vec(&[2, 2], vec![0f32; 4]).unwrap();
        let err = slice_scatter(&data, &wrong, &v(&[0]), &v(&[5]), &v(&[2]), Some(&v(&[1]))).unwrap_err();
        assert_eq!(
            err.to_string(),
            "SliceScatter's updates have shape [2,2], but the slice they replace has shape [2,3]"
        );
        let ints = Tensor::from_vec(&[2, 3], vec![0i32; 6]).unwrap();
        let err = slice_scatter(&data, &ints, &v(&[0]), &v(&[5]), &v(&[2]), Some(&v(&[1]))).unwrap_err();
        assert!(matches!(err, KernelError::Shape(ShapeErrorKind::InputTypes { input: 1, .. })), "{err}");
        let right = Tensor::from_vec(&[2, 3], vec![0f32; 6]).unwrap();
        let err = slice_scatter(&data, &right, &v(&[0]), &v(&[5]), &v(&[0]), Some(&v(&[1]))).unwrap_err();
        assert_eq!(err.to_string(), "step 0 of SliceScatter is 0; a step must be positive or negative");
        let err = slice_scatter(&data, &right, &v(&[0]), &v(&[5]), &v(&[2]), Some(&v(&[2]))).unwrap_err();
        assert!(err.to_string().contains("SliceScatter axes value 2 is out of range"), "{err}");
    }
}
