//! Broadcast-1 and Broadcast-3: repeat the data to fill a target shape.

use ovir_ir::Layer;
use ovir_tensor::{Dim, PartialShape};

use crate::dims::{checked_ints, dims_of, fact_with_dims, input_rank, integer_input, ints_of, vector_len};
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{
    vector_of, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, ShapeRule, Size, ValueDomain, Versions,
};

/// How `Broadcast` lines the data's axes up with the target shape's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BroadcastMode {
    /// Axes line up from the end; each data dimension is 1 or equal to the
    /// target's; the output has the target shape.
    Numpy,
    /// A third input maps each data axis to a target axis; the output has
    /// the target shape.
    Explicit,
    /// Both shapes broadcast against each other, NumPy style (`Broadcast-3`
    /// only); the output may be larger than the target.
    Bidirectional,
}

impl BroadcastMode {
    /// Parses the `mode` attribute of a Broadcast of the given version,
    /// ignoring ASCII case as OpenVINO does. `none` is OpenVINO's other
    /// name for `explicit`.
    pub fn from_attr(value: &str, version: u32) -> Option<Self> {
        let v = value.trim();
        if v.eq_ignore_ascii_case("numpy") {
            Some(Self::Numpy)
        } else if v.eq_ignore_ascii_case("explicit") || v.eq_ignore_ascii_case("none") {
            Some(Self::Explicit)
        } else if version >= 3 && v.eq_ignore_ascii_case("bidirectional") {
            Some(Self::Bidirectional)
        } else {
            None
        }
    }

    /// The attribute spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Numpy => "numpy",
            Self::Explicit => "explicit",
            Self::Bidirectional => "bidirectional",
        }
    }
}

/// Repeats the data to fill the target shape given by the second input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Broadcast {
    /// How the data's axes line up with the target's.
    pub mode: BroadcastMode,
    /// The op version: 1 or 3, from the opset the layer names.
    pub version: u32,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "Broadcast",
    aliases: &[],
    versions: Versions::Opsets(1, 16),
    inputs: (2, Some(3)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for Broadcast {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, opset: u32) -> Result<Self, Problems> {
        let version = if opset >= 3 { 3 } else { 1 };
        let mode = match layer.attrs.value("mode") {
            None => BroadcastMode::Numpy,
            Some(value) => match BroadcastMode::from_attr(value, version) {
                Some(m) => m,
                None => {
                    let mut problems = Problems::new();
                    problems.attr(
                        "mode",
                        ShapeErrorKind::InvalidBroadcastMode { value: value.to_string(), version },
                    );
                    return Err(problems);
                }
            },
        };
        Ok(Broadcast { mode, version })
    }

    fn write(&self) -> OpLayer {
        OpLayer::builtin(&SPEC, format!("opset{}", self.version)).attr("mode", self.mode.as_str())
    }

    fn examples() -> Vec<Self> {
        vec![
            Broadcast { mode: BroadcastMode::Numpy, version: 1 },
            Broadcast { mode: BroadcastMode::Explicit, version: 1 },
            Broadcast { mode: BroadcastMode::Numpy, version: 3 },
            Broadcast { mode: BroadcastMode::Explicit, version: 3 },
            Broadcast { mode: BroadcastMode::Bidirectional, version: 3 },
        ]
    }
}

impl Operation for Broadcast {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data, target, rest @ ..] = inputs else {
            return Err(Problems::one(ShapeErrorKind::InputCountRange {
                op: SPEC.name,
                min: 2,
                max: Some(3),
                found: inputs.len(),
            }));
        };
        let axes_mapping = rest.first();
        let mut problems = Problems::new();
        let mode = self.mode;
        let explicit = mode == BroadcastMode::Explicit;
        // Broadcast-1 ignores a third input outside explicit mode; Broadcast-3
        // refuses it.
        if (explicit && axes_mapping.is_none()) || (!explicit && self.version >= 3 && axes_mapping.is_some())
        {
            problems.layer(ShapeErrorKind::AxesMappingInput { mode: mode.as_str(), explicit });
        }
        let target_ok = integer_input(&mut problems, "Broadcast", "target shape", target.fact)
            & input_rank(&mut problems, "Broadcast", "target shape", target.fact, &[1], "a 1-D tensor");
        let mapping = match axes_mapping.filter(|_| explicit) {
            Some(m) => {
                let ok = integer_input(&mut problems, "Broadcast", "axes_mapping", m.fact)
                    & input_rank(&mut problems, "Broadcast", "axes_mapping", m.fact, &[1], "a 1-D tensor");
                checked_ints(ok, m.fact)
            }
            None => None,
        };
        let mut target_dims = if target_ok { dims_of(target.fact) } else { None };
        if let Some(values) = checked_ints(target_ok, target.fact) {
            if let Some((index, &value)) = values.iter().enumerate().find(|(_, &v)| v < 0) {
                problems.layer(ShapeErrorKind::NegativeValue {
                    op: "Broadcast",
                    input: "target shape",
                    index,
                    value,
                });
                target_dims = None;
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let target_len = match target.fact.shape.dims() {
            Some([n]) => n.get().and_then(|n| usize::try_from(n).ok()),
            _ => None,
        };
        let shape = match broadcast_shape(
            mode,
            &data.fact.shape,
            target_dims.as_deref(),
            target_len,
            mapping.as_deref(),
        ) {
            Ok(s) => s,
            Err(kind) => return Err(Problems::one(kind)),
        };
        // One dimension repeated into a list of them stays known.
        let repeated = match (dims_of(data.fact).as_deref(), shape.to_static().as_deref()) {
            (Some(&[d]), Some(&[n])) if n <= 64 => Some(vec![d; n]),
            _ => None,
        };
        Ok(vec![fact_with_dims(data.fact.element_type, shape, repeated)])
    }

    fn input_values(&self, input: usize, inputs: &[&PortFact]) -> ValueDomain {
        let Some(rank) = inputs.first().and_then(|d| d.shape.rank()) else {
            return ValueDomain::Any;
        };
        let target_len = inputs.get(1).and_then(|t| vector_len(t));
        match (input, self.mode) {
            // The target holds the data's dimensions where the data has
            // them, lined up from the end (or where the mapping puts them),
            // and 1 elsewhere.
            (1, BroadcastMode::Explicit) => {
                let mapping: Vec<usize> = match inputs.get(2).and_then(|m| ints_of(m)) {
                    Some(m) => m.into_iter().map(|a| usize::try_from(a).unwrap_or(usize::MAX)).collect(),
                    // A mapping made up is 0, 1, 2, ...
                    None => (0..rank).collect(),
                };
                let len =
                    target_len.unwrap_or_else(|| mapping.iter().max().map_or(rank, |&m| m.saturating_add(1)));
                let at = |k: usize| mapping.iter().position(|&m| m == k);
                ValueDomain::Dims(
                    (0..len).map(|k| at(k).map(|axis| Size::DimOf { input: 0, axis })).collect(),
                )
            }
            (1, _) => {
                let len = target_len.unwrap_or(rank);
                let start = len.saturating_sub(rank);
                let lead = rank.saturating_sub(len);
                ValueDomain::Dims(
                    (0..len)
                        .map(|k| (k >= start).then(|| Size::DimOf { input: 0, axis: k - start + lead }))
                        .collect(),
                )
            }
            (2, BroadcastMode::Explicit) => ValueDomain::Axes {
                rank: Some(target_len.map_or(Size::DimOf { input: 1, axis: 0 }, |n| Size::Known(n as u64))),
                first: 0,
                distinct: true,
            },
            _ => ValueDomain::Any,
        }
    }

    fn input_shape(&self, input: usize, inputs: &[&PortFact]) -> Option<ShapeRule> {
        let explicit = self.mode == BroadcastMode::Explicit;
        match input {
            // A known mapping says how long the target must be at least.
            1 if explicit => {
                let longest = inputs.get(2).and_then(|m| ints_of(m)).and_then(|m| m.into_iter().max());
                let len = longest.and_then(|m| u64::try_from(m).ok()?.checked_add(1));
                vector_of(inputs.get(1), len.map_or(Size::RankOf { input: 0 }, Size::Known))
            }
            1 | 2 if input == 1 || explicit => vector_of(inputs.get(input), Size::RankOf { input: 0 }),
            // The data follows a target shape that is known: each of its
            // dimensions is the target's it lines up with.
            0 => {
                let rank = inputs.first()?.shape.rank()?;
                let target = dims_of(inputs.get(1)?)?;
                let position = |k: usize| -> Option<usize> {
                    if explicit {
                        let mapping = ints_of(inputs.get(2)?)?;
                        usize::try_from(*mapping.get(k)?).ok()
                    } else {
                        (k + target.len()).checked_sub(rank)
                    }
                };
                let rule: ShapeRule = (0..rank)
                    .map(|k| position(k).and_then(|p| target.get(p)?.get()).map(Size::Known))
                    .collect();
                rule.iter().any(Option::is_some).then_some(rule)
            }
            _ => None,
        }
    }
}

/// OpenVINO's broadcast merge of two dimensions: a 1 stretches to the
/// other; otherwise they must agree.
fn broadcast_merge(a: Dim, b: Dim) -> Option<Dim> {
    match (a.contains(1), b.contains(1)) {
        _ if a.get() == Some(1) => Some(b),
        _ if b.get() == Some(1) => Some(a),
        // Either side may turn out to be 1: the result spans both.
        (true, true) => {
            let max = match (a.max(), b.max()) {
                (Some(x), Some(y)) => Some(x.max(y)),
                _ => None,
            };
            Dim::interval(a.min().min(b.min()), max)
        }
        (true, false) => Some(b),
        (false, true) => Some(a),
        (false, false) => a.merge(b),
    }
}

/// Broadcast's output shape. `target` is the target shape's value as
/// dimensions when it is known (fully or as intervals), `target_len` its
/// length when only that is known; `axes_mapping` is explicit mode's third
/// input, when known.
pub fn broadcast_shape(
    mode: BroadcastMode,
    data: &PartialShape,
    target: Option<&[Dim]>,
    target_len: Option<usize>,
    axes_mapping: Option<&[i64]>,
) -> Result<PartialShape, ShapeErrorKind> {
    let name = mode.as_str();
    let Some(target) = target else {
        return Ok(match (mode, target_len, data.rank()) {
            (BroadcastMode::Bidirectional, Some(n), Some(r)) => PartialShape::with_rank(n.max(r)),
            (BroadcastMode::Bidirectional, _, _) => PartialShape::dynamic(),
            (_, Some(n), _) => PartialShape::with_rank(n),
            (_, None, _) => PartialShape::dynamic(),
        });
    };
    let Some(dims) = data.dims() else {
        return Ok(match mode {
            BroadcastMode::Bidirectional => PartialShape::dynamic(),
            _ => PartialShape::new(target.to_vec()),
        });
    };
    match mode {
        BroadcastMode::Numpy => {
            if target.len() < dims.len() {
                return Err(ShapeErrorKind::BroadcastTargetRank {
                    data_rank: dims.len(),
                    target_rank: target.len(),
                });
            }
            let start = target.len() - dims.len();
            for (k, (&d, &t)) in dims.iter().zip(&target[start..]).enumerate() {
                if d.is_static() && t.is_static() && d.get() != Some(1) && d != t {
                    return Err(ShapeErrorKind::BroadcastDim {
                        mode: name,
                        data: d,
                        target: t,
                        axis: start + k,
                    });
                }
            }
            Ok(PartialShape::new(target.to_vec()))
        }
        BroadcastMode::Explicit => {
            if let Some(mapping) = axes_mapping {
                let bad = || ShapeErrorKind::AxesMapping {
                    axes: mapping.to_vec(),
                    data_rank: dims.len(),
                    target_rank: target.len(),
                };
                // A scalar is broadcast as if it had one axis of size 1.
                let rank = if dims.is_empty() && !mapping.is_empty() { 1 } else { dims.len() };
                if mapping.len() != rank
                    || mapping.windows(2).any(|w| w[0] > w[1])
                    || mapping.iter().any(|&m| m < 0 || m as u64 >= target.len() as u64)
                {
                    return Err(bad());
                }
                for (k, &m) in mapping.iter().enumerate() {
                    let d = dims.get(k).copied().unwrap_or(Dim::fixed(1));
                    let t = target.get(m as usize).copied().unwrap_or(Dim::DYNAMIC);
                    if !d.compatible(t) && !d.contains(1) {
                        return Err(ShapeErrorKind::BroadcastDim {
                            mode: name,
                            data: d,
                            target: t,
                            axis: m as usize,
                        });
                    }
                }
            }
            Ok(PartialShape::new(target.to_vec()))
        }
        BroadcastMode::Bidirectional => {
            let rank = dims.len().max(target.len());
            let pad = |v: &[Dim]| -> Vec<Dim> {
                let mut p = vec![Dim::fixed(1); rank - v.len()];
                p.extend_from_slice(v);
                p
            };
            let (a, b) = (pad(dims), pad(target));
            let mut out = Vec::with_capacity(rank);
            for (k, (&x, &y)) in a.iter().zip(&b).enumerate() {
                match broadcast_merge(x, y) {
                    Some(m) => out.push(m),
                    None => {
                        return Err(ShapeErrorKind::BroadcastDim { mode: name, data: x, target: y, axis: k })
                    }
                }
            }
            Ok(PartialShape::new(out))
        }
    }
}
