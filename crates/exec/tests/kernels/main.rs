//! Kernel tests: OpenVINO's reference cases, every validation rule,
//! bit-exactness, and property tests against naive references.

mod common;
mod convert;
mod properties;
mod reverse;
mod reverse_sequence;
