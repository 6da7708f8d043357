//! CPU kernels: one pure function per operation, each with an `_into` form
//! that writes into a caller-provided output.
//!
//! Data-movement kernels share one design. A kernel first turns its
//! attributes and shape into a *run plan*: the output, in order, as a list
//! of runs, each a stretch of consecutive input elements that is either
//! copied as it is or copied back to front. Plans are made as coarse as the
//! operation allows (adjacent axes that move together are merged, and runs
//! that continue one another are joined), so most of the work ends up in a
//! few large `copy_from_slice` calls. A plan is then played on raw bytes by
//! a routine specialised for the element's byte width (1, 2, 4 or 8 bytes),
//! or on `String`s for string tensors.

mod convert;
mod error;
mod reverse;
mod reverse_sequence;

pub use convert::{convert, convert_into};
pub use error::{KernelError, ReverseMode};
pub use reverse::{reverse, reverse_axes, reverse_axes_from_index, reverse_axes_from_mask, reverse_into};
pub use reverse_sequence::{reverse_sequence, reverse_sequence_into};

use ovir_tensor::{ElementType, Tensor};

/// A stretch of the output: `len` input elements starting at element
/// `src`, copied in order or back to front.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    src: usize,
    len: usize,
    reversed: bool,
}

/// Something that can list the output of an operation as runs.
trait RunPlan {
    /// Calls `emit` with every run in output order; stops and returns
    /// `None` as soon as `emit` does.
    fn for_each_run<F: FnMut(Run) -> Option<()>>(&self, emit: F) -> Option<()>;
}

/// Joins runs that continue one another, so that a plan can list small
/// pieces and still end up with large copies.
struct Joiner<F: FnMut(Run) -> Option<()>> {
    pending: Option<Run>,
    sink: F,
}

impl<F: FnMut(Run) -> Option<()>> Joiner<F> {
    fn new(sink: F) -> Self {
        Joiner { pending: None, sink }
    }

    fn push(&mut self, run: Run) -> Option<()> {
        if run.len == 0 {
            return Some(());
        }
        if let Some(p) = &mut self.pending {
            // Only forward runs can grow: a reversed run followed by more
            // input would have to be reversed as a whole, which changes it.
            if !p.reversed && !run.reversed && p.src + p.len == run.src {
                p.len += run.len;
                return Some(());
            }
        }
        match self.pending.replace(run) {
            Some(done) => (self.sink)(done),
            None => Some(()),
        }
    }

    fn finish(mut self) -> Option<()> {
        match self.pending.take() {
            Some(done) => (self.sink)(done),
            None => Some(()),
        }
    }
}

/// Plays `plan` from `data` into `out`, which the caller has checked to
/// have `data`'s type and shape.
fn play<P: RunPlan>(op: &'static str, plan: &P, data: &Tensor, out: &mut Tensor) -> Result<(), KernelError> {
    let ty = data.element_type();
    let internal = KernelError::Internal { op };
    if ty == ElementType::String {
        let src = data.strings().ok_or(KernelError::UnsupportedType { op, ty })?;
        let dst = out.strings_mut().ok_or_else(|| internal.clone())?;
        return play_strings(plan, src, dst).ok_or(internal);
    }
    let src = data.bytes().ok_or(KernelError::UnsupportedType { op, ty })?;
    let dst = out.bytes_mut().ok_or_else(|| internal.clone())?;
    let done = match ty.byte_width() {
        Some(1) => play_bytes::<1, P>(plan, src, dst),
        Some(2) => play_bytes::<2, P>(plan, src, dst),
        Some(4) => play_bytes::<4, P>(plan, src, dst),
        Some(8) => play_bytes::<8, P>(plan, src, dst),
        _ => return Err(KernelError::UnsupportedType { op, ty }),
    };
    done.ok_or(internal)
}

/// Moves bytes for elements of `N` bytes. Elements are handled as
/// `[u8; N]`, whose alignment is 1, so bytes borrowed unaligned from a
/// weights file work as they are, and the back-to-front copy compiles to
/// fixed-size loads and stores.
fn play_bytes<const N: usize, P: RunPlan>(plan: &P, src: &[u8], dst: &mut [u8]) -> Option<()>
where
    [u8; N]: bytemuck::Pod,
{
    let mut at = 0usize;
    plan.for_each_run(|run| {
        let from = src.get(run.src * N..(run.src + run.len) * N)?;
        let to = dst.get_mut(at * N..(at + run.len) * N)?;
        if run.reversed {
            let from: &[[u8; N]] = bytemuck::try_cast_slice(from).ok()?;
            let to: &mut [[u8; N]] = bytemuck::try_cast_slice_mut(to).ok()?;
            for (o, i) in to.iter_mut().zip(from.iter().rev()) {
                *o = *i;
            }
        } else {
            to.copy_from_slice(from);
        }
        at += run.len;
        Some(())
    })?;
    (at * N == dst.len()).then_some(())
}

fn play_strings<P: RunPlan>(plan: &P, src: &[String], dst: &mut [String]) -> Option<()> {
    let mut at = 0usize;
    plan.for_each_run(|run| {
        let from = src.get(run.src..run.src + run.len)?;
        let to = dst.get_mut(at..at + run.len)?;
        if run.reversed {
            for (o, i) in to.iter_mut().zip(from.iter().rev()) {
                // `clone_from` keeps the output string's allocation when it
                // is large enough, which matters for reused outputs.
                o.clone_from(i);
            }
        } else {
            to.clone_from_slice(from);
        }
        at += run.len;
        Some(())
    })?;
    (at == dst.len()).then_some(())
}

/// Checks that `op` can move elements of `ty`: whole-byte types and
/// strings, not the packed sub-byte types.
fn check_movable(op: &'static str, ty: ElementType) -> Result<(), KernelError> {
    if ty == ElementType::String || matches!(ty.byte_width(), Some(1 | 2 | 4 | 8)) {
        Ok(())
    } else {
        Err(KernelError::UnsupportedType { op, ty })
    }
}

/// Checks that an `_into` output has the type and shape the kernel
/// produces.
fn check_output(op: &'static str, ty: ElementType, shape: &[usize], out: &Tensor) -> Result<(), KernelError> {
    if out.element_type() == ty && out.shape() == shape {
        Ok(())
    } else {
        Err(KernelError::OutputMismatch {
            op,
            expected_ty: ty,
            expected_shape: shape.to_vec(),
            found_ty: out.element_type(),
            found_shape: out.shape().to_vec(),
        })
    }
}

/// Copies all of `data` into `out` (same type and shape), for kernels whose
/// result equals their input.
fn copy_all(op: &'static str, data: &Tensor, out: &mut Tensor) -> Result<(), KernelError> {
    let internal = KernelError::Internal { op };
    if let Some(src) = data.strings() {
        let dst = out.strings_mut().ok_or_else(|| internal.clone())?;
        if dst.len() != src.len() {
            return Err(internal);
        }
        dst.clone_from_slice(src);
        return Ok(());
    }
    let src = data.bytes().ok_or_else(|| internal.clone())?;
    let dst = out.bytes_mut().ok_or_else(|| internal.clone())?;
    if dst.len() != src.len() {
        return Err(internal);
    }
    dst.copy_from_slice(src);
    Ok(())
}

/// Product of `dims`; the caller guarantees it cannot overflow because the
/// dims belong to (a collapsed form of) a tensor that exists.
fn product(dims: &[usize]) -> usize {
    dims.iter().product()
}
