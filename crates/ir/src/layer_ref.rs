//! How messages name a layer.

use std::fmt;

/// Names a layer in a message: its id, name and type as the file wrote them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LayerRef {
    /// The layer's `id`.
    pub id: u64,
    /// The layer's `name`.
    pub name: String,
    /// The layer's `type`.
    pub op_type: String,
}

/// The longest layer name or type a message shows in full; longer ones
/// (a hostile file can hold a 100 MB name) are cut, so that every message
/// stays readable and small.
const MAX_NAME_IN_MESSAGES: usize = 120;

impl LayerRef {
    /// Names a layer for messages; a name or type longer than 120 bytes is
    /// cut short and marked with its full length.
    pub fn new(id: u64, name: &str, op_type: &str) -> LayerRef {
        LayerRef { id, name: shorten(name), op_type: shorten(op_type) }
    }
}

/// `text`, or its first 120 bytes (at a character boundary) followed by
/// how long it really is.
pub(crate) fn shorten(text: &str) -> String {
    if text.len() <= MAX_NAME_IN_MESSAGES {
        return text.to_string();
    }
    let mut cut = MAX_NAME_IN_MESSAGES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… ({} bytes in all)", text.get(..cut).unwrap_or(""), text.len())
}

impl fmt::Display for LayerRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "layer {} {:?} ({})", self.id, self.name, self.op_type)
    }
}
