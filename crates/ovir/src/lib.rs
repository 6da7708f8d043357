//! ovir: a pure-Rust runtime for OpenVINO IR models.
//!
//! An OpenVINO model is shipped as IR: an `.xml` graph and a `.bin` of
//! weights. This crate reads both exactly as OpenVINO does, checks every
//! layer's attributes, element types and shapes, compiles the graph once
//! into a plan, and runs it on the CPU with bit-exact results.
//!
//! The flow mirrors OpenVINO's own runtime:
//! 1. [`Model::read`] (or [`Model::from_memory`]) loads and validates a
//!    model; every problem is reported with the file, line and layer.
//! 2. [`Model::compile`] builds a [`CompiledModel`]: constants are folded
//!    and the execution order is fixed. A compiled model is `Send + Sync`
//!    and cheap to clone, so one can serve many threads.
//! 3. [`CompiledModel::run`] runs it once: named inputs in, named
//!    [`Outputs`] out. For repeated inferences,
//!    [`CompiledModel::infer_request`] gives an [`InferRequest`], which
//!    allocates nothing after its first inference: set the inputs by name
//!    or index, call [`InferRequest::infer`], read the outputs as
//!    [`Tensor`]s or `ndarray` views.
//!
//! Operations outside OpenVINO's opsets come from extensions: a
//! [`Core`] holds them ([`Core::add_extension`] adds one of your own,
//! with its shape inference and its kernel; see [`Extension`]) and reads
//! models with them. The default `Core` that [`Model::read`] uses carries
//! the extensions built into ovir: DirectML's reverse-subsequences as
//! `type="ReverseSubsequences" version="ovir"` (see
//! [`shape::ops::reverse_subsequences`]).
//!
//! ```
//! use ovir::{Model, Tensor};
//!
//! let xml = r#"<?xml version="1.0"?>
//! <net name="flip" version="11">
//!   <layers>
//!     <layer id="0" name="data" type="Parameter" version="opset1">
//!       <data shape="2,3" element_type="f32"/>
//!       <output><port id="0" precision="FP32" names="data"><dim>2</dim><dim>3</dim></port></output>
//!     </layer>
//!     <layer id="1" name="axes" type="Const" version="opset1">
//!       <data element_type="i64" shape="1" offset="0" size="8"/>
//!       <output><port id="0" precision="I64"><dim>1</dim></port></output>
//!     </layer>
//!     <layer id="2" name="flip" type="Reverse" version="opset1">
//!       <data mode="index"/>
//!       <input><port id="0"><dim>2</dim><dim>3</dim></port><port id="1"><dim>1</dim></port></input>
//!       <output><port id="2" precision="FP32" names="out"><dim>2</dim><dim>3</dim></port></output>
//!     </layer>
//!     <layer id="3" name="out" type="Result" version="opset1">
//!       <input><port id="0"><dim>2</dim><dim>3</dim></port></input>
//!     </layer>
//!   </layers>
//!   <edges>
//!     <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
//!     <edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
//!     <edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
//!   </edges>
//! </net>"#;
//! // The weights: one i64 axis, 1 (reverse the columns).
//! let weights = 1i64.to_le_bytes().to_vec();
//!
//! let model = Model::from_memory(xml, Some(weights))?;
//! let compiled = model.compile()?;
//! let mut request = compiled.infer_request();
//! let data = ndarray::array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
//! request.set_input("data", Tensor::from_array(data.view()))?;
//! request.infer()?;
//! let out = request.output("out")?.view::<f32>()?;
//! assert_eq!(out, ndarray::array![[3.0f32, 2.0, 1.0], [6.0, 5.0, 4.0]].into_dyn());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A model can also be built in code, op by op: [`ModelBuilder::add`]
//! takes any op of [`ops`] (or an extension's [`OpLayer`]) and its
//! inputs, and checks the layer at once.
//!
//! ```
//! use ovir::ops::{Concat, Reverse, ReverseMode};
//! use ovir::{ElementType, ModelBuilder, PartialShape, Tensor};
//!
//! let mut b = ModelBuilder::new("mirror");
//! let x = b.parameter("x", ElementType::I32, PartialShape::from_static(&[3]))?;
//! let axes = b.constant_slice(&[1], &[0i64])?;
//! let flipped = b.add(Reverse { mode: ReverseMode::Index }, &[x, axes])?;
//! let both = b.add(Concat { axis: 0 }, &[x, flipped])?;
//! b.set_names(both, &["y"])?;
//! b.result(both)?;
//! let y = b.build()?.compile()?.run([("x", Tensor::from_vec(&[3], vec![1i32, 2, 3])?)])?;
//! assert_eq!(y.get("y")?.to_vec::<i32>()?, [1, 2, 3, 3, 2, 1]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Snapshot tests
//!
//! [`Outputs`] and [`Tensor`] show their exact values as text
//! ([`Display`](std::fmt::Display)) and JSON ([`serde::Serialize`]), in a
//! versioned format that the [`text`] module describes: each float in the
//! fewest digits that read back as the same value of its own type, NaN as
//! its bits, and large tensors summarised with a hash of their bytes.
//!
//! ```
//! use ovir::{ElementType, ModelBuilder, PartialShape, Tensor};
//!
//! let mut b = ModelBuilder::new("to_f16");
//! let data = b.parameter("data", ElementType::F32, PartialShape::from_static(&[3]))?;
//! let half = b.convert(data, ElementType::F16)?;
//! b.set_names(half, &["half"])?;
//! b.result(half)?;
//! let outputs = b.build()?.compile()?.run([("data", Tensor::from_vec(&[3], vec![0.1f32, -0.0, 1e9])?)])?;
//! assert_eq!(outputs.to_string(), "ovir-outputs-text v1\noutput \"half\": f16 [3]\n[0.1, -0, inf]");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! With [insta](https://docs.rs/insta), a test pins them in one line,
//! `insta::assert_snapshot!(outputs)` for the text or
//! `insta::assert_json_snapshot!(outputs)` for JSON:
//!
//! ```no_run
//! # fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let compiled = ovir::Model::read("model.xml")?.compile()?;
//! let outputs = compiled.run([("data", ovir::Tensor::from_vec(&[3], vec![0.1f32, -0.0, 1e9])?)])?;
//! insta::assert_snapshot!(outputs);
//! # Ok(()) }
//! ```
//!
//! To compare outputs with values from elsewhere, [`compare::Tolerance`]
//! compares two tensors bit for bit or within `atol`, `rtol` or ulps, and
//! says which element differs and by how much.
//!
//! # Features
//!
//! Both are off by default, so that a program that only runs models
//! builds no zip reader:
//!
//! - `npy`: the module `ovir::npy`, `.npy` and `.npz` files in and out of
//!   tensors.
//! - `conformance` (takes `npy` with it): the module `ovir::conformance`,
//!   folders of test cases (a model, its inputs, and the outputs, error or
//!   warning it must give) run one by one or as one test each.
#![deny(missing_docs)]
#![deny(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod builder;
#[cfg(feature = "conformance")]
pub mod conformance;
mod core;
mod error;
mod example;
mod model;
#[cfg(feature = "npy")]
pub mod npy;
mod outputs;
mod request;
mod save;
mod transform;

pub use crate::core::Core;
pub use builder::{BuildError, ModelBuilder};
pub use error::{Error, Place};
pub use model::{CompileOptions, CompiledModel, Model, PortInfo};
pub use request::{InferRequest, Outputs, OutputsDisplay, OutputsIter, PortKey, OUTPUTS_TEXT_FORMAT};

pub use ovir_shape::{
    BuiltinOp, CustomOp, CustomOpState, Extension, ExtensionError, InPlace, IntoLayer, OpLayer, OutputSlots,
    PortFact, PortWarning,
};

/// The `ndarray` that ovir's API takes and returns. Naming it through
/// ovir (`use ovir::ndarray;`) always gives the matching version, whatever
/// version of `ndarray` a program depends on itself.
pub use ndarray;

#[doc(inline)]
pub use ovir_exec as exec;
#[doc(inline)]
pub use ovir_ir as ir;
#[doc(inline)]
pub use ovir_shape as shape;
/// Every built-in op and its attribute types, at one path:
/// `ovir::ops::Reverse`, `ovir::ops::ReverseMode`, `ovir::ops::Broadcast`,
/// `ovir::ops::BroadcastMode`, …, the values [`ModelBuilder::add`] takes.
#[doc(inline)]
pub use ovir_shape::ops;
pub use ovir_tensor::compare;
pub use ovir_tensor::packed;
pub use ovir_tensor::text;
pub use ovir_tensor::{bf16, f16, Dim, Element, ElementType, PartialShape, Tensor, TensorError};

// The README's Rust examples compile as doctests, so they cannot drift
// from the API.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
