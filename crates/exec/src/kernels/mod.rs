//! CPU kernels: one pure function per operation, in two forms.
//!
//! - `op(…)` is the convenience: it allocates the output (or returns the
//!   input itself when nothing moves) on the calling thread.
//! - `op_into(…, out, …)` writes into an output the caller owns, of the
//!   type and shape the op produces, and takes what the kernel can use
//!   besides: the [`ExecOptions`] of a kernel that can split its work
//!   across threads, and the scratch of one that keeps memory between
//!   calls, a type of its own ([`ReverseScratch`],
//!   [`ReverseSequenceScratch`], [`ReverseSubsequencesScratch`],
//!   [`GatherScratch`]), so that a caller running it again allocates
//!   nothing. A plan keeps one per step and request.
//! - ReverseSequence and ReverseSubsequences also have
//!   `op_checked_into(…)`, which takes lengths read and checked once
//!   ([`CheckedLengths`], [`CheckedSubsequenceLengths`]), as a plan does
//!   for constant lengths.
//!
//! The modules beside the kernels hold what they share: `moves` (the one
//! description of an output as strided or indexed copies of its inputs,
//! and the player that moves it, for Gather, Slice, Concat and
//! Broadcast), `run_plan` (the run plans of Reverse, ReverseSequence and
//! ReverseSubsequences and the routines that play them), `scattered_lines`
//! (lines each with a length of its own, for ReverseSubsequences and
//! ReverseSequence), `copy` (the SIMD copy routines), `simd` (the
//! feature tokens every SIMD routine takes, and their loads and stores),
//! `counts` and `integer_lengths` (lengths inputs), `integers` (small
//! integer inputs), `checks`, `packed` and `parallel`.

mod checks;
mod copy;
mod counts;
mod error;
pub(crate) mod indexed;
mod integer_lengths;
mod integers;
pub(crate) mod moves;
mod packed;
mod parallel;
mod run_plan;
mod scattered_lines;
mod simd;
#[cfg(test)]
mod testing;

pub mod batch_to_space;
pub mod broadcast;
pub mod col2im;
pub mod concat;
mod convert;
pub mod depth_to_space;
pub mod extract_image_patches;
pub mod gather;
pub mod gather_elements;
pub mod gather_nd;
pub mod gather_tree;
pub mod pad;
pub mod reduce;
pub mod reshape;
mod reverse;
mod reverse_sequence;
mod reverse_subsequences;
pub mod roll;
pub mod scatter;
pub mod scatter_elements;
pub mod shape_of;
pub mod shuffle_channels;
pub mod slice;
pub mod slice_scatter;
pub mod split;
pub mod strided_slice;
pub mod string_tensor;
pub mod tile;
pub mod transpose;
pub mod unique;

pub use error::KernelError;
pub use parallel::ExecOptions;

pub use batch_to_space::{
    batch_to_space, batch_to_space_into, batch_to_space_output_shape, space_to_batch, space_to_batch_into,
    space_to_batch_output_shape, BatchToSpaceScratch,
};
pub use broadcast::{broadcast, broadcast_into, broadcast_output_shape};
pub use col2im::{col2im, col2im_into, col2im_output_shape};
pub use concat::{concat, concat_into, concat_output_shape};
pub use convert::{convert, convert_into};
pub use depth_to_space::{
    depth_to_space, depth_to_space_into, depth_to_space_output_shape, space_to_depth, space_to_depth_into,
    space_to_depth_output_shape, DepthToSpaceScratch,
};
pub use extract_image_patches::{
    extract_image_patches, extract_image_patches_into, extract_image_patches_output_shape,
    ExtractImagePatchesScratch,
};
pub use gather::{gather, gather_into, gather_output_shape, GatherScratch};
pub use gather_elements::{
    gather_elements, gather_elements_into, gather_elements_output_shape, GatherElementsScratch,
};
pub use gather_nd::{gather_nd, gather_nd_into, gather_nd_output_shape, GatherNdScratch};
pub use gather_tree::{gather_tree, gather_tree_into, gather_tree_output_shape};
pub use indexed::IndexScratch;
pub use pad::{pad, pad_into, pad_output_shape, PadScratch};
pub use reduce::Reduction;
pub use reshape::{reshape, squeeze, unsqueeze};
pub use reverse::{reverse, reverse_into, ReverseScratch};
pub use reverse_sequence::{
    reverse_sequence, reverse_sequence_checked_into, reverse_sequence_into, CheckedLengths,
    ReverseSequenceScratch,
};
pub use reverse_subsequences::{
    reverse_subsequences, reverse_subsequences_checked_into, reverse_subsequences_into,
    subsequence_lengths_shape, CheckedSubsequenceLengths, ReverseSubsequencesScratch, MAX_SUBSEQUENCE_RANK,
};
pub use roll::{roll, roll_into, RollScratch};
pub use scatter::{
    scatter_nd_update, scatter_nd_update_into, scatter_nd_update_output_shape, scatter_update,
    scatter_update_into, scatter_update_output_shape, ScatterScratch,
};
pub use scatter_elements::{
    scatter_elements_update, scatter_elements_update_into, scatter_elements_update_output_shape,
    ScatterElementsScratch,
};
pub use shape_of::{shape_of, shape_of_into};
pub use shuffle_channels::{
    shuffle_channels, shuffle_channels_into, shuffle_channels_output_shape, ShuffleChannelsScratch,
};
pub use slice::{slice, slice_into, slice_output_shape};
pub use slice_scatter::{
    slice_scatter, slice_scatter_into, slice_scatter_output_shape, SliceRegion, SliceScatterScratch,
};
pub use split::{
    split, split_into, split_output_shapes, variadic_split, variadic_split_into,
    variadic_split_output_shapes, SplitScratch,
};
pub use strided_slice::{strided_slice, strided_slice_into, strided_slice_output_shape, StridedSliceScratch};
pub use string_tensor::{
    string_tensor_pack, string_tensor_pack_into, string_tensor_pack_output_shape, string_tensor_unpack,
    string_tensor_unpack_into, string_tensor_unpack_symbols,
};
pub use tile::{tile, tile_into, tile_output_shape, TileScratch};
pub use transpose::{transpose, transpose_into, transpose_output_shape, TransposeScratch};
pub use unique::{unique, unique_axis_value, unique_into, UniqueScratch};
