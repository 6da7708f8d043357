//! Validation and shape inference for OpenVINO IR models: what is known
//! about every tensor before the model runs.
//!
//! [`analyze`] walks the layers of an [`ovir_ir::Model`] in topological
//! order. For each layer it finds the operation (matching `type` without
//! regard to ASCII case, and checking that the layer's `version` names an
//! opset containing it), reads and checks the `<data>` attributes and the
//! number of ports, applies OpenVINO's validation rules to the facts of the
//! inputs and infers the facts of the outputs.
//!
//! The model itself is left as the file described it. The results go into a
//! side table, [`ModelInfo`], indexed like [`Model::layers`](ovir_ir::Model::layers):
//! - [`ModelInfo::ops`]: the parsed [`Op`] of each layer;
//! - [`ModelInfo::outputs`]: a [`PortFact`] per output port, with the element
//!   type, the [`PartialShape`](ovir_tensor::PartialShape) (intervals and dynamic dimensions kept as
//!   OpenVINO infers them) and, for constants, the value.
//!
//! Operations outside OpenVINO's opsets come from [`Extension`]s, entries
//! of the same [`OpRegistry`] as the built-in ops: with
//! [`analyze_with_ops`], a layer whose type and version no built-in op has
//! is handled by the matching extension, whose [`CustomOp`] infers the
//! facts of its output (as a [`CustomOperation`]).
//!
//! Analysis does not stop at the first problem. A failing layer's outputs
//! get a fact with nothing known (dynamic type, dynamic rank), and checks
//! that such a fact could only fail because of the earlier failure are not
//! reported again, so [`AnalyzeError`] lists every independent problem.
//!
//! Values known before the model runs travel with the facts: constants,
//! the shape a `ShapeOf` reads from a static input, and, with
//! [`analyze_with`], whatever an [`Evaluator`] computes from known inputs
//! (the executor's kernels, for small outputs). Small integer tensors that
//! hold dimensions also carry what is known of each element as an interval
//! ([`PortFact::value_dims`]), so a shape taken apart and rebuilt by
//! `ShapeOf`, `Gather`, `Concat` or `Broadcast` stays as known as its
//! parts. The checks on values that OpenVINO makes at run time (Reverse
//! axes, ReverseSequence and ReverseSubsequences lengths) are made at load
//! time when the values are known, by the same functions the executor
//! calls at run time: [`reversed_axes_into`], [`for_each_sequence_length`]
//! and the other rules in each module of [`ops`], which allocate nothing
//! unless the inputs are wrong and read values with
//! [`try_for_each_integer`] and [`try_for_each_real`]. So a problem reads
//! the same whenever it shows up, as one [`ShapeErrorKind`].
//!
//! # Where an operation lives, and how to add one
//!
//! Each operation is one module of [`ops`]: a type holding its attributes
//! (`ops::Convert { to }`) and two traits. [`BuiltinOp`] registers it: its
//! [`OpSpec`] row (type name, opsets, port counts), `build`, which reads a
//! layer's `<data>` into the type, `write`, its inverse, which gives the
//! attributes as OpenVINO's serializer writes them (what a model built in
//! code holds), and a few `examples` for the tests. [`Operation`] gives
//! its inference: [`Operation::infer`] gives the facts of the outputs from
//! those of the inputs, and [`Operation::input_values`] and
//! [`Operation::input_shape`] say what values and shape each input must
//! hold, also in terms of the other inputs (so that example inputs can be
//! made for any model). Shape rules that the executor applies again at run time are
//! public functions of the same module.
//!
//! The built-in ops are one list, [`for_each_builtin_op!`]: the registry
//! is made from it, the executor requires a planner for every type in it
//! (an op without one does not compile), and the tests that every op
//! round-trips through `write`, `build`, the builder and an IR file
//! iterate it.
//!
//! To add an operation:
//! 1. copy the smallest complete op, `ops/convert.rs`, to `ops/<op>.rs`,
//!    and give it the new op's attributes, rules, inference and
//!    [`BuiltinOp`] impl;
//! 2. add `pub mod <op>;` and the re-export of its type to `ops/mod.rs`,
//!    and the type to the list in [`for_each_builtin_op!`];
//! 3. where no existing [`ShapeErrorKind`] says what is wrong, add a
//!    variant: errors are one typed vocabulary, shared by load-time checks
//!    here and run-time checks in the executor;
//! 4. give it a planner and a kernel in the executor (see `ovir_exec`'s
//!    crate docs); until then the executor does not compile.
//!
//! An op writes itself as the layer it is, and reads that layer back to
//! an equal op; `ovir::ModelBuilder::add` adds any op this way:
//!
//! ```
//! use ovir_shape::ops::{Gather, ShapeOf};
//! use ovir_shape::{BuiltinOp, OpRegistry};
//! use ovir_tensor::ElementType;
//!
//! let gather = Gather { batch_dims: 1, version: 8 };
//! let layer = gather.write();
//! assert_eq!(layer.version, "opset8");
//! assert_eq!(layer.attrs, [("batch_dims".to_string(), "1".to_string())]);
//! assert_eq!(Gather::build(&layer.to_layer(), 8), Ok(gather));
//!
//! let shape_of = ShapeOf { output_type: ElementType::I32 }.write();
//! assert!(OpRegistry::new().has_op(&shape_of.op_type, &shape_of.version));
//! ```
//!
//! A model's layers, analysed:
//!
//! ```
//! use std::sync::Arc;
//! use ovir_ir::{Attribute, Attributes, Edge, Layer, LayerIdx, Model, OutputRef, Port, RtInfo, SourceFile, Span};
//! use ovir_shape::{analyze, ops::Reverse, ReverseMode};
//! use ovir_tensor::{ElementType, PartialShape, Tensor};
//!
//! fn port(id: usize) -> Port {
//!     let (shape, names) = (PartialShape::dynamic(), vec![]);
//!     Port { id: id as u64, precision: None, names, shape, rt_info: RtInfo::default(), span: Span::default() }
//! }
//! // Ports are numbered as OpenVINO's serializer numbers them: the inputs
//! // from 0, then the outputs.
//! fn layer(id: u64, op_type: &str, attrs: &[(&str, &str)], inputs: usize, outputs: usize) -> Layer {
//!     let attrs = attrs.iter().map(|(n, v)| Attribute { name: n.to_string(), value: v.to_string(), span: Span::default() });
//!     Layer {
//!         id,
//!         name: op_type.to_lowercase(),
//!         op_type: op_type.to_string(),
//!         version: "opset1".to_string(),
//!         attrs: Attributes(attrs.collect()),
//!         inputs: (0..inputs).map(port).collect(),
//!         outputs: (inputs..inputs + outputs).map(port).collect(),
//!         rt_info: RtInfo::default(),
//!         output_names: None,
//!         span: Span::default(),
//!         constant: None,
//!     }
//! }
//!
//! let mut axes = layer(1, "Const", &[], 0, 1);
//! axes.constant = Some(Tensor::from_vec(&[1], vec![-1i64])?);
//! let model = Model {
//!     name: "flip".to_string(),
//!     version: 11,
//!     layers: vec![
//!         layer(0, "Parameter", &[("shape", "?,3,1..10"), ("element_type", "f32")], 0, 1),
//!         axes,
//!         layer(2, "Reverse", &[("mode", "index")], 2, 1),
//!         layer(3, "Result", &[], 1, 0),
//!     ],
//!     // (from layer, from port, to layer, to port), as `<edges>` lists them.
//!     edges: [(0, 0, 2, 0), (1, 0, 2, 1), (2, 2, 3, 0)]
//!         .map(|(from_layer, from_port, to_layer, to_port)| Edge { from_layer, from_port, to_layer, to_port, span: Span::default() })
//!         .to_vec(),
//!     rt_info: RtInfo::default(),
//!     source: Arc::new(SourceFile { path: None, text: String::new() }),
//!     sources: vec![
//!         vec![],
//!         vec![],
//!         vec![OutputRef { layer: LayerIdx(0), port: 0 }, OutputRef { layer: LayerIdx(1), port: 0 }],
//!         vec![OutputRef { layer: LayerIdx(2), port: 0 }],
//!     ],
//!     order: (0..4).map(LayerIdx).collect(),
//! };
//!
//! let info = analyze(&model)?;
//! assert_eq!(info.op(LayerIdx(2)).downcast_ref(), Some(&Reverse { mode: ReverseMode::Index }));
//! let out = info.output(OutputRef { layer: LayerIdx(2), port: 0 });
//! assert_eq!(out.element_type, ElementType::F32);
//! assert_eq!(out.shape.to_string(), "[?,3,1..10]");
//! assert_eq!(info.input_fact(&model, LayerIdx(3), 0).shape, out.shape);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![deny(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod analyze;
mod attrs;
mod dims;
mod error;
mod extension;
mod fact;
mod operation;
pub mod ops;
mod ports;
mod registry;
mod values;

pub use analyze::{
    analyze, analyze_partial, analyze_with, analyze_with_ops, infer_layer, Evaluator, ModelInfo,
    NoEvaluation, PartialInfo,
};
pub use error::{AnalyzeError, ShapeError, ShapeErrorKind};
pub use extension::{
    CustomOp, CustomOpState, CustomOperation, Extension, ExtensionError, InPlace, OutputSlots,
};
pub use fact::PortFact;
pub use operation::{
    BuiltinOp, Input, IntoLayer, Op, OpLayer, OpSpec, Operation, Problem, Problems, ShapeRule, Size,
    ValueDomain, Versions,
};
pub use ops::broadcast::BroadcastMode;
pub use ops::reverse::{reversed_axes, reversed_axes_into, ReverseMode};
pub use ops::reverse_sequence::{for_each_sequence_length, sequence_lengths};
pub use ports::{port_warnings, PortMismatch, PortSide, PortWarning};
pub use registry::OpRegistry;
pub use values::{try_for_each_integer, try_for_each_real};
