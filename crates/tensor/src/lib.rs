//! Element types, partial shapes and tensors: the data layer under every
//! other ovir crate.
//!
//! - [`ElementType`] names every element type an OpenVINO IR file can
//!   mention, from `boolean` to the packed sub-byte types and `string`.
//! - [`Dim`] and [`PartialShape`] describe shapes that are only partly known
//!   before a model runs: `?`, intervals such as `1..10`, and dynamic rank,
//!   merged with the same rules OpenVINO uses.
//! - [`Tensor`] holds a static shape and its elements, in cheap-to-clone
//!   shared storage that can borrow the bytes of a weights file without
//!   copying them, whether the file was read or memory-mapped.
//! - [`packed`] lays out the sub-byte types (`u1` … `u6`, `i4`, `nf4`,
//!   `f4e2m1`) bit for bit as OpenVINO does, and converts them to and from
//!   one code per byte.
//! - [`text`] shows a tensor's exact values as stable text and JSON, for
//!   snapshot tests: `format!("{tensor}")` or `serde_json::to_string(&tensor)`.
//! - [`compare`] compares two tensors bit for bit or within a tolerance
//!   (`atol`, `rtol`, ulps), and says where and by how much they differ.
//!
//! ```
//! use ovir_tensor::{PartialShape, Tensor};
//!
//! let declared: PartialShape = "?,3,1..10".parse()?;
//! let t = Tensor::from_vec(&[2, 3, 4], (0..24).map(|x| x as f32).collect())?;
//! assert!(declared.accepts(t.shape()));
//! assert_eq!(declared.to_string(), "[?,3,1..10]");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![deny(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod axis;
pub mod compare;
mod element;
mod error;
mod exchange;
mod limit;
pub mod packed;
mod packing;
mod shape;
mod tensor;
pub mod text;

pub use axis::normalize_axis;
pub use bytemuck::Pod;
pub use element::{ElementType, ALL_ELEMENT_TYPES};
pub use error::{ByteCount, TensorError};
pub use half::{bf16, f16};
pub use limit::{check_memory, memory_bytes, DEFAULT_MAX_TENSOR_BYTES};
pub use shape::{element_count, Dim, PartialShape, ShapeParseError};
pub use tensor::{Element, Tensor};
