//! Rendering a message with the XML line it points at, rustc-style.
//!
//! Every stage that reports problems about an IR file (reading, shape
//! inference, running) can use [`render_diagnostic`], so all of them look
//! the same.

use annotate_snippets::{Level, Renderer, Snippet};

use crate::layer_ref::LayerRef;
use crate::source::{floor_char_boundary, LineCol, SourceFile, Span};

/// Renders an error message, with the source lines under `span` underlined
/// when there is a span, a note naming `layer` when there is one, and one
/// note per entry of `notes`.
///
/// The output is plain text unless `color` is set, in which case it has
/// ANSI colour codes for a terminal.
///
/// ```
/// use ovir_ir::{render_diagnostic, SourceFile, Span};
/// let source = SourceFile { path: None, text: "<net>\n  <oops/>\n</net>\n".to_string() };
/// let text = render_diagnostic(&source, "unexpected element", Some(Span { start: 8, end: 15 }), None, &[], false);
/// assert!(text.contains("error: unexpected element"));
/// assert!(text.contains("<memory>:2:3"));
/// assert!(text.contains("^^^^^^^"));
/// ```
pub fn render_diagnostic(
    source: &SourceFile,
    message: &str,
    span: Option<Span>,
    layer: Option<&LayerRef>,
    notes: &[String],
    color: bool,
) -> String {
    render_at(Level::Error, source, message, span, layer, notes, color)
}

/// Renders a warning as [`render_diagnostic`] renders an error: a problem
/// that does not stop the model from loading.
///
/// ```
/// use ovir_ir::{render_warning, SourceFile, Span};
/// let source = SourceFile { path: None, text: "<net>\n  <port id=\"1\"/>\n</net>\n".to_string() };
/// let text = render_warning(&source, "port 1 disagrees", Some(Span { start: 8, end: 21 }), None, &[], false);
/// assert!(text.starts_with("warning: port 1 disagrees"));
/// assert!(text.contains("<memory>:2:3"));
/// ```
pub fn render_warning(
    source: &SourceFile,
    message: &str,
    span: Option<Span>,
    layer: Option<&LayerRef>,
    notes: &[String],
    color: bool,
) -> String {
    render_at(Level::Warning, source, message, span, layer, notes, color)
}

fn render_at(
    level: Level,
    source: &SourceFile,
    message: &str,
    span: Option<Span>,
    layer: Option<&LayerRef>,
    notes: &[String],
    color: bool,
) -> String {
    let origin = source.display_name();
    let mut footers: Vec<String> = Vec::new();
    if let Some(layer) = layer {
        footers.push(layer.to_string());
    }
    footers.extend(notes.iter().cloned());

    let excerpt = span.map(|s| Excerpt::new(source, s));
    let mut msg = level.title(message);
    if let Some(ex) = &excerpt {
        msg = msg.snippet(
            Snippet::source(&ex.text)
                .line_start(ex.at.line)
                .origin(&origin)
                .fold(false)
                .annotation(level.span(ex.range.clone())),
        );
    }
    for note in &footers {
        msg = msg.footer(Level::Note.title(note));
    }
    let renderer = if color { Renderer::styled() } else { Renderer::plain() };
    let out = renderer.render(msg).to_string();
    match &excerpt {
        // A message without a place still says which file it is about.
        None => format!("{out}\n  --> {origin}"),
        Some(ex) => {
            let title = renderer.render(level.title(message)).to_string();
            with_column(out, title.len(), &origin, ex)
        }
    }
}

/// `rendered` with the column of its `-->` line set to the one
/// [`SourceFile::line_col`] gives.
///
/// The renderer counts the column in the excerpt it draws, where each tab
/// is widened to four spaces (which keeps the carets under the text) and a
/// long line is only a window; so it would disagree with every other place
/// that shows a column. Its `-->` line is the first thing after the title,
/// and ends with `origin:line:column`, which is replaced there.
fn with_column(rendered: String, title_len: usize, origin: &str, ex: &Excerpt) -> String {
    let drawn = ex.text.get(..ex.range.start).map_or(0, |s| s.chars().count()) + 1;
    let theirs = format!("{origin}:{}:{drawn}\n", ex.at.line);
    let Some(found) = rendered.get(title_len..).and_then(|rest| rest.find(&theirs)) else {
        return rendered;
    };
    let at = title_len + found;
    let ours = format!("{origin}:{}:{}\n", ex.at.line, ex.at.column);
    let mut fixed = String::with_capacity(rendered.len() + 8);
    fixed.push_str(rendered.get(..at).unwrap_or(""));
    fixed.push_str(&ours);
    fixed.push_str(rendered.get(at + theirs.len()..).unwrap_or(""));
    fixed
}

/// The whole lines of the text that a span touches, and the span relative
/// to them; rendering only these keeps the cost independent of file size.
struct Excerpt {
    text: String,
    /// Where the span starts: its line is the excerpt's first line.
    at: LineCol,
    range: std::ops::Range<usize>,
}

/// Spaces a tab is shown as. The renderer would otherwise draw tabs one
/// way and count them another, and the carets would miss their place.
const TAB: &str = "    ";

/// Excerpts longer than this many bytes are cut to a window around the
/// span.
const MAX_EXCERPT: usize = 400;
/// Bytes of context shown on each side of the span in a window.
const CONTEXT: usize = 60;
/// The most bytes of the span itself a window shows.
const MAX_MARKED: usize = 200;
/// Marks text left out of a window.
const ELLIPSIS: &str = "…";

impl Excerpt {
    fn new(source: &SourceFile, span: Span) -> Self {
        let text = source.text.as_str();
        let start = floor_char_boundary(text, span.start);
        let end = floor_char_boundary(text, span.end.clamp(start, text.len()));
        let line_start = text.get(..start).and_then(|b| b.rfind('\n')).map_or(0, |i| i + 1);
        // A span ending right after a newline belongs to the line before it.
        let last = if end > start { end - 1 } else { end };
        let last = floor_char_boundary(text, last.max(start));
        let line_end = text.get(last..).and_then(|a| a.find('\n')).map_or(text.len(), |i| last + i);
        let mut lines = text.get(line_start..line_end).unwrap_or("");
        if let Some(stripped) = lines.strip_suffix('\r') {
            lines = stripped;
        }
        let mut rel_start = (start - line_start).min(lines.len());
        let mut rel_end = end.saturating_sub(line_start).min(lines.len());
        if rel_end <= rel_start {
            // An empty span still gets one caret.
            rel_end = lines
                .get(rel_start..)
                .and_then(|r| r.chars().next())
                .map_or(rel_start, |c| rel_start + c.len_utf8());
        }
        // A very long line (a whole file on one line, or a huge attribute)
        // is shown as a window around the span, so that a message stays
        // small whatever the file.
        let windowed;
        if lines.len() > MAX_EXCERPT {
            let from = floor_char_boundary(lines, rel_start.saturating_sub(CONTEXT));
            rel_end = ceil_char_boundary(lines, rel_end.min(rel_start + MAX_MARKED));
            let to = ceil_char_boundary(lines, rel_end.saturating_add(CONTEXT).min(lines.len()));
            let head = if from > 0 { ELLIPSIS } else { "" };
            let tail = if to < lines.len() { ELLIPSIS } else { "" };
            windowed = format!("{head}{}{tail}", lines.get(from..to).unwrap_or(""));
            rel_start = rel_start - from + head.len();
            rel_end = rel_end - from + head.len();
            lines = &windowed;
        }
        let shift = |i: usize| i + lines.get(..i).map_or(0, |p| p.matches('\t').count()) * (TAB.len() - 1);
        let range = shift(rel_start)..shift(rel_end);
        Excerpt { text: lines.replace('\t', TAB), at: source.line_col(start), range }
    }
}

fn ceil_char_boundary(text: &str, mut i: usize) -> usize {
    while i < text.len() && !text.is_char_boundary(i) {
        i += 1;
    }
    i.min(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(text: &str) -> SourceFile {
        SourceFile { path: Some("model.xml".into()), text: text.to_string() }
    }

    #[test]
    fn renders_the_line_and_a_layer_note() {
        let s =
            src("<net>\n<layers>\n    <layer id=\"3\" name=\"rev\" type=\"Reverse\" version=\"opset1\">\n");
        let start = s.text.find("<layer ").unwrap_or(0);
        let layer = LayerRef { id: 3, name: "rev".into(), op_type: "Reverse".into() };
        let out =
            render_diagnostic(&s, "bad axes", Some(Span { start, end: start + 6 }), Some(&layer), &[], false);
        assert!(out.starts_with("error: bad axes"), "{out}");
        assert!(out.contains("--> model.xml:3:5"), "{out}");
        assert!(out.contains("3 |     <layer id=\"3\""), "{out}");
        assert!(out.contains("|     ^^^^^^"), "{out}");
        assert!(out.contains("= note: layer 3 \"rev\" (Reverse)"), "{out}");
    }

    #[test]
    fn carets_stay_under_tab_indented_text() {
        let s = src("<net>\n\t\t<layer id=\"3\">\n");
        let start = s.text.find("<layer").unwrap_or(0);
        let out = render_diagnostic(&s, "bad", Some(Span { start, end: start + 6 }), None, &[], false);
        assert!(out.contains("2 |         <layer id"), "{out}");
        assert!(out.contains("  |         ^^^^^^\n"), "{out}");
        // Editors count each tab as one column.
        assert!(out.contains("--> model.xml:2:3\n"), "{out}");
        let styled = render_diagnostic(&s, "bad", Some(Span { start, end: start + 6 }), None, &[], true);
        assert!(styled.contains(" model.xml:2:3\n"), "{styled}");
    }

    #[test]
    fn renders_without_a_span() {
        let out = render_diagnostic(&src(""), "no weights", None, None, &["see --weights".into()], false);
        assert!(out.starts_with("error: no weights"), "{out}");
        assert!(out.contains("note: see --weights"), "{out}");
        assert!(out.contains("model.xml"), "{out}");
    }

    #[test]
    fn long_lines_are_shown_as_a_window_around_the_span() {
        let name = "é".repeat(1_000_000);
        let s = src(&format!("<net name=\"{name}\" version=\"9\">\n</net>\n"));
        let start = s.text.find("version").unwrap_or(0);
        let out = render_diagnostic(&s, "bad", Some(Span { start, end: start + 11 }), None, &[], false);
        assert!(out.len() < 1000, "{} bytes", out.len());
        assert!(out.contains("…éé") && out.contains("version=\"9\">"), "{out}");
        assert!(out.contains("^^^^^^^^^^^"), "{out}");
        let out = render_diagnostic(&s, "bad", Some(Span { start: 0, end: s.text.len() }), None, &[], false);
        assert!(out.len() < 2000, "{} bytes", out.len());
    }

    #[test]
    fn empty_and_crlf_spans_are_safe() {
        let s = src("<a>\r\n<b/>\r\n");
        let out = render_diagnostic(&s, "x", Some(Span { start: 5, end: 5 }), None, &[], false);
        assert!(out.contains("2 | <b/>"), "{out}");
        assert!(!out.contains('\r'));
        let out = render_diagnostic(&s, "x", Some(Span { start: 500, end: 900 }), None, &[], true);
        assert!(out.contains('x'));
    }
}
