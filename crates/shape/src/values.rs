//! Reading the values of a small input (axes, lengths, indices) without
//! allocating: the rules of [`ops`](crate::ops) read them this way both when
//! a model loads and, from the executor, every time it runs.

use ovir_tensor::{bf16, f16, Element, ElementType, Tensor};

/// Calls `f` with every value of an integer tensor (`i4`, `i8` to `i64`,
/// `u1` to `u64`), in element order and widened to `i128`, which holds
/// each exactly, until `f` fails; `None`, with `f` never called, when the
/// tensor is of another type. Values are read straight from their
/// little-endian bytes (unaligned ones too), and packed ones a few at a
/// time on the stack, so nothing is allocated.
///
/// ```
/// use ovir_shape::try_for_each_integer;
/// use ovir_tensor::Tensor;
///
/// let t = Tensor::from_vec(&[3], vec![u64::MAX, 7, 0])?;
/// let mut sum = 0i128;
/// try_for_each_integer(&t, |v| {
///     sum += v;
///     Ok::<(), ()>(())
/// });
/// assert_eq!(sum, i128::from(u64::MAX) + 7);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn try_for_each_integer<E>(
    t: &Tensor,
    mut f: impl FnMut(i128) -> Result<(), E>,
) -> Option<Result<(), E>> {
    let ty = t.element_type();
    if !ty.is_integral() {
        return None;
    }
    let bytes = t.bytes()?;
    Some(match ty {
        ElementType::I8 => each::<i8, E>(bytes, |v| f(v.into())),
        ElementType::I16 => each::<i16, E>(bytes, |v| f(v.into())),
        ElementType::I32 => each::<i32, E>(bytes, |v| f(v.into())),
        ElementType::I64 => each::<i64, E>(bytes, |v| f(v.into())),
        ElementType::U8 => each::<u8, E>(bytes, |v| f(v.into())),
        ElementType::U16 => each::<u16, E>(bytes, |v| f(v.into())),
        ElementType::U32 => each::<u32, E>(bytes, |v| f(v.into())),
        ElementType::U64 => each::<u64, E>(bytes, |v| f(v.into())),
        _ => return packed_integers(bytes, ty, t.len(), f),
    })
}

/// Calls `f` with every value of a real tensor (`f16`, `bf16`, `f32`,
/// `f64`), in element order and widened to `f64`, which holds each
/// exactly, until `f` fails; `None`, with `f` never called, when the
/// tensor is of another type. Nothing is allocated.
pub fn try_for_each_real<E>(t: &Tensor, mut f: impl FnMut(f64) -> Result<(), E>) -> Option<Result<(), E>> {
    let bytes = t.bytes()?;
    Some(match t.element_type() {
        ElementType::F16 => each::<f16, E>(bytes, |v| f(v.into())),
        ElementType::Bf16 => each::<bf16, E>(bytes, |v| f(v.into())),
        ElementType::F32 => each::<f32, E>(bytes, |v| f(v.into())),
        ElementType::F64 => each::<f64, E>(bytes, &mut f),
        _ => return None,
    })
}

/// [`try_for_each_integer`] for inputs that OpenVINO reads as whole
/// numbers whatever their type (VariadicSplit's axis and lengths): an
/// integer as it is, a real truncated toward zero (saturating, NaN as 0,
/// as a cast does). `None` for other types.
pub(crate) fn try_for_each_whole<E>(
    t: &Tensor,
    mut f: impl FnMut(i128) -> Result<(), E>,
) -> Option<Result<(), E>> {
    if t.element_type().is_integral() {
        try_for_each_integer(t, f)
    } else {
        try_for_each_real(t, |v| f(v as i128))
    }
}

/// The first value of [`try_for_each_whole`]: an axis given as a scalar or
/// a tensor of one element.
pub(crate) fn first_whole(t: &Tensor) -> Option<i128> {
    let mut first = None;
    try_for_each_whole(t, |v| {
        first = Some(v);
        Err(())
    });
    first
}

/// Value `i` of an integer tensor, saturated to `i64`, read without
/// allocating: straight from its bytes for the byte-aligned types, and by
/// counting for the packed ones; `None` for other types or past the end.
pub(crate) fn nth_integer(t: &Tensor, i: usize) -> Option<i64> {
    let ty = t.element_type();
    let sat = |v: i128| v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
    if let (true, Some(w), Some(bytes)) = (ty.is_integral(), ty.byte_width(), t.bytes()) {
        let b = bytes.get(i.checked_mul(w)?..i.checked_mul(w)?.checked_add(w)?)?;
        let v: i128 = match ty {
            ElementType::I8 => i8::read_le(b).into(),
            ElementType::I16 => i16::read_le(b).into(),
            ElementType::I32 => i32::read_le(b).into(),
            ElementType::I64 => i64::read_le(b).into(),
            ElementType::U8 => u8::read_le(b).into(),
            ElementType::U16 => u16::read_le(b).into(),
            ElementType::U32 => u32::read_le(b).into(),
            ElementType::U64 => u64::read_le(b).into(),
            _ => return None,
        };
        return Some(sat(v));
    }
    let (mut k, mut found) = (0, None);
    try_for_each_integer(t, |v| {
        if k == i {
            found = Some(sat(v));
            return Err(());
        }
        k += 1;
        Ok(())
    });
    found
}

/// Calls `f` with every `T` stored little-endian in `bytes`.
#[inline(always)]
fn each<T: Element, E>(bytes: &[u8], f: impl FnMut(T) -> Result<(), E>) -> Result<(), E> {
    bytes.chunks_exact(std::mem::size_of::<T>()).map(T::read_le).try_for_each(f)
}

/// [`try_for_each_integer`] for the packed integer types: each group of
/// bytes that holds a whole number of elements is unpacked on its own.
fn packed_integers<E>(
    bytes: &[u8],
    ty: ElementType,
    count: usize,
    mut f: impl FnMut(i128) -> Result<(), E>,
) -> Option<Result<(), E>> {
    // `u3` keeps 8 elements in 3 bytes and `u6` 4; the others fill a byte.
    let (per_group, group_bytes) = match ty {
        ElementType::U3 => (8, 3),
        ElementType::U6 => (4, 3),
        _ => (8 / ty.bit_width().clamp(1, 8), 1),
    };
    let mut codes = [0u8; 8];
    for (g, group) in bytes.chunks(group_bytes).enumerate() {
        let left = count.saturating_sub(g * per_group).min(per_group);
        if left == 0 {
            break;
        }
        let codes = codes.get_mut(..left)?;
        ovir_tensor::packed::unpack_into(group, ty, codes).ok()?;
        for &c in codes.iter() {
            // An `i4` code is a two's complement pattern of 4 bits.
            let v = if ty == ElementType::I4 { i128::from(((c << 4) as i8) >> 4) } else { i128::from(c) };
            if let Err(e) = f(v) {
                return Some(Err(e));
            }
        }
    }
    Some(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value `try_for_each_integer` reads.
    fn all_integers(t: &Tensor) -> Option<Vec<i128>> {
        let mut out = Vec::new();
        try_for_each_integer(t, |v| {
            out.push(v);
            Ok::<(), ()>(())
        })?
        .ok()?;
        Some(out)
    }

    #[test]
    fn reads_every_integer_type_as_the_tensor_does() {
        use ElementType as E;
        let codes: Vec<u8> = (0..13).map(|i| (i * 5 % 64) as u8).collect();
        for ty in [E::U1, E::U2, E::U3, E::U4, E::U6, E::I4] {
            let max = (1u16 << ty.bit_width()) - 1;
            let mine: Vec<u8> = codes.iter().map(|&c| (u16::from(c) & max) as u8).collect();
            for n in [0, 1, 5, 8, 13] {
                let bytes = ovir_tensor::packed::pack(&mine[..n], ty).unwrap();
                let t = Tensor::from_bytes(ty, &[n], &bytes).unwrap();
                assert_eq!(all_integers(&t), t.integer_values(), "{ty} x{n}");
            }
        }
        let bytes: Vec<u8> = (0..16).map(|i| (i * 37 + 200) as u8).collect();
        for ty in [E::I8, E::U8, E::I16, E::U16, E::I32, E::U32, E::I64, E::U64] {
            let n = 16 / ty.byte_width().unwrap_or(1);
            let t = Tensor::from_bytes(ty, &[n], &bytes).unwrap();
            assert_eq!(all_integers(&t), t.integer_values(), "{ty}");
        }
        for ty in [E::Boolean, E::F32, E::F16] {
            let t = Tensor::zeros(ty, &[2]).unwrap();
            assert_eq!(all_integers(&t), None, "{ty}");
        }
    }

    #[test]
    fn the_nth_integer_is_read_in_place() {
        let t = Tensor::from_vec(&[3], vec![u64::MAX, 7, 0]).unwrap();
        assert_eq!(
            (nth_integer(&t, 0), nth_integer(&t, 1), nth_integer(&t, 3)),
            (Some(i64::MAX), Some(7), None)
        );
        let t = Tensor::from_vec(&[2], vec![-3i16, 9]).unwrap();
        assert_eq!(nth_integer(&t, 0), Some(-3));
        let codes = ovir_tensor::packed::pack(&[1, 15, 8], ElementType::I4).unwrap();
        let t = Tensor::from_bytes(ElementType::I4, &[3], &codes).unwrap();
        assert_eq!((nth_integer(&t, 1), nth_integer(&t, 2)), (Some(-1), Some(-8)));
        assert_eq!(nth_integer(&Tensor::zeros(ElementType::F32, &[2]).unwrap(), 0), None);
    }

    #[test]
    fn reads_every_real_type_as_the_tensor_does() {
        let values = [2.5f64, -0.0, 7.0, f64::NAN];
        let tensors = [
            Tensor::from_vec(&[4], values.map(f16::from_f64).to_vec()).unwrap(),
            Tensor::from_vec(&[4], values.map(bf16::from_f64).to_vec()).unwrap(),
            Tensor::from_vec(&[4], values.map(|v| v as f32).to_vec()).unwrap(),
            Tensor::from_vec(&[4], values.to_vec()).unwrap(),
        ];
        for t in tensors {
            let ty = t.element_type();
            let mut read = Vec::new();
            let done = try_for_each_real(&t, |v| {
                read.push(v);
                Ok::<(), ()>(())
            });
            assert_eq!(done, Some(Ok(())));
            let want = t.real_values().unwrap();
            assert_eq!(read.len(), want.len(), "{ty}");
            assert!(read.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()), "{ty}: {read:?}");
        }
        let t = Tensor::zeros(ElementType::I32, &[2]).unwrap();
        assert_eq!(try_for_each_real(&t, |_| Ok::<(), ()>(())), None);
        // `f` stops the walk at its first failure.
        let t = Tensor::from_vec(&[3], vec![1.0f32, 2.0, 3.0]).unwrap();
        let mut seen = 0;
        let done = try_for_each_real(&t, |v| {
            seen += 1;
            if v == 2.0 {
                Err(v)
            } else {
                Ok(())
            }
        });
        assert_eq!((done, seen), (Some(Err(2.0)), 2));
    }
}
