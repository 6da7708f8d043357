//! Unique-10: the distinct elements of a tensor, or its distinct slices
//! along an axis, with where each first occurs, which one every element
//! (or slice) is, and how often each occurs.
//!
//! Without an axis the data is flattened; with one (a Const, scalar or of
//! one element, i32 or i64, counted from the end when negative) the
//! slices along it are compared whole, element by element in row-major
//! order. `sorted` puts the uniques in ascending order, comparing slices
//! lexicographically; otherwise they come in the order they first occur.
//! The outputs are the uniques (the data's type; along an axis, the data
//! shape with that axis as long as the uniques), the index of each one's
//! first occurrence, for every element or slice the position of its
//! unique, and each unique's count (indices `index_element_type`, counts
//! `count_element_type`, both i32 or i64).
//!
//! Values compare as numbers: -0.0 equals 0.0 (the first to occur is the
//! one kept), and a NaN equals nothing, so every NaN, and every slice
//! holding one, is a unique of its own, as OpenVINO's reference finds
//! them without sorting. Sorted, the reference's comparison is no order
//! once a NaN is involved; ovir puts NaNs after every number (slices
//! compare lexicographically with that order), each NaN in the order it
//! occurs. Strings compare by their bytes, booleans as false before true.
//! Empty data gives no uniques; slices of no element along an axis of `n`
//! are all equal, one unique counted `n` times.
//!
//! How many uniques there are is known only when the data is: shape
//! inference gives the sizes OpenVINO's gives (an interval from 1 to the
//! number of elements or slices), and exact ones for data known before the
//! model runs, found by [`Uniques`], the same search the kernel runs.

use ovir_ir::Layer;
use ovir_tensor::packed::code_at;
use ovir_tensor::{normalize_axis, Dim, ElementType, PartialShape, Tensor};

use crate::attrs;
use crate::dims::checked_ints;
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, Size, ValueDomain, Versions};

const OP: &str = "Unique";

/// The distinct elements (or slices along the axis given as the second
/// input) of the data, with their first indices, the inverse mapping and
/// their counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unique {
    /// Ascending order (`true`, the default) or order of first occurrence.
    pub sorted: bool,
    /// The type of outputs 1 and 2, the indices: i32 or i64.
    pub index_type: ElementType,
    /// The type of output 3, the counts: i32 or i64.
    pub count_type: ElementType,
}

impl Default for Unique {
    /// OpenVINO's defaults: sorted, i64 indices and counts.
    fn default() -> Self {
        Unique { sorted: true, index_type: ElementType::I64, count_type: ElementType::I64 }
    }
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: OP,
    aliases: &[],
    versions: Versions::Opsets(10, 16),
    inputs: (1, Some(2)),
    outputs: (4, Some(4)),
};

/// An optional `i32` or `i64` attribute, `i64` when absent.
fn index_attr(layer: &Layer, name: &'static str, problems: &mut Problems) -> Option<ElementType> {
    let Some(value) = layer.attrs.value(name) else {
        return Some(ElementType::I64);
    };
    match ElementType::from_ir_name(value.trim()) {
        Some(ty @ (ElementType::I32 | ElementType::I64)) => Some(ty),
        _ => {
            problems.attr(name, ShapeErrorKind::IndexElementType { op: OP, name, value: value.to_string() });
            None
        }
    }
}

impl BuiltinOp for Unique {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let sorted = attrs::boolean_or(layer, "sorted", true, &mut problems);
        let index_type = index_attr(layer, "index_element_type", &mut problems);
        let count_type = index_attr(layer, "count_element_type", &mut problems);
        match (sorted, index_type, count_type) {
            (Some(sorted), Some(index_type), Some(count_type)) if problems.is_empty() => {
                Ok(Unique { sorted, index_type, count_type })
            }
            _ => Err(problems),
        }
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, "opset10")
            .attr("sorted", self.sorted)
            .attr("index_element_type", self.index_type.ir_name())
            .attr("count_element_type", self.count_type.ir_name())
    }

    fn examples() -> Vec<Self> {
        vec![
            Unique::default(),
            Unique { sorted: false, index_type: ElementType::I32, count_type: ElementType::I32 },
            Unique { sorted: true, index_type: ElementType::I32, count_type: ElementType::I64 },
            Unique { sorted: false, index_type: ElementType::I64, count_type: ElementType::I32 },
        ]
    }
}

/// What Unique compares: the flattened data, slices along an axis, or
/// slices along an axis not yet known (the data rank is not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UniqueAlong {
    /// Every element on its own, the data flattened.
    Elements,
    /// The slices along this axis, in `[0, rank)`.
    Axis(usize),
    /// An axis of data whose rank is not known.
    UnknownAxis,
}

/// The output shapes of Unique on data of shape `data` whose values are
/// not known, as OpenVINO's shape inference gives them: the uniques' count
/// lies between 1 and the number of elements (or slices along the axis),
/// 0 when an axis is empty.
pub fn unique_output_shapes(data: &PartialShape, along: UniqueAlong) -> [PartialShape; 4] {
    let one = |d: Dim| PartialShape::new(vec![d]);
    let elements = data.to_static().and_then(|s| ovir_tensor::element_count(&s)).map(|n| n as u64);
    let some = match elements {
        Some(n) if n > 0 => Dim::interval(1, Some(n)).unwrap_or(Dim::DYNAMIC),
        _ => Dim::DYNAMIC,
    };
    let mut counted = one(some);
    let mut inverse = match elements {
        Some(n) if n > 0 => one(Dim::fixed(n)),
        _ => one(Dim::DYNAMIC),
    };
    let uniques = match (along, data.dims()) {
        (UniqueAlong::Elements, _) => one(some),
        (UniqueAlong::Axis(axis), Some(dims)) if axis < dims.len() => {
            let d = dims[axis];
            let (at_axis, slices) = match (d.get(), d.max()) {
                (Some(0), _) => {
                    counted = one(Dim::fixed(0));
                    (Dim::fixed(0), Dim::fixed(0))
                }
                (Some(n), _) => (Dim::interval(1, Some(n)).unwrap_or(Dim::DYNAMIC), Dim::fixed(n)),
                (None, None) if d.min() == 0 => (Dim::DYNAMIC, Dim::DYNAMIC),
                (None, max) => (Dim::interval(1, max).unwrap_or(Dim::DYNAMIC), d),
            };
            inverse = one(slices);
            let mut out = dims.to_vec();
            out[axis] = at_axis;
            PartialShape::new(out)
        }
        _ => PartialShape::dynamic(),
    };
    [uniques, counted.clone(), inverse, counted]
}

/// The shape of output 0 for `uniques` uniques of data of shape `data`
/// compared `along` a known axis or flattened.
pub fn unique_values_shape(data: &[usize], axis: Option<usize>, uniques: usize) -> Vec<usize> {
    match axis {
        Some(a) if a < data.len() => {
            let mut out = data.to_vec();
            out[a] = uniques;
            out
        }
        _ => vec![uniques],
    }
}

/// Unique's axis in `[0, rank)` for data of rank `rank`: an axis outside
/// `[-rank, rank)`, and any axis of a scalar, is an error.
pub fn unique_axis(axis: i64, rank: usize) -> Result<usize, ShapeErrorKind> {
    normalize_axis(axis, rank).ok_or(ShapeErrorKind::OpAxisOutOfRange { op: OP, what: "axis", axis, rank })
}

impl Operation for Unique {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let mut problems = Problems::new();
        let Some(data) = inputs.first() else {
            return Err(Problems::one(ShapeErrorKind::InputCountRange {
                op: OP,
                min: 1,
                max: Some(2),
                found: 0,
            }));
        };
        let along = match inputs.get(1) {
            None => Some(UniqueAlong::Elements),
            Some(axis) => self.axis(&mut problems, data.fact, axis),
        };
        let ty = data.fact.element_type;
        let facts = |shapes: [PartialShape; 4]| {
            let [values, firsts, inverse, counts] = shapes;
            vec![
                PortFact::of(ty, values),
                PortFact::of(self.index_type, firsts),
                PortFact::of(self.index_type, inverse),
                PortFact::of(self.count_type, counts),
            ]
        };
        let Some(along) = along else {
            return Err(problems);
        };
        // Known data: the uniques are counted now.
        if let (Some(value), true) = (&data.fact.value, problems.is_empty()) {
            let axis = match along {
                UniqueAlong::Axis(a) => Some(a),
                _ => None,
            };
            let mut uniques = Uniques::default();
            match uniques.find(value, axis, self.sorted) {
                Ok(()) => {
                    if let Err(kind) = uniques.check_types(self.index_type, self.count_type) {
                        problems.layer(kind);
                    }
                    let n = uniques.len();
                    let exact = |s: Vec<usize>| PartialShape::from_static(&s);
                    let shapes = [
                        exact(unique_values_shape(value.shape(), axis, n)),
                        exact(vec![n]),
                        exact(vec![uniques.slices()]),
                        exact(vec![n]),
                    ];
                    return problems.or_ok(facts(shapes));
                }
                Err(kind) => problems.layer(kind),
            }
        }
        problems.or_ok(facts(unique_output_shapes(&data.fact.shape, along)))
    }

    fn input_values(&self, input: usize, _inputs: &[&PortFact]) -> ValueDomain {
        match input {
            1 => ValueDomain::Axes { rank: Some(Size::RankOf { input: 0 }), first: 0, distinct: false },
            _ => ValueDomain::Any,
        }
    }
}

impl Unique {
    /// Checks the axis input as OpenVINO does (i32 or i64, a scalar or of
    /// one element, known before the model runs, within the data rank)
    /// and says what is compared; `None` after recording a problem.
    fn axis(&self, problems: &mut Problems, data: &PortFact, axis: &Input<'_>) -> Option<UniqueAlong> {
        let fact = axis.fact;
        let ty = fact.element_type;
        let mut ok = true;
        if ty.is_static() && !matches!(ty, ElementType::I32 | ElementType::I64) {
            problems.layer(ShapeErrorKind::IndexType { op: OP, input: "axis", found: ty });
            ok = false;
        }
        match fact.shape.dims() {
            Some([]) | None => {}
            Some([n]) if n.compatible(Dim::fixed(1)) => {}
            Some(_) => {
                problems.layer(ShapeErrorKind::InputShape {
                    op: OP,
                    input: "axis",
                    expected: "a scalar or a tensor of one element",
                    shape: fact.shape.clone(),
                });
                ok = false;
            }
        }
        if !ok {
            return None;
        }
        let Some(value) = checked_ints(true, fact).and_then(|v| v.first().copied()) else {
            if !axis.tainted {
                problems.layer(ShapeErrorKind::InputNotConstant { op: OP, input: "axis" });
            }
            return None;
        };
        match data.shape.rank() {
            None => Some(UniqueAlong::UnknownAxis),
            Some(rank) => match unique_axis(value, rank) {
                Ok(a) => Some(UniqueAlong::Axis(a)),
                Err(kind) => {
                    problems.layer(kind);
                    None
                }
            },
        }
    }
}

/// A key that sorts as the value it stands for: integers offset so that
/// their order is that of `u64`, reals by sign and magnitude with both
/// zeros one key. NaN takes the largest key, after every number, and
/// equals nothing.
const NAN_KEY: u64 = u64::MAX;
/// The key of zero for signed types.
const MIDDLE: u64 = 1 << 63;

/// The key of a sign-magnitude real whose sign bit is `sign` and whose
/// NaNs `is_nan` picks out (of the magnitude bits).
fn real_key(bits: u64, sign: u64, is_nan: impl Fn(u64) -> bool) -> u64 {
    let magnitude = bits & !sign;
    if is_nan(magnitude) {
        NAN_KEY
    } else if bits & sign != 0 {
        MIDDLE - magnitude
    } else {
        MIDDLE + magnitude
    }
}

/// The key of a signed integer.
fn signed_key(v: i64) -> u64 {
    (v as u64) ^ MIDDLE
}

/// Element `i` of little-endian `N`-byte values.
fn word<const N: usize>(bytes: &[u8], i: usize) -> Option<[u8; N]> {
    bytes.get(i.checked_mul(N)?..)?.get(..N)?.try_into().ok()
}

/// Empties `list` and makes room for `len` items in it.
fn reserve<T>(list: &mut Vec<T>, len: usize) -> Result<(), ShapeErrorKind> {
    list.clear();
    list.try_reserve(len).map_err(|_| ShapeErrorKind::OutOfMemory {
        op: OP,
        what: "search",
        bytes: len.saturating_mul(std::mem::size_of::<T>()),
    })
}

/// The error for data whose elements cannot be read as `expected`.
fn unreadable(expected: &'static str, found: ElementType) -> ShapeErrorKind {
    ShapeErrorKind::InputType { op: OP, input: "data", expected, found }
}

/// Whether a type has NaNs, which equal nothing.
fn has_nan(ty: ElementType) -> bool {
    use ElementType as E;
    matches!(ty, E::F16 | E::Bf16 | E::F32 | E::F64 | E::F8e4m3 | E::F8e5m2 | E::F8e8m0)
}

/// What Unique finds in some data: the uniques in output order (the
/// element or slice each first occurs at, and its count) and, for every
/// element or slice, the position of its unique. The buffers stay between
/// searches, so that a search of data of the same size allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct Uniques {
    /// One key per element, slice by slice (`slices` rows of `row`).
    keys: Vec<u64>,
    /// The slices in ascending order, ties by position.
    order: Vec<usize>,
    /// Keys and positions of single elements, sorted together.
    pairs: Vec<(u64, usize)>,
    /// For each element or slice, its unique's position in the output.
    inverse: Vec<usize>,
    /// For each unique in output order, where it first occurs.
    firsts: Vec<usize>,
    /// For each unique in output order, how often it occurs.
    counts: Vec<usize>,
    /// Scratch of one entry per unique, in ascending order.
    spare: Vec<usize>,
    /// The number of elements or slices compared.
    slices: usize,
}

impl Uniques {
    /// An empty search; it allocates on first use and then keeps its
    /// memory.
    pub fn new() -> Uniques {
        Uniques::default()
    }

    /// The number of uniques found.
    pub fn len(&self) -> usize {
        self.firsts.len()
    }

    /// `true` when none were found (the data was empty).
    pub fn is_empty(&self) -> bool {
        self.firsts.is_empty()
    }

    /// The number of elements (or slices) compared: the length of output 2.
    pub fn slices(&self) -> usize {
        self.slices
    }

    /// Where each unique first occurs (output 1).
    pub fn firsts(&self) -> &[usize] {
        &self.firsts
    }

    /// For every element or slice, the position of its unique (output 2).
    pub fn inverse(&self) -> &[usize] {
        &self.inverse
    }

    /// How often each unique occurs (output 3).
    pub fn counts(&self) -> &[usize] {
        &self.counts
    }

    /// Checks that the positions and counts fit the output types (i32 or
    /// i64): there are no more elements or slices than they count.
    pub fn check_types(
        &self,
        index_type: ElementType,
        count_type: ElementType,
    ) -> Result<(), ShapeErrorKind> {
        for ty in [index_type, count_type] {
            let max = if ty == ElementType::I32 { i32::MAX as u64 } else { i64::MAX as u64 };
            if self.slices as u64 > max {
                return Err(ShapeErrorKind::IndexOverflow { op: OP, count: self.slices as u64, ty });
            }
        }
        Ok(())
    }

    /// Finds the uniques of `data`, flattened (`axis` `None`) or its
    /// slices along `axis` (in `[0, rank)`), in ascending order when
    /// `sorted`, else in order of first occurrence.
    pub fn find(&mut self, data: &Tensor, axis: Option<usize>, sorted: bool) -> Result<(), ShapeErrorKind> {
        let shape = data.shape();
        let (outer, slices, inner) = match axis {
            None => (1, data.len(), 1),
            Some(a) => match (shape.get(a), shape.get(..a), shape.get(a + 1..)) {
                // Empty data: no slices, or slices of no element.
                (Some(&n), _, _) if data.is_empty() => (0, n, 0),
                // Every dimension is 1 or more, so the products are at most
                // the data's length.
                (Some(&n), Some(before), Some(after)) => {
                    (before.iter().product::<usize>(), n, after.iter().product::<usize>())
                }
                _ => {
                    let (axis, rank) = (a as i64, shape.len());
                    return Err(ShapeErrorKind::OpAxisOutOfRange { op: OP, what: "axis", axis, rank });
                }
            },
        };
        self.slices = slices;
        let row = outer * inner;
        // The buffers' memory, had before anything is written: its lack
        // is an error, not an abort.
        let most = data.len().max(slices);
        reserve(&mut self.keys, data.len())?;
        for list in [&mut self.order, &mut self.inverse, &mut self.firsts, &mut self.counts, &mut self.spare]
        {
            reserve(list, most)?;
        }
        if row == 1 {
            reserve(&mut self.pairs, slices)?;
        }
        self.fill_keys(data, outer, slices, inner)?;
        let nan = has_nan(data.element_type());
        let Uniques { keys, order, pairs, inverse, firsts, counts, spare, .. } = self;
        // The slices in ascending order, ties by position, without the
        // allocation a stable sort makes.
        order.clear();
        if row == 1 {
            pairs.clear();
            pairs.extend(keys.iter().copied().zip(0..));
            pairs.sort_unstable();
            order.extend(pairs.iter().map(|&(_, i)| i));
        } else {
            order.extend(0..slices);
            let key_row = |s: usize| keys.get(s * row..(s + 1) * row).unwrap_or_default();
            order.sort_unstable_by(|&a, &b| key_row(a).cmp(key_row(b)).then(a.cmp(&b)));
        }
        // Runs of equal slices in that order: each run a unique, first
        // occurring where its first slice is.
        let key_row = |s: usize| keys.get(s * row..(s + 1) * row).unwrap_or_default();
        inverse.clear();
        inverse.resize(slices, 0);
        firsts.clear();
        counts.clear();
        let mut previous: Option<&[u64]> = None;
        for &s in order.iter() {
            let this = key_row(s);
            let same = previous.is_some_and(|p| p == this) && !(nan && this.contains(&NAN_KEY));
            if same {
                if let Some(c) = counts.last_mut() {
                    *c += 1;
                }
            } else {
                firsts.push(s);
                counts.push(1);
            }
            if let Some(slot) = inverse.get_mut(s) {
                *slot = firsts.len() - 1;
            }
            previous = Some(this);
        }
        if !sorted {
            // Order of first occurrence: uniques take their places as their
            // first slices come, and the firsts then ascend.
            let uniques = firsts.len();
            spare.clear();
            spare.resize(uniques, usize::MAX);
            let mut next = 0;
            for &u in inverse.iter() {
                if let Some(place) = spare.get_mut(u).filter(|p| **p == usize::MAX) {
                    *place = next;
                    next += 1;
                }
            }
            for u in inverse.iter_mut() {
                *u = spare.get(*u).copied().unwrap_or(0);
            }
            order.clear();
            order.resize(uniques, 0);
            for (&place, &count) in spare.iter().zip(counts.iter()) {
                if let Some(slot) = order.get_mut(place) {
                    *slot = count;
                }
            }
            counts.clear();
            counts.extend_from_slice(order);
            firsts.sort_unstable();
        }
        Ok(())
    }

    /// One key per element of `data`, laid out slice by slice: element
    /// `(o, s, i)` of `[outer, slices, inner]` at `s * outer * inner + o *
    /// inner + i`.
    fn fill_keys(
        &mut self,
        data: &Tensor,
        outer: usize,
        slices: usize,
        inner: usize,
    ) -> Result<(), ShapeErrorKind> {
        use ElementType as E;
        let ty = data.element_type();
        let n = data.len();
        self.keys.clear();
        self.keys.resize(n, 0);
        if ty == E::String {
            return self.string_keys(data, outer, slices, inner);
        }
        let bytes = data.bytes().ok_or(unreadable("a tensor of a known element type", ty))?;
        let keys = &mut self.keys;
        macro_rules! fill {
            (|$i:ident| $key:expr) => {
                place(keys, outer, slices, inner, |$i| $key)
            };
        }
        let f16_nan = |m: u64| m > 0x7c00;
        let bf16_nan = |m: u64| m > 0x7f80;
        match ty {
            E::Boolean => fill!(|i| Some(u64::from(*bytes.get(i)? != 0))),
            E::U8 => fill!(|i| Some(u64::from(*bytes.get(i)?))),
            E::I8 => fill!(|i| Some(signed_key(i64::from(*bytes.get(i)? as i8)))),
            E::U16 => fill!(|i| Some(u64::from(u16::from_le_bytes(word(bytes, i)?)))),
            E::I16 => fill!(|i| Some(signed_key(i64::from(i16::from_le_bytes(word(bytes, i)?))))),
            E::U32 => fill!(|i| Some(u64::from(u32::from_le_bytes(word(bytes, i)?)))),
            E::I32 => fill!(|i| Some(signed_key(i64::from(i32::from_le_bytes(word(bytes, i)?))))),
            E::U64 => fill!(|i| Some(u64::from_le_bytes(word(bytes, i)?))),
            E::I64 => fill!(|i| Some(signed_key(i64::from_le_bytes(word(bytes, i)?)))),
            E::F16 => {
                fill!(|i| Some(real_key(u64::from(u16::from_le_bytes(word(bytes, i)?)), 1 << 15, f16_nan)))
            }
            E::Bf16 => {
                fill!(|i| Some(real_key(u64::from(u16::from_le_bytes(word(bytes, i)?)), 1 << 15, bf16_nan)))
            }
            E::F32 => {
                fill!(|i| Some(
                    real_key(u64::from(u32::from_le_bytes(word(bytes, i)?)), 1 << 31, |m| m > 0x7f80_0000)
                ))
            }
            E::F64 => fill!(|i| Some(
                real_key(u64::from_le_bytes(word(bytes, i)?), 1 << 63, |m| m > 0x7ff0_0000_0000_0000)
            )),
            // No infinity; the one NaN magnitude is all ones.
            E::F8e4m3 => fill!(|i| Some(real_key(u64::from(*bytes.get(i)?), 0x80, |m| m == 0x7f))),
            // The top byte of an f16.
            E::F8e5m2 => fill!(|i| Some(real_key(u64::from(*bytes.get(i)?), 0x80, |m| m > 0x7c))),
            // Powers of two, unsigned; 0xff is NaN.
            E::F8e8m0 => fill!(|i| {
                let code = *bytes.get(i)?;
                Some(if code == 0xff { NAN_KEY } else { u64::from(code) })
            }),
            E::F4e2m1 => fill!(|i| Some(real_key(u64::from(code_at(bytes, ty, i)?), 0x8, |_| false))),
            E::I4 => fill!(|i| Some(signed_key(i64::from(((code_at(bytes, ty, i)? << 4) as i8) >> 4)))),
            // nf4's codes index a table of ascending values.
            E::U1 | E::U2 | E::U3 | E::U4 | E::U6 | E::Nf4 => {
                fill!(|i| Some(u64::from(code_at(bytes, ty, i)?)))
            }
            E::String | E::Dynamic => None,
        }
        .ok_or(unreadable("a tensor of a known element type", ty))
    }

    /// Keys of strings: their ranks in byte order, equal strings one rank.
    fn string_keys(
        &mut self,
        data: &Tensor,
        outer: usize,
        slices: usize,
        inner: usize,
    ) -> Result<(), ShapeErrorKind> {
        let strings = data.strings().ok_or(unreadable("strings", data.element_type()))?;
        let Uniques { keys, order, spare, .. } = self;
        order.clear();
        order.extend(0..strings.len());
        let text = |i: usize| strings.get(i).map_or("", String::as_str);
        order.sort_unstable_by(|&a, &b| text(a).cmp(text(b)));
        spare.clear();
        spare.resize(strings.len(), 0);
        let mut rank = 0usize;
        for (k, &i) in order.iter().enumerate() {
            if k > 0 && order.get(k - 1).is_some_and(|&p| text(p) != text(i)) {
                rank += 1;
            }
            if let Some(slot) = spare.get_mut(i) {
                *slot = rank;
            }
        }
        place(keys, outer, slices, inner, |i| spare.get(i).map(|&r| r as u64))
            .ok_or(unreadable("strings", ElementType::String))
    }
}

/// Writes `key(e)` for every element `e` of data `[outer, slices, inner]`
/// into `keys`, slice by slice; `None` when a key cannot be read.
fn place(
    keys: &mut [u64],
    outer: usize,
    slices: usize,
    inner: usize,
    key: impl Fn(usize) -> Option<u64>,
) -> Option<()> {
    if outer == 1 {
        for (e, slot) in keys.iter_mut().enumerate() {
            *slot = key(e)?;
        }
        return Some(());
    }
    let row = outer * inner;
    let mut e = 0;
    for o in 0..outer {
        for s in 0..slices {
            let at = s * row + o * inner;
            for slot in keys.get_mut(at..at + inner)? {
                *slot = key(e)?;
                e += 1;
            }
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(ty: ElementType, shape: &str) -> PortFact {
        let shape: PartialShape = if shape == "-" { PartialShape::scalar() } else { shape.parse().unwrap() };
        PortFact::of(ty, shape)
    }

    fn axis(ty: ElementType, shape: &[usize], value: i64) -> PortFact {
        let t = match ty {
            ElementType::I32 => Tensor::from_vec(shape, vec![value as i32]).unwrap(),
            _ => Tensor::from_vec(shape, vec![value]).unwrap(),
        };
        PortFact::known(t)
    }

    /// The four outputs' types and shapes, or the first problem.
    fn infer(op: Unique, facts: &[PortFact]) -> Result<String, ShapeErrorKind> {
        let inputs: Vec<Input<'_>> = facts.iter().map(Input::new).collect();
        let out = op.infer(&inputs).map_err(|p| p.into_vec().remove(0).kind)?;
        Ok(out.iter().map(|f| format!("{} {}", f.element_type, f.shape)).collect::<Vec<_>>().join("; "))
    }

    fn shapes(facts: &[PortFact]) -> String {
        let out = infer(Unique::default(), facts).unwrap();
        out.split("; ").map(|s| s.split(' ').nth(1).unwrap()).collect::<Vec<_>>().join(" ")
    }

    use ElementType::{F32, I32, I64, U8};

    /// OpenVINO's type_prop/unique.cpp, and what OpenVINO 2026.4's shape
    /// inference gives for the cases it leaves out (its Python API, asked
    /// for each).
    #[test]
    fn shapes_are_openvinos() {
        let data = |s: &str| fact(F32, s);
        assert_eq!(shapes(&[data("2,4,2")]), "[1..16] [1..16] [16] [1..16]");
        let typed = |index_type, count_type| {
            infer(Unique { sorted: true, index_type, count_type }, &[data("1,3,3")]).unwrap()
        };
        assert_eq!(typed(I32, I64), "f32 [1..9]; i32 [1..9]; i32 [9]; i64 [1..9]");
        assert_eq!(typed(I64, I32), "f32 [1..9]; i64 [1..9]; i64 [9]; i32 [1..9]");
        assert_eq!(typed(I32, I32), "f32 [1..9]; i32 [1..9]; i32 [9]; i32 [1..9]");
        assert_eq!(shapes(&[fact(I32, "-")]), "[1] [1] [1] [1]");
        assert_eq!(shapes(&[fact(I64, "1")]), "[1] [1] [1] [1]");
        assert_eq!(shapes(&[data("2,4,2"), axis(I32, &[], 1)]), "[2,1..4,2] [1..16] [4] [1..16]");
        assert_eq!(shapes(&[data("2,4,2"), axis(I32, &[1], 2)]), "[2,4,1..2] [1..16] [2] [1..16]");
        assert_eq!(shapes(&[data("2,4,2"), axis(I64, &[], -3)]), "[1..2,4,2] [1..16] [2] [1..16]");
        assert_eq!(shapes(&[data("2,?,2"), axis(I64, &[], 1)]), "[2,?,2] [?] [?] [?]");
        assert_eq!(shapes(&[data("2,2..10,2"), axis(I64, &[], 1)]), "[2,1..10,2] [?] [2..10] [?]");
        assert_eq!(shapes(&[data("..."), axis(I32, &[], 1)]), "[...] [?] [?] [?]");
        assert_eq!(shapes(&[data("..."), axis(I32, &[], -1)]), "[...] [?] [?] [?]");
        assert_eq!(shapes(&[fact(U8, "?,?,?,?"), axis(I32, &[], -2)]), "[?,?,?,?] [?] [?] [?]");
        assert_eq!(shapes(&[fact(U8, "?,?,?,?")]), "[?] [?] [?] [?]");
        assert_eq!(shapes(&[data("...")]), "[?] [?] [?] [?]");
        assert_eq!(shapes(&[fact(I64, "1,0,2"), axis(I32, &[], 1)]), "[1,0,2] [0] [0] [0]");
        // Beyond type_prop: OpenVINO 2026.4 asked.
        assert_eq!(shapes(&[fact(I64, "1,0,2")]), "[?] [?] [?] [?]");
        assert_eq!(shapes(&[fact(I64, "1,0,2"), axis(I32, &[], 2)]), "[1,0,1..2] [?] [2] [?]");
        assert_eq!(shapes(&[data("2,2..10")]), "[?] [?] [?] [?]");
        assert_eq!(shapes(&[data("2,2..10"), axis(I64, &[], 0)]), "[1..2,2..10] [?] [2] [?]");
        assert_eq!(shapes(&[data("2,0..10"), axis(I64, &[], 1)]), "[2,1..10] [?] [..10] [?]");
        assert_eq!(shapes(&[data("2,2.."), axis(I64, &[], 1)]), "[2,1..] [?] [2..] [?]");
        assert_eq!(shapes(&[data("?,3"), axis(I64, &[], 1)]), "[?,1..3] [?] [3] [?]");
        assert_eq!(shapes(&[data("1..5,3"), axis(I64, &[], 0)]), "[1..5,3] [?] [1..5] [?]");
        assert_eq!(shapes(&[data("1"), axis(I64, &[], 0)]), "[1] [1] [1] [1]");
    }

    /// type_prop's unique_with_constant_input_no_axis, and others: known
    /// data gives exact shapes.
    #[test]
    fn known_data_gives_exact_shapes() {
        let known = |t: Tensor| PortFact::known(t);
        let five = known(Tensor::from_vec(&[5], vec![5i32, 1, 4, 2, 5]).unwrap());
        assert_eq!(shapes(&[five]), "[4] [4] [5] [4]");
        let rows = known(Tensor::from_vec(&[3, 2], vec![1i32, 2, 1, 2, 3, 4]).unwrap());
        assert_eq!(shapes(&[rows.clone(), axis(I64, &[], 0)]), "[2,2] [2] [3] [2]");
        assert_eq!(shapes(&[rows, axis(I64, &[], 1)]), "[3,2] [2] [2] [2]");
        let empty = known(Tensor::from_vec(&[0, 3], Vec::<f32>::new()).unwrap());
        assert_eq!(shapes(std::slice::from_ref(&empty)), "[0] [0] [0] [0]");
        assert_eq!(shapes(&[empty, axis(I64, &[], 1)]), "[0,1] [1] [3] [1]");
    }

    #[test]
    fn bad_axes_and_types_are_refused() {
        let data = fact(F32, "2,3");
        let err = |facts: &[PortFact]| infer(Unique::default(), facts).unwrap_err();
        assert!(matches!(
            err(&[data.clone(), axis(I64, &[], 2)]),
            ShapeErrorKind::OpAxisOutOfRange { axis: 2, rank: 2, .. }
        ));
        assert!(matches!(
            err(&[data.clone(), axis(I64, &[], -3)]),
            ShapeErrorKind::OpAxisOutOfRange { axis: -3, .. }
        ));
        assert!(matches!(
            err(&[fact(F32, "-"), axis(I64, &[], 0)]),
            ShapeErrorKind::OpAxisOutOfRange { rank: 0, .. }
        ));
        let float_axis = PortFact::known(Tensor::from_vec(&[], vec![1f32]).unwrap());
        assert!(matches!(err(&[data.clone(), float_axis]), ShapeErrorKind::IndexType { found: F32, .. }));
        let two = PortFact::known(Tensor::from_vec(&[2], vec![1i64, 0]).unwrap());
        assert!(matches!(err(&[data.clone(), two]), ShapeErrorKind::InputShape { .. }));
        assert!(matches!(err(&[data.clone(), fact(I32, "-")]), ShapeErrorKind::InputNotConstant { .. }));
        // Every element type is taken, as OpenVINO's shape inference takes it.
        for ty in ovir_tensor::ALL_ELEMENT_TYPES {
            assert!(infer(Unique::default(), &[fact(ty, "2,3")]).is_ok(), "{ty}");
        }
        let bad = |name: &str, value: &str| {
            let mut layer = Unique::default().write();
            for (n, v) in &mut layer.attrs {
                if n == name {
                    *v = value.to_string();
                }
            }
            Unique::build(&layer.to_layer_with(1), 10)
        };
        assert!(bad("index_element_type", "f32").is_err());
        assert!(bad("count_element_type", "u32").is_err());
        assert!(bad("sorted", "maybe").is_err());
        assert_eq!(bad("sorted", "false").map(|u| u.sorted), Ok(false));
        // Absent attributes take OpenVINO's defaults.
        let bare = OpLayer::builtin(&SPEC, "opset10");
        assert_eq!(Unique::build(&bare.to_layer_with(1), 10), Ok(Unique::default()));
    }

    /// The search on OpenVINO's op_reference cases and the CPU plugin's
    /// answers: (data, sorted, firsts, inverse, counts).
    #[test]
    fn uniques_are_found_as_openvino_finds_them() {
        let run = |t: &Tensor, axis: Option<usize>, sorted: bool| {
            let mut u = Uniques::new();
            u.find(t, axis, sorted).unwrap();
            (u.firsts().to_vec(), u.inverse().to_vec(), u.counts().to_vec())
        };
        let seven = Tensor::from_vec(&[7], vec![1i32, 3, 5, 3, 2, 4, 2]).unwrap();
        assert_eq!(
            run(&seven, None, false),
            (vec![0, 1, 2, 4, 5], vec![0, 1, 2, 1, 3, 4, 3], vec![1, 2, 1, 2, 1])
        );
        assert_eq!(
            run(&seven, None, true),
            (vec![0, 4, 1, 5, 2], vec![0, 2, 4, 2, 1, 3, 1], vec![1, 2, 2, 1, 1])
        );
        assert_eq!(run(&seven, Some(0), true), run(&seven, None, true));
        let two_by_six = Tensor::from_vec(&[2, 6], vec![3i64, 5, 3, 2, 4, 2, 1, 2, 3, 4, 5, 6]).unwrap();
        assert_eq!(
            run(&two_by_six, None, false),
            (vec![0, 1, 3, 4, 6, 11], vec![0, 1, 0, 2, 3, 2, 4, 2, 0, 3, 1, 5], vec![3, 2, 3, 2, 1, 1])
        );
        // Rows along axis 0 and columns along axis 1 (the CPU plugin's answers).
        let rows = Tensor::from_vec(&[4, 2], vec![1i32, 2, 3, 4, 1, 2, 0, 9]).unwrap();
        assert_eq!(run(&rows, Some(0), true), (vec![3, 0, 1], vec![1, 2, 1, 0], vec![1, 2, 1]));
        assert_eq!(run(&rows, Some(0), false), (vec![0, 1, 3], vec![0, 1, 0, 2], vec![2, 1, 1]));
        let columns = Tensor::from_vec(&[2, 3], vec![2i32, 1, 2, 3, 4, 3]).unwrap();
        assert_eq!(run(&columns, Some(1), true), (vec![1, 0], vec![1, 0, 1], vec![1, 2]));
        // -0.0 and 0.0 are one unique; each NaN its own, after the numbers.
        let reals = Tensor::from_vec(&[6], vec![f32::NAN, -0.0, 1.0, f32::NAN, 0.0, -1.0]).unwrap();
        assert_eq!(
            run(&reals, None, false),
            (vec![0, 1, 2, 3, 5], vec![0, 1, 2, 3, 1, 4], vec![1, 2, 1, 1, 1])
        );
        assert_eq!(
            run(&reals, None, true),
            (vec![5, 1, 2, 0, 3], vec![3, 1, 2, 4, 1, 0], vec![1, 2, 1, 1, 1])
        );
        // Strings by their bytes; booleans false first.
        let words = Tensor::from_strings(&[4], ["b", "a", "b", "ab"].map(String::from).to_vec()).unwrap();
        assert_eq!(run(&words, None, true), (vec![1, 3, 0], vec![2, 0, 2, 1], vec![1, 1, 2]));
        let flags = Tensor::from_vec(&[3], vec![true, false, true]).unwrap();
        assert_eq!(run(&flags, None, true), (vec![1, 0], vec![1, 0, 1], vec![1, 2]));
        // Slices of no element are all one.
        let empty = Tensor::from_vec(&[0, 3], Vec::<u8>::new()).unwrap();
        assert_eq!(run(&empty, Some(1), true), (vec![0], vec![0, 0, 0], vec![3]));
        assert_eq!(run(&empty, Some(0), true), (vec![], vec![], vec![]));
        crate::ops::check_round_trips::<Unique>();
    }
}
