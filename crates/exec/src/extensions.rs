//! The extensions that ship with ovir, for operations outside OpenVINO's
//! opsets.
//!
//! [`builtin_extensions`] returns them all. For now that is
//! [`ReverseSubsequences`], DirectML's `DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC`,
//! which IR names as
//!
//! ```xml
//! <layer id="2" name="rev" type="ReverseSubsequences" version="ovir">
//!     <data axis="3"/>
//!     <input>
//!         <port id="0"> <!-- the data --> </port>
//!         <port id="1"> <!-- the lengths --> </port>
//!     </input>
//!     <output>
//!         <port id="2"> <!-- the result --> </port>
//!     </output>
//! </layer>
//! ```

use std::sync::{Arc, Mutex, TryLockError};

use ovir_ir::Layer;
use ovir_shape::{normalize_axis, CustomOp, Extension, ExtensionError, Extensions, PortFact};
use ovir_tensor::{Dim, PartialShape, Tensor};

use crate::kernels::{self, ExecOptions, Scratch, MAX_SUBSEQUENCE_RANK};

/// The extensions built into ovir: [`ReverseSubsequences`].
pub fn builtin_extensions() -> Extensions {
    let mut extensions = Extensions::new();
    // A fresh set takes every type once, and none of them is an opset op,
    // so registering cannot fail.
    let _ = extensions.add(ReverseSubsequences);
    extensions
}

/// The extension for `type="ReverseSubsequences" version="ovir"`: along
/// `axis`, every line of the data reverses its own first `length`
/// elements. See [`kernels::reverse_subsequences`] for the rules.
///
/// Attribute: `axis`, an integer in `[-rank, rank)` (required). Inputs: the
/// data (rank 1 to 8, any element type) and the lengths (any integer type,
/// the data's shape with 1 at `axis`). Output: the data's type and shape.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReverseSubsequences;

impl ReverseSubsequences {
    /// The layer type.
    pub const TYPE: &'static str = "ReverseSubsequences";
    /// The layer version.
    pub const VERSION: &'static str = "ovir";
}

impl Extension for ReverseSubsequences {
    fn op_type(&self) -> &str {
        Self::TYPE
    }

    fn version(&self) -> &str {
        Self::VERSION
    }

    fn build(&self, layer: &Layer) -> Result<Arc<dyn CustomOp>, ExtensionError> {
        let Some(value) = layer.attrs.value("axis") else {
            return Err(ExtensionError::new(
                "ReverseSubsequences needs the attribute `axis`, but the layer does not have it",
            ));
        };
        let axis = value.trim().parse::<i64>().map_err(|_| {
            ExtensionError::attribute(
                "axis",
                format!("attribute `axis` must be an integer, but it is `{value}`"),
            )
        })?;
        Ok(Arc::new(ReverseSubsequencesLayer {
            op: ReverseSubsequencesOp { axis },
            scratch: Mutex::default(),
        }))
    }
}

/// What [`ReverseSubsequences::build`] makes of a layer: the op, and the
/// scratch its runs read the lengths into, so that running a model again
/// allocates nothing.
#[derive(Debug)]
struct ReverseSubsequencesLayer {
    op: ReverseSubsequencesOp,
    /// Shared by every thread that runs the model; one that finds it in use
    /// takes a fresh scratch instead of waiting.
    scratch: Mutex<Scratch>,
}

impl CustomOp for ReverseSubsequencesLayer {
    fn op_type(&self) -> &str {
        self.op.op_type()
    }

    fn infer(&self, inputs: &[PortFact]) -> Result<PortFact, ExtensionError> {
        self.op.infer(inputs)
    }

    fn evaluate(&self, inputs: &[&Tensor]) -> Result<Tensor, ExtensionError> {
        self.op.evaluate(inputs)
    }

    fn evaluate_into(&self, inputs: &[&Tensor], out: &mut Tensor) -> Result<(), ExtensionError> {
        match self.scratch.try_lock() {
            Ok(mut scratch) => self.op.evaluate_into_scratch(inputs, out, &mut scratch),
            // What the scratch held never changes a result, so one left
            // behind by a panic is as good as any.
            Err(TryLockError::Poisoned(poisoned)) => {
                self.op.evaluate_into_scratch(inputs, out, &mut poisoned.into_inner())
            }
            Err(TryLockError::WouldBlock) => self.op.evaluate_into_scratch(inputs, out, &mut Scratch::new()),
        }
    }
}

/// One ReverseSubsequences layer, with its axis read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReverseSubsequencesOp {
    /// The `axis` attribute as written (may be negative).
    pub axis: i64,
}

impl ReverseSubsequencesOp {
    fn inputs<'a, T>(&self, inputs: &'a [T]) -> Result<(&'a T, &'a T), ExtensionError> {
        match inputs {
            [data, lengths] => Ok((data, lengths)),
            _ => Err(ExtensionError::new(format!(
                "ReverseSubsequences takes 2 inputs (the data and the lengths), but the layer has {}",
                inputs.len()
            ))),
        }
    }

    /// [`CustomOp::evaluate_into`] with the lengths read into `scratch`.
    fn evaluate_into_scratch(
        &self,
        inputs: &[&Tensor],
        out: &mut Tensor,
        scratch: &mut Scratch,
    ) -> Result<(), ExtensionError> {
        let (data, lengths) = self.inputs(inputs)?;
        kernels::reverse_subsequences_into_scratch(
            data,
            lengths,
            self.axis,
            out,
            &ExecOptions::single_thread(),
            scratch,
        )
        .map_err(|e| ExtensionError::new(e.to_string()))
    }
}

impl CustomOp for ReverseSubsequencesOp {
    fn op_type(&self) -> &str {
        ReverseSubsequences::TYPE
    }

    fn infer(&self, inputs: &[PortFact]) -> Result<PortFact, ExtensionError> {
        let (data, lengths) = self.inputs(inputs)?;
        let ty = lengths.element_type;
        if ty.is_static() && !ty.is_integral() {
            return Err(ExtensionError::new(format!(
                "the lengths must be integers (such as u32 or u64), but they are {ty}"
            )));
        }
        let out = subsequences_shape(&data.shape, &lengths.shape, self.axis)?;
        if let Some(value) = &lengths.value {
            // Known lengths are checked now, as they would be when the
            // model runs.
            if let Some(negative) = value.integer_values().and_then(|v| v.into_iter().find(|&n| n < 0)) {
                return Err(ExtensionError::new(format!(
                    "the lengths hold {negative}, which is negative; a length must be 0 or more"
                )));
            }
        }
        Ok(PortFact::of(data.element_type, out))
    }

    fn evaluate(&self, inputs: &[&Tensor]) -> Result<Tensor, ExtensionError> {
        let (data, lengths) = self.inputs(inputs)?;
        kernels::reverse_subsequences(data, lengths, self.axis)
            .map_err(|e| ExtensionError::new(e.to_string()))
    }

    fn evaluate_into(&self, inputs: &[&Tensor], out: &mut Tensor) -> Result<(), ExtensionError> {
        // This op keeps no scratch of its own, so each call reads the
        // lengths into a fresh one; the layers `build` makes keep theirs.
        self.evaluate_into_scratch(inputs, out, &mut Scratch::new())
    }
}

/// The output shape of ReverseSubsequences, the data's shape merged with
/// what the lengths say of it, or why the shapes do not fit: the data has
/// rank 1 to 8, the axis lies in `[-rank, rank)`, and the lengths have
/// the data's rank and shape except for a 1 at the axis.
pub fn subsequences_shape(
    data: &PartialShape,
    lengths: &PartialShape,
    axis: i64,
) -> Result<PartialShape, ExtensionError> {
    let rank = match (data.rank(), lengths.rank()) {
        (Some(d), Some(l)) if d != l => {
            return Err(ExtensionError::new(format!(
                "the lengths must have the data's rank {d}, but their shape {lengths} has rank {l}"
            )))
        }
        (Some(r), _) | (None, Some(r)) => r,
        (None, None) => return Ok(data.clone()),
    };
    if !(1..=MAX_SUBSEQUENCE_RANK).contains(&rank) {
        return Err(ExtensionError::new(format!(
            "the data must have rank 1 to {MAX_SUBSEQUENCE_RANK}, but it has rank {rank}"
        )));
    }
    let Some(axis) = normalize_axis(axis, rank) else {
        return Err(ExtensionError::attribute(
            "axis",
            format!(
                "`axis` is {axis}, which is out of range for rank {rank}; it must lie between -{rank} and {}",
                rank - 1
            ),
        ));
    };
    let dynamic = vec![Dim::DYNAMIC; rank];
    let data_dims = data.dims().unwrap_or(&dynamic);
    let length_dims = lengths.dims().unwrap_or(&dynamic);
    let mut out = Vec::with_capacity(rank);
    for (i, (&d, &l)) in data_dims.iter().zip(length_dims).enumerate() {
        let merged = if i == axis { l.contains(1).then_some(d) } else { d.merge(l) };
        match merged {
            Some(m) => out.push(m),
            None => {
                let expected: Vec<String> = data_dims
                    .iter()
                    .enumerate()
                    .map(|(j, d)| if j == axis { "1".to_string() } else { d.to_string() })
                    .collect();
                return Err(ExtensionError::new(format!(
                    "the lengths must have the data's shape with 1 at axis {axis}, [{}], but they have shape \
                     {lengths} (the data's shape is {data})",
                    expected.join(",")
                )));
            }
        }
    }
    Ok(PartialShape::new(out))
}
