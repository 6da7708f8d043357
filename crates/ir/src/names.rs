//! Tensor name lists: the `names` attribute of a port and the
//! `output_names` attribute of a `Result` layer.

use std::collections::HashSet;

/// Splits a comma-separated list of tensor names the way OpenVINO 2026.4
/// reads the `names` of a port and the `output_names` of a `Result`.
///
/// - A comma separates names; `\,` is a comma inside a name. Any other
///   backslash is kept as it is.
/// - Names are not trimmed: `"a, b"` holds `"a"` and `" b"`, and a name
///   may be all spaces.
/// - Empty names are dropped (`"a,,b"`, `",a"`, `"a,"`), and so is a name
///   that comes again: OpenVINO keeps the names of a tensor as a set. The
///   names keep the order in which they first appear.
///
/// ```
/// use ovir_ir::split_names;
///
/// assert_eq!(split_names(r" a , ,b\,c"), [" a ", " ", "b,c"]);
/// assert_eq!(split_names("x,,y,x,"), ["x", "y"]);
/// assert!(split_names("").is_empty());
/// ```
pub fn split_names(list: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    // A set, so that a hostile list of a million names costs linear time.
    let mut seen: HashSet<String> = HashSet::new();
    let mut keep = |name: String| {
        if !name.is_empty() && !seen.contains(&name) {
            seen.insert(name.clone());
            names.push(name);
        }
    };
    let mut current = String::new();
    let mut chars = list.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&',') => {
                current.push(',');
                chars.next();
            }
            ',' => keep(std::mem::take(&mut current)),
            c => current.push(c),
        }
    }
    keep(current);
    names
}

#[cfg(test)]
mod tests {
    use super::split_names;

    /// Each list was written as a port's `names` and as a `Result`'s
    /// `output_names` in an IR file, and read back with OpenVINO 2026.4's
    /// `Core.read_model`; the expected names are what `get_names()`
    /// returned, in the order they first appear in the list.
    #[test]
    fn lists_split_as_openvino_splits_them() {
        let cases: &[(&str, &[&str])] = &[
            (r" a , ,b\,c", &[" a ", " ", "b,c"]),
            ("a,b", &["a", "b"]),
            ("a, b", &["a", " b"]),
            (" a", &[" a"]),
            ("a ", &["a "]),
            (" ", &[" "]),
            ("a, ,b", &["a", " ", "b"]),
            ("a,,b", &["a", "b"]),
            (",a", &["a"]),
            ("a,", &["a"]),
            ("", &[]),
            (",", &[]),
            (",,", &[]),
            ("a,a", &["a"]),
            ("b,a,b", &["b", "a"]),
            (r"a\,b", &["a,b"]),
            (r"a\,b,c", &["a,b", "c"]),
            (r"a,b\,c, d", &["a", "b,c", " d"]),
            ("x,,y,x,", &["x", "y"]),
            (r"\,", &[","]),
            (r"\,a", &[",a"]),
            (r"a\,", &["a,"]),
            (r"a\,,b", &["a,", "b"]),
            (r"a\,,,b", &["a,", "b"]),
            (r"a\,\,b", &["a,,b"]),
            (r"a\, b", &["a, b"]),
            (r"a\,\", &[r"a,\"]),
            (r"a\", &[r"a\"]),
            (r"\", &[r"\"]),
            (r"\\", &[r"\\"]),
            (r"x\y", &[r"x\y"]),
            (r"a\x,b", &[r"a\x", "b"]),
            (r"a\\,b", &[r"a\,b"]),
            (r"a\\\,b", &[r"a\\,b"]),
            ("é,ü", &["é", "ü"]),
        ];
        for &(list, expected) in cases {
            assert_eq!(split_names(list), expected, "{list:?}");
        }
    }
}
