//! Analysis of small models built in memory: OpenVINO's type_prop cases for
//! Reverse and ReverseSequence, and ovir's own checks.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod general;
mod graph;
mod reverse;
mod reverse_sequence;
mod shape_ops;
