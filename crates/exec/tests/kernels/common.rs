//! Helpers shared by the kernel tests: naive element-by-element references
//! that share no code with the kernels.

use ovir_tensor::{bf16, f16, ElementType, Tensor};

/// Types the op_reference tables of OpenVINO run Reverse on.
pub const REFERENCE_TYPES: [ElementType; 10] = [
    ElementType::I8,
    ElementType::I16,
    ElementType::I32,
    ElementType::I64,
    ElementType::U8,
    ElementType::U16,
    ElementType::U32,
    ElementType::U64,
    ElementType::F16,
    ElementType::F32,
];

pub fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| unreachable!("kernel failed: {e}"))
}

/// A tensor of zeros with `t`'s type and shape.
pub fn zeros_like(t: &Tensor) -> Tensor {
    Tensor::zeros(t.element_type(), t.shape()).unwrap_or_else(|e| unreachable!("{e}"))
}

pub fn tensor<T: ovir_tensor::Element>(shape: &[usize], values: Vec<T>) -> Tensor {
    Tensor::from_vec(shape, values).unwrap_or_else(|e| unreachable!("{e}"))
}

/// Data whose bytes follow no period, so that an element moved from the
/// wrong row shows whatever the distance (counting up in `u8` repeats every
/// 256 elements, and rows 32 or 64 apart could be equal).
pub fn scrambled(ty: ElementType, shape: &[usize]) -> Tensor {
    let n = shape.iter().product::<usize>() * ty.byte_width().unwrap_or(1);
    let bytes: Vec<u8> = (0..n as u64).map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as u8).collect();
    Tensor::from_bytes(ty, shape, &bytes).unwrap_or_else(|e| unreachable!("{e}"))
}

/// `0, 1, …, n-1` as elements of `ty`.
pub fn iota(ty: ElementType, shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    let t = match ty {
        ElementType::Boolean => Tensor::from_vec(shape, (0..n).map(|i| i % 2 == 1).collect()),
        ElementType::I8 => Tensor::from_vec(shape, (0..n).map(|i| i as i8).collect()),
        ElementType::I16 => Tensor::from_vec(shape, (0..n).map(|i| i as i16).collect()),
        ElementType::I32 => Tensor::from_vec(shape, (0..n).map(|i| i as i32).collect()),
        ElementType::I64 => Tensor::from_vec(shape, (0..n).map(|i| i as i64).collect()),
        ElementType::U8 => Tensor::from_vec(shape, (0..n).map(|i| i as u8).collect()),
        ElementType::U16 => Tensor::from_vec(shape, (0..n).map(|i| i as u16).collect()),
        ElementType::U32 => Tensor::from_vec(shape, (0..n).map(|i| i as u32).collect()),
        ElementType::U64 => Tensor::from_vec(shape, (0..n).map(|i| i as u64).collect()),
        ElementType::F16 => Tensor::from_vec(shape, (0..n).map(|i| f16::from_f32(i as f32)).collect()),
        ElementType::Bf16 => Tensor::from_vec(shape, (0..n).map(|i| bf16::from_f32(i as f32)).collect()),
        ElementType::F32 => Tensor::from_vec(shape, (0..n).map(|i| i as f32).collect()),
        ElementType::F64 => Tensor::from_vec(shape, (0..n).map(|i| i as f64).collect()),
        ElementType::String => Tensor::from_strings(shape, (0..n).map(|i| format!("s{i}")).collect()),
        other => unreachable!("no iota for {other}"),
    };
    t.unwrap_or_else(|e| unreachable!("{e}"))
}

/// The row-major multi-index of flat index `flat`.
pub fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for (i, &d) in index.iter_mut().zip(shape).rev() {
        *i = flat % d;
        flat /= d;
    }
    index
}

pub fn ravel(index: &[usize], shape: &[usize]) -> usize {
    index.iter().zip(shape).fold(0, |acc, (&i, &d)| acc * d + i)
}

/// Builds the output by asking, for every output element, which input
/// element lands there.
pub fn gather_reference(data: &Tensor, source_of: impl Fn(&[usize]) -> Vec<usize>) -> Tensor {
    let shape = data.shape().to_vec();
    if let Some(strings) = data.strings() {
        let out: Vec<String> = (0..data.len())
            .map(|flat| strings[ravel(&source_of(&unravel(flat, &shape)), &shape)].clone())
            .collect();
        return Tensor::from_strings(&shape, out).unwrap_or_else(|e| unreachable!("{e}"));
    }
    let width = data.element_type().byte_width().unwrap_or_else(|| unreachable!());
    let src = data.bytes().unwrap_or_else(|| unreachable!());
    let mut out = Vec::with_capacity(src.len());
    for flat in 0..data.len() {
        let from = ravel(&source_of(&unravel(flat, &shape)), &shape);
        out.extend_from_slice(&src[from * width..(from + 1) * width]);
    }
    Tensor::from_bytes(data.element_type(), &shape, &out).unwrap_or_else(|e| unreachable!("{e}"))
}

pub fn naive_reverse(data: &Tensor, flags: &[bool]) -> Tensor {
    let shape = data.shape().to_vec();
    gather_reference(data, |index| {
        index.iter().zip(&shape).zip(flags).map(|((&i, &d), &f)| if f { d - 1 - i } else { i }).collect()
    })
}

/// `lengths` here are the raw values; 0 behaves like 1.
pub fn naive_reverse_sequence(data: &Tensor, lengths: &[usize], batch: usize, seq: usize) -> Tensor {
    gather_reference(data, |index| {
        let mut from = index.to_vec();
        let len = lengths[index[batch]];
        if index[seq] < len {
            from[seq] = len - 1 - index[seq];
        }
        from
    })
}
