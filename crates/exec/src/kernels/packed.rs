//! Reverse and ReverseSequence on the packed sub-byte types (`u1`, `u2`,
//! `u3`, `u4`, `u6`, `i4`, `nf4`, `f4e2m1`).
//!
//! Several of these elements share a byte, and `u3` and `u6` even split an
//! element's bits across bytes, so the run plans of the whole-byte kernels
//! cannot copy them directly. Instead the data is unpacked to one code per
//! byte, moved by the 1-byte kernel, and packed again; elements keep every
//! bit, and their order inside each byte follows OpenVINO's (see
//! [`ovir_tensor::packed`]).
//!
//! This costs two extra passes and a temporary of one byte per element (up
//! to eight times the packed size) on top of the move itself. Packed tensors
//! are mostly small constants, which are folded once when a model compiles,
//! so simplicity wins over speed here.

use ovir_tensor::packed::{self, PackError};
use ovir_tensor::{ElementType, Tensor};

use super::{check_output, ExecOptions, KernelError};

/// `true` when `ty` takes this path instead of the whole-byte kernels.
pub(super) fn applies(ty: ElementType) -> bool {
    packed::is_packed(ty)
}

/// One code per byte of `data`, as a `u8` tensor of the same shape.
fn unpack(op: &'static str, data: &Tensor) -> Result<Tensor, KernelError> {
    let ty = data.element_type();
    let bytes = data.bytes().ok_or(KernelError::UnsupportedType { op, ty })?;
    let codes = packed::unpack(bytes, ty, data.len()).map_err(|e| internal(op, e))?;
    Ok(Tensor::from_vec(data.shape(), codes)?)
}

/// Packs the moved codes back into `out`, which has the packed type.
fn pack_into(op: &'static str, codes: &Tensor, out: &mut Tensor) -> Result<(), KernelError> {
    let ty = out.element_type();
    let src = codes.bytes().ok_or(KernelError::Internal { op })?;
    let dst = out.bytes_mut().ok_or(KernelError::Internal { op })?;
    packed::pack_into(src, ty, dst).map_err(|e| internal(op, e))
}

/// The tensors were checked when they were made, and the codes come from
/// unpacking, so packing cannot fail on input; a failure is a bug.
fn internal(op: &'static str, _cause: PackError) -> KernelError {
    KernelError::Internal { op }
}

/// Runs `move_codes` on the unpacked data and packs its result; when
/// nothing moved, the result is `data` itself.
fn run(
    op: &'static str,
    data: &Tensor,
    move_codes: impl FnOnce(&Tensor) -> Result<Tensor, KernelError>,
) -> Result<Tensor, KernelError> {
    let codes = unpack(op, data)?;
    let moved = move_codes(&codes)?;
    if moved.shares_storage_with(&codes) {
        return Ok(data.clone());
    }
    let mut out = Tensor::zeros(data.element_type(), data.shape())?;
    pack_into(op, &moved, &mut out)?;
    Ok(out)
}

/// [`run`] writing into `out`, which must have `data`'s type and shape.
fn run_into(
    op: &'static str,
    data: &Tensor,
    out: &mut Tensor,
    move_codes: impl FnOnce(&Tensor, &mut Tensor) -> Result<(), KernelError>,
) -> Result<(), KernelError> {
    check_output(op, data.element_type(), data.shape(), out)?;
    let codes = unpack(op, data)?;
    let mut moved = Tensor::zeros(ElementType::U8, data.shape())?;
    move_codes(&codes, &mut moved)?;
    pack_into(op, &moved, out)
}

/// Reverse on packed data; see [`super::reverse`].
pub(super) fn reverse(data: &Tensor, axes: &[bool], options: &ExecOptions) -> Result<Tensor, KernelError> {
    run("Reverse", data, |codes| super::reverse_with(codes, axes, options))
}

/// Reverse on packed data into `out`; see [`super::reverse_into`].
pub(super) fn reverse_into(
    data: &Tensor,
    axes: &[bool],
    out: &mut Tensor,
    options: &ExecOptions,
) -> Result<(), KernelError> {
    run_into("Reverse", data, out, |codes, moved| super::reverse_into_with(codes, axes, moved, options))
}

/// ReverseSequence on packed data; see [`super::reverse_sequence`].
pub(super) fn reverse_sequence(
    data: &Tensor,
    lengths: &Tensor,
    batch_axis: i64,
    seq_axis: i64,
    options: &ExecOptions,
) -> Result<Tensor, KernelError> {
    run("ReverseSequence", data, |codes| {
        super::reverse_sequence_with(codes, lengths, batch_axis, seq_axis, options)
    })
}

/// ReverseSequence on packed data into `out`; see
/// [`super::reverse_sequence_into`].
pub(super) fn reverse_sequence_into(
    data: &Tensor,
    lengths: &Tensor,
    batch_axis: i64,
    seq_axis: i64,
    out: &mut Tensor,
    options: &ExecOptions,
) -> Result<(), KernelError> {
    run_into("ReverseSequence", data, out, |codes, moved| {
        super::reverse_sequence_into_with(codes, lengths, batch_axis, seq_axis, moved, options)
    })
}
