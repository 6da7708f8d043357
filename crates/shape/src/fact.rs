//! What is known about one tensor before the model runs.

use ovir_tensor::{Dim, ElementType, PartialShape, Tensor};
use serde::{Serialize, Serializer};

/// What is known about one output port before the model runs.
#[derive(Clone, Debug)]
pub struct PortFact {
    /// The element type (`dynamic` when not known).
    pub element_type: ElementType,
    /// The shape, as far as it is known.
    pub shape: PartialShape,
    /// The value, when it is known before the model runs (constants,
    /// shapes of static inputs, and what an
    /// [`Evaluator`](crate::Evaluator) computed).
    pub value: Option<Tensor>,
    /// For a 0-D or 1-D integer tensor that holds dimensions (a shape
    /// computed inside the graph), the interval each element is known to
    /// lie in, in element order. It is set even when only some elements are
    /// known, such as the `ShapeOf` of a partly dynamic input.
    pub value_dims: Option<Vec<Dim>>,
}

impl PortFact {
    /// A fact with nothing known: dynamic type, dynamic rank, no value.
    pub fn unknown() -> Self {
        PortFact::of(ElementType::Dynamic, PartialShape::dynamic())
    }

    /// A fact with a type and shape and no known value.
    pub fn of(element_type: ElementType, shape: PartialShape) -> Self {
        PortFact { element_type, shape, value: None, value_dims: None }
    }

    /// The fact of a known value: its type, its static shape and itself.
    pub fn known(value: Tensor) -> Self {
        PortFact {
            element_type: value.element_type(),
            shape: PartialShape::from_static(value.shape()),
            value: Some(value),
            value_dims: None,
        }
    }
}

impl Serialize for PortFact {
    /// Writes the type, the shape and whether the value is known (not the
    /// value itself, which may be large).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("PortFact", 3)?;
        st.serialize_field("element_type", &self.element_type)?;
        st.serialize_field("shape", &self.shape)?;
        st.serialize_field("value_known", &self.value.is_some())?;
        st.end()
    }
}
