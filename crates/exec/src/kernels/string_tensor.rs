//! StringTensorUnpack and StringTensorPack: strings as OpenVINO lays them
//! out (begins, ends and the bytes one after another), and back.

use ovir_shape::ops::string_tensor::{symbols_length, MAX_SYMBOLS};
use ovir_shape::ShapeErrorKind;
use ovir_tensor::{ElementType, Tensor};

use super::KernelError;

const UNPACK: &str = "StringTensorUnpack";
const PACK: &str = "StringTensorPack";

/// The length of the symbols [`string_tensor_unpack`] gives for `data`: the
/// bytes of its strings together, at most what i32 offsets count.
pub fn string_tensor_unpack_symbols(data: &Tensor) -> Result<usize, KernelError> {
    let strings = data.strings().ok_or(KernelError::Shape(ShapeErrorKind::InputType {
        op: UNPACK,
        input: "data",
        expected: "string",
        found: data.element_type(),
    }))?;
    let bytes = symbols_length(strings);
    match bytes.filter(|&n| n <= MAX_SYMBOLS) {
        Some(n) => Ok(n as usize),
        None => Err(KernelError::Shape(ShapeErrorKind::StringsTooLong { bytes })),
    }
}

/// StringTensorUnpack-15 into outputs of the right types and shapes:
/// `begins` and `ends` (i32, the data's shape) and `symbols` (u8, of
/// [`string_tensor_unpack_symbols`] bytes). String `i` is
/// `symbols[begins[i]..ends[i]]`, the strings one after another.
pub fn string_tensor_unpack_into(
    data: &Tensor,
    begins: &mut Tensor,
    ends: &mut Tensor,
    symbols: &mut Tensor,
) -> Result<(), KernelError> {
    let total = string_tensor_unpack_symbols(data)?;
    let strings = data.strings().unwrap_or_default();
    let wrong = KernelError::Internal { op: UNPACK, what: "an output of the wrong type or size" };
    let fits = |t: &Tensor, ty: ElementType, n: usize| t.element_type() == ty && t.len() == n;
    if !fits(begins, ElementType::I32, strings.len())
        || !fits(ends, ElementType::I32, strings.len())
        || !fits(symbols, ElementType::U8, total)
    {
        return Err(wrong);
    }
    let bytes = symbols.try_bytes_mut()?;
    let (b, e) = (begins.try_bytes_mut()?, ends.try_bytes_mut()?);
    let mut at = 0usize;
    for (i, s) in strings.iter().enumerate() {
        let next = at + s.len();
        bytes.get_mut(at..next).ok_or(wrong.clone())?.copy_from_slice(s.as_bytes());
        // Both fit an i32: the total was checked.
        b.get_mut(4 * i..4 * i + 4).ok_or(wrong.clone())?.copy_from_slice(&(at as i32).to_le_bytes());
        e.get_mut(4 * i..4 * i + 4).ok_or(wrong.clone())?.copy_from_slice(&(next as i32).to_le_bytes());
        at = next;
    }
    Ok(())
}

/// StringTensorUnpack-15: `[begins, ends, symbols]` for string data.
///
/// ```
/// use ovir_exec::kernels::string_tensor_unpack;
/// use ovir_tensor::Tensor;
/// let data = Tensor::from_strings(&[2], vec!["Intel".into(), "OpenVINO".into()])?;
/// let [begins, ends, symbols] = string_tensor_unpack(&data)?;
/// assert_eq!(begins.to_vec::<i32>()?, [0, 5]);
/// assert_eq!(ends.to_vec::<i32>()?, [5, 13]);
/// assert_eq!(symbols.bytes(), Some(&b"IntelOpenVINO"[..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn string_tensor_unpack(data: &Tensor) -> Result<[Tensor; 3], KernelError> {
    let total = string_tensor_unpack_symbols(data)?;
    let mut begins = Tensor::zeros(ElementType::I32, data.shape())?;
    let mut ends = Tensor::zeros(ElementType::I32, data.shape())?;
    let mut symbols = Tensor::zeros(ElementType::U8, &[total])?;
    string_tensor_unpack_into(data, &mut begins, &mut ends, &mut symbols)?;
    Ok([begins, ends, symbols])
}

/// The output shape of [`string_tensor_pack`]: the begins', once the
/// inputs are checked to have the types and shapes it takes.
pub fn string_tensor_pack_output_shape<'t>(
    begins: &'t Tensor,
    ends: &Tensor,
    symbols: &Tensor,
) -> Result<&'t [usize], KernelError> {
    for (input, t) in [("begins", begins), ("ends", ends)] {
        if !matches!(t.element_type(), ElementType::I32 | ElementType::I64) {
            let found = t.element_type();
            return Err(ShapeErrorKind::InputType { op: PACK, input, expected: "i32 or i64", found }.into());
        }
    }
    if begins.element_type() != ends.element_type() {
        let (found, expected) = (ends.element_type(), begins.element_type());
        return Err(ShapeErrorKind::InputTypes { op: PACK, input: 1, found, expected }.into());
    }
    if symbols.element_type() != ElementType::U8 {
        let found = symbols.element_type();
        return Err(ShapeErrorKind::InputType { op: PACK, input: "symbols", expected: "u8", found }.into());
    }
    if symbols.rank() != 1 {
        let shape = ovir_tensor::PartialShape::from_static(symbols.shape());
        return Err(ShapeErrorKind::InputShape { op: PACK, input: "symbols", expected: "1-D", shape }.into());
    }
    if begins.shape() != ends.shape() {
        let (begins, ends) = (begins.shape(), ends.shape());
        let shape = ovir_tensor::PartialShape::from_static;
        return Err(ShapeErrorKind::StringPackShapes { begins: shape(begins), ends: shape(ends) }.into());
    }
    Ok(begins.shape())
}

/// Begin or end `i` of a tensor of i32 or i64.
fn offset(t: &Tensor, i: usize) -> Option<i64> {
    let bytes = t.bytes()?;
    match t.element_type() {
        ElementType::I32 => {
            Some(i64::from(i32::from_le_bytes(bytes.get(4 * i..4 * i + 4)?.try_into().ok()?)))
        }
        ElementType::I64 => Some(i64::from_le_bytes(bytes.get(8 * i..8 * i + 8)?.try_into().ok()?)),
        _ => None,
    }
}

/// Flat index `i` of `shape` as an index per axis.
fn position(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut at = vec![0; shape.len()];
    for (p, &d) in at.iter_mut().zip(shape).rev() {
        if d > 0 {
            *p = i % d;
            i /= d;
        }
    }
    at
}

/// StringTensorPack-15 into a string output of the begins' shape: string
/// `i` is `symbols[begins[i]..ends[i]]`. A range outside the symbols, or
/// one that ends before it begins, is an error naming the string, as are
/// bytes that are not UTF-8. The output's strings keep their memory.
pub fn string_tensor_pack_into(
    begins: &Tensor,
    ends: &Tensor,
    symbols: &Tensor,
    out: &mut Tensor,
) -> Result<(), KernelError> {
    let shape = string_tensor_pack_output_shape(begins, ends, symbols)?;
    let bytes = symbols.bytes().unwrap_or_default();
    let strings = out.strings_mut().filter(|s| s.len() == begins.len());
    let strings =
        strings.ok_or(KernelError::Internal { op: PACK, what: "an output of the wrong type or size" })?;
    for (i, s) in strings.iter_mut().enumerate() {
        let (begin, end) = (offset(begins, i).unwrap_or(-1), offset(ends, i).unwrap_or(-1));
        let span = usize::try_from(begin).ok().zip(usize::try_from(end).ok()).filter(|(b, e)| b <= e);
        let Some(part) = span.and_then(|(b, e)| bytes.get(b..e)) else {
            let position = position(i, shape);
            let symbols = bytes.len() as u64;
            return Err(ShapeErrorKind::StringSpan { position, begin, end, symbols }.into());
        };
        let Ok(text) = std::str::from_utf8(part) else {
            return Err(ShapeErrorKind::StringUtf8 { position: position(i, shape), begin, end }.into());
        };
        s.clear();
        s.push_str(text);
    }
    Ok(())
}

/// StringTensorPack-15: the strings `begins`, `ends` and `symbols` hold.
///
/// ```
/// use ovir_exec::kernels::string_tensor_pack;
/// use ovir_tensor::{ElementType, Tensor};
/// let begins = Tensor::from_vec(&[2], vec![0i64, 8])?;
/// let ends = Tensor::from_vec(&[2], vec![1i64, 9])?;
/// let symbols = Tensor::from_bytes(ElementType::U8, &[9], b"123456789")?;
/// let out = string_tensor_pack(&begins, &ends, &symbols)?;
/// assert_eq!(out.strings(), Some(&["1".to_string(), "9".to_string()][..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn string_tensor_pack(begins: &Tensor, ends: &Tensor, symbols: &Tensor) -> Result<Tensor, KernelError> {
    let shape = string_tensor_pack_output_shape(begins, ends, symbols)?;
    let mut out = Tensor::zeros(ElementType::String, shape)?;
    string_tensor_pack_into(begins, ends, symbols, &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(shape: &[usize], w: &[&str]) -> Tensor {
        Tensor::from_strings(shape, w.iter().map(|s| s.to_string()).collect()).unwrap()
    }

    fn u8s(b: &[u8]) -> Tensor {
        Tensor::from_bytes(ElementType::U8, &[b.len()], b).unwrap()
    }

    // The spec's examples, both ways.
    #[test]
    fn the_specs_examples_unpack_and_pack_back() {
        for (shape, w, begins, ends, symbols) in [
            (vec![2], vec!["Intel", "OpenVINO"], vec![0, 5], vec![5, 13], &b"IntelOpenVINO"[..]),
            (
                vec![5],
                vec!["OMZ", "", "GenAI", " ", "2024"],
                vec![0, 3, 3, 8, 9],
                vec![3, 3, 8, 9, 13],
                b"OMZGenAI 2024",
            ),
            (
                vec![2, 2],
                vec!["Intel", "OpenVINO", "OMZ", "GenAI"],
                vec![0, 5, 13, 16],
                vec![5, 13, 16, 21],
                b"IntelOpenVINOOMZGenAI",
            ),
            (vec![0], vec![], vec![], vec![], b""),
        ] {
            let data = words(&shape, &w);
            let [b, e, s] = string_tensor_unpack(&data).unwrap();
            assert_eq!((b.shape(), b.to_vec::<i32>().unwrap()), (shape.as_slice(), begins.clone()));
            assert_eq!(e.to_vec::<i32>().unwrap(), ends);
            assert_eq!(s.bytes().unwrap(), symbols);
            let wide =
                |v: &[i32]| Tensor::from_vec(&shape, v.iter().map(|&x| i64::from(x)).collect()).unwrap();
            assert_eq!(string_tensor_pack(&wide(&begins), &wide(&ends), &s).unwrap(), data);
            assert_eq!(string_tensor_pack(&b, &e, &s).unwrap(), data);
        }
        // Multi-byte characters count in bytes.
        let [_, e, s] = string_tensor_unpack(&words(&[2], &["héllo", "日本"])).unwrap();
        assert_eq!((e.to_vec::<i32>().unwrap(), s.len()), (vec![6, 12], 12));
    }

    #[test]
    fn bad_ranges_and_bytes_are_refused_naming_the_string() {
        let s = u8s(b"IntelOpenVINO");
        let at = |b: Vec<i32>, e: Vec<i32>| {
            let (begins, ends) =
                (Tensor::from_vec(&[1, 2], b).unwrap(), Tensor::from_vec(&[1, 2], e).unwrap());
            string_tensor_pack(&begins, &ends, &s).unwrap_err().to_string()
        };
        assert!(at(vec![0, 5], vec![5, 14]).contains("string [0, 1] of StringTensorPack spans [5, 14)"));
        assert!(at(vec![-1, 5], vec![5, 13]).contains("string [0, 0] of StringTensorPack spans [-1, 5)"));
        assert!(at(vec![0, 6], vec![5, 5]).contains("spans [6, 5)"));
        let bad = string_tensor_pack(
            &Tensor::from_vec(&[1], vec![0i32]).unwrap(),
            &Tensor::from_vec(&[1], vec![2i32]).unwrap(),
            &u8s(b"\xff\xfe"),
        );
        assert!(bad.unwrap_err().to_string().contains("not valid UTF-8"));
        let mixed = string_tensor_pack(
            &Tensor::from_vec(&[1], vec![0i32]).unwrap(),
            &Tensor::from_vec(&[1], vec![1i64]).unwrap(),
            &s,
        );
        assert!(mixed.is_err());
        assert!(string_tensor_unpack(&Tensor::from_vec(&[1], vec![1u8]).unwrap()).is_err());
    }

    #[test]
    fn packing_again_keeps_the_strings_memory() {
        let (begins, ends) =
            (Tensor::from_vec(&[2], vec![0i32, 5]).unwrap(), Tensor::from_vec(&[2], vec![5i32, 13]).unwrap());
        let s = u8s(b"IntelOpenVINO");
        let mut out = string_tensor_pack(&begins, &ends, &s).unwrap();
        let before: Vec<*const u8> = out.strings().unwrap().iter().map(|s| s.as_ptr()).collect();
        string_tensor_pack_into(&begins, &ends, &s, &mut out).unwrap();
        let after: Vec<*const u8> = out.strings().unwrap().iter().map(|s| s.as_ptr()).collect();
        assert_eq!(before, after);
    }
}
