//! Deterministic example inputs that are valid for a model, so that any IR
//! runs without hand-made data.
//!
//! What values are valid is each op's to say
//! ([`Operation::input_values`](ovir_shape::Operation::input_values)): an
//! input that feeds a Reverse's axes gets axis numbers, one that feeds a
//! ReverseSequence's lengths gets lengths within the sequence axis, and so
//! on. This module only follows each input to the ops that read it.

use std::ops::{Range, RangeInclusive};

use ovir_exec::kernels;
use ovir_ir::{LayerIdx, Model as IrModel};
use ovir_shape::{ModelInfo, PortFact, ValueDomain};
use ovir_tensor::{packed, ByteCount, Dim, ElementType, PartialShape, Tensor, TensorError};

use crate::error::Error;
use crate::model::CompiledModel;

/// The size chosen for a dimension that is not static: 2 when the bounds
/// allow it, else the nearest bound.
fn pick(dim: Dim) -> u64 {
    dim.get().unwrap_or_else(|| {
        let lo = dim.min().max(2);
        dim.max().map_or(lo, |hi| lo.min(hi))
    })
}

fn resolve(shape: &PartialShape, domain: ValueDomain) -> Vec<usize> {
    let Some(dims) = shape.dims() else {
        // An unknown rank: a short vector suits every domain.
        return vec![match domain {
            ValueDomain::Mask { rank: Some(r) } => r,
            _ => 1,
        }];
    };
    dims.iter()
        .map(|&d| match (domain, d.get()) {
            (_, Some(n)) => n,
            (ValueDomain::Axes { .. }, None) => d.min().max(1).min(d.max().unwrap_or(u64::MAX)),
            (ValueDomain::Mask { rank: Some(r) }, None) if d.contains(r as u64) => r as u64,
            _ => pick(d),
        })
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
        .collect()
}

/// For every layer, the layers its outputs feed and at which input: built
/// once, so that finding the domain of every input costs time linear in
/// the graph, even for a chain of a million Converts or a million inputs.
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

/// The values valid for a model input: what the first op that reads it
/// asks for, followed through ops that pass their input on (Convert).
fn domain_of(
    model: &IrModel,
    consumers: &[Vec<(LayerIdx, usize)>],
    info: &ModelInfo,
    param: LayerIdx,
) -> ValueDomain {
    let mut frontier = vec![param];
    let mut steps = 0usize;
    while let Some(producer) = frontier.pop() {
        steps += 1;
        if steps > model.layers.len() {
            break;
        }
        for &(consumer, input) in consumers.get(producer.0).map_or(&[][..], Vec::as_slice) {
            let facts: Vec<&PortFact> = (0..model.layer(consumer).inputs.len())
                .map(|i| info.input_fact(model, consumer, i))
                .collect();
            match info.op(consumer).get().input_values(input, &facts) {
                ValueDomain::Any => {}
                ValueDomain::PassedOn => frontier.push(consumer),
                domain => return domain,
            }
        }
    }
    ValueDomain::Any
}

/// How many elements are made at a time: the `f64` pattern they are made
/// from is built one chunk at a time, so it stays small however large the
/// input.
const CHUNK: usize = 1 << 14;

/// The pattern of values for the elements `range` of an input.
fn values(domain: ValueDomain, range: Range<usize>) -> impl Iterator<Item = f64> {
    range.map(move |i| match domain {
        ValueDomain::Axes { rank } => (i % rank.unwrap_or(1).max(1)) as f64,
        ValueDomain::Mask { .. } => (i % 2 == 0) as u8 as f64,
        ValueDomain::Lengths { max } => match max {
            Some(d) if d > 0 => (1 + (i as u64 % d)) as f64,
            Some(_) => 0.0,
            None => 1.0,
        },
        _ => {
            // Alternating signs and halves exercise sign and fraction bits
            // while staying exact in every float type.
            let v = (i % 251) as f64;
            if i % 2 == 0 {
                v
            } else {
                -v / 2.0
            }
        }
    })
}

/// An input of a packed sub-byte or 8-bit float type, made in its exchange
/// form: data cycles through every code of the type, so that every bit
/// position of the packing takes part; axes and lengths are the usual
/// values, wrapped into the type's range.
fn exchange_example(
    ty: ElementType,
    shape: &[usize],
    domain: ValueDomain,
    range: RangeInclusive<i64>,
) -> Result<Tensor, packed::PackError> {
    let (low, span) = (*range.start(), range.end() - range.start() + 1);
    let wrap = |v: i64| (v - low).rem_euclid(span) + low;
    let exchange = packed::exchange_type(ty).ok_or(packed::PackError::NoExchangeForm { ty })?;
    let mut codes = Tensor::zeros(exchange, shape)?;
    let bytes = codes.try_bytes_mut()?;
    let count = bytes.len();
    let values: Box<dyn Iterator<Item = i64>> = match domain {
        ValueDomain::Axes { .. } | ValueDomain::Mask { .. } | ValueDomain::Lengths { .. } => {
            Box::new(values(domain, 0..count).map(|v| wrap(v as i64)))
        }
        _ => Box::new((0..count).map(|i| wrap(i as i64 + low))),
    };
    // Two's complement keeps negative i8 values exact in their byte.
    bytes.iter_mut().zip(values).for_each(|(b, v)| *b = v as u8);
    packed::from_exchange(&codes, ty)
}

fn example_tensor(
    ty: ElementType,
    shape: &[usize],
    domain: ValueDomain,
    name: &str,
    limit: u64,
) -> Result<Tensor, Error> {
    // The size checks come first: nothing is allocated for a shape that
    // cannot exist or does not fit the memory limit.
    let too_large = |source| Error::InputTooLarge { name: name.to_string(), source };
    // An input of dynamic element type is given f32 values.
    let ty = if ty == ElementType::Dynamic { ElementType::F32 } else { ty };
    ovir_tensor::check_memory(ty, shape, limit).map_err(too_large)?;
    Tensor::required_bytes(ty, shape).map_err(too_large)?;
    let count = ovir_tensor::element_count(shape).unwrap_or(0);
    if ty == ElementType::String {
        let mut strings = Vec::new();
        strings.try_reserve_exact(count).map_err(|_| {
            let bytes = ByteCount(ovir_tensor::memory_bytes(ty, shape));
            too_large(TensorError::OutOfMemory { ty, shape: shape.to_vec(), bytes })
        })?;
        strings.extend((0..count).map(|i| format!("s{i}")));
        return Ok(Tensor::from_strings(shape, strings)?);
    }
    if let Some(range) = packed::exchange_range(ty) {
        return exchange_example(ty, shape, domain, range).map_err(|reason| match reason {
            packed::PackError::Tensor(source) => too_large(source),
            reason => Error::InputValue { name: name.to_string(), reason },
        });
    }
    let mut out = Tensor::zeros(ty, shape).map_err(too_large)?;
    let Some(width) = ty.byte_width() else {
        return Ok(out);
    };
    // Each chunk's values are made as f64 and converted to the input's
    // type by the Convert kernel, so that every type gets the values a
    // Convert from f64 would give, while only one chunk exists as f64.
    let example_error = |source| Error::ExampleInput { name: name.to_string(), source: Box::new(source) };
    let dst = out.try_bytes_mut().map_err(too_large)?;
    for (i, part) in dst.chunks_mut(CHUNK * width).enumerate() {
        let start = i * CHUNK;
        let n = part.len() / width;
        let wide = Tensor::from_vec(&[n], values(domain, start..start + n).collect())?;
        let narrow = kernels::convert(&wide, ty).map_err(example_error)?;
        part.copy_from_slice(narrow.bytes().unwrap_or_default());
    }
    Ok(out)
}

impl CompiledModel {
    /// Deterministic inputs that are valid for this model, in input order.
    ///
    /// Dimensions that are not static get size 2 (or the nearest bound).
    /// An input gets the values the first op that reads it asks for
    /// ([`ValueDomain`]), followed through ops that pass it on: in-range
    /// axes for a `Reverse`'s axes or mask, lengths within the sequence
    /// axis for a `ReverseSequence` (within the largest data dimension for
    /// a `ReverseSubsequences`). Everything else gets a fixed pattern of
    /// values.
    ///
    /// An input larger than the memory limit
    /// ([`CompileOptions::max_tensor_bytes`](crate::CompileOptions::max_tensor_bytes))
    /// is an [`Error::InputTooLarge`], found before anything is allocated;
    /// so is one there is no memory for. Each input is made in place: no
    /// copy of it in another type is ever whole in memory.
    pub fn example_inputs(&self) -> Result<Vec<Tensor>, Error> {
        let all: Vec<usize> = (0..self.inputs().len()).collect();
        self.example_inputs_of(&all)
    }

    /// The example inputs of [`example_inputs`](Self::example_inputs) for
    /// the inputs at `indices` only, in that order, so that filling in the
    /// inputs a caller left out allocates nothing for the others. An index
    /// past the last input is an [`Error::UnknownInput`].
    pub fn example_inputs_of(&self, indices: &[usize]) -> Result<Vec<Tensor>, Error> {
        self.example_inputs_shaped(indices, &[])
    }

    /// The example inputs of [`example_inputs_of`](Self::example_inputs_of),
    /// with the shape of some of them chosen by the caller, as
    /// benchmark_app's `-data_shape` does: `shapes` pairs a name an input
    /// answers to with the static shape to make it in; the others get the
    /// sizes `example_inputs` picks. The model itself is unchanged, so a
    /// shape its input does not admit is refused when the tensor is set.
    /// A name no input answers to is an [`Error::UnknownInput`].
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let xml = r#"<net name="m" version="11"><layers>
    ///   <layer id="0" name="x" type="Parameter" version="opset1">
    ///     <data shape="?,3" element_type="f32"/>
    ///     <output><port id="0" precision="FP32" names="x"><dim>-1</dim><dim>3</dim></port></output>
    ///   </layer>
    ///   <layer id="1" name="r" type="Result" version="opset1">
    ///     <input><port id="0" precision="FP32"><dim>-1</dim><dim>3</dim></port></input>
    ///   </layer></layers>
    ///   <edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></net>"#;
    /// let compiled = ovir::Core::new().read_model_from_memory(xml, None)?.compile()?;
    /// let inputs = compiled.example_inputs_shaped(&[0], &[("x".to_string(), vec![5, 3])])?;
    /// assert_eq!(inputs[0].shape(), &[5, 3]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn example_inputs_shaped(
        &self,
        indices: &[usize],
        shapes: &[(String, Vec<usize>)],
    ) -> Result<Vec<Tensor>, Error> {
        let inputs = self.inputs();
        let mut chosen: Vec<Option<&[usize]>> = vec![None; inputs.len()];
        for (name, shape) in shapes {
            let Some(at) = inputs.iter().position(|p| p.answers_to(name)) else {
                let available = inputs.iter().map(|p| p.name().to_string()).collect();
                return Err(Error::UnknownInput { key: name.clone(), available });
            };
            if let Some(slot) = chosen.get_mut(at) {
                *slot = Some(shape.as_slice());
            }
        }
        let model = self.model();
        let ir = model.ir();
        let info = model.info();
        let consumers = consumers_of(ir);
        let params: Vec<LayerIdx> = ir.parameters().collect();
        indices
            .iter()
            .map(|&i| {
                let (Some(&idx), Some(port)) = (params.get(i), self.inputs().get(i)) else {
                    let available = self.inputs().iter().map(|p| p.name().to_string()).collect();
                    return Err(Error::UnknownInput { key: i.to_string(), available });
                };
                let domain = domain_of(ir, &consumers, info, idx);
                let shape = match chosen.get(i).copied().flatten() {
                    Some(shape) => shape.to_vec(),
                    None => resolve(&port.shape, domain),
                };
                example_tensor(port.element_type, &shape, domain, port.name(), self.max_tensor_bytes())
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
        assert_eq!(resolve(&s, ValueDomain::Any), vec![2, 3, 1, 5, 1]);
    }

    #[test]
    fn lengths_stay_within_the_sequence_axis() {
        let v: Vec<f64> = values(ValueDomain::Lengths { max: Some(3) }, 0..5).collect();
        assert_eq!(v, vec![1.0, 2.0, 3.0, 1.0, 2.0]);
    }
}
