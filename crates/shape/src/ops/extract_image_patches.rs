//! ExtractImagePatches-3: the patches a convolution would see, stacked
//! along the channels.
//!
//! Data `[N, C, H, W]` gives `[N, sizes[0] * sizes[1] * C, out_h, out_w]`:
//! with `valid` padding an axis of `n` takes `ceil((n - rate * (size - 1))
//! / stride)` patches (none when the patch is larger than the axis), and
//! with `same_upper` or `same_lower` `ceil(n / stride)`, the data padded
//! with zeros as needed. Each bound of an interval is worked out alike,
//! as OpenVINO does.

use ovir_ir::Layer;
use ovir_tensor::{Dim, PartialShape};

use crate::attrs::pair;
use crate::dims::multiply_dim;
use crate::error::ShapeErrorKind;
use crate::fact::PortFact;
use crate::operation::{exactly, BuiltinOp, Input, OpLayer, OpSpec, Operation, Problems, Versions};

/// How ExtractImagePatches pads the data: not at all, or with zeros so
/// that every stride's patch starts inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PatchPadding {
    /// No padding: only patches wholly inside the data.
    Valid,
    /// Zeros around the data, an odd one more at the end.
    SameUpper,
    /// Zeros around the data, an odd one more at the start.
    SameLower,
}

impl PatchPadding {
    /// Parses the `auto_pad` attribute, ignoring ASCII case.
    pub fn from_attr(value: &str) -> Option<Self> {
        let v = value.trim();
        [Self::Valid, Self::SameUpper, Self::SameLower]
            .into_iter()
            .find(|p| v.eq_ignore_ascii_case(p.as_str()))
    }

    /// The attribute spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Valid => "valid",
            Self::SameUpper => "same_upper",
            Self::SameLower => "same_lower",
        }
    }
}

/// Collects patches of `sizes` elements (rows, columns), `strides` apart,
/// each reading every `rates`-th element, into the channel axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExtractImagePatches {
    /// `[size_rows, size_cols]`: the elements of a patch along each axis.
    pub sizes: [u64; 2],
    /// `[stride_rows, stride_cols]`, 1 or more: how far patches start apart.
    pub strides: [u64; 2],
    /// `[rate_rows, rate_cols]`, 1 or more: how far a patch's elements are
    /// apart in the data.
    pub rates: [u64; 2],
    /// The `auto_pad` attribute.
    pub padding: PatchPadding,
}

pub(crate) const SPEC: OpSpec = OpSpec {
    name: "ExtractImagePatches",
    aliases: &[],
    versions: Versions::Opsets(3, 16),
    inputs: (1, Some(1)),
    outputs: (1, Some(1)),
};

impl BuiltinOp for ExtractImagePatches {
    const SPEC: OpSpec = SPEC;

    fn build(layer: &Layer, _opset: u32) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let sizes = pair(layer, SPEC.name, "sizes", 0, None, &mut problems);
        let strides = pair(layer, SPEC.name, "strides", 1, None, &mut problems);
        let rates = pair(layer, SPEC.name, "rates", 1, None, &mut problems);
        let padding = crate::attrs::required(layer, SPEC.name, "auto_pad", &mut problems).and_then(|value| {
            let padding = PatchPadding::from_attr(value);
            if padding.is_none() {
                problems.attr("auto_pad", ShapeErrorKind::InvalidPatchPadding { value: value.to_string() });
            }
            padding
        });
        match (sizes, strides, rates, padding) {
            (Some(sizes), Some(strides), Some(rates), Some(padding)) => {
                Ok(ExtractImagePatches { sizes, strides, rates, padding })
            }
            _ => Err(problems),
        }
    }

    fn write(&self) -> OpLayer {
        // OpenVINO writes a list with a space after each comma.
        let pair = |v: [u64; 2]| format!("{}, {}", v[0], v[1]);
        OpLayer::builtin(&SPEC, "opset3")
            .attr("sizes", pair(self.sizes))
            .attr("strides", pair(self.strides))
            .attr("rates", pair(self.rates))
            .attr("auto_pad", self.padding.as_str())
    }

    fn examples() -> Vec<Self> {
        vec![
            ExtractImagePatches {
                sizes: [3, 3],
                strides: [5, 5],
                rates: [1, 1],
                padding: PatchPadding::Valid,
            },
            ExtractImagePatches {
                sizes: [4, 2],
                strides: [9, 3],
                rates: [2, 1],
                padding: PatchPadding::SameUpper,
            },
            ExtractImagePatches {
                sizes: [0, 1],
                strides: [1, 1],
                rates: [1, 3],
                padding: PatchPadding::SameLower,
            },
        ]
    }
}

impl ExtractImagePatches {
    /// The patches along a spatial axis of `n` elements (`k` is 0 for
    /// rows, 1 for columns), saturating where a bound would overflow.
    pub fn patches(&self, k: usize, n: u64) -> u64 {
        let (size, stride, rate) = (self.sizes[k], self.strides[k].max(1), self.rates[k]);
        match self.padding {
            PatchPadding::Valid => {
                let span = rate.saturating_mul(size.saturating_sub(1));
                n.saturating_sub(span).div_ceil(stride)
            }
            PatchPadding::SameUpper | PatchPadding::SameLower => n.div_ceil(stride),
        }
    }

    /// The zeros before the data along spatial axis `k` of `n` elements
    /// (0 for rows, 1 for columns), as OpenVINO's reference works them
    /// out: none for `valid`; otherwise half of what the last patch needs
    /// past the data, the odd one more for `same_lower`.
    pub fn pad_before(&self, k: usize, n: u64) -> u64 {
        if self.padding == PatchPadding::Valid {
            return 0;
        }
        let (size, stride, rate) = (self.sizes[k], self.strides[k].max(1), self.rates[k]);
        let span = u128::from(rate) * u128::from(size.saturating_sub(1)) + 1;
        let last = u128::from(n.div_ceil(stride).saturating_sub(1)) * u128::from(stride);
        let total = (last + span).saturating_sub(u128::from(n));
        let half = match self.padding {
            PatchPadding::SameLower => total.div_ceil(2),
            _ => total / 2,
        };
        u64::try_from(half).unwrap_or(u64::MAX)
    }

    /// The output shape for data of shape `data`: rank 4, or unknown.
    pub fn output_shape(&self, data: &PartialShape) -> Result<PartialShape, ShapeErrorKind> {
        let Some(dims) = data.dims() else {
            return Ok(PartialShape::with_rank(4));
        };
        let &[n, c, h, w] = dims else {
            return Err(ShapeErrorKind::PatchRank { shape: data.clone() });
        };
        let area = self.sizes[0].checked_mul(self.sizes[1]);
        let channels = area
            .and_then(|a| multiply_dim(c, a))
            .ok_or(ShapeErrorKind::SizeOverflow { op: SPEC.name, axis: 1 })?;
        let spatial = |k: usize, d: Dim| {
            let min = self.patches(k, d.min());
            Dim::interval(min, d.max().map(|m| self.patches(k, m))).unwrap_or(Dim::DYNAMIC)
        };
        Ok(PartialShape::new(vec![n, channels, spatial(0, h), spatial(1, w)]))
    }
}

impl Operation for ExtractImagePatches {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn infer(&self, inputs: &[Input<'_>]) -> Result<Vec<PortFact>, Problems> {
        let [data] = exactly::<1>(SPEC.name, inputs)?;
        let shape = self.output_shape(&data.fact.shape).map_err(Problems::one)?;
        Ok(vec![PortFact::of(data.fact.element_type, shape)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ovir_tensor::ElementType;

    fn op(sizes: [u64; 2], strides: [u64; 2], rates: [u64; 2], padding: PatchPadding) -> ExtractImagePatches {
        ExtractImagePatches { sizes, strides, rates, padding }
    }

    fn infer(op: ExtractImagePatches, data: &str) -> Result<String, ShapeErrorKind> {
        let data = PortFact::of(ElementType::I32, data.parse().unwrap());
        op.infer(&[Input::new(&data)])
            .map(|f| f[0].shape.to_string())
            .map_err(|p| p.into_vec().remove(0).kind)
    }

    // OpenVINO's type_prop/extractimagepatches.cpp cases and its answers.
    #[test]
    fn the_shapes_are_openvinos() {
        use PatchPadding::*;
        let three = |s, r, p| op([3, 3], [s, s], [r, r], p);
        assert_eq!(infer(three(5, 1, Valid), "64,3,10,10").unwrap(), "[64,27,2,2]");
        assert_eq!(infer(three(5, 1, Valid), "64,3,12,12").unwrap(), "[64,27,2,2]");
        assert_eq!(infer(three(5, 2, Valid), "64,3,33,43").unwrap(), "[64,27,6,8]");
        assert_eq!(infer(three(5, 2, Valid), "64,3,9,9").unwrap(), "[64,27,1,1]");
        assert_eq!(infer(three(5, 2, Valid), "?,?,?,?").unwrap(), "[?,?,?,?]");
        assert_eq!(infer(three(5, 1, Valid), "?,3,14,23").unwrap(), "[?,27,3,5]");
        assert_eq!(
            infer(three(5, 1, Valid), "1..10,3..4,10..51,13..71").unwrap(),
            "[1..10,27..36,2..10,3..14]"
        );
        assert_eq!(infer(three(5, 1, SameLower), "64,3,31,27").unwrap(), "[64,27,7,6]");
        assert_eq!(infer(three(5, 1, SameLower), "64,3,9,9").unwrap(), "[64,27,2,2]");
        assert_eq!(infer(three(5, 1, SameUpper), "64,3,23,11").unwrap(), "[64,27,5,3]");
        assert_eq!(infer(three(5, 1, SameUpper), "64,3,6,11").unwrap(), "[64,27,2,3]");
        assert_eq!(infer(three(5, 1, Valid), "64,0,0,0").unwrap(), "[64,0,0,0]");
        assert_eq!(infer(three(15, 1, Valid), "64,3,10,10").unwrap(), "[64,27,1,1]");
        assert_eq!(infer(three(15, 1, SameUpper), "64,3,10,10").unwrap(), "[64,27,1,1]");
        assert_eq!(infer(three(5, 1, Valid), "...").unwrap(), "[?,?,?,?]");
        assert_eq!(
            infer(op([1, 1], [5, 5], [1, 1], SameLower), "1..10,3..4,10..51,13..71").unwrap(),
            "[1..10,3..4,2..11,3..15]"
        );
        // The patch larger than the data: no patches.
        assert_eq!(infer(op([4, 4], [1, 1], [3, 3], Valid), "1,1,9,10").unwrap(), "[1,16,0,1]");
    }

    // The parametrised type_prop case: every size, rate and stride from 1
    // to 10 over a 100 x 100 image, against its own formula.
    #[test]
    fn every_size_rate_and_stride_follows_the_formula() {
        for padding in [PatchPadding::Valid, PatchPadding::SameLower] {
            for size in 1..=10i64 {
                for rate in 1..=10i64 {
                    for stride in 1..=10i64 {
                        let expected = match padding {
                            PatchPadding::Valid => (100 - rate * (size - 1) - 1) / stride + 1,
                            _ => 1 + (100 - 1) / stride,
                        }
                        .max(0);
                        let (s, r, t) = (size as u64, rate as u64, stride as u64);
                        let shape = infer(op([s, s], [t, t], [r, r], padding), "64,2,100,100").unwrap();
                        let c = 2 * size * size;
                        assert_eq!(
                            shape,
                            format!("[64,{c},{expected},{expected}]"),
                            "{size} {rate} {stride}"
                        );
                    }
                }
            }
        }
    }

    // The reference's padding: (ceil(n / s) - 1) * s + eff - n in total,
    // split with the odd one at the end (same_upper) or start (same_lower).
    #[test]
    fn the_padding_is_the_references() {
        use PatchPadding::*;
        // The spec's third example: 10 elements, patches of 4, stride 9:
        // 3 zeros in all, 1 before for same_upper.
        assert_eq!(op([4, 4], [9, 9], [1, 1], SameUpper).pad_before(0, 10), 1);
        assert_eq!(op([4, 4], [9, 9], [1, 1], SameLower).pad_before(1, 10), 2);
        assert_eq!(op([4, 4], [9, 9], [1, 1], Valid).pad_before(0, 10), 0);
        // Even totals split evenly: 10 elements, 3 with rate 2 (span 5),
        // stride 1: 4 in all.
        assert_eq!(op([3, 3], [1, 1], [2, 2], SameUpper).pad_before(0, 10), 2);
        assert_eq!(op([3, 3], [1, 1], [2, 2], SameLower).pad_before(0, 10), 2);
        // Nothing needed: none.
        assert_eq!(op([1, 1], [2, 2], [1, 1], SameLower).pad_before(0, 10), 0);
    }

    #[test]
    fn what_openvino_refuses_is_refused() {
        let valid = op([3, 3], [5, 5], [1, 1], PatchPadding::Valid);
        assert!(matches!(infer(valid, "?,?,?"), Err(ShapeErrorKind::PatchRank { .. })));
        assert!(matches!(infer(valid, "?,?,?,?,?"), Err(ShapeErrorKind::PatchRank { .. })));
        let build = |attrs: &[(&str, &str)]| {
            let mut l = OpLayer::builtin(&SPEC, "opset3");
            for (k, v) in attrs {
                l = l.attr(*k, *v);
            }
            ExtractImagePatches::build(&l.to_layer_with(1), 3).map_err(|p| p.into_vec().remove(0).kind)
        };
        let ok = [("sizes", "3,3"), ("strides", "5,5"), ("rates", "1,1"), ("auto_pad", "valid")];
        assert_eq!(build(&ok), Ok(valid));
        let with = |name: &str, value: &'static str| {
            let attrs: Vec<(&str, &str)> =
                ok.iter().map(|&(k, v)| if k == name { (k, value) } else { (k, v) }).collect();
            build(&attrs)
        };
        assert_eq!(
            with("sizes", "3"),
            Err(ShapeErrorKind::PairAttribute {
                op: "ExtractImagePatches",
                name: "sizes",
                value: "3".into()
            })
        );
        assert_eq!(
            with("strides", "5,5,1"),
            Err(ShapeErrorKind::PairAttribute {
                op: "ExtractImagePatches",
                name: "strides",
                value: "5,5,1".into()
            })
        );
        assert_eq!(
            with("strides", "5,0"),
            Err(ShapeErrorKind::PairValue { op: "ExtractImagePatches", name: "strides", value: 0, min: 1 })
        );
        assert_eq!(
            with("rates", "0,1"),
            Err(ShapeErrorKind::PairValue { op: "ExtractImagePatches", name: "rates", value: 0, min: 1 })
        );
        assert_eq!(
            with("sizes", "-1,2"),
            Err(ShapeErrorKind::PairValue { op: "ExtractImagePatches", name: "sizes", value: -1, min: 0 })
        );
        assert_eq!(
            with("auto_pad", "explicit"),
            Err(ShapeErrorKind::InvalidPatchPadding { value: "explicit".into() })
        );
        assert_eq!(
            build(&ok[..3]),
            Err(ShapeErrorKind::MissingAttribute { op: "ExtractImagePatches", name: "auto_pad" })
        );
        assert_eq!(with("auto_pad", "SAME_LOWER").map(|o| o.padding), Ok(PatchPadding::SameLower));
        crate::ops::check_round_trips::<ExtractImagePatches>();
    }
}
