//! What the file declares on each port, compared with what inference
//! found.
//!
//! OpenVINO's reader ignores the `<dim>`s and `precision` of ports and
//! infers them again, so a disagreement is not an error: the model loads
//! and runs as inferred. It is still worth saying, since a file whose ports
//! contradict its own attributes (a Parameter whose `shape` says
//! `[2,3,4]` while its port says `[2,5,4]`) was most likely edited by hand
//! or written by a broken tool.

use std::fmt;

use ovir_ir::{LayerIdx, Model, Port};
use ovir_tensor::{ElementType, PartialShape};

use crate::fact::PortFact;

/// Which side of a layer a port is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortSide {
    /// An `<input>` port.
    Input,
    /// An `<output>` port.
    Output,
}

/// How a port's declaration disagrees with inference.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum PortMismatch {
    /// The `<dim>`s give a shape that cannot be the inferred one.
    Shape {
        /// What the `<dim>`s say.
        declared: PartialShape,
        /// What inference found.
        inferred: PartialShape,
    },
    /// The `precision` names another element type than the inferred one.
    Precision {
        /// What `precision` says.
        declared: ElementType,
        /// What inference found.
        inferred: ElementType,
    },
}

/// A port whose declaration disagrees with inference: a warning, since
/// the model still loads and runs as inferred.
#[derive(Clone, Debug, PartialEq)]
pub struct PortWarning {
    /// The layer.
    pub layer: LayerIdx,
    /// The side of the layer the port is on.
    pub side: PortSide,
    /// The port's position on that side.
    pub position: usize,
    /// The port's `id`.
    pub port_id: u64,
    /// What disagrees.
    pub mismatch: PortMismatch,
}

impl fmt::Display for PortWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = match self.side {
            PortSide::Input => "input",
            PortSide::Output => "output",
        };
        match &self.mismatch {
            PortMismatch::Shape { declared, inferred } => write!(
                f,
                "{side} port {} declares shape {declared}, but inference gives {inferred}; the inferred \
                 shape is used",
                self.port_id
            ),
            PortMismatch::Precision { declared, inferred } => write!(
                f,
                "{side} port {} declares precision {declared}, but the tensor is {inferred}; the inferred \
                 type is used",
                self.port_id
            ),
        }
    }
}

/// Compares every port's declared `<dim>`s and `precision` with the facts
/// inference found: an output port with its own fact, an input port with
/// the fact of the output that feeds it. A declared dimension fits when it
/// can be the inferred one (equal, dynamic on either side, or intervals
/// that meet); a precision fits when it names the inferred type, or either
/// is dynamic.
///
/// `facts` are the output facts of `model`'s layers, as
/// [`ModelInfo::outputs`](crate::ModelInfo::outputs) (or a partial
/// analysis) holds them; ports with no fact are passed over.
pub fn port_warnings(model: &Model, facts: &[Vec<PortFact>]) -> Vec<PortWarning> {
    let mut warnings = Vec::new();
    for (l, layer) in model.layers.iter().enumerate() {
        let idx = LayerIdx(l);
        let outputs = facts.get(l).map_or(&[][..], Vec::as_slice);
        for (position, (port, fact)) in layer.outputs.iter().zip(outputs).enumerate() {
            compare(&mut warnings, idx, PortSide::Output, position, port, fact);
        }
        let sources = model.sources.get(l).map_or(&[][..], Vec::as_slice);
        for (position, (port, src)) in layer.inputs.iter().zip(sources).enumerate() {
            if let Some(fact) = facts.get(src.layer.0).and_then(|o| o.get(src.port)) {
                compare(&mut warnings, idx, PortSide::Input, position, port, fact);
            }
        }
    }
    warnings
}

fn compare(
    warnings: &mut Vec<PortWarning>,
    layer: LayerIdx,
    side: PortSide,
    position: usize,
    port: &Port,
    fact: &PortFact,
) {
    let mut warn =
        |mismatch| warnings.push(PortWarning { layer, side, position, port_id: port.id, mismatch });
    if !port.shape.compatible(&fact.shape) {
        warn(PortMismatch::Shape { declared: port.shape.clone(), inferred: fact.shape.clone() });
    }
    if let Some(declared) = port.precision {
        let inferred = fact.element_type;
        if declared.is_static() && inferred.is_static() && declared != inferred {
            warn(PortMismatch::Precision { declared, inferred });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ovir_ir::{RtInfo, Span};

    fn port(shape: &str, precision: Option<ElementType>) -> Port {
        let shape = shape.parse().unwrap();
        Port { id: 3, precision, names: vec![], shape, rt_info: RtInfo::default(), span: Span::default() }
    }

    fn warnings(declared: &str, precision: Option<ElementType>, inferred: PortFact) -> Vec<PortMismatch> {
        let mut found = Vec::new();
        compare(&mut found, LayerIdx(0), PortSide::Output, 0, &port(declared, precision), &inferred);
        found.into_iter().map(|w| w.mismatch).collect()
    }

    fn fact(ty: ElementType, shape: &str) -> PortFact {
        PortFact::of(ty, shape.parse().unwrap())
    }

    #[test]
    fn a_dim_fits_when_it_can_be_the_inferred_one() {
        let f32 = ElementType::F32;
        for (declared, inferred) in [
            ("2,5,4", "2,5,4"),
            ("2,?,4", "2,5,4"),
            ("2,5,4", "2,?,4"),
            ("2,1..8,4", "2,5,4"),
            ("2,5,4", "2,3..6,4"),
            ("2,1..4,4", "2,3..6,4"),
            ("...", "2,5,4"),
            ("2,5,4", "..."),
        ] {
            assert_eq!(warnings(declared, None, fact(f32, inferred)), vec![], "{declared} vs {inferred}");
        }
        for (declared, inferred) in
            [("2,3,4", "2,5,4"), ("2,1..4,4", "2,5..6,4"), ("2,20", "2,5,4"), ("", "1")]
        {
            let found = warnings(declared, None, fact(f32, inferred));
            assert!(matches!(found.as_slice(), [PortMismatch::Shape { .. }]), "{declared} vs {inferred}");
        }
    }

    #[test]
    fn a_precision_fits_when_it_names_the_type_or_either_is_dynamic() {
        let (f32, i32, dynamic) = (ElementType::F32, ElementType::I32, ElementType::Dynamic);
        assert_eq!(warnings("2", Some(f32), fact(f32, "2")), vec![]);
        assert_eq!(warnings("2", Some(dynamic), fact(f32, "2")), vec![]);
        assert_eq!(warnings("2", Some(f32), fact(dynamic, "2")), vec![]);
        assert_eq!(warnings("2", None, fact(i32, "2")), vec![]);
        assert_eq!(
            warnings("2", Some(i32), fact(f32, "2")),
            vec![PortMismatch::Precision { declared: i32, inferred: f32 }]
        );
    }
}
