//! Places in the XML text: byte spans, and the lines and columns that
//! messages show for them.

use std::path::PathBuf;

/// A byte range in the XML text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Offset of the first byte.
    pub start: usize,
    /// Offset one past the last byte.
    pub end: usize,
}

/// A line and column in the XML text, both counted from 1.
///
/// Lines end at `\n`. The column counts characters, as editors count
/// them: a tab is one column, and so is a character of several bytes.
/// This is the one place where ovir turns offsets into lines and columns;
/// every message and every rendered excerpt uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LineCol {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub column: usize,
}

/// The XML text a model was read from, kept for diagnostics.
#[derive(Debug)]
pub struct SourceFile {
    /// The file's path, when it was read from a file.
    pub path: Option<PathBuf>,
    /// The whole XML text.
    pub text: String,
}

impl SourceFile {
    /// The line and column of a byte offset (clamped to the text); see
    /// [`LineCol`] for how they are counted.
    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = floor_char_boundary(&self.text, offset);
        let before = self.text.get(..offset).unwrap_or("");
        let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        LineCol { line, column: column(&self.text, line_start, offset) }
    }

    /// The name to show for this file: its path, or `<memory>`.
    pub fn display_name(&self) -> String {
        self.path.as_ref().map_or_else(|| "<memory>".to_string(), |p| p.display().to_string())
    }
}

/// The 1-based column of `offset` in the line that starts at `line_start`.
fn column(text: &str, line_start: usize, offset: usize) -> usize {
    text.get(line_start..offset).map_or(0, |s| s.chars().count()) + 1
}

/// The largest character boundary of `text` at or before `offset`.
pub(crate) fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut i = offset.min(text.len());
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The offsets at which the lines of a text start, for finding the line
/// and column of many offsets in logarithmic time each: a file can hold a
/// million duplicate ids, and scanning the text for each would take
/// quadratic time. Counts as [`SourceFile::line_col`] does.
pub(crate) struct LineIndex(Vec<usize>);

impl LineIndex {
    pub(crate) fn new(text: &str) -> LineIndex {
        let newlines = text.bytes().enumerate().filter(|&(_, c)| c == b'\n').map(|(i, _)| i + 1);
        LineIndex(std::iter::once(0).chain(newlines).collect())
    }

    /// The line and column of a byte offset of `text`, the text this index
    /// was built from.
    pub(crate) fn line_col(&self, text: &str, offset: usize) -> LineCol {
        let offset = floor_char_boundary(text, offset);
        let line = self.0.partition_point(|&start| start <= offset).max(1);
        let line_start = self.0.get(line - 1).copied().unwrap_or(0);
        LineCol { line, column: column(text, line_start, offset) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tab_and_a_wide_character_are_one_column_each() {
        let text = "<net>\n\t\t<layer/>\r\n  é<x/>";
        let source = SourceFile { path: None, text: text.to_string() };
        let index = LineIndex::new(text);
        let layer = text.find("<layer").unwrap_or(0);
        let x = text.find("<x/>").unwrap_or(0);
        for (offset, expected) in [(0, (1, 1)), (layer, (2, 3)), (x, (3, 4)), (text.len(), (3, 8))] {
            let expected = LineCol { line: expected.0, column: expected.1 };
            assert_eq!(source.line_col(offset), expected, "offset {offset}");
            assert_eq!(index.line_col(text, offset), expected, "offset {offset}");
        }
        // Inside a character and past the end both land on a boundary.
        let inside = text.find('é').unwrap_or(0) + 1;
        assert_eq!(source.line_col(inside), LineCol { line: 3, column: 3 });
        assert_eq!(index.line_col(text, usize::MAX), source.line_col(usize::MAX));
    }
}
