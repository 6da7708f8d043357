//! The data-movement kernels on the packed sub-byte types (`u1`, `u2`,
//! `u3`, `u4`, `u6`, `i4`, `nf4`, `f4e2m1`).
//!
//! Several of these elements share a byte, and `u3` and `u6` even split an
//! element's bits across bytes, so the run plans of the whole-byte kernels
//! cannot copy them directly. Instead the data is unpacked to one code per
//! byte, moved by the 1-byte kernel, and packed again; elements keep every
//! bit, and their order inside each byte follows OpenVINO's (see
//! [`ovir_tensor::packed`]).
//!
//! This costs two extra passes and two temporaries of one byte per element
//! (up to eight times the packed size) on top of the move itself. Packed
//! tensors are mostly small constants, which are folded once when a model
//! compiles, so simplicity wins over speed here. The `_into` forms keep the
//! temporaries in their kernel's scratch ([`KeepsUnpacked`]), so that a
//! plan running the same model again allocates nothing.

use ovir_tensor::packed::{self, PackError};
use ovir_tensor::{ElementType, Tensor};

use super::checks::check_output;
use super::KernelError;

/// Packed sub-byte data as the packed path moves it: two `u8` tensors of
/// the data's shape.
#[derive(Clone, Debug)]
pub(super) struct Unpacked {
    /// One code per byte.
    codes: Tensor,
    /// The codes once moved, before they are packed into the output.
    moved: Tensor,
}

/// The scratch of a kernel that moves packed data: it keeps the data
/// unpacked between calls, boxed, as most steps never need it.
pub(super) trait KeepsUnpacked {
    /// Where the unpacked data is kept.
    fn unpacked(&mut self) -> &mut Option<Box<Unpacked>>;
}

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
    let src = codes.bytes().ok_or(KernelError::Internal { op, what: "the unpacked codes hold no bytes" })?;
    let dst = out.bytes_mut().ok_or(KernelError::Internal { op, what: "a packed output holds no bytes" })?;
    packed::pack_into(src, ty, dst).map_err(|e| internal(op, e))
}

/// The tensors were checked when they were made, and the codes come from
/// unpacking, so packing cannot fail on input; a failure is a bug.
fn internal(op: &'static str, _cause: PackError) -> KernelError {
    KernelError::Internal { op, what: "codes from unpacking could not be packed again" }
}

/// Runs `move_codes` on the unpacked data and packs its result; when
/// nothing moved, the result is `data` itself.
pub(super) fn run(
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
/// The unpacked codes and the moved ones are kept in `scratch`, so that
/// moving data of the same shape again allocates nothing; `move_codes`
/// gets the scratch as well, for what the move itself keeps.
pub(super) fn run_into<S: KeepsUnpacked>(
    op: &'static str,
    data: &Tensor,
    out: &mut Tensor,
    scratch: &mut S,
    move_codes: impl FnOnce(&Tensor, &mut Tensor, &mut S) -> Result<(), KernelError>,
) -> Result<(), KernelError> {
    check_output(op, data.element_type(), data.shape(), out)?;
    // The buffers leave the scratch while the move borrows it, and go back
    // whatever the outcome.
    let mut unpacked = match scratch.unpacked().take() {
        Some(u) if fits(&u.codes, data.shape()) && fits(&u.moved, data.shape()) => u,
        _ => Box::new(Unpacked {
            codes: Tensor::zeros(ElementType::U8, data.shape())?,
            moved: Tensor::zeros(ElementType::U8, data.shape())?,
        }),
    };
    let Unpacked { codes, moved } = &mut *unpacked;
    let done = unpack_into(op, data, codes)
        .and_then(|()| move_codes(codes, moved, scratch))
        .and_then(|()| pack_into(op, moved, out));
    *scratch.unpacked() = Some(unpacked);
    done
}

/// Whether a kept buffer of codes can serve data of `shape`: it has that
/// shape and nothing else holds it.
fn fits(codes: &Tensor, shape: &[usize]) -> bool {
    codes.shape() == shape && codes.is_exclusive()
}

/// Unpacks `data` into `codes`, a `u8` tensor of its shape.
fn unpack_into(op: &'static str, data: &Tensor, codes: &mut Tensor) -> Result<(), KernelError> {
    let ty = data.element_type();
    let bytes = data.bytes().ok_or(KernelError::UnsupportedType { op, ty })?;
    let dst =
        codes.bytes_mut().ok_or(KernelError::Internal { op, what: "the code buffer holds no bytes" })?;
    packed::unpack_into(bytes, ty, dst).map_err(|e| internal(op, e))
}
