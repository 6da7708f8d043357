//! Execution for ovir: the plan that runs a validated model, and the CPU
//! kernels that compute each operation.
//!
//! [`Plan::compile`] turns a model and its shape-inference table into a flat
//! list of steps in topological order, folds every layer whose inputs are
//! constant, and records after which step each intermediate value can be
//! freed. [`Plan::run`] checks the inputs against their declared types and
//! (partial) shapes and runs the steps; [`Plan::run_state`] does the same
//! on a [`RunState`] that one infer request keeps, so that running again
//! allocates nothing.
//!
//! The [`kernels`] module holds one pure function per operation. A kernel
//! takes [`ovir_tensor::Tensor`]s, checks every input against the rules
//! OpenVINO applies, and returns a new tensor or a typed
//! [`KernelError`](kernels::KernelError); it never panics on bad input.
//! Each kernel also has one `_into` form that writes into a tensor the
//! caller already owns, so a request that runs a model many times can
//! reuse its buffers instead of allocating new ones.
//!
//! Data-movement kernels (Reverse, ReverseSequence) look only at an
//! element's byte width, never at its type: the same code moves `f16`,
//! `i16` and `u16`, and results are bit-exact for every type.
//!
//! # Where an operation runs, and how to add one
//!
//! Shape inference reads each layer into an op of `ovir_shape::ops` (see
//! that crate's docs). Here, each op has a module under `src/ops/` with a
//! `plan` function: given the op and what is known of its inputs before
//! the model runs (constant values, static shapes), it returns what the
//! plan does with the layer: an input, a constant, an output, nothing at
//! all (the data passes through), or a step that runs a `Kernel`. The
//! kernel holds whatever could be worked out at compile time (a Reverse's
//! axis flags, a Gather's layout) and calls the op's function in
//! [`kernels`]; inputs of other shapes than it was made for fall back to
//! the general form. Constant folding is the same kernel run once while
//! the model compiles. What a kernel keeps between runs (lengths read,
//! packed data unpacked) lives in the state each infer request keeps for
//! its step, never in the kernel, so requests on other threads never share
//! it.
//!
//! To add an operation: write its kernel function in `kernels/`, copy the
//! smallest op module, `src/ops/convert.rs`, to `src/ops/<op>.rs` and make
//! its `plan` and `Kernel` call the new function; its one line
//! `planner!(<Op>, plan);` registers the planner, and `mod <op>;` in
//! `src/ops/mod.rs` includes it. The planners are found through
//! `ovir_shape::for_each_builtin_op!`, the one list of built-in ops, so a
//! built-in op without a planner does not compile. Ops added by
//! extensions need none of this: `src/ops/custom.rs` runs every one of
//! them through its `CustomOp`.
//!
//! ```
//! use ovir_exec::kernels::{convert, reverse};
//! use ovir_shape::{reversed_axes, ReverseMode};
//! use ovir_tensor::{ElementType, Tensor};
//!
//! let data = Tensor::from_vec(&[2, 3], vec![0i32, 1, 2, 3, 4, 5])?;
//! let axes = Tensor::from_vec(&[1], vec![-1i64])?;
//! let flags = reversed_axes(ReverseMode::Index, &axes, data.rank())?;
//! let reversed = reverse(&data, &flags)?;
//! assert_eq!(reversed.to_vec::<i32>()?, vec![2, 1, 0, 5, 4, 3]);
//!
//! let halves = convert(&reversed, ElementType::F16)?;
//! assert_eq!(halves.element_type(), ElementType::F16);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Features
//!
//! - `no-simd`: leaves the x86_64 SSE2, SSSE3, AVX2 and AVX-512 loops out
//!   of the build, so the portable copy and conversion loops that other
//!   architectures use run, and are tested, on any machine. Meant for
//!   checking that fallback; it makes copies slower.
#![deny(missing_docs)]
#![deny(unsafe_code)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod evaluator;
pub mod kernels;
mod ops;
mod plan;
mod step;

pub use evaluator::ConstantEvaluator;
pub use plan::{CompileError, Folded, Plan, PlanInput, PlanOutput, RunError, RunState};
