//! The `.bin` file: every `Const` value once, in the order the layers are
//! written, in OpenVINO's layouts.

use std::collections::HashMap;
use std::io::Write;

use ovir_tensor::Tensor;

/// Where a value was put in the weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    pub offset: u64,
    pub size: u64,
}

/// Writes values to the weights, each distinct byte string once: OpenVINO
/// shares the bytes of equal constants, and so do its files.
pub(crate) struct WeightsWriter<'m, W: Write> {
    out: W,
    len: u64,
    seen: HashMap<&'m [u8], Place>,
    /// Packed strings are made here, so they cannot be borrowed from the
    /// model like numeric values; they are few and small.
    seen_owned: HashMap<Vec<u8>, Place>,
}

/// OpenVINO writes an empty numeric constant as one zero byte.
const EMPTY: &[u8] = &[0];

impl<'m, W: Write> WeightsWriter<'m, W> {
    pub(crate) fn new(out: W) -> Self {
        WeightsWriter { out, len: 0, seen: HashMap::new(), seen_owned: HashMap::new() }
    }

    /// Puts a value in the weights; `Err(Ok(bytes))` when its strings need
    /// more than OpenVINO's 32-bit string offsets can address.
    pub(crate) fn put(&mut self, value: &'m Tensor) -> Result<Place, PutError> {
        match value.bytes() {
            Some(bytes) => {
                let bytes = if bytes.is_empty() { EMPTY } else { bytes };
                if let Some(&place) = self.seen.get(bytes) {
                    return Ok(place);
                }
                let place = self.append(bytes)?;
                self.seen.insert(bytes, place);
                Ok(place)
            }
            None => {
                let packed = pack_strings(value.strings().unwrap_or(&[]))?;
                if let Some(&place) = self.seen_owned.get(&packed) {
                    return Ok(place);
                }
                let place = self.append(&packed)?;
                self.seen_owned.insert(packed, place);
                Ok(place)
            }
        }
    }

    fn append(&mut self, bytes: &[u8]) -> Result<Place, PutError> {
        self.out.write_all(bytes).map_err(PutError::Io)?;
        let place = Place { offset: self.len, size: bytes.len() as u64 };
        self.len += place.size;
        Ok(place)
    }

    pub(crate) fn finish(mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Why a value could not be put in the weights.
#[derive(Debug)]
pub(crate) enum PutError {
    Io(std::io::Error),
    /// The strings' bytes, which do not fit 32-bit offsets.
    StringsTooLarge(u64),
}

/// OpenVINO's packed strings: an i32 little-endian header
/// `[count, 0, end_1, …, end_count]`, the ends counted from the end of the
/// header, then the strings' UTF-8 bytes.
pub(crate) fn pack_strings(strings: &[String]) -> Result<Vec<u8>, PutError> {
    let total: u64 = strings.iter().map(|s| s.len() as u64).sum();
    let count = i32::try_from(strings.len()).map_err(|_| PutError::StringsTooLarge(total))?;
    if i32::try_from(total).is_err() {
        return Err(PutError::StringsTooLarge(total));
    }
    let mut out = Vec::with_capacity((strings.len() + 2) * 4 + total as usize);
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&0i32.to_le_bytes());
    let mut end = 0usize;
    for s in strings {
        end += s.len();
        // Fits: the total was checked above.
        out.extend_from_slice(&(end as i32).to_le_bytes());
    }
    for s in strings {
        out.extend_from_slice(s.as_bytes());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constant::decode_strings;

    #[test]
    fn strings_pack_as_the_reader_decodes_them() {
        let strings: Vec<String> = ["日本語", "", "0Ω🙂", "x"].iter().map(|s| s.to_string()).collect();
        let packed = pack_strings(&strings).unwrap();
        assert_eq!(&packed[..8], &[4, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(decode_strings(&packed, 4).unwrap(), strings);
        assert_eq!(pack_strings(&[]).unwrap(), vec![0u8; 8]);
    }

    #[test]
    fn equal_values_share_their_bytes() {
        let a = Tensor::from_vec(&[2], vec![1i32, 2]).unwrap();
        let b = Tensor::from_vec(&[1], vec![8589934593i64]).unwrap();
        let c = Tensor::from_vec(&[2], vec![1i32, 2]).unwrap();
        let empty = Tensor::from_vec(&[0], Vec::<i64>::new()).unwrap();
        let mut out = Vec::new();
        let mut w = WeightsWriter::new(&mut out);
        assert_eq!(w.put(&a).unwrap(), Place { offset: 0, size: 8 });
        // Same bytes as `a`, though of another type and shape.
        assert_eq!(w.put(&b).unwrap(), Place { offset: 0, size: 8 });
        assert_eq!(w.put(&c).unwrap(), Place { offset: 0, size: 8 });
        assert_eq!(w.put(&empty).unwrap(), Place { offset: 8, size: 1 });
        w.finish().unwrap();
        assert_eq!(out.len(), 9);
    }
}
