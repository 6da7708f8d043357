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
    let origin = visible_text(&source.display_name());
    let message = visible_text(message);
    let mut footers: Vec<String> = Vec::new();
    if let Some(layer) = layer {
        footers.push(visible_text(&layer.to_string()));
    }
    footers.extend(notes.iter().map(|n| visible_text(n)));

    let excerpt = span.map(|s| Excerpt::new(source, s));
    let mut msg = level.title(&message);
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
    // The excerpt is already cut to `MAX_WIDTH` columns here; the
    // renderer's own trimming is kept out of the way, as it mixes byte
    // lengths with columns (a line of three-byte characters looks three
    // times too wide to it) and its arithmetic can underflow.
    let renderer = renderer.term_width(RENDER_WIDTH);
    let out = renderer.render(msg).to_string();
    match &excerpt {
        // A message without a place still says which file it is about,
        // unless it names the file itself (a file that cannot be read).
        None if message.contains(&origin) => out,
        None => format!("{out}\n  --> {origin}"),
        Some(ex) => {
            let title = renderer.render(level.title(&message)).to_string();
            with_column(out, title.len(), &origin, ex)
        }
    }
}

/// `rendered` with the column of its `-->` line set to the one
/// [`SourceFile::line_col`] gives.
///
/// The renderer counts the column in the excerpt it draws, where each tab
/// is widened to four spaces (which keeps the carets under the text), a
/// control character is drawn as a picture or an escape, and a long line
/// is only a window; so it would disagree with every other place that
/// shows a column. Its `-->` line is the first thing after the title, and
/// ends with `origin:line:column`, which is replaced there.
fn with_column(rendered: String, title_len: usize, origin: &str, ex: &Excerpt) -> String {
    let before = ex.text.get(..ex.range.start).map_or(0, |s| s.chars().count());
    let Some(drawn) = before.checked_add(1) else { return rendered };
    let theirs = format!("{origin}:{}:{drawn}\n", ex.at.line);
    let Some(found) = rendered.get(title_len..).and_then(|rest| rest.find(&theirs)) else {
        return rendered;
    };
    let Some(at) = title_len.checked_add(found) else { return rendered };
    let Some(after) = at.checked_add(theirs.len()) else { return rendered };
    let ours = format!("{origin}:{}:{}\n", ex.at.line, ex.at.column);
    let mut fixed = String::with_capacity(rendered.len().saturating_add(8));
    fixed.push_str(rendered.get(..at).unwrap_or(""));
    fixed.push_str(&ours);
    fixed.push_str(rendered.get(after..).unwrap_or(""));
    fixed
}

/// The lines of the text that a span touches, each cut to a window around
/// what it marks and made printable, and the span relative to them;
/// rendering only these keeps the cost independent of file size.
struct Excerpt {
    text: String,
    /// Where the span starts: its line is the excerpt's first line.
    at: LineCol,
    range: std::ops::Range<usize>,
}

/// Spaces a tab is shown as. The renderer would otherwise draw tabs one
/// way and count them another, and the carets would miss their place.
const TAB: &str = "    ";

/// The most columns an excerpt line takes, ellipses included: about what
/// a terminal shows, so that no line wraps and carets stay under their
/// text.
const MAX_WIDTH: usize = 140;
/// Columns of context shown before the span when a line is cut.
const CONTEXT: usize = 60;
/// The most lines of a span an excerpt shows; a span running on is cut at
/// the end of the last one, which ends in an ellipsis.
const MAX_LINES: usize = 5;
/// Marks text left out of a window.
const ELLIPSIS: &str = "…";
/// The terminal width the renderer is told: far more than any excerpt
/// line's bytes (at most `MAX_WIDTH` columns of at most four bytes each,
/// or ten for an escape, which is as many columns), so that it never cuts
/// lines itself.
const RENDER_WIDTH: usize = 1 << 16;

/// How one character of the file is shown in an excerpt or a message:
///
/// - a tab as four spaces;
/// - the C0 control characters and DEL as their Unicode control pictures
///   (`\x1b` as `␛`, `\0` as `␀`), as rustc shows them;
/// - every other character that a terminal would act on or not show: C1
///   controls, whitespace other than the space (a vertical tab is one,
///   and so is U+2028), the bidirectional text controls and zero-width
///   format characters, as a Rust escape (`\u{202e}`);
/// - anything else as itself.
///
/// Every form has a width that the renderer and a terminal agree on, so
/// carets drawn by column land under their text, and nothing in a file
/// can move the cursor, change colours or reorder what is shown.
fn push_visible(c: char, out: &mut String) {
    match c {
        '\t' => out.push_str(TAB),
        ' ' => out.push(' '),
        '\u{0}'..='\u{1f}' => out.push(char::from_u32(0x2400 + u32::from(c)).unwrap_or('\u{fffd}')),
        '\u{7f}' => out.push('\u{2421}'),
        c if c.is_control() || c.is_whitespace() || is_invisible_format(c) => {
            out.extend(c.escape_unicode());
        }
        c => out.push(c),
    }
}

/// The format characters that change how text around them is shown or
/// take no room: the bidirectional marks, embeddings, overrides and
/// isolates, the zero-width spaces and joiners, and the byte-order mark.
fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{61c}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}'
    )
}

/// Columns a character takes once shown; never less than 1 for the
/// budget of a window, so that a line of a million zero-width characters
/// is still cut after `MAX_WIDTH` of them.
fn columns(c: char) -> usize {
    match c {
        '\t' => TAB.len(),
        '\u{0}'..='\u{1f}' | '\u{7f}' | ' ' => 1,
        c if c.is_control() || c.is_whitespace() || is_invisible_format(c) => c.escape_unicode().count(),
        c => unicode_width::UnicodeWidthChar::width(c).unwrap_or(1).max(1),
    }
}

/// A message, a note or a file name made printable as excerpts are
/// (see [`push_visible`]); its line breaks stay line breaks.
fn visible_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\n' {
            out.push('\n');
        } else {
            push_visible(c, &mut out);
        }
    }
    out
}

/// One line of an excerpt: `line` (without its line break) shown within
/// `MAX_WIDTH` columns, with the bytes `mark` of it (at character
/// boundaries, `mark.start <= mark.end <= line.len()`) marked. A line too
/// wide is cut to a window: `CONTEXT` columns before the mark, as much of
/// the mark as fits, and context after it; `…` stands for what is left
/// out. `more` adds an ellipsis after the mark, for a span that runs on
/// past the last line shown.
///
/// Returns the shown text and the mark's byte range in it.
fn window(line: &str, mark: std::ops::Range<usize>, more: bool) -> (String, std::ops::Range<usize>) {
    let before = line.get(..mark.start).unwrap_or("");
    let marked = line.get(mark.clone()).unwrap_or("");
    let after = line.get(mark.end..).unwrap_or("");
    let fits = line.chars().try_fold(0usize, |used, c| {
        let used = used.checked_add(columns(c))?;
        (used <= MAX_WIDTH).then_some(used)
    });
    // Every column counted below is within `MAX_WIDTH`, so none of these
    // sums can overflow; `saturating_*` says so without a panic path.
    let (from, to_mark, to) = match fits {
        Some(_) if !more => (0, marked.len(), after.len()),
        _ => {
            let budget = MAX_WIDTH.saturating_sub(2 * ELLIPSIS.chars().count());
            // Context before the mark, walking back from it.
            let mut used = 0usize;
            let mut from = before.len();
            for (i, c) in before.char_indices().rev() {
                let w = columns(c);
                if used.saturating_add(w) > CONTEXT.min(budget) {
                    break;
                }
                used = used.saturating_add(w);
                from = i;
            }
            // As much of the mark as the rest of the budget holds.
            let mut to_mark = 0usize;
            for (i, c) in marked.char_indices() {
                let w = columns(c);
                if used.saturating_add(w) > budget {
                    break;
                }
                used = used.saturating_add(w);
                to_mark = i.saturating_add(c.len_utf8());
            }
            // Context after it, when the whole mark is shown.
            let mut to = 0usize;
            let limit = used.saturating_add(CONTEXT).min(budget);
            if to_mark == marked.len() && !more {
                for (i, c) in after.char_indices() {
                    let w = columns(c);
                    if used.saturating_add(w) > limit {
                        break;
                    }
                    used = used.saturating_add(w);
                    to = i.saturating_add(c.len_utf8());
                }
            }
            (from, to_mark, to)
        }
    };
    let mut text = String::new();
    if from > 0 {
        text.push_str(ELLIPSIS);
    }
    before.get(from..).unwrap_or("").chars().for_each(|c| push_visible(c, &mut text));
    let start = text.len();
    marked.get(..to_mark).unwrap_or("").chars().for_each(|c| push_visible(c, &mut text));
    let end = text.len();
    after.get(..to).unwrap_or("").chars().for_each(|c| push_visible(c, &mut text));
    if to_mark < marked.len() || to < after.len() || more {
        text.push_str(ELLIPSIS);
    }
    (text, start..end)
}

impl Excerpt {
    fn new(source: &SourceFile, span: Span) -> Self {
        let text = source.text.as_str();
        let start = floor_char_boundary(text, span.start);
        let end = floor_char_boundary(text, span.end.clamp(start, text.len()));
        // An empty span still gets one caret: it marks the character it is
        // at, if there is one on its line.
        let end = if end == start {
            text.get(start..)
                .and_then(|r| r.chars().next())
                .filter(|&c| c != '\n' && c != '\r')
                .map_or(start, |c| start.saturating_add(c.len_utf8()))
        } else {
            end
        };
        let first_start = text.get(..start).and_then(|b| b.rfind('\n')).map_or(0, |i| i.saturating_add(1));
        let mut shown = String::new();
        let mut range = 0..0;
        let mut line_start = first_start;
        for n in 0..MAX_LINES {
            let rest = text.get(line_start..).unwrap_or("");
            let (line, next) = match rest.find('\n') {
                Some(i) => {
                    (rest.get(..i).unwrap_or(""), Some(line_start.saturating_add(i).saturating_add(1)))
                }
                None => (rest, None),
            };
            let line = line.strip_suffix('\r').unwrap_or(line);
            let line_end = line_start.saturating_add(line.len());
            // The part of this line the span covers.
            let mark_start = start.clamp(line_start, line_end).saturating_sub(line_start);
            let mark_end = end.clamp(line_start, line_end).saturating_sub(line_start);
            // A span ending right after a line break belongs to the lines
            // before it.
            let last = next.is_none_or(|next| end <= next);
            let more = !last && n + 1 == MAX_LINES;
            let (line_text, mark) = window(line, mark_start..mark_end, more);
            if n > 0 {
                shown.push('\n');
            }
            let base = shown.len();
            shown.push_str(&line_text);
            if n == 0 {
                range.start = base.saturating_add(mark.start);
            }
            range.end = base.saturating_add(mark.end);
            match next {
                Some(next) if !last => line_start = next,
                _ => break,
            }
        }
        Excerpt { text: shown, at: source.line_col(start), range }
    }
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

    /// The Unicode control pictures of U+0000 to U+001F, then the one of
    /// DEL, as the Unicode charts give them.
    const PICTURES: &str = "␀␁␂␃␄␅␆␇␈␉␊␋␌␍␎␏␐␑␒␓␔␕␖␗␘␙␚␛␜␝␞␟␡";

    /// Every control character: C0 and DEL.
    fn controls() -> impl Iterator<Item = (char, char)> {
        (0u8..0x20).chain([0x7f]).map(char::from).zip(PICTURES.chars())
    }

    /// The code line numbered `line` and the caret line under it, each
    /// without the gutter (`12 | `), from plain output.
    fn code_and_carets(out: &str, line: usize) -> (Vec<char>, Vec<char>) {
        let prefix = format!("{line} | ");
        let lines: Vec<&str> = out.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("no line {line}: {out}"));
        // One entry per column: a wide character takes two, the second
        // of them a NUL, which no shown text holds; a zero-width one none.
        let code = lines[at][prefix.len()..]
            .chars()
            .flat_map(|c| {
                let width = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
                std::iter::repeat_n(c, width.min(1)).chain(std::iter::repeat_n('\0', width.saturating_sub(1)))
            })
            .collect();
        let carets = lines
            .get(at + 1)
            .and_then(|l| l.get(prefix.len()..))
            .map(|l| l.chars().collect())
            .unwrap_or_default();
        (code, carets)
    }

    /// The text drawn above the carets of a single-line annotation.
    fn marked(out: &str, line: usize) -> String {
        let (code, carets) = code_and_carets(out, line);
        let first = carets.iter().position(|&c| c == '^').unwrap_or_else(|| panic!("no carets: {out}"));
        let last = carets.iter().rposition(|&c| c == '^').unwrap_or(first);
        code.get(first..=last)
            .map(|c| c.iter().filter(|&&c| c != '\0').collect())
            .unwrap_or_else(|| panic!("carets past the text: {out}"))
    }

    /// Output that a terminal shows as it is: no control character but
    /// the line break, none of the bidirectional controls.
    fn assert_printable(out: &str) {
        let bad =
            out.chars().find(|&c| (c.is_control() && c != '\n') || ('\u{202a}'..='\u{202e}').contains(&c));
        assert!(bad.is_none(), "{bad:?} in {out:?}");
    }

    /// This runs in the test profile, where overflow checks are on in
    /// ovir and in the renderer alike: a column computed wrong anywhere
    /// panics instead of putting a caret in the wrong place.
    #[test]
    fn every_control_character_is_shown_and_carets_stay_under_their_text() {
        for (control, picture) in controls() {
            for count in [1, 7, 30, 100, 300] {
                let run: String = std::iter::repeat_n(control, count).collect();
                let s = src(&format!("<net>\n\t{run}<x a=\"1\"/>{run}\n</net>\n"));
                let tag = s.text.find("<x").unwrap_or(0);
                let line = 2 + if control == '\n' { count } else { 0 };
                let spans = [
                    (tag, tag + 10),
                    (6, 6),
                    (6, s.text.len()),
                    (7, 8),
                    (tag + 3, s.text.len() - 3),
                    (s.text.len(), s.text.len()),
                ];
                for (i, (start, end)) in spans.into_iter().enumerate() {
                    let span = Some(Span { start, end });
                    let out = render_diagnostic(&s, "bad", span, None, &[], false);
                    assert_printable(&out);
                    let styled = render_diagnostic(&s, "bad", span, None, &[], true);
                    assert!(styled.contains("bad"), "{styled}");
                    if i == 0 {
                        assert_eq!(marked(&out, line), "<x a=\"1\"/>", "{control:?} x {count}: {out}");
                        let column = s.line_col(tag).column;
                        assert!(out.contains(&format!("model.xml:{line}:{column}\n")), "{out}");
                        let (code, _) = code_and_carets(&out, line);
                        assert!(code.len() <= MAX_WIDTH, "{} columns: {out}", code.len());
                    }
                    if i == 3 && !matches!(control, '\t' | '\n' | '\r') {
                        assert_eq!(marked(&out, 2), picture.to_string(), "{control:?} x {count}: {out}");
                    }
                }
            }
        }
    }

    #[test]
    fn control_characters_in_messages_and_notes_are_shown_too() {
        let s = src("<net>\n<x/>\n</net>\n");
        let out = render_diagnostic(
            &s,
            "bad \u{1b}[31m",
            Some(Span { start: 6, end: 10 }),
            None,
            &["n\u{7}".into()],
            false,
        );
        assert_printable(&out);
        assert!(out.starts_with("error: bad ␛[31m"), "{out}");
        assert!(out.contains("note: n␇"), "{out}");
    }

    #[test]
    fn invisible_and_reordering_characters_are_escaped() {
        let s = src("<net>\n<x a=\"\u{202e}\u{9b}31m\u{a0}\u{200b}b\"/>\n</net>\n");
        let start = s.text.find("<x").unwrap_or(0);
        let out = render_diagnostic(&s, "bad", Some(Span { start, end: s.text.len() - 8 }), None, &[], false);
        assert_printable(&out);
        assert_eq!(marked(&out, 2), "<x a=\"\\u{202e}\\u{9b}31m\\u{a0}\\u{200b}b\"/>", "{out}");
        assert!(out.contains("model.xml:2:1\n"), "{out}");
    }

    #[test]
    fn invalid_utf8_is_shown_as_replacement_characters() {
        let err = crate::read_model_from_bytes(b"<net>\n\t\xff\xfe<x/>\x80\n</net>\n", None)
            .err()
            .unwrap_or_else(|| panic!("invalid UTF-8 was read"));
        let out = err.render(false);
        assert_printable(&out);
        assert_eq!(marked(&out, 2), "\u{fffd}", "{out}");
        assert!(out.contains("<memory>:2:2\n"), "{out}");
    }

    /// A tab, vertical tabs around one ESC, and invalid UTF-8: the line
    /// on which the renderer's margin arithmetic once underflowed.
    #[test]
    fn a_line_of_vertical_tabs_and_invalid_utf8_renders() {
        let mut bytes = b"<net>\n\t".to_vec();
        bytes.extend([0x0b; 18]);
        bytes.push(0x1b);
        bytes.extend([0x0b; 80]);
        bytes.extend(b"<da\xff\xff\xff\x7fta bai64tch_axis=\"0\"i16 seq_axis=\"1\" />\n</net>\n");
        let s = src(&String::from_utf8_lossy(&bytes));
        let tag = s.text.find("<da").unwrap_or(0);
        let line_end = s.text.find("/>").unwrap_or(0) + 2;
        let esc = s.text.find('\u{1b}').unwrap_or(0);
        for (start, end) in
            [(tag, line_end), (6, line_end), (esc, esc + 1), (tag + 3, tag + 6), (6, s.text.len())]
        {
            for color in [false, true] {
                let out = render_diagnostic(&s, "bad", Some(Span { start, end }), None, &[], color);
                assert!(out.contains("␋␋␋"), "{out}");
                if !color {
                    assert_printable(&out);
                }
            }
        }
        let out = render_diagnostic(&s, "bad", Some(Span { start: tag, end: tag + 6 }), None, &[], false);
        assert_eq!(marked(&out, 2), "<da\u{fffd}", "{out}");
        let out = render_diagnostic(&s, "bad", Some(Span { start: esc, end: esc + 1 }), None, &[], false);
        assert_eq!(marked(&out, 2), "␛", "{out}");
        assert!(out.contains("␋␋␛␋"), "{out}");
        assert!(out.contains("model.xml:2:20\n"), "{out}");
    }

    /// Every span of that line, from every character boundary to every
    /// later one: most of them once underflowed.
    #[test]
    fn every_span_of_a_line_of_control_characters_renders() {
        let mut bytes = b"<net>\n\t".to_vec();
        bytes.extend([0x0b; 18]);
        bytes.push(0x1b);
        bytes.extend([0x0b; 80]);
        bytes.extend(b"<da\xff\x7fta seq_axis=\"1\" />\n</net>\n");
        let s = src(&String::from_utf8_lossy(&bytes));
        let bounds: Vec<usize> = (0..=s.text.len()).filter(|&i| s.text.is_char_boundary(i)).collect();
        for (i, &start) in bounds.iter().enumerate() {
            for &end in &bounds[i..] {
                let out = render_diagnostic(&s, "bad", Some(Span { start, end }), None, &[], false);
                assert_printable(&out);
            }
        }
    }

    #[test]
    fn wide_and_zero_width_characters_stay_within_the_width() {
        for unit in ["日", "\u{301}", "e\u{301}", "\u{b}", "\u{85}", "ab"] {
            let line = unit.repeat(100_000);
            let s = src(&format!("<net>\n{line}<x/>{line}\n</net>\n"));
            let tag = s.text.find("<x").unwrap_or(0);
            for (start, end) in [(tag, tag + 4), (6, tag + 4), (tag, s.text.len()), (6, 6)] {
                let out = render_diagnostic(&s, "bad", Some(Span { start, end }), None, &[], false);
                assert_printable(&out);
                assert!(out.len() < 4000, "{} bytes for {unit:?}", out.len());
                let (code, _) = code_and_carets(&out, 2);
                let width = code.len();
                // A span running onto the next line adds two columns of gutter.
                assert!(width <= MAX_WIDTH + 2, "{width} columns for {unit:?}: {out}");
            }
            let out = render_diagnostic(&s, "bad", Some(Span { start: tag, end: tag + 4 }), None, &[], false);
            assert_eq!(marked(&out, 2).trim_end_matches('…'), "<x/>", "{unit:?}: {out}");
        }
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
