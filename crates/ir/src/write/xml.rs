//! The XML text of an IR file, formatted as OpenVINO's serializer (through
//! pugixml) formats it: a tab per level, `<tag attr="v" />` for an element
//! without children, and pugixml's escapes in attribute values.
//!
//! The text is written by hand rather than with quick-xml's writer because
//! the output must match OpenVINO's byte for byte, and pugixml escapes
//! differently: it leaves `>` and `'` alone and writes control characters
//! as two-digit character references (`&#10;`, `&#09;`).

use std::fmt::Write as _;

/// An element to write: its tag, attributes in order, and either children
/// or text.
#[derive(Debug, Default)]
pub(crate) struct Element {
    pub tag: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Element>,
    pub text: Option<String>,
}

impl Element {
    pub(crate) fn new(tag: &str) -> Element {
        Element { tag: tag.to_string(), ..Element::default() }
    }

    pub(crate) fn attr(mut self, name: &str, value: impl Into<String>) -> Element {
        self.attrs.push((name.to_string(), value.into()));
        self
    }

    pub(crate) fn text(tag: &str, text: String) -> Element {
        Element { tag: tag.to_string(), text: Some(text), ..Element::default() }
    }
}

/// The whole document: the declaration, then `root`.
pub(crate) fn document(root: &Element) -> String {
    let mut out = String::from("<?xml version=\"1.0\"?>\n");
    element(&mut out, root, 0);
    out
}

fn element(out: &mut String, e: &Element, depth: usize) {
    for _ in 0..depth {
        out.push('\t');
    }
    out.push('<');
    out.push_str(&e.tag);
    for (name, value) in &e.attrs {
        out.push(' ');
        out.push_str(name);
        out.push_str("=\"");
        escape_attr(out, value);
        out.push('"');
    }
    match (&e.text, e.children.is_empty()) {
        (Some(text), _) => {
            out.push('>');
            escape_text(out, text);
            let _ = writeln!(out, "</{}>", e.tag);
        }
        (None, true) => out.push_str(" />\n"),
        (None, false) => {
            out.push_str(">\n");
            for child in &e.children {
                element(out, child, depth + 1);
            }
            for _ in 0..depth {
                out.push('\t');
            }
            let _ = writeln!(out, "</{}>", e.tag);
        }
    }
}

/// pugixml's escapes for an attribute value in double quotes.
fn escape_attr(out: &mut String, value: &str) {
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '"' => out.push_str("&quot;"),
            c if (c as u32) < 32 => {
                let _ = write!(out, "&#{:02};", c as u32);
            }
            c => out.push(c),
        }
    }
}

/// pugixml's escapes for element text.
fn escape_text(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c if (c as u32) < 32 && !matches!(c, '\t' | '\n' | '\r') => {
                let _ = write!(out, "&#{:02};", c as u32);
            }
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_values_are_escaped_as_pugixml_escapes_them() {
        // What OpenVINO 2026.4 wrote for a layer named `in"p<&>\n\tx`.
        let e = Element::new("layer").attr("name", "in\"p<&>\n\tx");
        assert_eq!(
            document(&e),
            "<?xml version=\"1.0\"?>\n<layer name=\"in&quot;p&lt;&amp;>&#10;&#09;x\" />\n"
        );
    }

    #[test]
    fn children_are_indented_with_tabs() {
        let mut port = Element::new("port").attr("id", "0");
        port.children.push(Element::text("dim", "2".to_string()));
        let mut out = Element::new("output");
        out.children.push(port);
        let text = document(&out);
        assert_eq!(
            text,
            "<?xml version=\"1.0\"?>\n<output>\n\t<port id=\"0\">\n\t\t<dim>2</dim>\n\t</port>\n</output>\n"
        );
    }
}
