//! Every diagnostic ovir can produce for arbitrary bytes, rendered with
//! and without colour, and the renderer itself on arbitrary spans of that
//! text. Rendering must never panic (the column arithmetic is checked:
//! fuzz with debug assertions on), and plain output must hold no control
//! character but the line break, whatever the input holds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ovir_ir::{read_model_from_bytes, render_diagnostic, render_warning, SourceFile, Span};

/// Renders both ways; the plain text must be printable as it is.
fn check(render: impl Fn(bool) -> String) {
    let plain = render(false);
    if let Some(c) = plain.chars().find(|&c| c.is_control() && c != '\n') {
        panic!("{c:?} in plain output: {plain:?}");
    }
    let _ = render(true);
}

fuzz_target!(|data: &[u8]| {
    // Two spans' ends come first, then the text.
    let (ends, xml) = data.split_at(data.len().min(4));
    let weights = std::sync::Arc::new(ovir_ir::Weights::from_bytes(vec![1; 64]));
    match read_model_from_bytes(xml, Some(weights)).map_err(ovir::Error::from).and_then(ovir::Model::validate) {
        Ok(model) => check(|color| model.render_warnings(color)),
        Err(e) => check(|color| e.render(color)),
    }

    // The renderer on any span of the text, the text's own bytes as the
    // message and note: spans may start or end inside a character, run
    // past the end, or be reversed.
    let text = String::from_utf8_lossy(xml).into_owned();
    let end = |i: usize| usize::from(u16::from_le_bytes([*ends.get(i).unwrap_or(&0), *ends.get(i + 1).unwrap_or(&0)]));
    let source = SourceFile { path: Some("model.xml".into()), text };
    let span = Span { start: end(0), end: end(2) };
    let head: String = source.text.chars().take(200).collect();
    let notes = [head.clone()];
    check(|color| render_diagnostic(&source, &head, Some(span), None, &notes, color));
    check(|color| render_warning(&source, "w", Some(span), None, &[], color));
});
