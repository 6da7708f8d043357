//! Dimensions and partial shapes, with OpenVINO's interval semantics.

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

/// One dimension: a closed interval `min..=max` of possible sizes, where an
/// absent `max` means "no upper bound".
///
/// A static dimension has `min == max`; `?` is `0..` (no bounds at all).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim {
    min: u64,
    max: Option<u64>,
}

impl Dim {
    /// A dimension with no bounds: `?`.
    pub const DYNAMIC: Dim = Dim { min: 0, max: None };

    /// A dimension of exactly `n` elements.
    pub const fn fixed(n: u64) -> Self {
        Dim { min: n, max: Some(n) }
    }

    /// An interval dimension `min..=max` (`max = None`: unbounded).
    /// Returns `None` when `max < min`.
    pub const fn interval(min: u64, max: Option<u64>) -> Option<Self> {
        if let Some(m) = max {
            if m < min {
                return None;
            }
        }
        Some(Dim { min, max })
    }

    /// The smallest size this dimension allows.
    pub const fn min(self) -> u64 {
        self.min
    }

    /// The largest size this dimension allows, if bounded.
    pub const fn max(self) -> Option<u64> {
        self.max
    }

    /// The size, when the dimension is static.
    pub fn get(self) -> Option<u64> {
        match self.max {
            Some(m) if m == self.min => Some(m),
            _ => None,
        }
    }

    /// `true` when the dimension has one possible size.
    pub fn is_static(self) -> bool {
        self.get().is_some()
    }

    /// `true` when `size` lies within the interval.
    pub fn contains(self, size: u64) -> bool {
        size >= self.min && self.max.is_none_or(|m| size <= m)
    }

    /// OpenVINO's dimension merge: the intersection of the two intervals,
    /// or `None` when they do not overlap.
    pub fn merge(self, other: Dim) -> Option<Dim> {
        let min = self.min.max(other.min);
        let max = match (self.max, other.max) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Dim::interval(min, max)
    }

    /// `true` when the two intervals share at least one size.
    pub fn compatible(self, other: Dim) -> bool {
        self.merge(other).is_some()
    }
}

impl From<u64> for Dim {
    fn from(n: u64) -> Self {
        Dim::fixed(n)
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.min, self.max) {
            (min, Some(max)) if min == max => write!(f, "{min}"),
            (0, None) => f.write_str("?"),
            (0, Some(max)) => write!(f, "..{max}"),
            (min, None) => write!(f, "{min}.."),
            (min, Some(max)) => write!(f, "{min}..{max}"),
        }
    }
}

/// A static dimension is its size, a dimension with no bounds (`?`) is
/// `null` (`None`), and any other interval is `{"min": a, "max": b}`, with
/// `"max": null` when it has no upper bound.
///
/// ```
/// use ovir_tensor::Dim;
/// let json = |d: Dim| serde_json::to_string(&d).unwrap();
/// assert_eq!(json(Dim::fixed(3)), "3");
/// assert_eq!(json(Dim::DYNAMIC), "null");
/// assert_eq!(json(Dim::interval(1, Some(8)).unwrap()), r#"{"min":1,"max":8}"#);
/// assert_eq!(json(Dim::interval(2, None).unwrap()), r#"{"min":2,"max":null}"#);
/// ```
impl Serialize for Dim {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        match (self.get(), self.min, self.max) {
            (Some(n), _, _) => s.serialize_u64(n),
            (None, 0, None) => s.serialize_none(),
            (None, min, max) => {
                let mut interval = s.serialize_struct("Dim", 2)?;
                interval.serialize_field("min", &min)?;
                interval.serialize_field("max", &max)?;
                interval.end()
            }
        }
    }
}

/// Why a shape or dimension string could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid dimension `{text}`: {reason}")]
pub struct ShapeParseError {
    /// The offending piece of text.
    pub text: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl FromStr for Dim {
    type Err = ShapeParseError;

    /// Parses `N`, `?`, `-1`, `a..b`, `..b` or `a..`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let t = text.trim();
        let err = |reason| ShapeParseError { text: t.to_string(), reason };
        if t == "?" || t == "-1" {
            return Ok(Dim::DYNAMIC);
        }
        let bound = |s: &str| -> Result<Option<u64>, ShapeParseError> {
            let s = s.trim();
            if s.is_empty() {
                return Ok(None);
            }
            if s == "-1" {
                return Ok(None);
            }
            if s.starts_with('-') {
                return Err(err("a dimension cannot be negative (only -1 means dynamic)"));
            }
            s.parse::<u64>()
                .map(Some)
                .map_err(|_| err("expected a non-negative integer, `?`, `-1` or an interval `a..b`"))
        };
        match t.split_once("..") {
            Some((lo, hi)) => {
                let min = bound(lo)?.unwrap_or(0);
                let max = bound(hi)?;
                Dim::interval(min, max)
                    .ok_or_else(|| err("the interval's upper bound is below its lower bound"))
            }
            None => match bound(t)? {
                Some(n) => Ok(Dim::fixed(n)),
                None => Err(err("empty dimension")),
            },
        }
    }
}

/// A shape whose rank and dimensions may be only partly known.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PartialShape {
    dims: Option<Vec<Dim>>,
}

impl PartialShape {
    /// A shape of unknown rank (`...`).
    pub const fn dynamic() -> Self {
        PartialShape { dims: None }
    }

    /// A shape of known rank.
    pub fn new(dims: Vec<Dim>) -> Self {
        PartialShape { dims: Some(dims) }
    }

    /// A rank-0 shape (a scalar).
    pub fn scalar() -> Self {
        PartialShape::new(Vec::new())
    }

    /// A fully static shape.
    pub fn from_static(dims: &[usize]) -> Self {
        PartialShape::new(dims.iter().map(|&d| Dim::fixed(d as u64)).collect())
    }

    /// A shape of known rank whose every dimension is `?`.
    pub fn with_rank(rank: usize) -> Self {
        PartialShape::new(vec![Dim::DYNAMIC; rank])
    }

    /// The rank, when known.
    pub fn rank(&self) -> Option<usize> {
        self.dims.as_ref().map(Vec::len)
    }

    /// The dimensions, when the rank is known.
    pub fn dims(&self) -> Option<&[Dim]> {
        self.dims.as_deref()
    }

    /// `true` when rank and every dimension are known.
    pub fn is_static(&self) -> bool {
        self.dims.as_ref().is_some_and(|d| d.iter().all(|d| d.is_static()))
    }

    /// The static dimensions, when the whole shape is static.
    pub fn to_static(&self) -> Option<Vec<usize>> {
        self.dims.as_ref()?.iter().map(|d| d.get().and_then(|n| usize::try_from(n).ok())).collect()
    }

    /// `true` when a tensor of the given static shape fits this partial
    /// shape.
    pub fn accepts(&self, shape: &[usize]) -> bool {
        match &self.dims {
            None => true,
            Some(dims) => {
                dims.len() == shape.len() && dims.iter().zip(shape).all(|(d, &n)| d.contains(n as u64))
            }
        }
    }

    /// OpenVINO's shape merge: ranks must agree when both are known, and
    /// each pair of dimensions must overlap. `None` when they conflict.
    pub fn merge(&self, other: &PartialShape) -> Option<PartialShape> {
        match (&self.dims, &other.dims) {
            (None, _) => Some(other.clone()),
            (_, None) => Some(self.clone()),
            (Some(a), Some(b)) => {
                if a.len() != b.len() {
                    return None;
                }
                let dims = a.iter().zip(b).map(|(x, y)| x.merge(*y)).collect::<Option<Vec<_>>>()?;
                Some(PartialShape::new(dims))
            }
        }
    }

    /// `true` when [`merge`](Self::merge) would succeed.
    pub fn compatible(&self, other: &PartialShape) -> bool {
        self.merge(other).is_some()
    }
}

impl fmt::Display for PartialShape {
    /// Writes the shape as OpenVINO does: `[?,3,1..10]`, `[]` for a scalar,
    /// `[...]` for a dynamic rank.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.dims {
            None => f.write_str("[...]"),
            Some(dims) => {
                f.write_str("[")?;
                for (i, d) in dims.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{d}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// An array of its dimensions (see [`Dim`]'s), or `null` when even the
/// rank is unknown.
///
/// ```
/// use ovir_tensor::PartialShape;
/// let json = |text: &str| serde_json::to_string(&text.parse::<PartialShape>().unwrap()).unwrap();
/// assert_eq!(json("[2,?,1..4]"), r#"[2,null,{"min":1,"max":4}]"#);
/// assert_eq!(json("[]"), "[]");
/// assert_eq!(json("..."), "null");
/// ```
impl Serialize for PartialShape {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.dims {
            None => s.serialize_none(),
            Some(dims) => dims.serialize(s),
        }
    }
}

impl FromStr for PartialShape {
    type Err = ShapeParseError;

    /// Parses the IR's shape syntax: optional brackets around comma-separated
    /// dimensions (see [`Dim`]), `...` for a dynamic rank and the empty
    /// string for a scalar. Spaces are allowed anywhere between items.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut t = text.trim();
        if let Some(inner) = t.strip_prefix('[') {
            t = inner.strip_suffix(']').ok_or_else(|| ShapeParseError {
                text: text.to_string(),
                reason: "a `[` is not closed by `]`",
            })?;
            t = t.trim();
        }
        if t.is_empty() {
            return Ok(PartialShape::scalar());
        }
        if t == "..." {
            return Ok(PartialShape::dynamic());
        }
        t.split(',').map(str::parse).collect::<Result<Vec<_>, _>>().map(PartialShape::new)
    }
}

/// Multiplies dimensions with overflow checks: the element count of a
/// static shape, or `None` when it does not fit a `usize`.
pub fn element_count(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ps(s: &str) -> PartialShape {
        s.parse().unwrap_or_else(|e| unreachable!("{s}: {e}"))
    }

    #[test]
    fn parses_every_dimension_form() {
        assert_eq!(ps("?,3,1..10").to_string(), "[?,3,1..10]");
        assert_eq!(ps("[-1, 4 , ..8, 2..]").to_string(), "[?,4,..8,2..]");
        assert_eq!(ps(""), PartialShape::scalar());
        assert_eq!(ps("[]"), PartialShape::scalar());
        assert_eq!(ps("..."), PartialShape::dynamic());
        assert_eq!(ps("2, 3").to_static(), Some(vec![2, 3]));
    }

    #[test]
    fn rejects_malformed_dimensions() {
        for bad in ["-2", "a", "3..1", "1,,2", "[1,2", "1.5"] {
            assert!(bad.parse::<PartialShape>().is_err(), "{bad} should be refused");
        }
    }

    #[test]
    fn merge_intersects_intervals() {
        // OpenVINO: data {2..5, 4, 1..3} merged with {3, ?, ?} gives {3, 4, 1..3}.
        let merged = ps("2..5,4,1..3").merge(&ps("3,?,?"));
        assert_eq!(merged.map(|s| s.to_string()), Some("[3,4,1..3]".to_string()));
        assert!(ps("2..5").merge(&ps("6")).is_none());
        assert!(ps("2,3").merge(&ps("2")).is_none());
        assert_eq!(ps("...").merge(&ps("1,2")), Some(ps("1,2")));
    }

    #[test]
    fn accepts_checks_rank_and_bounds() {
        let s = ps("?,3,1..10");
        assert!(s.accepts(&[0, 3, 10]));
        assert!(!s.accepts(&[1, 3, 11]));
        assert!(!s.accepts(&[1, 3]));
        assert!(PartialShape::dynamic().accepts(&[7, 7, 7, 7]));
    }

    #[test]
    fn element_count_detects_overflow() {
        assert_eq!(element_count(&[2, 3, 4]), Some(24));
        assert_eq!(element_count(&[]), Some(1));
        assert_eq!(element_count(&[usize::MAX, 2]), None);
    }
}
