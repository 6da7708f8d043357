//! Kernel tests: OpenVINO's reference cases, every validation rule,
//! bit-exactness, property tests against naive references, and the
//! threaded forms.

mod common;
mod convert;
mod convert_formats;
mod every_type;
mod packed;
mod properties;
mod reverse;
mod reverse_sequence;
mod reverse_subsequences;
mod threads;
