//! Deterministic example inputs that are valid for a model, so that any IR
//! runs without hand-made data.

use ovir_exec::extensions::ReverseSubsequences;
use ovir_exec::kernels;
use ovir_ir::{LayerIdx, Model as IrModel};
use ovir_shape::{Op, ReverseMode};
use std::ops::RangeInclusive;

use ovir_tensor::{packed, Dim, ElementType, PartialShape, Tensor};

use crate::error::Error;
use crate::model::CompiledModel;

/// What a model input feeds, which decides what values are valid for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Plain data: any values will do.
    Data,
    /// The axes of a `Reverse` in index mode, for data of this rank.
    Axes { rank: Option<usize> },
    /// The mask of a `Reverse` in mask mode, for data of this rank.
    Mask { rank: Option<usize> },
    /// The lengths of a `ReverseSequence` whose sequence axis has this size.
    Lengths { seq_dim: Option<u64> },
}

/// The size chosen for a dimension that is not static: 2 when the bounds
/// allow it, else the nearest bound.
fn pick(dim: Dim) -> u64 {
    dim.get().unwrap_or_else(|| {
        let lo = dim.min().max(2);
        dim.max().map_or(lo, |hi| lo.min(hi))
    })
}

fn resolve(shape: &PartialShape, role: Role) -> Vec<usize> {
    let Some(dims) = shape.dims() else {
        // An unknown rank: a short vector suits every role.
        return vec![match role {
            Role::Mask { rank: Some(r) } => r,
            _ => 1,
        }];
    };
    dims.iter()
        .map(|&d| match (role, d.get()) {
            (_, Some(n)) => n,
            (Role::Axes { .. }, None) => d.min().max(1).min(d.max().unwrap_or(u64::MAX)),
            (Role::Mask { rank: Some(r) }, None) if d.contains(r as u64) => r as u64,
            _ => pick(d),
        })
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
        .collect()
}

/// For every layer, the layers its outputs feed and at which input: built
/// once, so that finding the role of every input costs time linear in the
/// graph, even for a chain of a million Converts or a million inputs.
fn consumers_of(model: &IrModel) -> Vec<Vec<(LayerIdx, usize)>> {
    let mut consumers = vec![Vec::new(); model.layers.len()];
    for (li, sources) in model.sources.iter().enumerate() {
        for (input, src) in sources.iter().enumerate() {
            if let Some(list) = consumers.get_mut(src.layer.0) {
                list.push((LayerIdx(li), input));
            }
        }
    }
    consumers
}

/// Follows a value through `Convert` layers to find how it is used.
fn role_of(
    model: &IrModel,
    consumers: &[Vec<(LayerIdx, usize)>],
    facts: &ovir_shape::ModelInfo,
    param: LayerIdx,
) -> Role {
    let ops = &facts.ops;
    let mut frontier = vec![param];
    let mut steps = 0usize;
    while let Some(producer) = frontier.pop() {
        steps += 1;
        if steps > model.layers.len() {
            break;
        }
        for &(consumer, input) in consumers.get(producer.0).map_or(&[][..], Vec::as_slice) {
            let data_fact = facts.input_fact(model, consumer, 0);
            match (ops.get(consumer.0), input) {
                (Some(Op::Convert { .. }), 0) => frontier.push(consumer),
                (Some(Op::Reverse { mode: ReverseMode::Index }), 1) => {
                    return Role::Axes { rank: data_fact.shape.rank() }
                }
                (Some(Op::Reverse { mode: ReverseMode::Mask }), 1) => {
                    return Role::Mask { rank: data_fact.shape.rank() }
                }
                (Some(Op::ReverseSequence { seq_axis, .. }), 1) => {
                    let seq_dim = data_fact.shape.dims().and_then(|dims| {
                        let rank = i64::try_from(dims.len()).ok()?;
                        let axis = if *seq_axis < 0 { seq_axis + rank } else { *seq_axis };
                        dims.get(usize::try_from(axis).ok()?)?.get()
                    });
                    return Role::Lengths { seq_dim };
                }
                (Some(Op::Custom(op)), 1) if op.op().op_type() == ReverseSubsequences::TYPE => {
                    // Lengths above the axis are clamped, so lengths up to
                    // the largest dimension suit every axis.
                    let seq_dim =
                        data_fact.shape.dims().and_then(|dims| dims.iter().filter_map(|d| d.get()).max());
                    return Role::Lengths { seq_dim };
                }
                _ => {}
            }
        }
    }
    Role::Data
}

fn values(role: Role, count: usize) -> Vec<f64> {
    (0..count)
        .map(|i| match role {
            Role::Data => {
                // Alternating signs and halves exercise sign and fraction bits
                // while staying exact in every float type.
                let v = (i % 251) as f64;
                if i % 2 == 0 {
                    v
                } else {
                    -v / 2.0
                }
            }
            Role::Axes { rank } => (i % rank.unwrap_or(1).max(1)) as f64,
            Role::Mask { .. } => (i % 2 == 0) as u8 as f64,
            Role::Lengths { seq_dim } => match seq_dim {
                Some(d) if d > 0 => (1 + (i as u64 % d)) as f64,
                Some(_) => 0.0,
                None => 1.0,
            },
        })
        .collect()
}

/// An input of a packed sub-byte or 8-bit float type, made in its exchange
/// form: data cycles through every code of the type, so that every bit
/// position of the packing takes part; axes and lengths are the usual
/// values, wrapped into the type's range.
fn exchange_example(
    ty: ElementType,
    shape: &[usize],
    role: Role,
    range: RangeInclusive<i64>,
) -> Result<Tensor, packed::PackError> {
    let count = ovir_tensor::element_count(shape).unwrap_or(0);
    let (low, span) = (*range.start(), range.end() - range.start() + 1);
    let wrap = |v: i64| (v - low).rem_euclid(span) + low;
    let values: Vec<i64> = match role {
        Role::Data => (0..count).map(|i| wrap(i as i64 + low)).collect(),
        _ => values(role, count).into_iter().map(|v| wrap(v as i64)).collect(),
    };
    // Two's complement keeps negative i8 values exact in their byte.
    let bytes: Vec<u8> = values.into_iter().map(|v| v as u8).collect();
    let exchange = packed::exchange_type(ty).ok_or(packed::PackError::NoExchangeForm { ty })?;
    packed::from_exchange(&Tensor::from_bytes(exchange, shape, &bytes)?, ty)
}

fn example_tensor(
    ty: ElementType,
    shape: &[usize],
    role: Role,
    name: &str,
    limit: u64,
) -> Result<Tensor, Error> {
    // The size checks come first: nothing is allocated for a shape that
    // cannot exist or does not fit the memory limit. The f64 pattern the
    // values are made from counts too.
    let too_large = |source| Error::InputTooLarge { name: name.to_string(), source };
    // An input of dynamic element type is given f32 values.
    let ty = if ty == ElementType::Dynamic { ElementType::F32 } else { ty };
    ovir_tensor::check_memory(ty, shape, limit).map_err(too_large)?;
    if ty != ElementType::String {
        ovir_tensor::check_memory(ElementType::F64, shape, limit).map_err(too_large)?;
    }
    Tensor::required_bytes(ty, shape).map_err(too_large)?;
    let count = ovir_tensor::element_count(shape).unwrap_or(0);
    if ty == ElementType::String {
        let strings = (0..count).map(|i| format!("s{i}")).collect();
        return Ok(Tensor::from_strings(shape, strings)?);
    }
    if let Some(range) = packed::exchange_range(ty) {
        return exchange_example(ty, shape, role, range)
            .map_err(|reason| Error::InputValue { name: name.to_string(), reason });
    }
    if ty.byte_width().is_none() {
        return Ok(Tensor::zeros(ty, shape)?);
    }
    let wide = Tensor::from_vec(shape, values(role, count))?;
    kernels::convert(&wide, ty)
        .map_err(|source| Error::ExampleInput { name: name.to_string(), source: Box::new(source) })
}

impl CompiledModel {
    /// Deterministic inputs that are valid for this model, in input order.
    ///
    /// Dimensions that are not static get size 2 (or the nearest bound);
    /// inputs that feed a `Reverse` as axes or mask get in-range axes, and
    /// inputs that feed a `ReverseSequence` as lengths get lengths within
    /// the sequence axis (within the largest data dimension for a
    /// `ReverseSubsequences`). Everything else gets a fixed pattern of values.
    ///
    /// An input larger than the memory limit
    /// ([`CompileOptions::max_tensor_bytes`](crate::CompileOptions::max_tensor_bytes))
    /// is an [`Error::InputTooLarge`], found before anything is allocated.
    /// The values are made from a pattern of `f64`s, so that pattern, at 8
    /// bytes an element, must fit the limit too.
    pub fn example_inputs(&self) -> Result<Vec<Tensor>, Error> {
        let model = self.model();
        let ir = model.ir();
        let info = model.info();
        let consumers = consumers_of(ir);
        ir.parameters()
            .zip(self.inputs())
            .map(|(idx, port)| {
                let role = role_of(ir, &consumers, info, idx);
                let shape = resolve(&port.shape, role);
                example_tensor(port.element_type, &shape, role, port.name(), self.max_tensor_bytes())
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dynamic_dims_pick_two_within_bounds() {
        let s: PartialShape = "?,3,1..1,5..9,..1".parse().unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(resolve(&s, Role::Data), vec![2, 3, 1, 5, 1]);
    }

    #[test]
    fn lengths_stay_within_the_sequence_axis() {
        let v = values(Role::Lengths { seq_dim: Some(3) }, 5);
        assert_eq!(v, vec![1.0, 2.0, 3.0, 1.0, 2.0]);
    }
}
