//! The `.npy` header: the magic string, the format version, the header
//! length, and a Python dictionary literal naming the dtype, the memory
//! order and the shape.
//!
//! The dictionary is parsed with a small parser for the subset of Python
//! literal syntax NumPy writes, never evaluated. Every length read from the
//! file is checked against the bytes that are really there before anything
//! is allocated for it.

use std::io::{self, Read};

use ovir_tensor::ElementType;

use crate::error::{stream, NpyError};

/// Every `.npy` file starts with these bytes.
pub(crate) const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// Headers longer than this are refused outright. NumPy itself refuses
/// headers over 10,000 bytes by default; legitimate headers of supported
/// dtypes are far shorter even at NumPy's maximum rank.
const MAX_HEADER_LEN: usize = 1 << 20;

/// Python literals nested deeper than this are refused, so that hostile
/// headers cannot exhaust the stack.
const MAX_DEPTH: usize = 32;

/// NumPy aligns the data to this many bytes from the start of the file.
const ALIGN: usize = 64;

/// NumPy leaves room for this many digits in the first dimension so that
/// arrays can grow in place; the writer reproduces it to match `np.save`
/// byte for byte.
const GROWTH_AXIS_MAX_DIGITS: usize = 21;

/// The element layout a header describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dtype {
    /// A fixed-width numeric type.
    Numeric {
        /// The matching tensor element type.
        ty: ElementType,
        /// Bytes per element.
        width: usize,
        /// `true` when the elements are big-endian.
        big_endian: bool,
    },
    /// NumPy's fixed-width unicode: `chars` UCS-4 code points per element.
    Unicode {
        /// Code points per element.
        chars: usize,
        /// `true` when the code points are big-endian.
        big_endian: bool,
    },
}

impl Dtype {
    /// Bytes per element, `None` on overflow.
    pub(crate) fn item_size(self) -> Option<usize> {
        match self {
            Dtype::Numeric { width, .. } => Some(width),
            Dtype::Unicode { chars, .. } => chars.checked_mul(4),
        }
    }
}

/// A parsed and checked header.
#[derive(Clone, Debug)]
pub(crate) struct Header {
    /// The dtype as the file spells it, for error messages.
    pub(crate) descr: String,
    /// The element layout.
    pub(crate) dtype: Dtype,
    /// The shape.
    pub(crate) shape: Vec<usize>,
    /// `true` when the data is in column-major (Fortran) order.
    pub(crate) fortran_order: bool,
    /// Bytes from the start of the file to the first data byte.
    pub(crate) data_offset: u64,
    /// Number of elements, checked for overflow.
    pub(crate) count: usize,
    /// Number of data bytes, checked for overflow.
    pub(crate) data_len: usize,
}

/// Reads the magic string and the header from `r`, which holds
/// `available` bytes in all.
pub(crate) fn read_header(r: &mut impl Read, available: u64) -> Result<Header, NpyError> {
    let mut start = [0u8; 8];
    if available < 8 {
        return Err(NpyError::BadMagic);
    }
    read_exact_or(r, &mut start, NpyError::BadMagic)?;
    if start[..6] != MAGIC[..] {
        return Err(NpyError::BadMagic);
    }
    let (major, minor) = (start[6], start[7]);
    let len_size: u64 = match (major, minor) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        _ => {
            return Err(NpyError::bad_header(format!(
                "format version {major}.{minor} is not supported (versions 1.0, 2.0 and 3.0 are)"
            )))
        }
    };
    let truncated = || NpyError::bad_header("the file ends inside the header");
    if available < 8 + len_size {
        return Err(truncated());
    }
    let mut len_bytes = [0u8; 4];
    let len_slot = len_bytes.get_mut(..len_size as usize).ok_or_else(truncated)?;
    read_exact_or(r, len_slot, truncated())?;
    let header_len = u32::from_le_bytes(len_bytes);
    let data_offset = 8 + len_size + u64::from(header_len);
    if data_offset > available {
        return Err(NpyError::bad_header(format!(
            "the header claims to be {header_len} bytes long, but only {} bytes follow",
            available - 8 - len_size
        )));
    }
    let header_len = usize::try_from(header_len).unwrap_or(usize::MAX);
    if header_len > MAX_HEADER_LEN {
        return Err(NpyError::bad_header(format!(
            "the header is {header_len} bytes long, more than the limit of {MAX_HEADER_LEN}"
        )));
    }
    let mut text = vec![0u8; header_len];
    read_exact_or(r, &mut text, truncated())?;
    let fields = parse_fields(&text)?;
    let dtype = parse_descr(&fields.descr)?;
    let too_large = || NpyError::TooLarge { descr: fields.descr.clone(), shape: fields.shape.clone() };
    let shape = fields
        .shape
        .iter()
        .map(|&d| usize::try_from(d).map_err(|_| too_large()))
        .collect::<Result<Vec<_>, _>>()?;
    let count = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)).ok_or_else(too_large)?;
    let data_len = dtype
        .item_size()
        .and_then(|size| count.checked_mul(size))
        .filter(|&len| isize::try_from(len).is_ok())
        .ok_or_else(too_large)?;
    Ok(Header {
        descr: fields.descr,
        dtype,
        shape,
        fortran_order: fields.fortran_order,
        data_offset,
        count,
        data_len,
    })
}

/// `read_exact`, reporting a premature end of data as `eof`.
fn read_exact_or(r: &mut impl Read, buf: &mut [u8], eof: NpyError) -> Result<(), NpyError> {
    r.read_exact(buf).map_err(|e| if e.kind() == io::ErrorKind::UnexpectedEof { eof } else { stream(e) })
}

/// The three entries of the header dictionary, not yet interpreted.
struct Fields {
    descr: String,
    fortran_order: bool,
    shape: Vec<u64>,
}

fn parse_fields(text: &[u8]) -> Result<Fields, NpyError> {
    if let Some(pos) = text.iter().position(|b| !b.is_ascii()) {
        return Err(NpyError::bad_header(format!(
            "the header holds the non-ASCII byte {:#04x} at offset {pos}",
            text.get(pos).copied().unwrap_or(0)
        )));
    }
    let mut parser = Parser { text, pos: 0 };
    parser.skip_space();
    let value = parser.value(0)?;
    parser.skip_space();
    if parser.pos != text.len() {
        return Err(parser.unexpected("after the dictionary"));
    }
    let Value::Dict(items) = value.value else {
        return Err(NpyError::bad_header("the header is not a dictionary"));
    };
    let mut descr = None;
    let mut fortran_order = None;
    let mut shape = None;
    for (key, value) in items {
        let Value::Str(key) = key.value else {
            return Err(NpyError::bad_header("a dictionary key is not a string"));
        };
        let slot_taken = match key.as_str() {
            "descr" => descr.replace(value).is_some(),
            "fortran_order" => fortran_order.replace(value).is_some(),
            "shape" => shape.replace(value).is_some(),
            _ => return Err(NpyError::bad_header(format!("unexpected key '{key}'"))),
        };
        if slot_taken {
            return Err(NpyError::bad_header(format!("the key '{key}' appears twice")));
        }
    }
    let missing = |key: &str| NpyError::bad_header(format!("the key '{key}' is missing"));
    let descr = descr.ok_or_else(|| missing("descr"))?;
    let descr = match descr.value {
        Value::Str(s) => s,
        // Structured and nested dtypes are spelled as lists; none is
        // supported, so the text itself is the best description.
        _ => return Err(NpyError::UnsupportedDtype { descr: descr.text }),
    };
    let fortran_order = match fortran_order.ok_or_else(|| missing("fortran_order"))?.value {
        Value::Bool(b) => b,
        _ => return Err(NpyError::bad_header("'fortran_order' is not True or False")),
    };
    let shape = shape.ok_or_else(|| missing("shape"))?;
    let Value::Tuple(dims) = shape.value else {
        return Err(NpyError::bad_header(format!("the shape {} is not a tuple", shape.text)));
    };
    let shape = dims
        .into_iter()
        .map(|d| match d.value {
            Value::Int(n) => u64::try_from(n)
                .map_err(|_| NpyError::bad_header(format!("the shape holds the negative size {n}"))),
            _ => Err(NpyError::bad_header(format!("the shape holds {}, which is not a size", d.text))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Fields { descr, fortran_order, shape })
}

/// Maps a dtype string such as `<f4` to its element layout.
fn parse_descr(descr: &str) -> Result<Dtype, NpyError> {
    let unsupported = || NpyError::UnsupportedDtype { descr: format!("'{descr}'") };
    let mut chars = descr.chars();
    let (Some(order), Some(kind)) = (chars.next(), chars.next()) else {
        return Err(unsupported());
    };
    let size = chars.as_str();
    if size.is_empty() || !size.bytes().all(|b| b.is_ascii_digit()) {
        return Err(unsupported());
    }
    if kind == 'U' {
        let big_endian = match order {
            '<' => false,
            '>' => true,
            _ => return Err(unsupported()),
        };
        let chars: usize =
            size.parse().map_err(|_| NpyError::TooLarge { descr: descr.to_owned(), shape: Vec::new() })?;
        return Ok(Dtype::Unicode { chars, big_endian });
    }
    let ty = match (kind, size) {
        ('b', "1") => ElementType::Boolean,
        ('i', "1") => ElementType::I8,
        ('i', "2") => ElementType::I16,
        ('i', "4") => ElementType::I32,
        ('i', "8") => ElementType::I64,
        ('u', "1") => ElementType::U8,
        ('u', "2") => ElementType::U16,
        ('u', "4") => ElementType::U32,
        ('u', "8") => ElementType::U64,
        ('f', "2") => ElementType::F16,
        ('f', "4") => ElementType::F32,
        ('f', "8") => ElementType::F64,
        _ => return Err(unsupported()),
    };
    let width = ty.byte_width().ok_or_else(unsupported)?;
    let big_endian = match (order, width) {
        ('<', _) => false,
        ('>', _) => true,
        // Byte order does not apply to single bytes; NumPy writes `|`.
        ('|' | '=', 1) => false,
        _ => return Err(unsupported()),
    };
    Ok(Dtype::Numeric { ty, width, big_endian })
}

/// A Python literal value from the header.
#[derive(Debug)]
enum Value {
    Str(String),
    Int(i128),
    Bool(bool),
    None,
    Tuple(Vec<Spanned>),
    /// Only structured dtypes use lists, and they are refused whole, so
    /// the items are not kept.
    List,
    Dict(Vec<(Spanned, Spanned)>),
}

/// A value with the header text it was parsed from.
#[derive(Debug)]
struct Spanned {
    value: Value,
    text: String,
}

struct Parser<'a> {
    text: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn unexpected(&self, context: &str) -> NpyError {
        match self.peek() {
            Some(c) => NpyError::bad_header(format!(
                "unexpected character '{}' at offset {} {context}",
                char::from(c).escape_default(),
                self.pos
            )),
            None => NpyError::bad_header(format!("the header text ends too early {context}")),
        }
    }

    fn value(&mut self, depth: usize) -> Result<Spanned, NpyError> {
        if depth > MAX_DEPTH {
            return Err(NpyError::bad_header("the header nests values too deeply"));
        }
        let start = self.pos;
        let value = match self.peek() {
            Some(b'\'' | b'"') => Value::Str(self.string()?),
            Some(b'0'..=b'9' | b'-') => Value::Int(self.int()?),
            Some(b'(') => {
                let (mut items, trailing_comma) = self.sequence(b')', depth)?;
                // `(x)` is just `x` in Python; only a comma makes a tuple.
                match (items.pop(), items.is_empty(), trailing_comma) {
                    (Some(only), true, false) => only.value,
                    (last, _, _) => Value::Tuple(items.into_iter().chain(last).collect()),
                }
            }
            Some(b'[') => {
                self.sequence(b']', depth)?;
                Value::List
            }
            Some(b'{') => Value::Dict(self.dict(depth)?),
            Some(b'A'..=b'Z' | b'a'..=b'z') => {
                let word_start = self.pos;
                while matches!(self.peek(), Some(b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_')) {
                    self.pos += 1;
                }
                match self.text.get(word_start..self.pos) {
                    Some(b"True") => Value::Bool(true),
                    Some(b"False") => Value::Bool(false),
                    Some(b"None") => Value::None,
                    word => {
                        return Err(NpyError::bad_header(format!(
                            "unexpected name '{}' at offset {word_start}",
                            String::from_utf8_lossy(word.unwrap_or_default())
                        )))
                    }
                }
            }
            _ => return Err(self.unexpected("where a value should start")),
        };
        let text = String::from_utf8_lossy(self.text.get(start..self.pos).unwrap_or_default()).into_owned();
        Ok(Spanned { value, text })
    }

    /// Parses the items of a tuple or list up to `close`; also tells
    /// whether a comma followed the last item.
    fn sequence(&mut self, close: u8, depth: usize) -> Result<(Vec<Spanned>, bool), NpyError> {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_space();
            if self.peek() == Some(close) {
                self.pos += 1;
                return Ok((items, true));
            }
            items.push(self.value(depth + 1)?);
            self.skip_space();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(c) if c == close => {
                    self.pos += 1;
                    return Ok((items, false));
                }
                _ => return Err(self.unexpected("inside a tuple or list")),
            }
        }
    }

    fn dict(&mut self, depth: usize) -> Result<Vec<(Spanned, Spanned)>, NpyError> {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_space();
            if self.peek() == Some(b'}') {
                self.pos += 1;
                return Ok(items);
            }
            let key = self.value(depth + 1)?;
            self.skip_space();
            if self.peek() != Some(b':') {
                return Err(self.unexpected("where a ':' should follow a dictionary key"));
            }
            self.pos += 1;
            self.skip_space();
            let value = self.value(depth + 1)?;
            items.push((key, value));
            self.skip_space();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(items);
                }
                _ => return Err(self.unexpected("inside the dictionary")),
            }
        }
    }

    fn string(&mut self) -> Result<String, NpyError> {
        let quote = self.peek();
        self.pos += 1;
        let mut out = String::new();
        loop {
            match self.peek() {
                None | Some(b'\n') => {
                    return Err(NpyError::bad_header("a string in the header is not closed"))
                }
                Some(b'\\') => {
                    self.pos += 1;
                    match self.peek() {
                        Some(c @ (b'\\' | b'\'' | b'"')) => out.push(char::from(c)),
                        _ => return Err(self.unexpected("after a backslash in a string")),
                    }
                }
                Some(c) if Some(c) == quote => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(c) => out.push(char::from(c)),
            }
            self.pos += 1;
        }
    }

    fn int(&mut self) -> Result<i128, NpyError> {
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        let start = self.pos;
        let mut n: i128 = 0;
        while let Some(c @ b'0'..=b'9') = self.peek() {
            n = n
                .checked_mul(10)
                .and_then(|n| n.checked_add(i128::from(c - b'0')))
                .ok_or_else(|| NpyError::bad_header("a number in the header is too large"))?;
            self.pos += 1;
        }
        let digits = self.pos - start;
        if digits == 0 || (digits > 1 && self.text.get(start) == Some(&b'0')) {
            return Err(NpyError::bad_header(format!("malformed number at offset {start}")));
        }
        // Python 2 wrote long integers with an `L` suffix.
        if self.peek() == Some(b'L') {
            self.pos += 1;
        }
        Ok(if negative { -n } else { n })
    }
}

/// The full header, magic string included, for an array of `descr` with
/// `shape` in C order, laid out exactly as `np.save` lays it out.
pub(crate) fn encode_header(descr: &str, shape: &[usize]) -> Result<Vec<u8>, NpyError> {
    let shape_text = match shape {
        [] => "()".to_owned(),
        [d] => format!("({d},)"),
        dims => format!("({})", dims.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")),
    };
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}");
    if let Some(first) = shape.first() {
        let digits = first.to_string().len();
        dict.extend(std::iter::repeat_n(' ', GROWTH_AXIS_MAX_DIGITS.saturating_sub(digits)));
    }
    // The dictionary, the padding and the final newline; version 1.0 has a
    // two-byte length, version 2.0 a four-byte one.
    let padded_len = |prefix: usize| {
        let unpadded = prefix + dict.len() + 1;
        dict.len() + 1 + (ALIGN - unpadded % ALIGN)
    };
    let v1_len = padded_len(MAGIC.len() + 4);
    let mut out = Vec::with_capacity(v1_len + 16);
    out.extend_from_slice(MAGIC);
    let header_len = match u16::try_from(v1_len) {
        Ok(len) => {
            out.extend_from_slice(&[1, 0]);
            out.extend_from_slice(&len.to_le_bytes());
            v1_len
        }
        Err(_) => {
            let len = padded_len(MAGIC.len() + 6);
            let field = u32::try_from(len)
                .map_err(|_| NpyError::bad_header(format!("a header of {len} bytes is too long to write")))?;
            out.extend_from_slice(&[2, 0]);
            out.extend_from_slice(&field.to_le_bytes());
            len
        }
    };
    out.extend_from_slice(dict.as_bytes());
    out.resize(out.len() + (header_len - dict.len() - 1), b' ');
    out.push(b'\n');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Fields, NpyError> {
        parse_fields(text.as_bytes())
    }

    #[test]
    fn numpy_header_parses() {
        let f = parse("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }    \n")
            .unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(f.descr, "<f4");
        assert!(!f.fortran_order);
        assert_eq!(f.shape, vec![2, 3]);
    }

    #[test]
    fn python_literal_details() {
        let ok = |t: &str| parse(t).map(|f| f.shape).unwrap_or_else(|e| unreachable!("{t}: {e}"));
        assert_eq!(ok("{'shape': (), 'descr': \"<i4\", 'fortran_order': True}"), Vec::<u64>::new());
        assert_eq!(ok("{'descr':'<i4','fortran_order':False,'shape':(7,)}"), vec![7]);
        assert_eq!(ok("{'descr': '<i4', 'fortran_order': False, 'shape': (3L, 4L), }"), vec![3, 4]);
        let bad = |t: &str| matches!(parse(t), Err(NpyError::BadHeader { .. }));
        assert!(bad("{'descr': '<i4', 'fortran_order': False, 'shape': (7), }"));
        assert!(bad("{'descr': '<i4', 'fortran_order': False, 'shape': [7], }"));
        assert!(bad("{'descr': '<i4', 'fortran_order': False, 'shape': (-1,), }"));
        assert!(bad("{'descr': '<i4', 'fortran_order': False, 'shape': (07,), }"));
        assert!(bad("{'descr': '<i4', 'fortran_order': 0, 'shape': (), }"));
        assert!(bad("{'descr': '<i4', 'fortran_order': False, 'shape': (), 'x': 1}"));
        assert!(bad("{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': ()}"));
        assert!(bad("{'descr': '<i4', 'shape': ()}"));
        assert!(bad("{'descr': '<i4', 'fortran_order': False, 'shape': ()} x"));
        assert!(bad("{'descr': '<i4', 'fortran_order': False, 'shape': (1,,)}"));
        assert!(bad("{'descr': '<i4, 'fortran_order': False, 'shape': ()}"));
        assert!(bad(
            "{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999999999999999999999999,)}"
        ));
        assert!(bad(&format!("{}{}", "(".repeat(10_000), ")".repeat(10_000))));
        assert!(bad("['descr', '<i4']"));
        assert!(bad(""));
    }

    #[test]
    fn structured_dtypes_are_unsupported_not_malformed() {
        let r = parse("{'descr': [('a', '<i4'), ('b', '<f8')], 'fortran_order': False, 'shape': (2,), }");
        assert!(
            matches!(&r, Err(NpyError::UnsupportedDtype { descr }) if descr == "[('a', '<i4'), ('b', '<f8')]"),
            "{r:?}",
            r = r.err()
        );
    }

    #[test]
    fn descr_strings_map_to_layouts() {
        assert_eq!(
            parse_descr(">f8").ok(),
            Some(Dtype::Numeric { ty: ElementType::F64, width: 8, big_endian: true })
        );
        assert_eq!(
            parse_descr("|b1").ok(),
            Some(Dtype::Numeric { ty: ElementType::Boolean, width: 1, big_endian: false })
        );
        assert_eq!(parse_descr("<U12").ok(), Some(Dtype::Unicode { chars: 12, big_endian: false }));
        for bad in
            ["<c8", "|O", "<M8[ns]", "|S5", "|V8", "<f16", "|i4", "=i4", "<U", "U5", "", "<", "<i", "<f4 "]
        {
            assert!(matches!(parse_descr(bad), Err(NpyError::UnsupportedDtype { .. })), "{bad}");
        }
    }

    #[test]
    fn encoded_header_is_aligned_and_round_trips() {
        for shape in [vec![], vec![5], vec![2, 3, 4], vec![usize::MAX, 1]] {
            let h = encode_header("<f4", &shape).unwrap_or_else(|e| unreachable!("{e}"));
            assert_eq!(h.len() % ALIGN, 0);
            let parsed = read_header(&mut h.as_slice(), h.len() as u64);
            let f = parse_fields(&h[10..]).unwrap_or_else(|e| unreachable!("{e}"));
            assert_eq!(f.shape, shape.iter().map(|&d| d as u64).collect::<Vec<_>>());
            if shape.first() != Some(&usize::MAX) {
                assert_eq!(parsed.map(|p| p.shape).ok(), Some(shape));
            }
        }
    }

    #[test]
    fn very_long_headers_use_version_2() {
        let shape = vec![1usize; 30_000];
        let h = encode_header("<f4", &shape).unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(&h[6..8], &[2, 0]);
        assert_eq!(h.len() % ALIGN, 0);
        let parsed = read_header(&mut h.as_slice(), h.len() as u64).unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(parsed.shape, shape);
        assert_eq!(parsed.data_offset, h.len() as u64);
    }
}
