//! Tensors as text: a stable format that shows every value exactly, for
//! snapshot tests, logs and error messages.
//!
//! `format!("{tensor}")` (through [`Display`](fmt::Display)) gives:
//!
//! ```
//! use ovir_tensor::Tensor;
//! let nan = f32::from_bits(0x7fc0_0001);
//! let t = Tensor::from_vec(&[2, 3], vec![1.0f32, 2.5, -0.0, f32::INFINITY, -f32::INFINITY, nan])?;
//! assert_eq!(
//!     t.to_string(),
//!     "\
//! ovir-tensor-text v1
//! f32 [2, 3]
//! [[1, 2.5, -0],
//!  [inf, -inf, nan:0x7fc00001]]"
//! );
//! # Ok::<(), ovir_tensor::TensorError>(())
//! ```
//!
//! The first line names the format and its version; a later version that
//! shows anything differently has another name. The second line is the
//! element type, as an IR file writes it, and the shape. The values follow
//! in nested brackets, one bracket level per dimension as NumPy prints
//! them, with the innermost rows one per line and wrapped after every
//! [`VALUES_PER_LINE`] values, so that a changed value changes one line of a
//! snapshot's diff. Values are never padded to line up in columns: one
//! wider value would change every line of its column. A blank line
//! separates blocks of two or more dimensions. A tensor of rank 0 is its
//! one value, alone.
//!
//! # Values
//!
//! | element type | shown as |
//! |---|---|
//! | `f64`, `f32`, `f16`, `bf16`, `f8e4m3`, `f8e5m2`, `f8e8m0`, `f4e2m1` | the shortest decimal that reads back as the same value of *that* type: an `f16` holding 0.1 shows as `0.1`, never as the `0.099975586` of its `f32` widening |
//! | zero, infinity | `0`, `-0`, `inf`, `-inf` |
//! | NaN | `nan:0x` and the element's own bits in hex, sign and payload included: `nan:0x7fc00001` (`f32`), `nan:0x7e00` (`f16`), `nan:0x7f` (`f8e4m3`) |
//! | integers of any width | their exact value: `-9223372036854775808` |
//! | `i4` | its value, −8 to 7 |
//! | `u1`, `u2`, `u3`, `u4`, `u6`, `nf4` | the element's code (for `nf4` the index into its table of values) |
//! | `boolean` | `true` or `false` (any byte other than 0 is `true`) |
//! | `string` | in double quotes, with `"`, `\`, newline, carriage return and tab as `\"`, `\\`, `\n`, `\r`, `\t`, other control characters as `\u{7f}`, and every other character as it is |
//!
//! A float is written without an exponent when its magnitude lies in
//! \[10⁻⁴, 10¹⁶), and otherwise as a mantissa and an exponent, `1e-45` or
//! `-3.4028235e38`. An integral value has no decimal point: `1`, not `1.0`.
//! Every number reads back as the same value: exactly, with Rust's
//! `str::parse`, for `f32` and `f64`; for the narrower types, once the
//! decimal is rounded to the type, to nearest with ties to the even bit
//! pattern. So the digits are the fewest that pick the value out among its
//! type's, not its exact decimal expansion: the `f8e4m3` 448 shows as
//! `450`, which no other `f8e4m3` value is nearer to.
//!
//! The values never pass through [`Tensor::real_values`], which widens
//! every float to `f64` and so shows an `f32` with `f64` digits and cannot
//! keep a NaN's bits.
//!
//! # Summaries
//!
//! A tensor of more than a threshold of elements ([`DEFAULT_THRESHOLD`]
//! unless [`DisplayOptions::threshold`] sets another) is summarised: its
//! element count, a hash of its exact contents, and its first and last few
//! values (eight of each unless [`DisplayOptions::edge_items`] sets another
//! number), in row-major order:
//!
//! ```text
//! ovir-tensor-text v1
//! f32 [100, 100]
//! 10000 values, xxh3-64 0e7b006c3a5a0d17
//! first [0, 1, 2, 3, 4, 5, 6, 7]
//! last [9992, 9993, 9994, 9995, 9996, 9997, 9998, 9999]
//! ```
//!
//! The hash is XXH3 with 64-bit output and the default seed and secret
//! (from the `xxhash-rust` crate), in 16 lowercase hex digits, taken over
//! the tensor's bytes as [`Tensor::bytes`] gives them: little-endian, and
//! packed for the sub-byte types as OpenVINO packs them. For a `string`
//! tensor it is taken over each element in turn as its length in bytes
//! (a little-endian `u32`) followed by its UTF-8 bytes. Any change of any
//! value changes the hash, so a snapshot of a summary still catches it.
//! [`content_hash`] gives the same number.
//!
//! The alternate form, `{:#}`, never summarises; nor do
//! [`DisplayOptions::full`].
//!
//! # JSON and other serde formats
//!
//! [`Tensor`] and [`TensorDisplay`] implement [`serde::Serialize`]. JSON
//! has no NaN or infinity, so every value is serialized as a string, the
//! same one the text shows (a `string` element as itself, which the
//! serializer escapes):
//!
//! ```
//! use ovir_tensor::Tensor;
//! let t = Tensor::from_vec(&[3], vec![1.5f32, -0.0, f32::from_bits(0x7fc0_0001)])?;
//! assert_eq!(
//!     serde_json::to_string(&t)?,
//!     r#"{"type":"f32","shape":[3],"values":["1.5","-0","nan:0x7fc00001"]}"#
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A summarised tensor serializes as `type`, `shape`, `count`, `xxh3-64`,
//! `first` and `last` instead of `values`.

use std::cmp::Ordering;
use std::fmt::{self, Write as _};

use half::{bf16, f16};
use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};

use crate::element::ElementType;
use crate::packing::code_at;
use crate::tensor::Tensor;

/// The first line of a tensor's text: the name and version of the format.
pub const TEXT_FORMAT: &str = "ovir-tensor-text v1";

/// Tensors of more elements than this are summarised unless told
/// otherwise.
pub const DEFAULT_THRESHOLD: usize = 1024;

/// How many values a summary shows from each end unless told otherwise.
pub const DEFAULT_EDGE_ITEMS: usize = 8;

/// How many values the text puts on one line before it wraps a row.
pub const VALUES_PER_LINE: usize = 8;

/// The name the text and the JSON give the content hash.
pub const HASH_NAME: &str = "xxh3-64";

/// How a tensor is shown: when it is summarised, and how much of it a
/// summary shows.
///
/// ```
/// use ovir_tensor::{text::DisplayOptions, Tensor};
/// let t = Tensor::from_vec(&[6], vec![1i32, 2, 3, 4, 5, 6])?;
/// let text = t.display_with(DisplayOptions::new().threshold(4).edge_items(2)).to_string();
/// assert_eq!(
///     text,
///     "ovir-tensor-text v1\ni32 [6]\n6 values, xxh3-64 09dec43837b41329\nfirst [1, 2]\nlast [5, 6]"
/// );
/// # Ok::<(), ovir_tensor::TensorError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DisplayOptions {
    threshold: Option<usize>,
    edge_items: usize,
}

impl Default for DisplayOptions {
    fn default() -> Self {
        DisplayOptions::new()
    }
}

impl DisplayOptions {
    /// The defaults: summarise past [`DEFAULT_THRESHOLD`] elements, showing
    /// [`DEFAULT_EDGE_ITEMS`] values from each end.
    pub const fn new() -> Self {
        DisplayOptions { threshold: Some(DEFAULT_THRESHOLD), edge_items: DEFAULT_EDGE_ITEMS }
    }

    /// Never summarise: every value is shown, however many there are.
    pub const fn full() -> Self {
        DisplayOptions { threshold: None, edge_items: DEFAULT_EDGE_ITEMS }
    }

    /// Summarise tensors of more than `elements` elements.
    pub const fn threshold(self, elements: usize) -> Self {
        DisplayOptions { threshold: Some(elements), ..self }
    }

    /// Show `count` values from each end of a summarised tensor.
    pub const fn edge_items(self, count: usize) -> Self {
        DisplayOptions { edge_items: count, ..self }
    }

    /// Whether a tensor of `elements` elements is summarised.
    pub const fn summarises(&self, elements: usize) -> bool {
        match self.threshold {
            Some(t) => elements > t,
            None => false,
        }
    }
}

/// A tensor with the options to show it by: what
/// [`Tensor::display_with`] gives. It implements [`Display`](fmt::Display)
/// and [`Serialize`].
#[derive(Clone, Copy, Debug)]
pub struct TensorDisplay<'a> {
    tensor: &'a Tensor,
    options: DisplayOptions,
    format_line: bool,
}

impl<'a> TensorDisplay<'a> {
    /// The same text without its first line, the format's name: for a
    /// container that names the format once for all its tensors.
    pub fn without_format_line(self) -> Self {
        TensorDisplay { format_line: false, ..self }
    }

    fn is_summary(&self) -> bool {
        self.options.summarises(self.tensor.len())
    }

    /// The flat indices of the values a summary shows first and last.
    fn edges(&self) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
        let len = self.tensor.len();
        let first = self.options.edge_items.min(len);
        let last = self.options.edge_items.min(len - first);
        (0..first, len - last..len)
    }
}

impl Tensor {
    /// The tensor as text or JSON with the given options (see the
    /// [`text`](crate::text) module for the format).
    pub fn display_with(&self, options: DisplayOptions) -> TensorDisplay<'_> {
        TensorDisplay { tensor: self, options, format_line: true }
    }

    /// One element, by its row-major index, as the text format shows it;
    /// `None` past the end.
    ///
    /// ```
    /// use ovir_tensor::{f16, Tensor};
    /// let t = Tensor::from_vec(&[2], vec![f16::from_f32(0.1), f16::NEG_INFINITY])?;
    /// assert_eq!(t.value_text(0).as_deref(), Some("0.1"));
    /// assert_eq!(t.value_text(1).as_deref(), Some("-inf"));
    /// # Ok::<(), ovir_tensor::TensorError>(())
    /// ```
    pub fn value_text(&self, index: usize) -> Option<String> {
        let mut s = String::new();
        write_value(&mut s, self, index).ok()?;
        Some(s)
    }
}

/// The content hash a summary shows (see the [module docs](self)).
///
/// ```
/// use ovir_tensor::{text::content_hash, Tensor};
/// let t = Tensor::from_vec(&[0], Vec::<f32>::new())?;
/// assert_eq!(content_hash(&t), 0x2d06800538d394c2); // XXH3-64 of no bytes
/// # Ok::<(), ovir_tensor::TensorError>(())
/// ```
pub fn content_hash(tensor: &Tensor) -> u64 {
    match (tensor.bytes(), tensor.strings()) {
        (Some(bytes), _) => xxhash_rust::xxh3::xxh3_64(bytes),
        (None, Some(strings)) => {
            let mut h = xxhash_rust::xxh3::Xxh3::new();
            for s in strings {
                // A string of 4 GiB or more cannot be a tensor element that
                // anything here made; its length saturates rather than wraps.
                let len = u32::try_from(s.len()).unwrap_or(u32::MAX);
                h.update(&len.to_le_bytes());
                h.update(s.as_bytes());
            }
            h.digest()
        }
        (None, None) => xxhash_rust::xxh3::xxh3_64(&[]),
    }
}

impl fmt::Display for TensorDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.tensor;
        if self.format_line {
            writeln!(f, "{TEXT_FORMAT}")?;
        }
        write!(f, "{} {:?}", t.element_type(), t.shape())?;
        if self.is_summary() {
            let (first, last) = self.edges();
            write!(f, "\n{} values, {HASH_NAME} {:016x}\nfirst ", t.len(), content_hash(t))?;
            write_row(f, t, first, "first ".len())?;
            f.write_str("\nlast ")?;
            return write_row(f, t, last, "last ".len());
        }
        f.write_char('\n')?;
        if t.rank() == 0 {
            return write_value(f, t, 0);
        }
        write_block(f, t, t.shape(), 0, 0)
    }
}

/// `[a, b, …]` for the values at `indices`, wrapped after every
/// [`VALUES_PER_LINE`] values onto a line indented by `indent + 1`.
fn write_row(
    f: &mut dyn fmt::Write,
    t: &Tensor,
    indices: std::ops::Range<usize>,
    indent: usize,
) -> fmt::Result {
    f.write_char('[')?;
    let start = indices.start;
    for i in indices {
        if i > start {
            if (i - start).is_multiple_of(VALUES_PER_LINE) {
                write!(f, ",\n{:w$}", "", w = indent + 1)?;
            } else {
                f.write_str(", ")?;
            }
        }
        write_value(f, t, i)?;
    }
    f.write_char(']')
}

/// The nested brackets of the block of `dims` whose first element is at
/// flat index `offset`, itself `depth` levels in.
fn write_block(
    f: &mut dyn fmt::Write,
    t: &Tensor,
    dims: &[usize],
    depth: usize,
    offset: usize,
) -> fmt::Result {
    let [outer, inner @ ..] = dims else {
        return Ok(());
    };
    if inner.is_empty() {
        return write_row(f, t, offset..offset + outer, depth);
    }
    // The shape's product was checked when the tensor was made.
    let stride: usize = inner.iter().product();
    f.write_char('[')?;
    for i in 0..*outer {
        if i > 0 {
            f.write_str(",\n")?;
            if inner.len() > 1 {
                f.write_char('\n')?;
            }
            write!(f, "{:w$}", "", w = depth + 1)?;
        }
        write_block(f, t, inner, depth + 1, offset + i * stride)?;
    }
    f.write_char(']')
}

impl fmt::Display for Tensor {
    /// The tensor in the text format of the [`text`](crate::text) module,
    /// summarised past [`DEFAULT_THRESHOLD`] elements; `{:#}` shows every
    /// value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let options = if f.alternate() { DisplayOptions::full() } else { DisplayOptions::new() };
        fmt::Display::fmt(&self.display_with(options), f)
    }
}

impl Serialize for TensorDisplay<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let t = self.tensor;
        let summary = self.is_summary();
        let mut s = serializer.serialize_struct("Tensor", if summary { 6 } else { 3 })?;
        s.serialize_field("type", t.element_type().ir_name())?;
        s.serialize_field("shape", t.shape())?;
        if summary {
            let (first, last) = self.edges();
            s.serialize_field("count", &t.len())?;
            s.serialize_field(HASH_NAME, &format!("{:016x}", content_hash(t)))?;
            s.serialize_field("first", &Values(t, first))?;
            s.serialize_field("last", &Values(t, last))?;
        } else {
            s.serialize_field("values", &Values(t, 0..t.len()))?;
        }
        s.end()
    }
}

impl Serialize for Tensor {
    /// The tensor as [`TensorDisplay`] serializes it with the default
    /// options.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.display_with(DisplayOptions::new()).serialize(serializer)
    }
}

/// Some values of a tensor, serialized as a sequence of strings.
struct Values<'a>(&'a Tensor, std::ops::Range<usize>);

impl Serialize for Values<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Values(t, range) = self;
        let mut seq = serializer.serialize_seq(Some(range.len()))?;
        if let Some(strings) = t.strings() {
            for s in strings.get(range.clone()).unwrap_or(&[]) {
                seq.serialize_element(s)?;
            }
        } else {
            let mut text = String::new();
            for i in range.clone() {
                text.clear();
                write_value(&mut text, t, i).map_err(serde::ser::Error::custom)?;
                seq.serialize_element(&text)?;
            }
        }
        seq.end()
    }
}

/// A string in double quotes, escaped as the [`text`](crate::text) module
/// describes.
///
/// ```
/// use ovir_tensor::text::Quoted;
/// assert_eq!(Quoted("say \"hé\"\n").to_string(), r#""say \"hé\"\n""#);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Quoted<'a>(pub &'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('"')?;
        for c in self.0.chars() {
            match c {
                '"' => f.write_str("\\\"")?,
                '\\' => f.write_str("\\\\")?,
                '\n' => f.write_str("\\n")?,
                '\r' => f.write_str("\\r")?,
                '\t' => f.write_str("\\t")?,
                c if c.is_control() => write!(f, "\\u{{{:x}}}", u32::from(c))?,
                c => f.write_char(c)?,
            }
        }
        f.write_char('"')
    }
}

/// The element at row-major `index`, as the text shows it.
fn write_value(f: &mut dyn fmt::Write, t: &Tensor, index: usize) -> fmt::Result {
    use ElementType as E;
    if let Some(strings) = t.strings() {
        let s = strings.get(index).ok_or(fmt::Error)?;
        return write!(f, "{}", Quoted(s));
    }
    let ty = t.element_type();
    let bytes = t.bytes().ok_or(fmt::Error)?;
    if index >= t.len() {
        return Err(fmt::Error);
    }
    if let Some(width) = ty.byte_width() {
        let b = bytes.get(index * width..(index + 1) * width).ok_or(fmt::Error)?;
        let mut raw = [0u8; 8];
        raw.get_mut(..width).ok_or(fmt::Error)?.copy_from_slice(b);
        let bits = u64::from_le_bytes(raw);
        return match ty {
            E::Boolean => f.write_str(if bits != 0 { "true" } else { "false" }),
            E::I8 => write!(f, "{}", bits as u8 as i8),
            E::I16 => write!(f, "{}", bits as u16 as i16),
            E::I32 => write!(f, "{}", bits as u32 as i32),
            E::I64 => write!(f, "{}", bits as i64),
            E::U8 | E::U16 | E::U32 | E::U64 => write!(f, "{bits}"),
            E::F32 => write_f32(f, f32::from_bits(bits as u32)),
            E::F64 => write_f64(f, f64::from_bits(bits)),
            _ => match SmallFloat::of(ty) {
                Some(small) => small.write(f, bits as u32),
                None => Err(fmt::Error),
            },
        };
    }
    let code = code_at(bytes, ty, index).ok_or(fmt::Error)?;
    match ty {
        E::I4 => write!(f, "{}", ((code << 4) as i8) >> 4),
        E::F4e2m1 => SmallFloat::F4E2M1.write(f, u32::from(code)),
        _ => write!(f, "{code}"),
    }
}

/// An `f32` in the text's notation: its shortest round-trip digits.
pub fn write_f32(f: &mut dyn fmt::Write, x: f32) -> fmt::Result {
    if x.is_nan() {
        return write!(f, "nan:0x{:08x}", x.to_bits());
    }
    write_exp_text(f, &format!("{x:e}"))
}

/// An `f64` in the text's notation: its shortest round-trip digits.
///
/// ```
/// let mut s = String::new();
/// ovir_tensor::text::write_f64(&mut s, 4.9e-324)?;
/// assert_eq!(s, "5e-324");
/// # Ok::<(), std::fmt::Error>(())
/// ```
pub fn write_f64(f: &mut dyn fmt::Write, x: f64) -> fmt::Result {
    if x.is_nan() {
        return write!(f, "nan:0x{:016x}", x.to_bits());
    }
    write_exp_text(f, &format!("{x:e}"))
}

/// A number Rust wrote as `[-]d[.ddd]e[-]x` (or `inf`), in the text's
/// notation.
fn write_exp_text(f: &mut dyn fmt::Write, s: &str) -> fmt::Result {
    let (negative, rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let sign = if negative { "-" } else { "" };
    let Some((mantissa, exp)) = rest.split_once('e') else {
        return write!(f, "{sign}{rest}");
    };
    let exp: i32 = exp.parse().map_err(|_| fmt::Error)?;
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    write_decimal(f, negative, &digits, exp)
}

/// `0.d₁d₂… × 10^(exp + 1)`, written as the text writes numbers: without an
/// exponent for magnitudes in [10⁻⁴, 10¹⁶), with one otherwise.
fn write_decimal(f: &mut dyn fmt::Write, negative: bool, digits: &str, exp: i32) -> fmt::Result {
    let digits = digits.trim_end_matches('0');
    if negative {
        f.write_char('-')?;
    }
    if digits.is_empty() {
        return f.write_char('0');
    }
    let (head, tail) = digits.split_at(1);
    match exp {
        0..=15 => {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                write!(f, "{digits}{:0<w$}", "", w = int_len - digits.len())
            } else {
                let (int, frac) = digits.split_at(int_len);
                write!(f, "{int}.{frac}")
            }
        }
        -4..=-1 => write!(f, "0.{:0<w$}{digits}", "", w = (-exp - 1) as usize),
        _ if tail.is_empty() => write!(f, "{head}e{exp}"),
        _ => write!(f, "{head}.{tail}e{exp}"),
    }
}

/// The exact value of the bit pattern `bits` of a float format narrower
/// than `f32` (`f16`, `bf16`, the 8-bit floats and `f4e2m1`), NaN and the
/// infinities included; `None` for any other type.
pub(crate) fn small_float_value(ty: ElementType, bits: u32) -> Option<f64> {
    let small = SmallFloat::of(ty)?;
    Some(match small.value(bits) {
        SmallValue::NaN => f64::NAN,
        SmallValue::Infinite { negative } => {
            if negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }
        }
        SmallValue::Finite { negative, magnitude } => {
            if negative {
                -magnitude
            } else {
                magnitude
            }
        }
    })
}

/// The float formats narrower than `f32`, whose shortest digits are found
/// here rather than by `core`, which knows only `f32` and `f64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SmallFloat {
    F16,
    Bf16,
    F8E4M3,
    F8E5M2,
    F8E8M0,
    F4E2M1,
}

/// What one bit pattern of a small float stands for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum SmallValue {
    /// A finite value (its magnitude) and its sign.
    Finite {
        negative: bool,
        magnitude: f64,
    },
    Infinite {
        negative: bool,
    },
    NaN,
}

impl SmallFloat {
    fn of(ty: ElementType) -> Option<Self> {
        Some(match ty {
            ElementType::F16 => SmallFloat::F16,
            ElementType::Bf16 => SmallFloat::Bf16,
            ElementType::F8e4m3 => SmallFloat::F8E4M3,
            ElementType::F8e5m2 => SmallFloat::F8E5M2,
            ElementType::F8e8m0 => SmallFloat::F8E8M0,
            ElementType::F4e2m1 => SmallFloat::F4E2M1,
            _ => return None,
        })
    }

    /// Bits per value.
    const fn bits(self) -> u32 {
        match self {
            SmallFloat::F16 | SmallFloat::Bf16 => 16,
            SmallFloat::F8E4M3 | SmallFloat::F8E5M2 | SmallFloat::F8E8M0 => 8,
            SmallFloat::F4E2M1 => 4,
        }
    }

    /// The sign bit; 0 for the unsigned `f8e8m0`.
    const fn sign_bit(self) -> u32 {
        match self {
            SmallFloat::F8E8M0 => 0,
            _ => 1 << (self.bits() - 1),
        }
    }

    /// The value of the bit pattern `bits`, exactly (every value of these
    /// formats is an `f64`).
    fn value(self, bits: u32) -> SmallValue {
        let negative = bits & self.sign_bit() != 0;
        let m = bits & !self.sign_bit();
        let magnitude = match self {
            SmallFloat::F16 => f16::from_bits(m as u16).to_f64(),
            SmallFloat::Bf16 => bf16::from_bits(m as u16).to_f64(),
            // The high byte of an f16.
            SmallFloat::F8E5M2 => f16::from_bits((m as u16) << 8).to_f64(),
            // Bias 7, no infinity; 0x7f is NaN.
            SmallFloat::F8E4M3 => {
                let (e, frac) = ((m >> 3) as i32, f64::from(m & 7));
                match e {
                    15 if m & 7 == 7 => f64::NAN,
                    0 => frac * 2f64.powi(-9),
                    _ => (8.0 + frac) * 2f64.powi(e - 10),
                }
            }
            // 2^(code - 127); 0xff is NaN.
            SmallFloat::F8E8M0 if m == 0xff => f64::NAN,
            SmallFloat::F8E8M0 => 2f64.powi(m as i32 - 127),
            SmallFloat::F4E2M1 => [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0][(m & 7) as usize],
        };
        if magnitude.is_nan() {
            SmallValue::NaN
        } else if magnitude.is_infinite() {
            SmallValue::Infinite { negative }
        } else {
            SmallValue::Finite { negative, magnitude }
        }
    }

    /// The finite magnitude of the pattern `m` (sign bit clear), if it has
    /// one.
    fn finite(self, m: u32) -> Option<f64> {
        match self.value(m) {
            SmallValue::Finite { magnitude, .. } if m & self.sign_bit() == 0 => Some(magnitude),
            _ => None,
        }
    }

    fn write(self, f: &mut dyn fmt::Write, bits: u32) -> fmt::Result {
        match self.value(bits) {
            SmallValue::NaN => write!(f, "nan:0x{:0w$x}", bits, w = (self.bits() as usize).div_ceil(4)),
            SmallValue::Infinite { negative } => f.write_str(if negative { "-inf" } else { "inf" }),
            SmallValue::Finite { negative, magnitude } => {
                let m = bits & !self.sign_bit();
                let (digits, exp) = self.shortest(m, magnitude);
                write_decimal(f, negative, &digits, exp)
            }
        }
    }

    /// The shortest digits (and decimal exponent, as `{:e}` gives it) of a
    /// decimal that rounds to the pattern `m` of magnitude `x` when read
    /// into this format, to nearest with ties to an even pattern.
    fn shortest(self, m: u32, x: f64) -> (String, i32) {
        if x == 0.0 {
            return (String::new(), 0);
        }
        // The values that round to `m` lie between the midpoints to its
        // neighbours. Past the ends of a format, a neighbour is as far away
        // as the one on the other side (twice and half for f8e8m0's powers
        // of two). Each midpoint is exact in f64: these formats have at
        // most 11 significant bits and exponents well inside f64's.
        let below = m.checked_sub(1).and_then(|p| self.finite(p));
        let above = self.finite(m + 1);
        let (below, above) = match (below, above) {
            (Some(b), Some(a)) => (b, a),
            (Some(b), None) if self == SmallFloat::F8E8M0 => (b, 2.0 * x),
            (Some(b), None) => (b, x + (x - b)),
            (None, Some(a)) if self == SmallFloat::F8E8M0 => (x / 2.0, a),
            (None, Some(a)) => (x - (a - x), a),
            (None, None) => (x / 2.0, 2.0 * x),
        };
        let range = Interval { low: (below + x) / 2.0, high: (x + above) / 2.0, closed: m.is_multiple_of(2) };
        for n in 1..=17usize {
            // The n-digit decimal nearest x, and the next one on the other
            // side of x: if any n-digit decimal lies in the interval, one
            // of these two does.
            let nearest = format!("{:.*e}", n - 1, x);
            let Some((digits, exp)) = parse_exp(&nearest) else { break };
            if range.contains(&digits, exp) {
                return (digits, exp);
            }
            let Ok(value) = nearest.parse::<f64>() else { break };
            let Ok(int) = digits.parse::<u64>() else { break };
            let other = match value.partial_cmp(&x) {
                Some(Ordering::Less) => int + 1,
                Some(Ordering::Greater) => int - 1,
                _ => continue,
            };
            // `other` may have one digit more or fewer than `n`: renormalise.
            let other_digits = other.to_string();
            let other_exp = exp + other_digits.len() as i32 - n as i32;
            if other != 0 && range.contains(&other_digits, other_exp) {
                return (other_digits, other_exp);
            }
        }
        // Seventeen digits always identify an f64, so the loop returned
        // above; this keeps the function total.
        let exact = format!("{x:e}");
        parse_exp(&exact).unwrap_or_default()
    }
}

/// The digits and exponent of Rust's `{:e}` output of a positive number,
/// `d.ddde-x`, with the decimal point dropped.
fn parse_exp(s: &str) -> Option<(String, i32)> {
    let (mantissa, exp) = s.split_once('e')?;
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    Some((digits, exp.parse().ok()?))
}

/// The decimals that round to one value: between two midpoints, which
/// belong to it when its pattern is even.
struct Interval {
    low: f64,
    high: f64,
    closed: bool,
}

impl Interval {
    /// Whether `0.digits × 10^(exp + 1)` lies in the interval, decided
    /// exactly.
    fn contains(&self, digits: &str, exp: i32) -> bool {
        let Ok(value) = format!("{digits}e{}", exp + 1 - digits.len() as i32).parse::<f64>() else {
            return false;
        };
        // Parsing rounds, but never across an f64, and both ends are f64s:
        // a value strictly between them in f64 is strictly between them
        // exactly. Only a decimal that parses to an end needs an exact
        // comparison with it.
        let at_end = |end: f64| match compare_exact(digits, exp, end) {
            Ordering::Equal => self.closed,
            o => o == if end == self.low { Ordering::Greater } else { Ordering::Less },
        };
        if value > self.low && value < self.high {
            true
        } else if value == self.low || value == self.high {
            at_end(value)
        } else {
            false
        }
    }
}

/// Compares the positive decimal `d₁.d₂… × 10^exp` with `x`, exactly.
fn compare_exact(digits: &str, exp: i32, x: f64) -> Ordering {
    // 400 digits hold the exact decimal expansion of every end these
    // formats have (the smallest, bf16's 2^-134, has under 100).
    let exact = format!("{x:.400e}");
    let Some((x_digits, x_exp)) = parse_exp(&exact) else {
        return Ordering::Less;
    };
    let digits = digits.trim_end_matches('0');
    let x_digits = x_digits.trim_end_matches('0');
    exp.cmp(&x_exp).then_with(|| {
        let len = digits.len().max(x_digits.len());
        let pad = |d: &str| d.bytes().chain(std::iter::repeat(b'0')).take(len).collect::<Vec<u8>>();
        pad(digits).cmp(&pad(x_digits))
    })
}
