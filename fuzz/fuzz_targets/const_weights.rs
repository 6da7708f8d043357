//! `Const` layers against their weights: element type, shape, offset and
//! size all chosen by the fuzzer, packed string headers included. A Const
//! that loads must hold exactly the bytes its offset points at, and must
//! run through compile and infer unchanged.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use ovir_tensor::{ElementType, ALL_ELEMENT_TYPES};

/// An offset or size attribute.
#[derive(Arbitrary, Debug)]
enum Number {
    /// The value that makes the Const fit exactly.
    Fit,
    /// Off by a little from the fitting value.
    Near(i8),
    /// Any value at all.
    Any(u64),
    /// Close to `u64::MAX`, where `offset + size` overflows.
    NearMax(u8),
    /// Text that may not be a number.
    Text(String),
}

/// The bytes of the weights file.
#[derive(Arbitrary, Debug)]
enum Bytes {
    Raw(Vec<u8>),
    /// A packed string header `[count, 0, end_1, …]` and the strings'
    /// bytes, with some header entries overwritten.
    Strings {
        strings: Vec<String>,
        patches: Vec<(u8, i32)>,
    },
}

#[derive(Arbitrary, Debug)]
struct Case {
    ty: u8,
    dims: Vec<u8>,
    /// A raw `shape` attribute instead of `dims`.
    shape_text: Option<String>,
    padding: u8,
    offset: Number,
    size: Number,
    bytes: Bytes,
}

fn pack(strings: &[String], patches: &[(u8, i32)]) -> Vec<u8> {
    let mut header = vec![strings.len() as i32, 0];
    let mut end = 0i32;
    for s in strings {
        end = end.wrapping_add(s.len() as i32);
        header.push(end);
    }
    for &(i, v) in patches {
        let i = usize::from(i) % header.len();
        header[i] = v;
    }
    let mut out: Vec<u8> = header.iter().flat_map(|v| v.to_le_bytes()).collect();
    for s in strings {
        out.extend_from_slice(s.as_bytes());
    }
    out
}

fn resolve(n: &Number, fit: u64) -> String {
    match n {
        Number::Fit => fit.to_string(),
        Number::Near(d) => fit.saturating_add_signed(i64::from(*d)).to_string(),
        Number::Any(v) => v.to_string(),
        Number::NearMax(d) => (u64::MAX - u64::from(*d)).to_string(),
        Number::Text(t) => t.clone(),
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('"', "&quot;")
}

fuzz_target!(|case: Case| {
    let ty: ElementType = ALL_ELEMENT_TYPES[usize::from(case.ty) % ALL_ELEMENT_TYPES.len()];
    let dims: Vec<usize> = case.dims.iter().take(6).map(|&d| usize::from(d % 16)).collect();
    let payload = match &case.bytes {
        Bytes::Raw(b) => b.clone(),
        Bytes::Strings { strings, patches } => pack(strings, patches),
    };
    let padding = usize::from(case.padding % 32);
    let mut weights = vec![0xA5u8; padding];
    weights.extend_from_slice(&payload);

    let fit_size = match ty {
        ElementType::String => payload.len() as u64,
        _ => ovir_tensor::memory_bytes(ty, &dims).map_or(0, |n| n as u64),
    };
    let shape_attr = match &case.shape_text {
        Some(t) => escape(t),
        None => dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(","),
    };
    let offset = resolve(&case.offset, padding as u64);
    let size = resolve(&case.size, fit_size);
    let port_dims: String = dims.iter().map(|d| format!("<dim>{d}</dim>")).collect();
    let xml = format!(
        r#"<?xml version="1.0"?>
<net name="c" version="11">
  <layers>
    <layer id="0" name="c" type="Const" version="opset1">
      <data element_type="{ty}" shape="{shape_attr}" offset="{}" size="{}"/>
      <output><port id="0" precision="FP32" names="c">{port_dims}</port></output>
    </layer>
    <layer id="1" name="out" type="Result" version="opset1">
      <input><port id="0">{port_dims}</port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
  </edges>
</net>"#,
        escape(&offset),
        escape(&size)
    );

    let model = match ovir::Model::from_memory(&xml, Some(weights.clone())) {
        Ok(m) => m,
        Err(e) => {
            let _ = e.render(false);
            return;
        }
    };
    let Some(value) = model.ir().layers.iter().find_map(|l| l.constant.clone()) else {
        panic!("a Const that read has no value");
    };
    // A numeric Const is exactly the bytes at its offset.
    if let (Some(bytes), Ok(start)) = (value.bytes(), offset.trim().parse::<usize>()) {
        if !bytes.is_empty() {
            assert_eq!(
                Some(bytes),
                weights.get(start..start + bytes.len()),
                "the Const does not hold its bytes"
            );
        }
    }
    if let (Bytes::Strings { strings, patches }, Some(read)) = (&case.bytes, value.strings()) {
        if patches.is_empty() && case.offset_is_fit() && !read.is_empty() {
            assert_eq!(read, &strings[..], "packed strings did not decode to what was packed");
        }
    }
    let Ok(compiled) = model.compile_with(ovir::CompileOptions::default().with_max_memory(1 << 26)) else {
        return;
    };
    let mut request = compiled.infer_request();
    if request.infer().is_ok() {
        let out = request.output(0usize).unwrap_or_else(|e| panic!("no output after infer: {e}"));
        assert_eq!(out.bytes(), value.bytes(), "running changed the Const");
        assert_eq!(out.strings(), value.strings(), "running changed the Const's strings");
    }
});

impl Case {
    fn offset_is_fit(&self) -> bool {
        matches!(self.offset, Number::Fit)
    }
}
