//! Reader for OpenVINO IR files.
#![deny(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod model;

pub use model::{
    Attribute, Attributes, Edge, Layer, LayerIdx, LineCol, Model, OutputRef, Port, RtInfo, RtNode,
    SourceFile, Span,
};
