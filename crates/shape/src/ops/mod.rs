//! The built-in operations, one module each: the op's attributes as a
//! type, the function that reads them from a layer, its shape and value
//! inference, and the shape rules the executor also applies when the model
//! runs, so that a problem reads the same whenever it shows up.

pub mod broadcast;
pub mod concat;
pub mod constant;
pub mod convert;
pub mod gather;
pub mod parameter;
pub mod reshape;
pub mod result;
pub mod reverse;
pub mod reverse_sequence;
pub mod reverse_subsequences;
pub mod shape_of;
pub mod slice;
pub mod squeeze;
pub mod unsqueeze;

pub use broadcast::{Broadcast, BroadcastMode};
pub use concat::Concat;
pub use constant::Const;
pub use convert::Convert;
pub use gather::Gather;
pub use parameter::Parameter;
pub use reshape::Reshape;
pub use result::ResultOp;
pub use reverse::{Reverse, ReverseMode};
pub use reverse_sequence::ReverseSequence;
pub use reverse_subsequences::ReverseSubsequences;
pub use shape_of::ShapeOf;
pub use slice::Slice;
pub use squeeze::Squeeze;
pub use unsqueeze::Unsqueeze;
