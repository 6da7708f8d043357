//! What a file is, told from its first bytes, so that a file that is not
//! XML text is named for what it is instead of being shown as text.

use std::path::Path;

/// The hint for a model of another framework.
const CONVERT: Option<&str> = Some("convert it to IR with OpenVINO's `ovc` first");

/// How many leading bytes are looked at.
const SNIFF_LEN: usize = 1024;

/// What `bytes` (the start of a file, or all of it) are, when they are
/// plainly not the XML of an IR model: a NumPy array or archive, another
/// known binary format, or binary data of no known kind. `None` for
/// anything that may be text, which the XML reader then judges.
/// With what it is comes, when one is known, what to give instead.
pub(crate) fn not_xml(bytes: &[u8], path: Option<&Path>) -> Option<(&'static str, Option<&'static str>)> {
    let head = bytes.get(..SNIFF_LEN).unwrap_or(bytes);
    let known = [
        (&b"\x93NUMPY"[..], "a NumPy .npy array"),
        (b"\x89HDF\r\n\x1a\n", "an HDF5 file (such as a Keras .h5 model)"),
        (b"\x1f\x8b", "a gzip-compressed file"),
        (b"\x7fELF", "an ELF executable"),
        (b"\x89PNG", "a PNG image"),
        (b"%PDF", "a PDF document"),
        (b"\xff\xfe", "UTF-16 text"),
        (b"\xfe\xff", "UTF-16 text"),
    ];
    if let Some(&(_, what)) = known.iter().find(|(magic, _)| head.starts_with(magic)) {
        return Some((what, None));
    }
    if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        let npz = first_zip_entry(head).is_some_and(|n| n.ends_with(b".npy"));
        return Some((if npz { "a NumPy .npz archive" } else { "a zip archive" }, None));
    }
    if head.get(4..8) == Some(b"TFL3") {
        return Some(("a TensorFlow Lite model", CONVERT));
    }
    // A file that opens with a tag is XML text, however broken: the reader
    // then shows where it breaks, control characters made visible.
    let opening = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    if opening.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<') {
        return None;
    }
    // Otherwise XML text holds no control characters but tab, line feed
    // and carriage return; anything else is binary data.
    if head.iter().any(|&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) {
        let ext = path.and_then(Path::extension).map(|e| e.to_string_lossy().to_ascii_lowercase());
        return Some(match ext.as_deref() {
            Some("onnx") => ("an ONNX model", CONVERT),
            Some("pb") => ("a TensorFlow protocol buffer", CONVERT),
            Some("bin") => {
                ("binary data", Some("an IR model's weights are its .bin file; give the .xml file beside it"))
            }
            _ => ("binary data", None),
        });
    }
    None
}

/// The name of the first entry of a zip archive, from its local header.
fn first_zip_entry(head: &[u8]) -> Option<&[u8]> {
    let len = u16::from_le_bytes([*head.get(26)?, *head.get(27)?]) as usize;
    head.get(30..30 + len)
}

#[cfg(test)]
mod tests {
    use super::not_xml;
    use std::path::Path;

    #[test]
    fn xml_text_is_left_to_the_reader() {
        assert_eq!(not_xml(b"<?xml version=\"1.0\"?>\n<net>\t</net>\r\n", None), None);
        assert_eq!(not_xml("<net name=\"é\"/>".as_bytes(), None), None);
        // Latin-1 text is not UTF-8, but it is text: the reader says so
        // and shows where.
        assert_eq!(not_xml(b"<net name=\"\xe9\"/>", None), None);
        // Control characters inside a file that opens with a tag are the
        // reader's to point at.
        assert_eq!(not_xml(b"<net>\n\t\x0b\x1b<data/></net>", None), None);
        assert_eq!(not_xml(b"\xef\xbb\xbf  <net>\x07</net>", None), None);
    }

    #[test]
    fn zip_archives_holding_arrays_are_npz() {
        let mut npz = b"PK\x03\x04".to_vec();
        npz.resize(26, 0);
        npz.extend([5, 0, 0, 0]);
        npz.extend(b"x.npy");
        assert_eq!(not_xml(&npz, None), Some(("a NumPy .npz archive", None)));
        npz.truncate(30);
        npz.extend(b"x.txt");
        assert_eq!(not_xml(&npz, None), Some(("a zip archive", None)));
    }

    #[test]
    fn control_characters_mean_binary_data() {
        assert_eq!(not_xml(b"\x01\x02net\x07", None), Some(("binary data", None)));
        let weights = not_xml(b"\x00\x00\x80?", Some(Path::new("model.BIN")));
        assert!(weights.is_some_and(|(_, hint)| hint.is_some_and(|h| h.contains("weights"))));
    }
}
