//! GatherTree: the whole beams of a beam search, followed back from their
//! last step.
//!
//! Unlike the other data-movement ops, which tokens land where depends on
//! the values of `parent_idx`, read one step at a time, and the fill after
//! `end_token` on comparing values; so the kernel walks each beam itself.
//! Its tensors are small (steps × batch × beams tokens) and it allocates
//! nothing.

use std::fmt::Display;

use bytemuck::Pod;
use half::{bf16, f16};
use ovir_shape::ops::gather_tree::{gather_tree_shape, gather_tree_type};
use ovir_shape::ShapeErrorKind;
use ovir_tensor::{ElementType, PartialShape, Tensor};

use super::checks::check_output;
use super::KernelError;

const OP: &str = "GatherTree";

/// An element type GatherTree runs on: how its values read as beams and
/// lengths, and compare with `end_token`.
trait Token: Pod + Display {
    /// The value truncated toward zero, as OpenVINO reads indices and
    /// lengths of a real type; `None` for NaN.
    fn whole(self) -> Option<i128>;
    /// Equality of values: for reals, `-0.0` equals `0.0` and NaN equals
    /// nothing.
    fn same(self, other: Self) -> bool;
}

macro_rules! integer_tokens {
    ($($t:ty),*) => {$(
        impl Token for $t {
            fn whole(self) -> Option<i128> {
                Some(self.into())
            }
            fn same(self, other: Self) -> bool {
                self == other
            }
        }
    )*};
}
integer_tokens!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! real_tokens {
    ($($t:ty),*) => {$(
        impl Token for $t {
            fn whole(self) -> Option<i128> {
                let v = f64::from(self);
                // `as` saturates the infinities, which then lie out of range.
                (!v.is_nan()).then(|| v.trunc() as i128)
            }
            fn same(self, other: Self) -> bool {
                f64::from(self) == f64::from(other)
            }
        }
    )*};
}
real_tokens!(f16, bf16, f32, f64);

/// The output shape of [`gather_tree`] for these inputs.
pub fn gather_tree_output_shape(
    step_ids: &Tensor,
    parent_idx: &Tensor,
    max_seq_len: &Tensor,
    end_token: &Tensor,
) -> Result<Vec<usize>, KernelError> {
    let tensors = [step_ids, parent_idx, max_seq_len, end_token];
    let ty = step_ids.element_type();
    for (k, t) in tensors.iter().enumerate().skip(1) {
        if t.element_type() != ty {
            let found = t.element_type();
            return Err(ShapeErrorKind::InputTypes { op: OP, input: k, found, expected: ty }.into());
        }
    }
    if !gather_tree_type(ty) {
        return Err(ShapeErrorKind::GatherTreeType { found: ty }.into());
    }
    let shapes = tensors.map(|t| PartialShape::from_static(t.shape()));
    let shape = gather_tree_shape([&shapes[0], &shapes[1], &shapes[2], &shapes[3]])?;
    shape.to_static().ok_or(KernelError::Internal { op: OP, what: "static inputs left the output unknown" })
}

/// Checks the inputs as [`gather_tree_output_shape`] does, allocating
/// nothing unless they are wrong; the output then has the type and shape
/// of `step_ids`.
pub(crate) fn check_inputs(
    step_ids: &Tensor,
    parent_idx: &Tensor,
    max_seq_len: &Tensor,
    end_token: &Tensor,
) -> Result<(), KernelError> {
    let ty = step_ids.element_type();
    let fine = gather_tree_type(ty)
        && [parent_idx, max_seq_len, end_token].iter().all(|t| t.element_type() == ty)
        && matches!(step_ids.shape(), [_, batch, _] if max_seq_len.shape() == [*batch])
        && parent_idx.shape() == step_ids.shape()
        && end_token.shape().is_empty();
    if fine {
        return Ok(());
    }
    gather_tree_output_shape(step_ids, parent_idx, max_seq_len, end_token)?;
    Err(KernelError::Internal { op: OP, what: "inputs refused here were accepted by the shape rules" })
}

/// GatherTree-1: for each batch `b` and beam `k`, the tokens of the beam
/// that ends at beam `k` after `max_seq_len[b]` steps (at most
/// `MAX_TIME`), followed back through `parent_idx`; then, past the first
/// `end_token` of the beam, and after its length, `end_token`. `step_ids`
/// and `parent_idx` are `[MAX_TIME, BATCH, BEAM]`, `max_seq_len` is
/// `[BATCH]` and `end_token` a scalar, all of one type (integers of 8 to 64
/// bits, f16, bf16, f32 or f64; reals are truncated toward zero where they
/// index or count). A parent index outside `[0, BEAM)` that the walk
/// follows, or a negative length, is an error naming it and its position.
///
/// ```
/// use ovir_exec::kernels::gather_tree;
/// use ovir_tensor::Tensor;
/// // Two steps, one batch, two beams: beam 0 came from beam 1.
/// let steps = Tensor::from_vec(&[2, 1, 2], vec![5i32, 6, 7, 8])?;
/// let parents = Tensor::from_vec(&[2, 1, 2], vec![0i32, 0, 1, 0])?;
/// let lengths = Tensor::from_vec(&[1], vec![2i32])?;
/// let end = Tensor::from_vec(&[], vec![6i32])?;
/// let out = gather_tree(&steps, &parents, &lengths, &end)?;
/// assert_eq!(out.to_vec::<i32>()?, [6, 5, 6, 8]);
/// let bad = Tensor::from_vec(&[2, 1, 2], vec![0i32, 0, 2, 0])?;
/// let err = gather_tree(&steps, &bad, &lengths, &end).unwrap_err().to_string();
/// assert!(err.contains("parent index 2 at position [1, 0, 0]"), "{err}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn gather_tree(
    step_ids: &Tensor,
    parent_idx: &Tensor,
    max_seq_len: &Tensor,
    end_token: &Tensor,
) -> Result<Tensor, KernelError> {
    let shape = gather_tree_output_shape(step_ids, parent_idx, max_seq_len, end_token)?;
    let mut out = Tensor::zeros(step_ids.element_type(), &shape)?;
    gather_tree_into(step_ids, parent_idx, max_seq_len, end_token, &mut out)?;
    Ok(out)
}

/// [`gather_tree`] into an output of the type and shape of `step_ids`. It
/// allocates nothing.
pub fn gather_tree_into(
    step_ids: &Tensor,
    parent_idx: &Tensor,
    max_seq_len: &Tensor,
    end_token: &Tensor,
    out: &mut Tensor,
) -> Result<(), KernelError> {
    check_inputs(step_ids, parent_idx, max_seq_len, end_token)?;
    let (ty, shape) = (step_ids.element_type(), step_ids.shape());
    check_output(OP, ty, shape, out)?;
    let no_bytes = || KernelError::Internal { op: OP, what: "a numeric tensor has no bytes" };
    let dims = match shape[..] {
        [time, batch, beam] => Dims { time, batch, beam },
        _ => return Err(KernelError::Internal { op: OP, what: "the output is not of rank 3" }),
    };
    let inputs = Inputs {
        steps: step_ids.bytes().ok_or_else(no_bytes)?,
        parents: parent_idx.bytes().ok_or_else(no_bytes)?,
        lengths: max_seq_len.bytes().ok_or_else(no_bytes)?,
        end: end_token.bytes().ok_or_else(no_bytes)?,
    };
    let out = out.try_bytes_mut()?;
    match ty {
        ElementType::I8 => walk::<i8>(&inputs, dims, out),
        ElementType::I16 => walk::<i16>(&inputs, dims, out),
        ElementType::I32 => walk::<i32>(&inputs, dims, out),
        ElementType::I64 => walk::<i64>(&inputs, dims, out),
        ElementType::U8 => walk::<u8>(&inputs, dims, out),
        ElementType::U16 => walk::<u16>(&inputs, dims, out),
        ElementType::U32 => walk::<u32>(&inputs, dims, out),
        ElementType::U64 => walk::<u64>(&inputs, dims, out),
        ElementType::F16 => walk::<f16>(&inputs, dims, out),
        ElementType::Bf16 => walk::<bf16>(&inputs, dims, out),
        ElementType::F32 => walk::<f32>(&inputs, dims, out),
        ElementType::F64 => walk::<f64>(&inputs, dims, out),
        found => Err(ShapeErrorKind::GatherTreeType { found }.into()),
    }
}

#[derive(Clone, Copy)]
struct Dims {
    time: usize,
    batch: usize,
    beam: usize,
}

struct Inputs<'a> {
    steps: &'a [u8],
    parents: &'a [u8],
    lengths: &'a [u8],
    end: &'a [u8],
}

/// Element `i` of `bytes` read as a `T`, wherever the bytes lie.
fn read<T: Pod>(bytes: &[u8], i: usize) -> Result<T, KernelError> {
    let w = std::mem::size_of::<T>();
    let at = i.checked_mul(w).and_then(|s| bytes.get(s..s.checked_add(w)?));
    at.map(bytemuck::pod_read_unaligned)
        .ok_or(KernelError::Internal { op: OP, what: "an element past the end" })
}

/// Writes `value` as element `i` of `out`.
fn write<T: Pod>(out: &mut [u8], i: usize, value: T) -> Result<(), KernelError> {
    let w = std::mem::size_of::<T>();
    let at = i.checked_mul(w).and_then(|s| out.get_mut(s..s.checked_add(w)?));
    let at = at.ok_or(KernelError::Internal { op: OP, what: "an element past the end" })?;
    at.copy_from_slice(bytemuck::bytes_of(&value));
    Ok(())
}

fn walk<T: Token>(inputs: &Inputs<'_>, dims: Dims, out: &mut [u8]) -> Result<(), KernelError> {
    let Dims { time, batch, beam } = dims;
    let end: T = read(inputs.end, 0)?;
    // Element (t, b, k) of the [time, batch, beam] tensors.
    let at = |t: usize, b: usize, k: usize| (t * batch + b) * beam + k;
    for b in 0..batch {
        let length: T = read(inputs.lengths, b)?;
        let steps = match length.whole() {
            Some(n) if n >= 0 => usize::try_from(n).unwrap_or(usize::MAX).min(time),
            _ => return Err(ShapeErrorKind::GatherTreeLength { batch: b, value: length.to_string() }.into()),
        };
        for k in 0..beam {
            for t in steps..time {
                write(out, at(t, b, k), end)?;
            }
            if steps == 0 {
                continue;
            }
            // From the last step back, each token read from the beam the
            // step after it came from.
            let (mut from, mut from_step) = (k, steps - 1);
            write::<T>(out, at(from_step, b, k), read(inputs.steps, at(from_step, b, k))?)?;
            for t in (0..steps - 1).rev() {
                let parent: T = read(inputs.parents, at(from_step, b, from))?;
                from = match parent.whole() {
                    Some(p) if (0..beam as i128).contains(&p) => p as usize,
                    _ => {
                        return Err(ShapeErrorKind::GatherTreeParent {
                            position: vec![from_step, b, from],
                            value: parent.to_string(),
                            beam_width: beam as u64,
                        }
                        .into())
                    }
                };
                from_step = t;
                write::<T>(out, at(t, b, k), read(inputs.steps, at(t, b, from))?)?;
            }
            // Past the first end_token, the beam has ended.
            let mut ended = false;
            for t in 0..steps {
                if ended {
                    write(out, at(t, b, k), end)?;
                } else {
                    ended = read::<T>(out, at(t, b, k))?.same(end);
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec's pseudocode, on i64 values, with a length of 0 leaving
    /// the beam all `end` as the reference does.
    fn naive(steps: &[i64], parents: &[i64], lengths: &[i64], end: i64, dims: [usize; 3]) -> Vec<i64> {
        let [time, batch, beam] = dims;
        let at = |t: usize, b: usize, k: usize| (t * batch + b) * beam + k;
        let mut out = vec![end; steps.len()];
        for b in 0..batch {
            for k in 0..beam {
                let len = (lengths[b] as usize).min(time);
                if len == 0 {
                    continue;
                }
                out[at(len - 1, b, k)] = steps[at(len - 1, b, k)];
                let mut parent = parents[at(len - 1, b, k)] as usize;
                for level in (0..len - 1).rev() {
                    out[at(level, b, k)] = steps[at(level, b, parent)];
                    parent = parents[at(level, b, parent)] as usize;
                }
                let mut finished = false;
                for t in 0..len {
                    if finished {
                        out[at(t, b, k)] = end;
                    } else if out[at(t, b, k)] == end {
                        finished = true;
                    }
                }
            }
        }
        out
    }

    fn tensor<T: ovir_tensor::Element>(shape: &[usize], v: Vec<T>) -> Tensor {
        Tensor::from_vec(shape, v).unwrap()
    }

    #[test]
    fn random_beams_follow_the_spec_on_every_type() {
        let dims = [6usize, 3, 4];
        let n = 72;
        let mut seed = 7u64;
        let mut next = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 33) % m) as i64
        };
        let steps: Vec<i64> = (0..n).map(|_| next(10)).collect();
        let parents: Vec<i64> = (0..n).map(|_| next(4)).collect();
        for lengths in [vec![6i64, 3, 0], vec![9, 1, 5]] {
            let want = naive(&steps, &parents, &lengths, 7, dims);
            let i64s = gather_tree(
                &tensor(&dims, steps.clone()),
                &tensor(&dims, parents.clone()),
                &tensor(&[3], lengths.clone()),
                &tensor(&[], vec![7i64]),
            )
            .unwrap();
            assert_eq!(i64s.to_vec::<i64>().unwrap(), want);
            for ty in
                [ElementType::U8, ElementType::I16, ElementType::F16, ElementType::Bf16, ElementType::F32]
            {
                let as_ty = |t: &Tensor| super::super::convert(t, ty).unwrap();
                let got = gather_tree(
                    &as_ty(&tensor(&dims, steps.clone())),
                    &as_ty(&tensor(&dims, parents.clone())),
                    &as_ty(&tensor(&[3], lengths.clone())),
                    &as_ty(&tensor(&[], vec![7i64])),
                )
                .unwrap();
                let back = super::super::convert(&got, ElementType::I64).unwrap();
                assert_eq!(back.to_vec::<i64>().unwrap(), want, "{ty}");
            }
        }
    }

    #[test]
    fn a_parent_out_of_range_is_an_error_only_where_the_walk_follows_it() {
        let dims = [3usize, 1, 2];
        let steps = tensor(&dims, vec![1i32, 2, 3, 4, 5, 6]);
        let (lengths, end) = (tensor(&[1], vec![3i32]), tensor(&[], vec![0i32]));
        // Followed: beam 0 at the last step points at beam 2 of 2.
        let parents = tensor(&dims, vec![0i32, 0, 0, 0, 2, 0]);
        let err = gather_tree(&steps, &parents, &lengths, &end).unwrap_err();
        assert_eq!(
            err,
            KernelError::Shape(ShapeErrorKind::GatherTreeParent {
                position: vec![2, 0, 0],
                value: "2".into(),
                beam_width: 2
            })
        );
        assert!(err.to_string().contains("an index must lie between 0 and 1"), "{err}");
        let parents = tensor(&dims, vec![0i32, 0, -1, 0, 1, 0]);
        let err = gather_tree(&steps, &parents, &lengths, &end).unwrap_err().to_string();
        assert!(err.contains("parent index -1 at position [1, 0, 0]"), "{err}");
        // The first step's parents are never followed.
        let parents = tensor(&dims, vec![9i32, -9, 0, 0, 1, 0]);
        let out = gather_tree(&steps, &parents, &lengths, &end).unwrap();
        assert_eq!(out.to_vec::<i32>().unwrap(), [1, 1, 4, 3, 5, 6]);
        // NaN is no beam.
        let f = |v: Vec<f32>, s: &[usize]| tensor(s, v);
        let err = gather_tree(
            &f(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &dims),
            &f(vec![0.0, 0.0, 0.0, 0.0, f32::NAN, 0.0], &dims),
            &f(vec![3.0], &[1]),
            &f(vec![0.0], &[]),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("parent index NaN at position [2, 0, 0]"), "{err}");
    }

    #[test]
    fn lengths_clamp_to_the_steps_truncate_and_must_not_be_negative() {
        let dims = [2usize, 1, 1];
        let steps = tensor(&dims, vec![3.0f32, 4.0]);
        let parents = tensor(&dims, vec![0.0f32, 0.0]);
        let end = tensor(&[], vec![9.0f32]);
        for (length, want) in [(5.0f32, [3.0f32, 4.0]), (1.7, [3.0, 9.0]), (-0.5, [9.0, 9.0])] {
            let out = gather_tree(&steps, &parents, &tensor(&[1], vec![length]), &end).unwrap();
            assert_eq!(out.to_vec::<f32>().unwrap(), want, "{length}");
        }
        for length in [-1.0f32, f32::NAN] {
            let err = gather_tree(&steps, &parents, &tensor(&[1], vec![length]), &end).unwrap_err();
            assert!(
                matches!(err, KernelError::Shape(ShapeErrorKind::GatherTreeLength { batch: 0, .. })),
                "{err}"
            );
        }
    }

    #[test]
    fn the_end_token_compares_as_a_value() {
        let dims = [3usize, 1, 1];
        let parents = tensor(&dims, vec![0.0f32; 3]);
        let lengths = tensor(&[1], vec![3.0f32]);
        // -0.0 is the end token 0.0; what follows becomes 0.0.
        let out = gather_tree(
            &tensor(&dims, vec![1.0f32, -0.0, 2.0]),
            &parents,
            &lengths,
            &tensor(&[], vec![0.0f32]),
        )
        .unwrap();
        assert_eq!(
            out.to_vec::<f32>().unwrap().iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            [1f32.to_bits(), (-0f32).to_bits(), 0f32.to_bits()]
        );
        // 6.5 is not 6.0, and NaN is never the end.
        for end in [6.5f32, f32::NAN] {
            let steps = tensor(&dims, vec![6.0f32, f32::NAN, 2.0]);
            let out = gather_tree(&steps, &parents, &lengths, &tensor(&[], vec![end])).unwrap();
            assert_eq!(out.to_vec::<f32>().unwrap()[2], 2.0);
        }
    }

    #[test]
    fn other_types_and_mixed_types_are_refused() {
        let b = |v: Vec<bool>, s: &[usize]| tensor(s, v);
        let err = gather_tree(
            &b(vec![true], &[1, 1, 1]),
            &b(vec![true], &[1, 1, 1]),
            &b(vec![true], &[1]),
            &b(vec![true], &[]),
        )
        .unwrap_err();
        assert_eq!(err, KernelError::Shape(ShapeErrorKind::GatherTreeType { found: ElementType::Boolean }));
        let err = gather_tree(
            &tensor(&[1, 1, 1], vec![1i32]),
            &tensor(&[1, 1, 1], vec![0i64]),
            &tensor(&[1], vec![1i32]),
            &tensor(&[], vec![1i32]),
        )
        .unwrap_err();
        assert!(matches!(err, KernelError::Shape(ShapeErrorKind::InputTypes { input: 1, .. })), "{err}");
    }

    #[test]
    fn empty_dimensions_give_an_empty_output() {
        for dims in [[0usize, 2, 3], [3, 2, 0], [3, 0, 2]] {
            let n = dims.iter().product();
            let out = gather_tree(
                &tensor(&dims, vec![0i32; n]),
                &tensor(&dims, vec![0i32; n]),
                &tensor(&[dims[1]], vec![1i32; dims[1]]),
                &tensor(&[], vec![1i32]),
            )
            .unwrap();
            assert_eq!(out.shape(), dims);
        }
    }
}
