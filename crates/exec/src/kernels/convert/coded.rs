//! Convert for the pairs where either side is a packed sub-byte type or a
//! small float format (`f8e4m3`, `f8e5m2`, `f8e8m0`, `f4e2m1`, `nf4`).
//!
//! Elements go through in blocks of [`BLOCK`], which is a whole number of
//! every packed layout's groups, so each block starts on a byte boundary
//! and packs or unpacks on its own. Each block passes through one exact
//! intermediate on the stack: an `i8` for the packed integers, which hold
//! at most 6 bits, and an `f32` for the small floats, whose every value an
//! `f32` holds. The whole-byte side then reuses the rules of the other
//! pairs. Nothing is allocated, so a plan running such a step again
//! allocates nothing either.

use std::ops::Range;

use half::{bf16, f16};
use ovir_tensor::packed::{self, is_packed};
use ovir_tensor::ElementType;

use super::small_float::{self as sf, e4m3_from_f16, e5m2_from_f16, f16_bits};
use super::{convert_bytes, KernelError, OP};

/// Elements per block: a multiple of 8, the largest packed group.
const BLOCK: usize = 256;

/// `true` when the pair takes this path.
pub(super) fn applies(from: ElementType, to: ElementType) -> bool {
    coded(from) || coded(to)
}

fn coded(ty: ElementType) -> bool {
    is_packed(ty) || matches!(ty, ElementType::F8e4m3 | ElementType::F8e5m2 | ElementType::F8e8m0)
}

fn internal(what: &'static str) -> KernelError {
    KernelError::Internal { op: OP, what }
}

/// Converts the `count` elements of `from` in `src` into `to` in `dst`;
/// both hold exactly those elements. The pair has been checked.
pub(super) fn convert_elements(
    from: ElementType,
    to: ElementType,
    src: &[u8],
    dst: &mut [u8],
    count: usize,
) -> Result<(), KernelError> {
    let sizes = (from.storage_bytes(count), to.storage_bytes(count));
    if sizes != (Some(src.len()), Some(dst.len())) {
        return Err(internal("the input and output hold other numbers of elements"));
    }
    for start in (0..count).step_by(BLOCK) {
        let len = BLOCK.min(count - start);
        let s = byte_range(from, start, len).and_then(|r| src.get(r));
        let d = byte_range(to, start, len).and_then(|r| dst.get_mut(r));
        let (Some(s), Some(d)) = (s, d) else {
            return Err(internal("a block left the buffers"));
        };
        convert_block(from, to, s, d, len)?;
    }
    Ok(())
}

/// The bytes of elements `start..start + len`, for `start` a multiple of
/// [`BLOCK`].
fn byte_range(ty: ElementType, start: usize, len: usize) -> Option<Range<usize>> {
    Some(ty.storage_bytes(start)?..ty.storage_bytes(start + len)?)
}

/// A block of up to [`BLOCK`] elements.
fn convert_block(
    from: ElementType,
    to: ElementType,
    src: &[u8],
    dst: &mut [u8],
    len: usize,
) -> Result<(), KernelError> {
    use ElementType as E;
    let mut codes = [0u8; BLOCK];
    let codes = codes.get_mut(..len).ok_or_else(|| internal("a block is too long"))?;
    match to {
        E::F8e4m3 | E::F8e5m2 => {
            let encode = if to == E::F8e4m3 { e4m3_from_f16 } else { e5m2_from_f16 };
            if from == E::F16 {
                // Rounded from the f16 itself, which is what going through
                // f32 (exact) and back (exact) gives, NaN payloads included.
                for (o, i) in dst.iter_mut().zip(src.chunks_exact(2)) {
                    *o = encode(u16::from_le_bytes([i[0], i[1]]));
                }
            } else {
                let mut reals = [0f32; BLOCK];
                let reals = reals.get_mut(..len).ok_or_else(|| internal("a block is too long"))?;
                as_f32(from, src, reals)?;
                for (o, &x) in dst.iter_mut().zip(reals.iter()) {
                    *o = encode(f16_bits(x));
                }
            }
            Ok(())
        }
        E::F8e8m0 | E::F4e2m1 | E::Nf4 => {
            let mut reals = [0f32; BLOCK];
            let reals = reals.get_mut(..len).ok_or_else(|| internal("a block is too long"))?;
            as_f32(from, src, reals)?;
            let encode = match to {
                E::F8e8m0 => sf::e8m0_from_f32,
                E::F4e2m1 => sf::f4e2m1_from_f32,
                _ => sf::nf4_from_f32,
            };
            for (c, &x) in codes.iter_mut().zip(reals.iter()) {
                *c = encode(x);
            }
            store_codes(codes, to, dst)
        }
        _ if is_packed(to) => {
            let mut ints = [0i8; BLOCK];
            let ints = ints.get_mut(..len).ok_or_else(|| internal("a block is too long"))?;
            as_i8(from, src, ints)?;
            let bits = to.bit_width();
            let mask = (1u8 << bits) - 1;
            // A real value was truncated and saturated at i8's bounds;
            // saturating again at the target's makes it as if done at once.
            // Integers keep their low bits (wrap around), as between the
            // whole-byte integer types.
            let (low, high) = if to == E::I4 { (-8, 7) } else { (0, mask as i8) };
            let saturate = from.is_real();
            for (c, &v) in codes.iter_mut().zip(ints.iter()) {
                let v = if saturate { v.clamp(low, high) } else { v };
                *c = v as u8 & mask;
            }
            store_codes(codes, to, dst)
        }
        _ => to_whole_bytes(from, to, src, dst, codes),
    }
}

/// Packs `codes` into `dst`, or copies them for the 8-bit formats.
fn store_codes(codes: &[u8], to: ElementType, dst: &mut [u8]) -> Result<(), KernelError> {
    if is_packed(to) {
        packed::pack_into(codes, to, dst).map_err(|_| internal("converted codes could not be packed"))
    } else {
        dst.copy_from_slice(codes);
        Ok(())
    }
}

/// The codes of a block of `from` elements (packed, or one per byte).
fn load_codes(from: ElementType, src: &[u8], codes: &mut [u8]) -> Result<(), KernelError> {
    if is_packed(from) {
        packed::unpack_into(src, from, codes).map_err(|_| internal("a block could not be unpacked"))
    } else {
        let src = src.get(..codes.len()).ok_or_else(|| internal("a block left the input"))?;
        codes.copy_from_slice(src);
        Ok(())
    }
}

/// The decoding table of a small float format, `None` for other types.
fn table(ty: ElementType) -> Option<&'static [u32; 256]> {
    match ty {
        ElementType::F8e4m3 => Some(&sf::F8E4M3),
        ElementType::F8e5m2 => Some(&sf::F8E5M2),
        ElementType::F8e8m0 => Some(&sf::F8E8M0),
        ElementType::F4e2m1 => Some(&sf::F4E2M1),
        ElementType::Nf4 => Some(&sf::NF4),
        _ => None,
    }
}

/// A packed integer's value: the code, sign-extended for `i4`.
fn integer_of(ty: ElementType, code: u8) -> i8 {
    if ty == ElementType::I4 {
        ((code << 4) as i8) >> 4
    } else {
        code as i8
    }
}

/// A block of a small float or packed integer `from`, each element
/// decoded to its exact value (`f32` through the format's table, or the
/// integer) and then turned into `T` by `real` or `int`.
fn decode_block<T>(
    from: ElementType,
    src: &[u8],
    out: &mut [T],
    real: impl Fn(f32) -> T,
    int: impl Fn(i8) -> T,
) -> Result<(), KernelError> {
    let mut codes = [0u8; BLOCK];
    let codes = codes.get_mut(..out.len()).ok_or_else(|| internal("a block is too long"))?;
    load_codes(from, src, codes)?;
    let table = table(from);
    for (o, &c) in out.iter_mut().zip(codes.iter()) {
        *o = match table {
            Some(t) => real(f32::from_bits(t[usize::from(c)])),
            None => int(integer_of(from, c)),
        };
    }
    Ok(())
}

/// The block's values as `i8`: packed integers exactly, real values
/// truncated toward zero and saturated (NaN gives 0), other integers
/// wrapped around.
fn as_i8(from: ElementType, src: &[u8], out: &mut [i8]) -> Result<(), KernelError> {
    if coded(from) {
        return decode_block(from, src, out, |v| v as i8, |i| i);
    }
    let dst: &mut [u8] = bytemuck::cast_slice_mut(out);
    with_type!(from, S => convert_bytes::<S, i8>(src, dst))
}

/// The block's values as `f32`: exact for every type that converts to a
/// small float except `f64` and the 32- and 64-bit integers, which round
/// to nearest even (as OpenVINO's `static_cast<float>` does). NaN payloads
/// are kept for `bf16` and `f8e5m2`.
fn as_f32(from: ElementType, src: &[u8], out: &mut [f32]) -> Result<(), KernelError> {
    if coded(from) {
        return decode_block(from, src, out, |v| v, f32::from);
    }
    match from {
        ElementType::Bf16 => {
            for (o, i) in out.iter_mut().zip(src.chunks_exact(2)) {
                *o = f32::from_bits(u32::from(u16::from_le_bytes([i[0], i[1]])) << 16);
            }
            Ok(())
        }
        ElementType::F16 => {
            for (o, i) in out.iter_mut().zip(src.chunks_exact(2)) {
                *o = f16::from_le_bytes([i[0], i[1]]).to_f32();
            }
            Ok(())
        }
        _ => {
            let dst: &mut [u8] = bytemuck::cast_slice_mut(out);
            with_type!(from, S => convert_bytes::<S, f32>(src, dst))
        }
    }
}

/// A packed integer or small float block into one of the whole-byte types.
fn to_whole_bytes(
    from: ElementType,
    to: ElementType,
    src: &[u8],
    dst: &mut [u8],
    codes: &mut [u8],
) -> Result<(), KernelError> {
    load_codes(from, src, codes)?;
    let Some(table) = table(from) else {
        // A packed integer is an i8 value, which converts by the integer
        // rules.
        let mut ints = [0i8; BLOCK];
        let ints = ints.get_mut(..codes.len()).ok_or_else(|| internal("a block is too long"))?;
        for (o, &c) in ints.iter_mut().zip(codes.iter()) {
            *o = integer_of(from, c);
        }
        let ints: &[u8] = bytemuck::cast_slice(ints);
        return with_type!(to, D => convert_bytes::<i8, D>(ints, dst));
    };
    // Every value but nf4's is exact in bf16, and f8e5m2's in f16: their
    // bits are cut from the f32 ones, keeping NaN payloads as OpenVINO
    // does, where rounding would quiet them.
    let exact_half = match to {
        ElementType::F16 if from == ElementType::F8e5m2 => Some(8),
        ElementType::Bf16 if from != ElementType::Nf4 => Some(16),
        _ => None,
    };
    if let Some(shift) = exact_half {
        for (o, &c) in dst.chunks_exact_mut(2).zip(codes.iter()) {
            let bits = if shift == 8 { u16::from(c) << 8 } else { (table[usize::from(c)] >> 16) as u16 };
            o.copy_from_slice(&bits.to_le_bytes());
        }
        return Ok(());
    }
    let mut reals = [0f32; BLOCK];
    let reals = reals.get_mut(..codes.len()).ok_or_else(|| internal("a block is too long"))?;
    for (o, &c) in reals.iter_mut().zip(codes.iter()) {
        *o = f32::from_bits(table[usize::from(c)]);
    }
    let reals: &[u8] = bytemuck::cast_slice(reals);
    with_type!(to, D => convert_bytes::<f32, D>(reals, dst))
}
