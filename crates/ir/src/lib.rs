//! Reader for OpenVINO IR files: the `.xml` graph and the `.bin` weights,
//! turned into a [`Model`] that says exactly what the file says.
//!
//! # What the reader checks
//!
//! The reader checks structure, not meaning. A [`Model`] it returns has
//! these properties, which later stages rely on without checking again:
//!
//! - the root is `<net>` with IR version 10 or 11;
//! - every layer has an unsigned `id` (unique), a `name`, a `type` and a
//!   `version`; every port has an unsigned `id`, unique on its side of the
//!   layer, and `<dim>`s of -1 (dynamic) or more;
//! - every edge joins an existing output port to an existing input port
//!   (ports are matched by their `id` value, not by position), and every
//!   input port is fed by exactly one edge ([`Model::sources`]);
//! - the graph has no cycle, and [`Model::order`] lists producers before
//!   consumers;
//! - every `Const` layer's value is loaded into [`Layer::constant`]: its
//!   bytes lie inside the weights and cover its shape; numeric values
//!   borrow the weights without copying, `string` values are decoded.
//!
//! A [`Model`]'s fields are public, so a model can also be built or changed
//! in code; [`Model::check_references`] checks every index, port, edge and
//! the order of such a model once, and every public entry point of ovir
//! that takes a model runs it, so that no later stage has to.
//!
//! Unknown operation types and opset versions are not the reader's
//! concern: the shape-inference stage knows the operation set and judges
//! them. Every element type name OpenVINO defines is accepted.
//!
//! # Weights
//!
//! [`read_model`] reads the `.bin` file into memory, and `Const` values
//! borrow those bytes without copying them again. Memory-mapping the file
//! instead is an explicit, `unsafe` choice ([`WeightsAccess::map`] with
//! [`read_model_with`]): a map is only sound while nobody changes the
//! file, which the caller has to promise.
//!
//! # Errors
//!
//! Reading does not stop at the first problem: a [`ReadError`] lists every
//! independent problem as a [`Diagnostic`], with its place in the XML and
//! the layer concerned. Only problems that make the rest of the file
//! unreadable (malformed XML, a `DOCTYPE`, an unsupported version) stop
//! reading early. [`Diagnostic::render`] and [`render_diagnostic`] show a
//! problem with its source line; later stages use the same renderer.
//!
//! The XML parser does not expand `DOCTYPE` entities (the file is refused
//! instead), does not recurse, and limits nesting depth, so hostile files
//! cost bounded time and memory. Every check runs in time linear in the
//! file, and a [`ReadError`] keeps at most [`MAX_REPORTED`] problems (the
//! rest are counted), so a file with a million broken edges is refused
//! quickly.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use ovir_ir::{read_model_from_memory, IrErrorKind, Weights};
//!
//! let xml = r#"<?xml version="1.0"?>
//! <net name="add_one" version="11">
//!   <layers>
//!     <layer id="0" name="x" type="Parameter" version="opset1">
//!       <data shape="2" element_type="f32"/>
//!       <output><port id="0" precision="FP32" names="x"><dim>2</dim></port></output>
//!     </layer>
//!     <layer id="1" name="one" type="Const" version="opset1">
//!       <data element_type="f32" shape="2" offset="0" size="8"/>
//!       <output><port id="0" precision="FP32"><dim>2</dim></port></output>
//!     </layer>
//!     <layer id="2" name="sum" type="Add" version="opset1">
//!       <input><port id="0"><dim>2</dim></port><port id="1"><dim>2</dim></port></input>
//!       <output><port id="2" precision="FP32" names="y"><dim>2</dim></port></output>
//!     </layer>
//!     <layer id="3" name="y" type="Result" version="opset1">
//!       <input><port id="0"><dim>2</dim></port></input>
//!     </layer>
//!   </layers>
//!   <edges>
//!     <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
//!     <edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
//!     <edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
//!   </edges>
//! </net>"#;
//!
//! let bin: Vec<u8> = [1.0f32, 1.0].iter().flat_map(|v| v.to_le_bytes()).collect();
//! let model = read_model_from_memory(xml, Some(Arc::new(Weights::from_bytes(bin))))?;
//! assert_eq!(model.layers.len(), 4);
//! let one = model.layers.iter().find(|l| l.is("Const")).and_then(|l| l.constant.as_ref());
//! assert_eq!(one.map(|t| t.to_vec::<f32>()), Some(Ok(vec![1.0, 1.0])));
//!
//! // Without the weights, the Const cannot be loaded.
//! let err = read_model_from_memory(xml, None).unwrap_err();
//! assert!(matches!(err.diagnostics[0].kind, IrErrorKind::MissingWeights { .. }));
//! assert!(err.to_string().contains(":8:5:"));
//! # Ok::<(), ovir_ir::ReadError>(())
//! ```
#![deny(missing_docs)]
#![deny(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod check;
mod constant;
mod diagnostic;
mod graph;
mod layer_ref;
mod mmap;
mod model;
mod names;
mod parse;
mod read;
mod render;
mod sniff;
mod source;
mod weights;
mod write;

pub use diagnostic::{Diagnostic, IrErrorKind, ReadError, MAX_REPORTED};
pub use layer_ref::LayerRef;
pub use mmap::WeightsAccess;
pub use model::{Attribute, Attributes, Edge, Layer, LayerIdx, Model, OutputRef, Port, RtInfo, RtNode};
pub use names::split_names;
pub use parse::MAX_DEPTH;
pub use read::{read_model, read_model_from_bytes, read_model_from_memory, read_model_with};
pub use render::{render_diagnostic, render_warning};
pub use source::{LineCol, SourceFile, Span};
pub use weights::Weights;
pub use write::{precision_name, written_port_shape, WriteError};
