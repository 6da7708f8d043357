//! What the kernels' unit tests share.

use ovir_tensor::{ElementType, Tensor};

use super::convert;

/// A tensor of `shape` and type `ty` whose elements all differ, for the
/// unit tests of the kernels that move them.
pub(super) fn distinct(ty: ElementType, shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    if ty == ElementType::String {
        let strings = (0..n).map(|v| format!("s{v}")).collect();
        return Tensor::from_strings(shape, strings).unwrap();
    }
    let values = Tensor::from_vec(shape, (0..n as i64).map(|v| v * 7 + 1).collect()).unwrap();
    convert(&values, ty).unwrap()
}
