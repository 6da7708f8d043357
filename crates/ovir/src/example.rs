//! Deterministic example inputs that are valid for a model, so that any IR
//! runs without hand-made data.
//!
//! What is valid is each op's to say: what values an input must hold
//! ([`Operation::input_values`](ovir_shape::Operation::input_values)) and
//! what shape it must have
//! ([`Operation::input_shape`](ovir_shape::Operation::input_shape)), both
//! possibly in terms of the op's other inputs ([`Size`]). An input that
//! feeds a Reverse's axes gets axis numbers, one that feeds a
//! ReverseSequence's lengths gets one length per batch of the data, each
//! within its sequence axis, and so on. This module follows each input to
//! the ops that read it, and makes the inputs in rounds: an input whose
//! rule names the size of another input still to be made waits for it;
//! after each round the shapes of what was made are inferred through the
//! graph again, so that the next round reads them.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::ops::{Range, RangeInclusive};

use ovir_exec::kernels;
use ovir_ir::{LayerIdx, Model as IrModel};
use ovir_shape::{Input, ModelInfo, PortFact, ShapeRule, Size, ValueDomain};
use ovir_tensor::{packed, ByteCount, Dim, ElementType, PartialShape, Tensor, TensorError};

use crate::error::Error;
use crate::model::{CompiledModel, PortInfo};

/// The size chosen for a dimension that is not static: 2 when the bounds
/// allow it, else the nearest bound.
fn pick(dim: Dim) -> u64 {
    dim.get().unwrap_or_else(|| {
        let lo = dim.min().max(2);
        dim.max().map_or(lo, |hi| lo.min(hi))
    })
}

/// The size of each dimension of an input whose shape no op ties to
/// anything: its static dimensions, and [`pick`] for the others (a vector
/// of axes gets one axis).
fn resolve(shape: &PartialShape, domain: &ValueDomain) -> Vec<u64> {
    let Some(dims) = shape.dims() else {
        // An unknown rank: a short vector suits every domain.
        return vec![1];
    };
    dims.iter()
        .map(|&d| match (domain, d.get()) {
            (_, Some(n)) => n,
            (ValueDomain::Axes { .. }, None) => d.min().max(1).min(d.max().unwrap_or(u64::MAX)),
            _ => pick(d),
        })
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

/// A rule some op states for a model input, with the op that states it,
/// against whose inputs its [`Size`]s are read.
struct Stated<T> {
    op: LayerIdx,
    rule: T,
}

/// What the ops that read a model input ask of it: the values the first
/// op with a rule for them asks for, and the shape the first op with a
/// rule for it asks for, followed through ops that pass their input on
/// (Convert).
struct Rules {
    values: Option<Stated<ValueDomain>>,
    shape: Option<Stated<ShapeRule>>,
}

/// A size, or the model input (by position) that must be made before the
/// size can be known.
enum Read<T> {
    Ready(T),
    Wait(usize),
}

impl<T> Read<T> {
    fn map<U>(self, f: impl FnOnce(T) -> U) -> Read<U> {
        match self {
            Read::Ready(v) => Read::Ready(f(v)),
            Read::Wait(other) => Read::Wait(other),
        }
    }
}

/// The values to write, with every size that names an input read.
#[derive(Clone, Debug, PartialEq)]
enum Fill {
    /// The fixed pattern that any input may hold.
    Pattern,
    /// Axes in `[first, rank)`, counting up and wrapping.
    Axes { rank: u64, first: u64, distinct: bool },
    /// Flags, alternating from true.
    Mask,
    /// Lengths in `[1, max]` (0 when `max` is 0; 1 when it is not known).
    Lengths(Option<u64>),
    /// Indices into a dimension (0 when its size is not known).
    Indices { size: Option<u64>, negative: bool },
    /// Lengths as even as can be that add up to `total`, the last -1 when
    /// one may be.
    SumsTo { total: Option<u64>, inferred: bool },
    /// These values, then 1s.
    Literal(Vec<i64>),
    /// A reshape target for data of these dimensions.
    ReshapeOf(Vec<u64>),
    /// Non-zero values.
    NonZero,
}

/// What the generator knows of a model while it makes its inputs.
struct Generator<'a> {
    ir: &'a IrModel,
    info: &'a ModelInfo,
    consumers: Vec<Vec<(LayerIdx, usize)>>,
    /// The model inputs' layers, in input order.
    params: Vec<LayerIdx>,
    /// For each layer, its position among the model inputs when it is one.
    input_at: Vec<Option<usize>>,
    /// Everything known of each layer's outputs, with the shapes of the
    /// inputs chosen, given or made so far.
    facts: Cow<'a, [Vec<PortFact>]>,
    /// The shape of each model input that is fixed: chosen by the caller,
    /// given by the caller, or made.
    fixed: Vec<Option<Vec<usize>>>,
    /// The model inputs still to be made.
    pending: Vec<bool>,
    /// The model inputs still to be made when the round began: one made
    /// in this round is not in the facts yet, so what reads it waits.
    unmade: Vec<bool>,
    /// For each layer, one model input unmade when the round began that it
    /// depends on, worked out once a round when some rule needs it.
    waits_on: OnceCell<Vec<Option<usize>>>,
    unknown: PortFact,
}

impl<'a> Generator<'a> {
    fn new(ir: &'a IrModel, info: &'a ModelInfo) -> Self {
        let params: Vec<LayerIdx> = ir.parameters().collect();
        let mut input_at = vec![None; ir.layers.len()];
        for (i, p) in params.iter().enumerate() {
            if let Some(slot) = input_at.get_mut(p.0) {
                *slot = Some(i);
            }
        }
        let count = params.len();
        Generator {
            ir,
            info,
            consumers: consumers_of(ir),
            params,
            input_at,
            facts: Cow::Borrowed(&info.outputs),
            fixed: vec![None; count],
            pending: vec![false; count],
            unmade: Vec::new(),
            waits_on: OnceCell::new(),
            unknown: PortFact::unknown(),
        }
    }

    /// The facts of the inputs of a layer, in input order.
    fn input_facts(&self, layer: LayerIdx) -> Vec<&PortFact> {
        let sources = self.ir.sources.get(layer.0).map_or(&[][..], Vec::as_slice);
        sources
            .iter()
            .map(|src| self.facts.get(src.layer.0).and_then(|o| o.get(src.port)).unwrap_or(&self.unknown))
            .collect()
    }

    /// Infers every layer's facts again with the fixed input shapes, with
    /// the ops already built; a layer that refuses them knows nothing, and
    /// the rules that read it fall back to what suits any size.
    fn refine(&mut self) {
        let mut outputs: Vec<Vec<PortFact>> = self.info.outputs.clone();
        for &idx in &self.ir.order {
            let sources = self.ir.sources.get(idx.0).map_or(&[][..], Vec::as_slice);
            let fixed = self.input_at.get(idx.0).copied().flatten().and_then(|i| self.fixed.get(i)?.as_ref());
            let facts = match fixed {
                Some(shape) => {
                    let ty = outputs.get(idx.0).and_then(|o| o.first()).map(|f| f.element_type);
                    vec![PortFact::of(ty.unwrap_or(ElementType::Dynamic), PartialShape::from_static(shape))]
                }
                // Constants and inputs still to be made are what they were.
                None if sources.is_empty() => continue,
                None => {
                    let inputs: Vec<Input<'_>> = sources
                        .iter()
                        .map(|src| {
                            Input::new(
                                outputs
                                    .get(src.layer.0)
                                    .and_then(|o| o.get(src.port))
                                    .unwrap_or(&self.unknown),
                            )
                        })
                        .collect();
                    let ports = outputs.get(idx.0).map_or(0, Vec::len);
                    match self.info.ops.get(idx.0).map(|op| op.get().infer(&inputs)) {
                        Some(Ok(facts)) => facts,
                        _ => vec![PortFact::unknown(); ports],
                    }
                }
            };
            if let Some(slot) = outputs.get_mut(idx.0) {
                *slot = facts;
            }
        }
        self.facts = Cow::Owned(outputs);
        self.waits_on = OnceCell::new();
    }

    /// The rules the ops that read model input `param` state for it.
    fn rules_of(&self, param: LayerIdx) -> Rules {
        let mut rules = Rules { values: None, shape: None };
        let mut frontier = vec![param];
        let mut steps = 0usize;
        while let Some(producer) = frontier.pop() {
            steps += 1;
            if steps > self.ir.layers.len() {
                break;
            }
            for &(consumer, input) in self.consumers.get(producer.0).map_or(&[][..], Vec::as_slice) {
                let Some(op) = self.info.ops.get(consumer.0) else { continue };
                let facts = self.input_facts(consumer);
                if rules.shape.is_none() {
                    if let Some(rule) = op.get().input_shape(input, &facts) {
                        rules.shape = Some(Stated { op: consumer, rule });
                    }
                }
                match op.get().input_values(input, &facts) {
                    ValueDomain::Any => {}
                    ValueDomain::PassedOn => frontier.push(consumer),
                    rule if rules.values.is_none() => rules.values = Some(Stated { op: consumer, rule }),
                    _ => {}
                }
                if rules.values.is_some() && rules.shape.is_some() {
                    return rules;
                }
            }
        }
        rules
    }

    /// For each layer, one model input still to be made that it depends on.
    fn waits_on(&self) -> &[Option<usize>] {
        self.waits_on.get_or_init(|| {
            let mut waits = vec![None; self.ir.layers.len()];
            for &idx in &self.ir.order {
                let own = self
                    .input_at
                    .get(idx.0)
                    .copied()
                    .flatten()
                    .filter(|&i| self.unmade.get(i) == Some(&true));
                let sources = self.ir.sources.get(idx.0).map_or(&[][..], Vec::as_slice);
                let upstream =
                    own.or_else(|| sources.iter().find_map(|s| waits.get(s.layer.0).copied().flatten()));
                if let Some(slot) = waits.get_mut(idx.0) {
                    *slot = upstream;
                }
            }
            waits
        })
    }

    /// A size stated by the op of layer `op` for model input `me`: known
    /// from the facts, or waiting for another model input, or `None` when
    /// nothing will tell it.
    fn size(&self, op: LayerIdx, size: Size, me: usize) -> Read<Option<u64>> {
        let input = match size {
            Size::Known(n) => return Read::Ready(Some(n)),
            Size::DimOf { input, .. } | Size::RankOf { input } => input,
            _ => return Read::Ready(None),
        };
        let facts = self.input_facts(op);
        let fact = facts.get(input).copied().unwrap_or(&self.unknown);
        let known = match size {
            Size::DimOf { axis, .. } => fact.shape.dims().and_then(|d| d.get(axis)?.get()),
            Size::RankOf { .. } => fact.shape.rank().map(|r| r as u64),
            _ => None,
        };
        match known {
            Some(n) => Read::Ready(Some(n)),
            None => self.wait_for(op, input, me).map(|()| None),
        }
    }

    /// All the dimensions of input `input` of layer `op`, when static.
    fn shape_of(&self, op: LayerIdx, input: usize, me: usize) -> Read<Option<Vec<u64>>> {
        let facts = self.input_facts(op);
        let fact = facts.get(input).copied().unwrap_or(&self.unknown);
        match fact.shape.dims().and_then(|d| d.iter().map(|d| d.get()).collect::<Option<Vec<u64>>>()) {
            Some(dims) => Read::Ready(Some(dims)),
            None => self.wait_for(op, input, me).map(|()| None),
        }
    }

    /// Waiting for the model input that input `input` of layer `op`
    /// depends on, if one is still to be made (other than `me`, which
    /// cannot wait for itself).
    fn wait_for(&self, op: LayerIdx, input: usize, me: usize) -> Read<()> {
        let source = self.ir.sources.get(op.0).and_then(|s| s.get(input));
        match source.and_then(|s| self.waits_on().get(s.layer.0).copied().flatten()) {
            Some(other) if other != me => Read::Wait(other),
            _ => Read::Ready(()),
        }
    }

    /// The shape to make model input `me` in, by the rule an op states.
    fn stated_shape(&self, me: usize, own: &PartialShape, stated: &Stated<ShapeRule>) -> Read<Vec<u64>> {
        let own_dims = own.dims().filter(|d| d.len() == stated.rule.len());
        let mut out = Vec::with_capacity(stated.rule.len());
        for (k, size) in stated.rule.iter().enumerate() {
            let own_dim = own_dims.and_then(|d| d.get(k).copied()).unwrap_or(Dim::DYNAMIC);
            let n = match size {
                Some(size) => match self.size(stated.op, *size, me) {
                    Read::Ready(n) => n,
                    Read::Wait(other) => return Read::Wait(other),
                },
                None => None,
            };
            // What the input declares wins: a size it does not admit would
            // only be refused when the input is set (a data dimension of 1
            // broadcasts to any target).
            out.push(n.filter(|&n| own_dim.contains(n)).unwrap_or_else(|| pick(own_dim)));
        }
        Read::Ready(out)
    }

    /// The values to make model input `me` hold, by the rule an op states.
    fn fill(&self, me: usize, stated: &Stated<ValueDomain>) -> Read<Fill> {
        let size = |s: &Option<Size>| match s {
            Some(s) => self.size(stated.op, *s, me),
            None => Read::Ready(None),
        };
        macro_rules! ready {
            ($read:expr) => {
                match $read {
                    Read::Ready(v) => v,
                    Read::Wait(other) => return Read::Wait(other),
                }
            };
        }
        Read::Ready(match &stated.rule {
            ValueDomain::Axes { rank, first, distinct } => {
                Fill::Axes { rank: ready!(size(rank)).unwrap_or(1), first: *first, distinct: *distinct }
            }
            ValueDomain::Mask => Fill::Mask,
            ValueDomain::Lengths { max } => Fill::Lengths(ready!(size(max))),
            ValueDomain::Indices { size: s, negative } => {
                Fill::Indices { size: ready!(size(s)), negative: *negative }
            }
            ValueDomain::SumsTo { total, inferred } => {
                Fill::SumsTo { total: ready!(size(total)), inferred: *inferred }
            }
            ValueDomain::Dims(dims) => {
                let mut values = Vec::with_capacity(dims.len());
                for d in dims {
                    // A size nothing ties broadcasts: 1.
                    let n = ready!(size(d)).unwrap_or(1);
                    values.push(i64::try_from(n).unwrap_or(i64::MAX));
                }
                Fill::Literal(values)
            }
            ValueDomain::ReshapeOf { input } => match ready!(self.shape_of(stated.op, *input, me)) {
                Some(dims) => Fill::ReshapeOf(dims),
                None => Fill::Pattern,
            },
            ValueDomain::NonZero => Fill::NonZero,
            _ => Fill::Pattern,
        })
    }

    /// The shape and values of model input `me`, or the input it waits
    /// for.
    fn plan(&self, me: usize, own: &PartialShape) -> Read<(Vec<u64>, Fill)> {
        let Some(&param) = self.params.get(me) else {
            return Read::Ready((vec![1], Fill::Pattern));
        };
        let rules = self.rules_of(param);
        let fill = match &rules.values {
            Some(stated) => match self.fill(me, stated) {
                Read::Ready(f) => f,
                Read::Wait(other) => return Read::Wait(other),
            },
            None => Fill::Pattern,
        };
        let shape = match (self.fixed.get(me).and_then(Option::as_ref), &rules.shape) {
            (Some(chosen), _) => chosen.iter().map(|&n| n as u64).collect(),
            (None, Some(stated)) => match self.stated_shape(me, own, stated) {
                Read::Ready(s) => s,
                Read::Wait(other) => return Read::Wait(other),
            },
            (None, None) => {
                let domain = rules.values.as_ref().map_or(&ValueDomain::Any, |s| &s.rule);
                resolve(own, domain)
            }
        };
        Read::Ready((shape, fill))
    }
}

/// Why no valid values can be made for an input of `count` elements, if
/// none can.
fn unsatisfiable(fill: &Fill, count: usize) -> Option<String> {
    if count == 0 {
        return None;
    }
    let count = count as u64;
    match *fill {
        Fill::Axes { rank, first, .. } if rank <= first => Some(format!(
            "it holds axes of data of rank {rank}, each from {first} up, and there is none; \
             give it no elements"
        )),
        Fill::Axes { rank, first, distinct: true } if count > rank - first => Some(format!(
            "it holds {count} different axes of data of rank {rank}, but there are only {}",
            rank - first
        )),
        Fill::Indices { size: Some(0), .. } => {
            Some("it holds indices into a dimension of size 0; give it no elements".to_string())
        }
        _ => None,
    }
}

/// Why no valid values can be made for an input of `count` elements whose
/// values follow the whole of another tensor, if none can.
fn unsatisfiable_whole(fill: &Fill, count: usize) -> Option<String> {
    match fill {
        Fill::SumsTo { total: Some(total), inferred: false } if count == 0 && *total > 0 => {
            Some(format!("it holds lengths that add up to {total}, and it has no elements"))
        }
        Fill::ReshapeOf(dims) if count == 0 && dims.iter().product::<u64>() != 1 => Some(format!(
            "it holds a shape for data of shape {dims:?}, and a shape with no elements has room for one"
        )),
        _ => None,
    }
}

/// A Reshape target of `len` values for data of these dimensions: its
/// leading dimensions, then -1 for the rest, then 1s.
fn reshape_pattern(dims: &[u64], len: usize) -> Vec<i64> {
    let to_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let mut pattern: Vec<i64> = dims.iter().take(len.saturating_sub(1)).map(|&n| to_i64(n)).collect();
    if len == 0 {
        return pattern;
    }
    if len > dims.len() {
        pattern.resize(len, 1);
    } else {
        pattern.push(-1);
    }
    pattern
}

/// How many elements are made at a time: the `f64` pattern they are made
/// from is built one chunk at a time, so it stays small however large the
/// input.
const CHUNK: usize = 1 << 14;

/// The values for the elements `range` of an input of `count` elements.
fn values(fill: &Fill, count: usize, range: Range<usize>) -> impl Iterator<Item = f64> + '_ {
    range.map(move |i| match fill {
        Fill::Axes { rank, first, .. } => (first + (i as u64 % (rank.saturating_sub(*first)).max(1))) as f64,
        Fill::Mask => (i % 2 == 0) as u8 as f64,
        Fill::Lengths(max) => match max {
            Some(d) if *d > 0 => (1 + (i as u64 % d)) as f64,
            Some(_) => 0.0,
            None => 1.0,
        },
        Fill::Indices { size: Some(size), negative } if *size > 0 => {
            let v = (i as u64 % size) as f64;
            // Every other index counts from the end.
            if *negative && i % 2 == 1 {
                v - *size as f64
            } else {
                v
            }
        }
        Fill::Indices { .. } => 0.0,
        Fill::SumsTo { inferred: true, .. } if count >= 2 && i == count - 1 => -1.0,
        Fill::SumsTo { total, .. } => {
            let (total, n) = (total.unwrap_or(0), count.max(1) as u64);
            (total / n + u64::from((i as u64) < total % n)) as f64
        }
        Fill::Literal(v) => v.get(i).map_or(1.0, |&x| x as f64),
        Fill::ReshapeOf(dims) => reshape_pattern(dims, count).get(i).map_or(1.0, |&x| x as f64),
        Fill::NonZero => (1 + i % 2) as f64,
        Fill::Pattern => {
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
/// position of the packing takes part; axes, lengths and the rest are the
/// usual values, wrapped into the type's range.
fn exchange_example(
    ty: ElementType,
    shape: &[usize],
    fill: &Fill,
    range: RangeInclusive<i64>,
) -> Result<Tensor, packed::PackError> {
    let (low, span) = (*range.start(), range.end() - range.start() + 1);
    let wrap = |v: i64| (v - low).rem_euclid(span) + low;
    let exchange = packed::exchange_type(ty).ok_or(packed::PackError::NoExchangeForm { ty })?;
    let mut codes = Tensor::zeros(exchange, shape)?;
    let bytes = codes.try_bytes_mut()?;
    let count = bytes.len();
    let values: Box<dyn Iterator<Item = i64>> = match fill {
        Fill::Pattern => Box::new((0..count).map(|i| wrap(i as i64 + low))),
        _ => Box::new(values(fill, count, 0..count).map(|v| wrap(v as i64))),
    };
    // Two's complement keeps negative i8 values exact in their byte.
    bytes.iter_mut().zip(values).for_each(|(b, v)| *b = v as u8);
    packed::from_exchange(&codes, ty)
}

fn example_tensor(
    ty: ElementType,
    shape: &[usize],
    fill: &Fill,
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
    let unsatisfied = unsatisfiable(fill, count).or_else(|| unsatisfiable_whole(fill, count));
    if let Some(reason) = unsatisfied {
        return Err(Error::ExampleDomain { name: name.to_string(), reason });
    }
    // Values that follow the whole tensor are worked out once.
    let fill = match fill {
        Fill::ReshapeOf(dims) => &Fill::Literal(reshape_pattern(dims, count)),
        fill => fill,
    };
    if ty == ElementType::String {
        let mut strings = Vec::new();
        strings.try_reserve_exact(count).map_err(|_| {
            let bytes = ByteCount(ovir_tensor::memory_bytes(ty, shape));
            too_large(TensorError::OutOfMemory { ty, shape: shape.to_vec(), bytes })
        })?;
        strings.extend((0..count).map(|i| format!("s{i}")));
        return Ok(Tensor::from_strings(shape, strings)?);
    }
    // A `bf16` input, exchanged as whole 16-bit patterns, takes converted
    // values as the other floats do; the codes of the narrower types are
    // cycled through.
    if let Some(range) = packed::exchange_range(ty).filter(|_| ty.bit_width() <= 8) {
        return exchange_example(ty, shape, fill, range).map_err(|reason| match reason {
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
        let wide = Tensor::from_vec(&[n], values(fill, count, start..start + n).collect())?;
        let narrow = kernels::convert(&wide, ty).map_err(example_error)?;
        part.copy_from_slice(narrow.bytes().unwrap_or_default());
    }
    Ok(out)
}

impl CompiledModel {
    /// Deterministic inputs that are valid for this model, in input order.
    ///
    /// An input gets the values the first op that reads it asks for
    /// ([`ValueDomain`]), and the shape the first op with a rule for it
    /// asks for ([`ShapeRule`]), followed through ops that pass it on:
    /// in-range axes for a `Reverse`'s axes, one flag per data axis for its
    /// mask, one length per batch for a `ReverseSequence`, each within the
    /// sequence axis, and a data batch as large as constant lengths are
    /// many. Other dimensions that are not static get size 2 (or the
    /// nearest bound), and other values a fixed pattern. An input whose
    /// rule reads the size of another input that is made too is made after
    /// it, with the shapes made so far inferred through the graph.
    ///
    /// An input for which no valid values exist (axes of a scalar, lengths
    /// that cannot add up) is an [`Error::ExampleDomain`] naming it, and so
    /// are inputs whose rules each wait for the other.
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
    /// sizes `example_inputs` picks. A shape for an input not in `indices`
    /// is the shape the caller gives that input, which the inputs made
    /// follow (lengths made for data read from a file follow its batch).
    /// The model itself is unchanged, so a shape its input does not admit
    /// is refused when the tensor is set. A name no input answers to is an
    /// [`Error::UnknownInput`].
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
        let model = self.model();
        make_inputs(model.ir(), model.info(), self.inputs(), indices, shapes, self.max_tensor_bytes())
    }
}

/// [`CompiledModel::example_inputs_shaped`] for the graph `ir` with the ops
/// and facts of `info`, whose inputs are `inputs`.
fn make_inputs(
    ir: &IrModel,
    info: &ModelInfo,
    inputs: &[PortInfo],
    indices: &[usize],
    shapes: &[(String, Vec<usize>)],
    limit: u64,
) -> Result<Vec<Tensor>, Error> {
    let unknown = |key: String| {
        let available = inputs.iter().map(|p| p.name().to_string()).collect();
        Error::UnknownInput { key, available }
    };
    let mut generator = Generator::new(ir, info);
    for (name, shape) in shapes {
        let at = inputs.iter().position(|p| p.answers_to(name)).ok_or_else(|| unknown(name.clone()))?;
        if let Some(slot) = generator.fixed.get_mut(at) {
            *slot = Some(shape.clone());
        }
    }
    for &i in indices {
        match generator.pending.get_mut(i) {
            Some(slot) if i < inputs.len() => *slot = true,
            _ => return Err(unknown(i.to_string())),
        }
    }
    let mut made: Vec<Option<Tensor>> = vec![None; inputs.len()];
    // Inputs of other shapes than the model declares change what the rules
    // of the others read.
    if shapes.iter().any(|(name, _)| inputs.iter().any(|p| p.answers_to(name) && !p.shape.is_static())) {
        generator.refine();
    }
    while generator.pending.iter().any(|&p| p) {
        generator.unmade.clone_from(&generator.pending);
        generator.waits_on = OnceCell::new();
        let mut waiting = None;
        let mut progress = false;
        for (i, port) in inputs.iter().enumerate() {
            if generator.pending.get(i) != Some(&true) {
                continue;
            }
            match generator.plan(i, &port.shape) {
                Read::Wait(other) => waiting = waiting.or(Some((i, other))),
                Read::Ready((shape, fill)) => {
                    let shape: Vec<usize> =
                        shape.into_iter().map(|n| usize::try_from(n).unwrap_or(usize::MAX)).collect();
                    let tensor = example_tensor(port.element_type, &shape, &fill, port.name(), limit)?;
                    if let Some(slot) = made.get_mut(i) {
                        *slot = Some(tensor);
                    }
                    if let Some(slot) = generator.fixed.get_mut(i) {
                        *slot = Some(shape);
                    }
                    if let Some(slot) = generator.pending.get_mut(i) {
                        *slot = false;
                    }
                    progress = true;
                }
            }
        }
        match waiting {
            None => break,
            Some((i, other)) if !progress => {
                let name = |k: usize| inputs.get(k).map_or_else(String::new, |p| p.name().to_string());
                return Err(Error::ExampleDomain {
                    name: name(i),
                    reason: format!(
                        "its rule waits for the shape of input \"{}\", whose rule waits for it in turn; \
                         give one of them a shape (--shape) or a value (-i)",
                        name(other)
                    ),
                });
            }
            Some(_) => generator.refine(),
        }
    }
    // Each input is handed out once; a repeated index gets a copy.
    let mut out = Vec::with_capacity(indices.len());
    for (k, &i) in indices.iter().enumerate() {
        let last = !indices.get(k + 1..).unwrap_or_default().contains(&i);
        let slot = made.get_mut(i).ok_or_else(|| unknown(i.to_string()))?;
        let tensor = if last { slot.take() } else { slot.clone() };
        out.push(tensor.ok_or_else(|| unknown(i.to_string()))?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ovir_shape::{Op, Operation, Problems};

    fn values_of(fill: &Fill, count: usize) -> Vec<f64> {
        values(fill, count, 0..count).collect()
    }

    #[test]
    fn dynamic_dims_pick_two_within_bounds() {
        let s: PartialShape = "?,3,1..1,5..9,..1".parse().unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(resolve(&s, &ValueDomain::Any), vec![2, 3, 1, 5, 1]);
    }

    #[test]
    fn lengths_stay_within_the_sequence_axis() {
        assert_eq!(values_of(&Fill::Lengths(Some(3)), 5), vec![1.0, 2.0, 3.0, 1.0, 2.0]);
        assert_eq!(values_of(&Fill::Lengths(Some(0)), 2), vec![0.0, 0.0]);
    }

    #[test]
    fn indices_stay_within_their_dimension() {
        let plain = Fill::Indices { size: Some(4), negative: false };
        assert_eq!(values_of(&plain, 6), vec![0.0, 1.0, 2.0, 3.0, 0.0, 1.0]);
        // Gather-8 counts from the end too: every index in [-4, 4).
        let negative = Fill::Indices { size: Some(4), negative: true };
        assert_eq!(values_of(&negative, 6), vec![0.0, -3.0, 2.0, -1.0, 0.0, -3.0]);
        // A dimension of unknown size: 0 is valid for any non-empty one.
        assert_eq!(values_of(&Fill::Indices { size: None, negative: true }, 3), vec![0.0; 3]);
        assert!(unsatisfiable(&Fill::Indices { size: Some(0), negative: false }, 1).is_some());
        assert!(unsatisfiable(&Fill::Indices { size: Some(0), negative: false }, 0).is_none());
    }

    #[test]
    fn split_lengths_add_up() {
        let exact = Fill::SumsTo { total: Some(7), inferred: false };
        assert_eq!(values_of(&exact, 3), vec![3.0, 2.0, 2.0]);
        // One -1 stands for what the others leave: 7 - 3 - 2.
        let inferred = Fill::SumsTo { total: Some(7), inferred: true };
        assert_eq!(values_of(&inferred, 3), vec![3.0, 2.0, -1.0]);
        assert_eq!(values_of(&inferred, 1), vec![7.0]);
        assert_eq!(values_of(&Fill::SumsTo { total: None, inferred: true }, 2), vec![0.0, -1.0]);
        assert_eq!(values_of(&Fill::SumsTo { total: Some(2), inferred: false }, 4), vec![1.0, 1.0, 0.0, 0.0]);
        assert!(unsatisfiable_whole(&exact, 0).is_some());
        assert!(unsatisfiable_whole(&Fill::SumsTo { total: Some(0), inferred: false }, 0).is_none());
    }

    #[test]
    fn axes_stay_in_range_and_distinct_when_asked() {
        let from_one = Fill::Axes { rank: 3, first: 1, distinct: false };
        assert_eq!(values_of(&from_one, 4), vec![1.0, 2.0, 1.0, 2.0]);
        let distinct = Fill::Axes { rank: 3, first: 0, distinct: true };
        assert_eq!(values_of(&distinct, 3), vec![0.0, 1.0, 2.0]);
        assert!(unsatisfiable(&distinct, 4).is_some());
        // A scalar has no axis to name.
        assert!(unsatisfiable(&Fill::Axes { rank: 0, first: 0, distinct: false }, 1).is_some());
        assert!(unsatisfiable(&Fill::Axes { rank: 0, first: 0, distinct: false }, 0).is_none());
    }

    #[test]
    fn reshape_patterns_keep_the_element_count() {
        let dims = [2, 3, 4];
        assert_eq!(reshape_pattern(&dims, 1), vec![-1]);
        assert_eq!(reshape_pattern(&dims, 2), vec![2, -1]);
        assert_eq!(reshape_pattern(&dims, 3), vec![2, 3, -1]);
        assert_eq!(reshape_pattern(&dims, 5), vec![2, 3, 4, 1, 1]);
        assert_eq!(reshape_pattern(&dims, 0), Vec::<i64>::new());
        // Only one element fits a shape with no dimensions.
        assert!(unsatisfiable_whole(&Fill::ReshapeOf(dims.to_vec()), 0).is_some());
        assert!(unsatisfiable_whole(&Fill::ReshapeOf(vec![1, 1]), 0).is_none());
    }

    /// A model of one op on two inputs, `data` of shape `data` and a
    /// second input of shape `?` and type `ty`, named `second`.
    fn two_input_model(
        data: &str,
        second: &str,
        ty: ElementType,
        op: impl FnOnce(
            &mut crate::ModelBuilder,
            crate::builder::Output,
            crate::builder::Output,
        ) -> crate::builder::Output,
    ) -> crate::Model {
        let mut b = crate::ModelBuilder::new("m");
        let x = b.parameter("data", ElementType::F32, data.parse().unwrap()).unwrap();
        let y = b.parameter(second, ty, "?".parse().unwrap()).unwrap();
        let out = op(&mut b, x, y);
        b.result(out).unwrap();
        b.build().unwrap()
    }

    /// A ReverseSequence whose data is `data` and whose lengths are a
    /// Parameter of shape `?`.
    fn rseq_model(data: &str, batch_axis: i64, seq_axis: i64) -> crate::Model {
        two_input_model(data, "lengths", ElementType::I32, |b, x, y| {
            b.reverse_sequence(x, y, batch_axis, seq_axis).unwrap()
        })
    }

    fn ints(t: &Tensor) -> Vec<i64> {
        t.integer_values().unwrap().into_iter().map(|v| i64::try_from(v).unwrap()).collect()
    }

    #[test]
    fn sequence_lengths_follow_the_data_shape_chosen() {
        let compiled = rseq_model("?,?", 0, 1).compile().unwrap();
        let shaped = [("data".to_string(), vec![5, 7])];
        let made = compiled.example_inputs_shaped(&[0, 1], &shaped).unwrap();
        assert_eq!(made[0].shape(), &[5, 7]);
        // One length per batch, each in [0, 7].
        assert_eq!(made[1].shape(), &[5]);
        assert_eq!(ints(&made[1]), vec![1, 2, 3, 4, 5]);
        // The batch on axis 1, the sequence on axis 0: 7 lengths, each in [0, 5].
        let compiled = rseq_model("?,?", 1, 0).compile().unwrap();
        let made = compiled.example_inputs_shaped(&[1, 0], &shaped).unwrap();
        assert_eq!(made[0].shape(), &[7]);
        assert_eq!(ints(&made[0]), vec![1, 2, 3, 4, 5, 1, 2]);
        // Data given by the caller (not made): the lengths follow its shape.
        let made = compiled.example_inputs_shaped(&[1], &[("data".to_string(), vec![3, 4])]).unwrap();
        assert_eq!(made[0].shape(), &[4]);
        assert_eq!(ints(&made[0]), vec![1, 2, 3, 1]);
        // Nothing chosen: the data is 2 x 2, and so the lengths follow.
        let made = compiled.example_inputs().unwrap();
        assert_eq!((made[0].shape(), made[1].shape()), (&[2, 2][..], &[2][..]));
    }

    #[test]
    fn the_batch_follows_lengths_of_a_chosen_count() {
        let compiled = rseq_model("?,6", 0, 1).compile().unwrap();
        let made = compiled.example_inputs_shaped(&[0, 1], &[("lengths".to_string(), vec![3])]).unwrap();
        assert_eq!(made[0].shape(), &[3, 6]);
        assert_eq!(ints(&made[1]), vec![1, 2, 3]);
        let mut request = compiled.infer_request();
        request.set_input(0, made[0].clone()).unwrap();
        request.set_input(1, made[1].clone()).unwrap();
        request.infer().unwrap();
    }

    /// An op whose two inputs' shapes each follow the other's.
    #[derive(Debug)]
    struct EachFollowsTheOther;

    impl Operation for EachFollowsTheOther {
        fn name(&self) -> &str {
            "EachFollowsTheOther"
        }
        fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
            Ok(inputs.iter().take(1).map(|i| i.fact.clone()).collect())
        }
        fn input_shape(&self, input: usize, _: &[&PortFact]) -> Option<ShapeRule> {
            Some(vec![Some(Size::DimOf { input: 1 - input.min(1), axis: 0 })])
        }
    }

    #[test]
    fn inputs_that_wait_for_each_other_are_an_error_naming_them() {
        let model = rseq_model("?,?", 0, 1);
        let mut info = model.info().clone();
        info.ops[2] = Op::new(EachFollowsTheOther);
        let inputs = PortInfo::inputs_of(model.ir(), &info.outputs);
        let err = make_inputs(model.ir(), &info, &inputs, &[0, 1], &[], u64::MAX).unwrap_err();
        assert!(matches!(&err, Error::ExampleDomain { name, .. } if name == "data"), "{err:?}");
        assert!(err.to_string().contains("waits for the shape of input \"lengths\""), "{err}");
        // A shape for one of them breaks the circle.
        let shaped = [("lengths".to_string(), vec![4])];
        let made = make_inputs(model.ir(), &info, &inputs, &[0, 1], &shaped, u64::MAX).unwrap();
        assert_eq!((made[0].shape(), made[1].shape()), (&[4][..], &[4][..]));
    }

    #[test]
    fn axes_of_a_scalar_are_an_error_naming_the_input() {
        let model = two_input_model("", "axes", ElementType::I64, |b, x, y| {
            b.reverse(x, y, ovir_shape::ops::ReverseMode::Index).unwrap()
        });
        let compiled = model.compile().unwrap();
        let err = compiled.example_inputs().unwrap_err();
        assert!(matches!(&err, Error::ExampleDomain { name, .. } if name == "axes"), "{err:?}");
        // No axes at all is valid, and is what `--shape axes=[0]` makes.
        let made = compiled.example_inputs_shaped(&[0, 1], &[("axes".to_string(), vec![0])]).unwrap();
        assert_eq!(made[1].shape(), &[0]);
    }

    /// A model of `op` on inputs built by `inputs` (Parameters and
    /// constants), with the example inputs made for it, shaped by
    /// `shapes`, and run: the run must accept them. Returns the inputs
    /// made.
    fn made_and_run(
        shapes: &[(&str, &[usize])],
        build: impl FnOnce(&mut crate::ModelBuilder) -> crate::builder::Output,
    ) -> Vec<Tensor> {
        let mut b = crate::ModelBuilder::new("m");
        let out = build(&mut b);
        b.result(out).unwrap();
        let compiled = b.build().unwrap().compile().unwrap();
        let shapes: Vec<(String, Vec<usize>)> =
            shapes.iter().map(|(n, s)| (n.to_string(), s.to_vec())).collect();
        let all: Vec<usize> = (0..compiled.inputs().len()).collect();
        let made = compiled.example_inputs_shaped(&all, &shapes).unwrap();
        let mut request = compiled.infer_request();
        for (i, t) in made.iter().enumerate() {
            request.set_input(i, t.clone()).unwrap();
        }
        request.infer().unwrap_or_else(|e| panic!("{e}: inputs {made:?}"));
        made
    }

    fn param(
        b: &mut crate::ModelBuilder,
        name: &str,
        ty: ElementType,
        shape: &str,
    ) -> crate::builder::Output {
        b.parameter(name, ty, shape.parse().unwrap()).unwrap()
    }

    fn constant(b: &mut crate::ModelBuilder, shape: &[usize], values: Vec<i64>) -> crate::builder::Output {
        b.constant(Tensor::from_vec(shape, values).unwrap()).unwrap()
    }

    #[test]
    fn gather_indices_stay_within_the_axis_and_follow_the_batch() {
        let made = made_and_run(&[("data", &[3, 5])], |b| {
            let data = param(b, "data", ElementType::F32, "?,?");
            let indices = param(b, "indices", ElementType::I64, "?");
            let axis = constant(b, &[], vec![1]);
            b.gather(data, indices, axis, 0).unwrap()
        });
        // Gather-8 takes indices in [-5, 5) along axis 1.
        assert_eq!(ints(&made[1]), vec![0, -4]);
        // With batch_dims 1 and a runtime axis: the axis is 1 (not below
        // batch_dims), the indices' batch follows the data's, and indices
        // of 0 suit whatever axis is given.
        let made = made_and_run(&[("data", &[3, 4])], |b| {
            let data = param(b, "data", ElementType::F32, "?,?");
            let indices = param(b, "indices", ElementType::I32, "?,?");
            let axis = param(b, "axis", ElementType::I64, "");
            b.gather(data, indices, axis, 1).unwrap()
        });
        assert_eq!(made[1].shape(), &[3, 2]);
        assert_eq!(ints(&made[1]), vec![0; 6]);
        assert_eq!(ints(&made[2]), vec![1]);
    }

    #[test]
    fn broadcast_targets_fit_the_data_and_the_data_fits_known_targets() {
        let made = made_and_run(&[("data", &[5, 1])], |b| {
            let data = param(b, "data", ElementType::F32, "?,?");
            let target = param(b, "target", ElementType::I64, "?");
            b.broadcast(data, target, ovir_shape::ops::BroadcastMode::Numpy, None).unwrap()
        });
        assert_eq!(ints(&made[1]), vec![5, 1]);
        // A longer target lines the data up from the end, with 1 before it.
        let made = made_and_run(&[("data", &[4]), ("target", &[3])], |b| {
            let data = param(b, "data", ElementType::F32, "?");
            let target = param(b, "target", ElementType::I64, "?");
            b.broadcast(data, target, ovir_shape::ops::BroadcastMode::Numpy, None).unwrap()
        });
        assert_eq!(ints(&made[1]), vec![1, 1, 4]);
        // A constant target: the data takes its last dimension.
        let made = made_and_run(&[], |b| {
            let data = param(b, "data", ElementType::F32, "?");
            let target = constant(b, &[2], vec![4, 3]);
            b.broadcast(data, target, ovir_shape::ops::BroadcastMode::Numpy, None).unwrap()
        });
        assert_eq!(made[0].shape(), &[3]);
        // Data that declares a size of 1 keeps it: it broadcasts.
        let made = made_and_run(&[], |b| {
            let data = param(b, "data", ElementType::F32, "1");
            let target = constant(b, &[2], vec![4, 3]);
            b.broadcast(data, target, ovir_shape::ops::BroadcastMode::Numpy, None).unwrap()
        });
        assert_eq!(made[0].shape(), &[1]);
        // Explicit: a mapping of distinct axes in order, and the target
        // holds the data's dimensions where the mapping puts them.
        let made = made_and_run(&[("data", &[3, 4])], |b| {
            let data = param(b, "data", ElementType::F32, "?,?");
            let target = param(b, "target", ElementType::I64, "?");
            let mapping = param(b, "mapping", ElementType::I64, "?");
            b.broadcast(data, target, ovir_shape::ops::BroadcastMode::Explicit, Some(mapping)).unwrap()
        });
        assert_eq!((ints(&made[1]), ints(&made[2])), (vec![3, 4], vec![0, 1]));
    }

    #[test]
    fn reshape_targets_keep_the_element_count() {
        let made = made_and_run(&[("data", &[3, 4])], |b| {
            let data = param(b, "data", ElementType::F32, "?,?");
            let target = param(b, "target", ElementType::I64, "?");
            b.reshape(data, target, false).unwrap()
        });
        assert_eq!(ints(&made[1]), vec![3, -1]);
        let made = made_and_run(&[("data", &[3, 4]), ("target", &[3])], |b| {
            let data = param(b, "data", ElementType::F32, "?,?");
            let target = param(b, "target", ElementType::I32, "?");
            b.reshape(data, target, true).unwrap()
        });
        assert_eq!(ints(&made[1]), vec![3, 4, 1]);
        // A constant target: the one open data dimension holds the rest.
        let made = made_and_run(&[], |b| {
            let data = param(b, "data", ElementType::F32, "2,?");
            let target = constant(b, &[2], vec![3, 4]);
            b.reshape(data, target, false).unwrap()
        });
        assert_eq!(made[0].shape(), &[2, 6]);
    }

    #[test]
    fn slice_bounds_are_equally_long_with_steps_not_zero_and_distinct_axes() {
        let made = made_and_run(&[("data", &[4, 6])], |b| {
            let data = param(b, "data", ElementType::F32, "?,?");
            let [start, stop, step, axes] =
                ["start", "stop", "step", "axes"].map(|n| param(b, n, ElementType::I64, "?"));
            b.slice(data, start, stop, step, Some(axes)).unwrap()
        });
        assert!(made[1..].iter().all(|t| t.shape() == [2]), "{made:?}");
        assert_eq!((ints(&made[3]), ints(&made[4])), (vec![1, 2], vec![0, 1]));
        // One bound of known length sets the others'.
        let made = made_and_run(&[("data", &[4, 6])], |b| {
            let data = param(b, "data", ElementType::F32, "?,?");
            let start = constant(b, &[1], vec![1]);
            let [stop, step] = ["stop", "step"].map(|n| param(b, n, ElementType::I64, "?"));
            b.slice(data, start, stop, step, None).unwrap()
        });
        assert_eq!((made[1].shape(), made[2].shape()), (&[1][..], &[1][..]));
    }

    #[test]
    fn squeeze_and_unsqueeze_axes_are_in_range() {
        let made = made_and_run(&[], |b| {
            let data = param(b, "data", ElementType::F32, "1,?,1");
            let axes = param(b, "axes", ElementType::I64, "?");
            b.squeeze(data, Some(axes)).unwrap()
        });
        assert_eq!(ints(&made[1]), vec![0]);
        // A scalar's Unsqueeze has one axis to name: 0.
        let made = made_and_run(&[("axes", &[1])], |b| {
            let data = param(b, "data", ElementType::F32, "");
            let axes = param(b, "axes", ElementType::I64, "?");
            b.unsqueeze(data, axes).unwrap()
        });
        assert_eq!(ints(&made[1]), vec![0]);
    }

    #[test]
    fn concat_inputs_agree_off_the_axis() {
        let made = made_and_run(&[], |b| {
            let first = param(b, "first", ElementType::F32, "?,?");
            let second = b.constant(Tensor::from_vec(&[4, 3], vec![0f32; 12]).unwrap()).unwrap();
            b.concat(&[first, second], 0).unwrap()
        });
        assert_eq!(made[0].shape(), &[2, 3]);
        let made = made_and_run(&[("first", &[5, 7])], |b| {
            let first = param(b, "first", ElementType::F32, "?,?");
            let second = param(b, "second", ElementType::F32, "?,?");
            b.concat(&[first, second], -1).unwrap()
        });
        assert_eq!(made[1].shape(), &[5, 2]);
    }

    #[test]
    fn masks_and_subsequence_lengths_follow_the_data() {
        let made = made_and_run(&[("data", &[2, 3, 4])], |b| {
            let data = param(b, "data", ElementType::F32, "?,?,?");
            let mask = param(b, "mask", ElementType::Boolean, "?");
            b.reverse(data, mask, ovir_shape::ops::ReverseMode::Mask).unwrap()
        });
        assert_eq!(ints(&made[1]), vec![1, 0, 1]);
        let made = made_and_run(&[("data", &[3, 4])], |b| {
            let data = param(b, "data", ElementType::F32, "?,?");
            let lengths = param(b, "lengths", ElementType::I64, "?,?");
            b.reverse_subsequences(data, lengths, 1).unwrap()
        });
        assert_eq!(made[1].shape(), &[3, 1]);
        assert_eq!(ints(&made[1]), vec![1, 2, 3]);
    }

    /// An extension's op whose second input holds one length per row of
    /// the first, each within its rows.
    #[derive(Debug)]
    struct RowLengths;

    impl ovir_shape::CustomOp for RowLengths {
        fn op_type(&self) -> &str {
            "RowLengths"
        }
        fn infer(&self, inputs: &[PortFact]) -> Result<PortFact, ovir_shape::ExtensionError> {
            Ok(inputs[0].clone())
        }
        fn evaluate(&self, inputs: &[&Tensor]) -> Result<Tensor, ovir_shape::ExtensionError> {
            Ok(inputs[0].clone())
        }
        fn input_values(&self, input: usize, _: &[&PortFact]) -> ValueDomain {
            match input {
                1 => ValueDomain::Lengths { max: Some(Size::DimOf { input: 0, axis: 1 }) },
                _ => ValueDomain::Any,
            }
        }
        fn input_shape(&self, input: usize, _: &[&PortFact]) -> Option<ShapeRule> {
            (input == 1).then(|| vec![Some(Size::DimOf { input: 0, axis: 0 })])
        }
    }

    #[test]
    fn an_extension_states_what_its_inputs_hold() {
        let model = rseq_model("?,?", 0, 1);
        let mut info = model.info().clone();
        info.ops[2] = Op::new(ovir_shape::CustomOperation(std::sync::Arc::new(RowLengths)));
        let inputs = PortInfo::inputs_of(model.ir(), &info.outputs);
        let shaped = [("data".to_string(), vec![5, 3])];
        let made = make_inputs(model.ir(), &info, &inputs, &[1, 0], &shaped, u64::MAX).unwrap();
        assert_eq!(made[0].shape(), &[5]);
        assert_eq!(ints(&made[0]), vec![1, 2, 3, 1, 2]);
    }
}
