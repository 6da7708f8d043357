//! Execution for ovir: the plan that runs a validated model, and the CPU
//! kernels that compute each operation.
//!
//! [`Plan::compile`] turns a model and its shape-inference table into a flat
//! list of steps in topological order, folds every layer whose inputs are
//! constant, and records after which step each intermediate value can be
//! freed. [`Plan::run`] checks the inputs against their declared types and
//! (partial) shapes and runs the steps.
//!
//!
//! The [`kernels`] module holds one pure function per operation. A kernel
//! takes [`ovir_tensor::Tensor`]s, checks every input against the rules
//! OpenVINO applies, and returns a new tensor or a typed
//! [`KernelError`](kernels::KernelError); it never panics on bad input.
//! Each kernel also has an `_into` form that writes into a tensor the caller
//! already owns, so a request that runs a model many times can reuse its
//! buffers instead of allocating new ones.
//!
//! Data-movement kernels (Reverse, ReverseSequence) look only at an
//! element's byte width, never at its type: the same code moves `f16`,
//! `i16` and `u16`, and results are bit-exact for every type.
//!
//! ```
//! use ovir_exec::kernels::{convert, reverse, reverse_axes_from_index};
//! use ovir_tensor::{ElementType, Tensor};
//!
//! let data = Tensor::from_vec(&[2, 3], vec![0i32, 1, 2, 3, 4, 5])?;
//! let axes = Tensor::from_vec(&[1], vec![-1i64])?;
//! let flags = reverse_axes_from_index(&axes, data.rank())?;
//! let reversed = reverse(&data, &flags)?;
//! assert_eq!(reversed.to_vec::<i32>()?, vec![2, 1, 0, 5, 4, 3]);
//!
//! let halves = convert(&reversed, ElementType::F16)?;
//! assert_eq!(halves.element_type(), ElementType::F16);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod evaluator;
pub mod extensions;
pub mod kernels;
mod plan;

pub use evaluator::ConstantEvaluator;
pub use extensions::builtin_extensions;
pub use plan::{CompileError, Plan, PlanInput, PlanOutput, RunError, RunState};
