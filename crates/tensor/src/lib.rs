//! Element types, partial shapes and tensors: the data layer under every
//! other ovir crate.
//!
//! - [`ElementType`] names every element type an OpenVINO IR file can
//!   mention, from `boolean` to the packed sub-byte types and `string`.
//! - [`Dim`] and [`PartialShape`] describe shapes that are only partly known
//!   before a model runs: `?`, intervals such as `1..10`, and dynamic rank,
//!   merged with the same rules OpenVINO uses.
//! - [`Tensor`] holds a static shape and its elements, in cheap-to-clone
//!   shared storage that can borrow from a memory-mapped weights file.
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
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod element;
mod shape;
mod tensor;

pub use bytemuck::Pod;
pub use element::{ElementType, ALL_ELEMENT_TYPES};
pub use half::{bf16, f16};
pub use shape::{element_count, Dim, PartialShape, ShapeParseError};
pub use tensor::{Element, Tensor, TensorError};
