//! The text and JSON forms of tensors (`ovir_tensor::text`), against
//! values worked out by hand, NumPy's shortest `float16` digits, and
//! XXH3-64 hashes from the reference implementation (Python's `xxhash`).

use ovir_tensor::packed::pack;
use ovir_tensor::text::{content_hash, DisplayOptions, Quoted};
use ovir_tensor::{bf16, f16, ElementType, Tensor};

fn texts(t: &Tensor) -> Vec<String> {
    (0..t.len()).map(|i| t.value_text(i).unwrap()).collect()
}

fn bytes_tensor(ty: ElementType, bytes: &[u8]) -> Tensor {
    Tensor::from_bytes(ty, &[bytes.len()], bytes).unwrap()
}

/// Every pattern of an 8-bit float, as text.
fn all_f8(ty: ElementType) -> Vec<String> {
    texts(&bytes_tensor(ty, &(0..=255u8).collect::<Vec<_>>()))
}

#[test]
fn floats_show_the_shortest_digits_of_their_own_width() {
    let f16s = Tensor::from_vec(
        &[7],
        [0.1f32, 65504.0, 5.9604645e-8, 1.0 / 3.0, 2049.0, -1.5, 1e-4].map(f16::from_f32).to_vec(),
    )
    .unwrap();
    // 2049 is a tie between 2048 and 2050; it rounds to even, 2048.
    assert_eq!(texts(&f16s), ["0.1", "65500", "6e-8", "0.3333", "2048", "-1.5", "0.0001"]);
    let bf16s =
        Tensor::from_vec(&[4], [0.1f32, 3.3895314e38, 1.0 / 3.0, 9.18355e-41].map(bf16::from_f32).to_vec())
            .unwrap();
    // bf16's smallest subnormal, 2^-133 = 9.18e-41, owns every decimal
    // between 2^-134 and 1.5 * 2^-133: of the one-digit ones, 9e-41 and
    // 1e-40, the nearer.
    assert_eq!(texts(&bf16s), ["0.1", "3.39e38", "0.334", "9e-41"]);
    let f32s = Tensor::from_vec(&[6], vec![0.1f32, 1e-45, f32::MAX, 1e16, 1e15, 1e-5]).unwrap();
    assert_eq!(texts(&f32s), ["0.1", "1e-45", "3.4028235e38", "1e16", "1000000000000000", "1e-5"]);
    let f64s = Tensor::from_vec(&[4], vec![0.1f64, 5e-324, f64::MAX, 0.30000000000000004]).unwrap();
    assert_eq!(texts(&f64s), ["0.1", "5e-324", "1.7976931348623157e308", "0.30000000000000004"]);
    // 0.001953125 is 2^-9; 448 shows as 450, which f8e4m3 reads as 448;
    // 57344 likewise as 60000 in f8e5m2, whose 0.09375 owns 0.09 and 0.1
    // and shows the nearer.
    // 400 lies halfway between 384 (0x7c) and 416 (0x7d): it reads as the
    // even pattern, so 384 shows as 400 and 416 needs two digits.
    let e4m3 = bytes_tensor(ElementType::F8e4m3, &[0x01, 0x7e, 0x38, 0xb4, 0x30, 0x7c, 0x7d]);
    assert_eq!(texts(&e4m3), ["0.002", "450", "1", "-0.75", "0.5", "400", "420"]);
    let e5m2 = bytes_tensor(ElementType::F8e5m2, &[0x01, 0x7b, 0x3c, 0x2e]);
    assert_eq!(texts(&e5m2), ["2e-5", "60000", "1", "0.09"]);
    let e8m0 = bytes_tensor(ElementType::F8e8m0, &[0, 127, 128, 0xfe, 117]);
    assert_eq!(texts(&e8m0), ["6e-39", "1", "2", "2e38", "0.001"]);
    let f4 =
        Tensor::from_bytes(ElementType::F4e2m1, &[16], &[0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe])
            .unwrap();
    assert_eq!(
        texts(&f4),
        ["0", "0.5", "1", "1.5", "2", "3", "4", "6", "-0", "-0.5", "-1", "-1.5", "-2", "-3", "-4", "-6"]
    );
}

#[test]
fn zeros_infinities_and_nans_keep_sign_and_bits() {
    let f32s = Tensor::from_vec(
        &[6],
        vec![
            0.0f32,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::from_bits(0x7fc0_0001),
            f32::from_bits(0xffc0_0000),
        ],
    )
    .unwrap();
    assert_eq!(texts(&f32s), ["0", "-0", "inf", "-inf", "nan:0x7fc00001", "nan:0xffc00000"]);
    let f64s = Tensor::from_vec(&[2], vec![-0.0f64, f64::from_bits(0x7ff0_0000_0000_0001)]).unwrap();
    assert_eq!(texts(&f64s), ["-0", "nan:0x7ff0000000000001"]);
    let f16s = Tensor::from_vec(&[3], [0x8000u16, 0xfc00, 0x7e01].map(f16::from_bits).to_vec()).unwrap();
    assert_eq!(texts(&f16s), ["-0", "-inf", "nan:0x7e01"]);
    let bf16s = Tensor::from_vec(&[2], [0x7f80u16, 0xffc1].map(bf16::from_bits).to_vec()).unwrap();
    assert_eq!(texts(&bf16s), ["inf", "nan:0xffc1"]);
    assert_eq!(
        texts(&bytes_tensor(ElementType::F8e4m3, &[0x80, 0x7f, 0xff])),
        ["-0", "nan:0x7f", "nan:0xff"]
    );
    assert_eq!(
        texts(&bytes_tensor(ElementType::F8e5m2, &[0x7c, 0xfc, 0x7d, 0xfe])),
        ["inf", "-inf", "nan:0x7d", "nan:0xfe"]
    );
    assert_eq!(texts(&bytes_tensor(ElementType::F8e8m0, &[0xff])), ["nan:0xff"]);
}

/// A decimal reader for a float format, independent of the code under
/// test: the pattern nearest to `x` (already read as an f64), ties to the
/// even pattern. Past the largest value, the next would lie as far above it
/// as the one below lies below; beyond the midpoint to it, there is no
/// pattern (`u32::MAX`). Exact for every `x` that is not one of the
/// midpoints' f64 neighbours read from a decimal of more digits than any
/// shown here.
fn reader(values: &[(u32, f64)]) -> impl Fn(f64) -> u32 {
    let finite = |negative: bool| {
        let mut v: Vec<(f64, u32)> = values
            .iter()
            .filter(|(_, v)| v.is_finite() && v.is_sign_negative() == negative)
            .map(|&(b, v)| (v.abs(), b))
            .collect();
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        v
    };
    let (positive, negative) = (finite(false), finite(true));
    move |x: f64| {
        let list = if x.is_sign_negative() && !negative.is_empty() { &negative } else { &positive };
        let m = x.abs();
        let i = list.partition_point(|&(v, _)| v < m);
        let (a, b) = match (i.checked_sub(1).and_then(|j| list.get(j)), list.get(i)) {
            (_, Some(&(v, bits))) if v == m => return bits,
            (Some(&a), Some(&b)) => (a, b),
            (None, Some(&b)) => return b.1,
            (Some(&a), None) => {
                let prev = list[list.len() - 2].0;
                (a, (a.0 + (a.0 - prev), u32::MAX))
            }
            (None, None) => return u32::MAX,
        };
        let mid = (a.0 + b.0) / 2.0;
        match m.partial_cmp(&mid).unwrap() {
            std::cmp::Ordering::Less => a.1,
            std::cmp::Ordering::Greater => b.1,
            std::cmp::Ordering::Equal if a.1 % 2 == 0 => a.1,
            std::cmp::Ordering::Equal => b.1,
        }
    }
}

/// The two decimals of `n` significant digits on either side of `x`.
fn decimals_around(x: f64, n: usize) -> Vec<f64> {
    let nearest = format!("{:.*e}", n - 1, x.abs());
    let (mantissa, exp) = nearest.split_once('e').unwrap();
    let int: u64 = mantissa.replace('.', "").parse().unwrap();
    let exp: i32 = exp.parse::<i32>().unwrap() - (n as i32 - 1);
    [int.saturating_sub(1), int, int + 1]
        .into_iter()
        .filter(|&d| d > 0)
        .map(|d| format!("{d}e{exp}").parse::<f64>().unwrap() * x.signum())
        .collect()
}

fn significant_digits(text: &str) -> usize {
    let mantissa = text.split('e').next().unwrap();
    mantissa.trim_start_matches('-').replace('.', "").trim_start_matches('0').trim_end_matches('0').len()
}

/// Every finite pattern of a format reads back from its text, and no
/// decimal of one digit fewer reads back as it.
fn check_round_trips(texts: &[String], values: &[(u32, f64)], read: impl Fn(f64) -> u32) {
    for (text, &(bits, value)) in texts.iter().zip(values) {
        if value.is_nan() || value.is_infinite() {
            continue;
        }
        let parsed: f64 = text.parse().unwrap_or_else(|_| panic!("{text} does not parse"));
        assert_eq!(read(parsed), bits, "{text} is not the pattern {bits:#x} ({value:e})");
        let n = significant_digits(text);
        if value != 0.0 && n > 1 {
            for shorter in decimals_around(value, n - 1) {
                assert_ne!(read(shorter), bits, "{shorter:e} is shorter than {text} for {bits:#x}");
            }
        }
    }
}

#[test]
fn every_f16_and_bf16_pattern_round_trips_with_the_fewest_digits() {
    let f16s: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
    let values: Vec<(u32, f64)> = f16s.iter().map(|v| (u32::from(v.to_bits()), v.to_f64())).collect();
    let t = Tensor::from_vec(&[f16s.len()], f16s).unwrap();
    check_round_trips(&texts(&t), &values, reader(&values));

    let bf16s: Vec<bf16> = (0..=u16::MAX).map(bf16::from_bits).collect();
    let values: Vec<(u32, f64)> = bf16s.iter().map(|v| (u32::from(v.to_bits()), v.to_f64())).collect();
    let t = Tensor::from_vec(&[bf16s.len()], bf16s).unwrap();
    check_round_trips(&texts(&t), &values, reader(&values));
}

/// The value of each 8-bit float pattern, decoded independently of the
/// code under test from the formats' definitions.
fn f8_values(ty: ElementType) -> Vec<(u32, f64)> {
    (0..=255u32)
        .map(|b| {
            let sign = if b & 0x80 != 0 { -1.0 } else { 1.0 };
            let v = match ty {
                ElementType::F8e4m3 => {
                    let (e, m) = ((b >> 3) & 15, f64::from(b & 7));
                    match (e, b & 7) {
                        (15, 7) => f64::NAN,
                        (0, _) => sign * m / 8.0 * 2f64.powi(-6),
                        _ => sign * (1.0 + m / 8.0) * 2f64.powi(e as i32 - 7),
                    }
                }
                ElementType::F8e5m2 => {
                    let (e, m) = ((b >> 2) & 31, f64::from(b & 3));
                    match (e, b & 3) {
                        (31, 0) => sign * f64::INFINITY,
                        (31, _) => f64::NAN,
                        (0, _) => sign * m / 4.0 * 2f64.powi(-14),
                        _ => sign * (1.0 + m / 4.0) * 2f64.powi(e as i32 - 15),
                    }
                }
                _ if b == 255 => f64::NAN,
                _ => 2f64.powi(b as i32 - 127),
            };
            (b, v)
        })
        .collect()
}

#[test]
fn every_f8_pattern_round_trips_with_the_fewest_digits() {
    for ty in [ElementType::F8e4m3, ElementType::F8e5m2, ElementType::F8e8m0] {
        let values = f8_values(ty);
        let shown = all_f8(ty);
        for (text, &(bits, v)) in shown.iter().zip(&values) {
            if v.is_nan() {
                assert_eq!(*text, format!("nan:0x{bits:02x}"), "{ty}");
            }
        }
        check_round_trips(&shown, &values, reader(&values));
    }
    let f4: Vec<(u32, f64)> = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
        .iter()
        .chain(&[-0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0])
        .enumerate()
        .map(|(i, &v)| (i as u32, v))
        .collect();
    let t = Tensor::from_bytes(ElementType::F4e2m1, &[16], &[0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe])
        .unwrap();
    check_round_trips(&texts(&t), &f4, reader(&f4));
}

#[test]
fn integers_booleans_and_packed_codes_are_exact() {
    let i64s = Tensor::from_vec(&[3], vec![i64::MIN, -1, i64::MAX]).unwrap();
    assert_eq!(texts(&i64s), ["-9223372036854775808", "-1", "9223372036854775807"]);
    let u64s = Tensor::from_vec(&[1], vec![u64::MAX]).unwrap();
    assert_eq!(texts(&u64s), ["18446744073709551615"]);
    let i8s = Tensor::from_vec(&[2], vec![-128i8, 127]).unwrap();
    assert_eq!(texts(&i8s), ["-128", "127"]);
    let bools = Tensor::from_bytes(ElementType::Boolean, &[3], &[1, 0, 2]).unwrap();
    assert_eq!(texts(&bools), ["true", "false", "true"]);
    let packed = |ty: ElementType, codes: &[u8]| {
        Tensor::from_bytes(ty, &[codes.len()], &pack(codes, ty).unwrap()).unwrap()
    };
    assert_eq!(
        texts(&packed(ElementType::U1, &[1, 0, 1, 1, 0, 0, 0, 0, 1])),
        "101100001".chars().map(String::from).collect::<Vec<_>>()
    );
    assert_eq!(texts(&packed(ElementType::U2, &[3, 0, 2, 1, 3])), ["3", "0", "2", "1", "3"]);
    assert_eq!(
        texts(&packed(ElementType::U3, &[7, 0, 5, 1, 2, 3, 4, 6, 7])),
        ["7", "0", "5", "1", "2", "3", "4", "6", "7"]
    );
    assert_eq!(texts(&packed(ElementType::U4, &[15, 0, 9])), ["15", "0", "9"]);
    assert_eq!(texts(&packed(ElementType::U6, &[63, 0, 33, 17, 5])), ["63", "0", "33", "17", "5"]);
    // i4 shows its value; nf4 its code, the index into its table.
    assert_eq!(texts(&packed(ElementType::I4, &[0xf, 7, 8, 0])), ["-1", "7", "-8", "0"]);
    assert_eq!(texts(&packed(ElementType::Nf4, &[0, 7, 15])), ["0", "7", "15"]);
}

#[test]
fn strings_are_quoted_and_escaped() {
    let words =
        ["plain", "say \"hi\"", "a\\b", "two\nlines\r\tend", "héllo, 日本 🎉", "\u{1b}[0m\u{7f}\u{85}", ""];
    let t = Tensor::from_strings(&[words.len()], words.iter().map(|s| s.to_string()).collect()).unwrap();
    assert_eq!(
        texts(&t),
        [
            r#""plain""#,
            r#""say \"hi\"""#,
            r#""a\\b""#,
            r#""two\nlines\r\tend""#,
            "\"héllo, 日本 🎉\"",
            r#""\u{1b}[0m\u{7f}\u{85}""#,
            r#""""#,
        ]
    );
    assert_eq!(Quoted("out:0").to_string(), "\"out:0\"");
}

#[test]
fn the_text_nests_brackets_by_shape_and_wraps_long_rows() {
    let t = Tensor::from_vec(&[2, 2, 3], (0..12).map(|x| x as f32 / 4.0).collect()).unwrap();
    assert_eq!(
        t.to_string(),
        "ovir-tensor-text v1\nf32 [2, 2, 3]\n\
         [[[0, 0.25, 0.5],\n  [0.75, 1, 1.25]],\n\n [[1.5, 1.75, 2],\n  [2.25, 2.5, 2.75]]]"
    );
    let t = Tensor::from_vec(&[2, 10], (0..20).map(|x| x as u8).collect()).unwrap();
    assert_eq!(
        t.to_string(),
        "ovir-tensor-text v1\nu8 [2, 10]\n\
         [[0, 1, 2, 3, 4, 5, 6, 7,\n  8, 9],\n [10, 11, 12, 13, 14, 15, 16, 17,\n  18, 19]]"
    );
    let scalar = Tensor::from_vec(&[], vec![-2.5f64]).unwrap();
    assert_eq!(scalar.to_string(), "ovir-tensor-text v1\nf64 []\n-2.5");
    let empty = Tensor::from_vec(&[2, 0], Vec::<i32>::new()).unwrap();
    assert_eq!(empty.to_string(), "ovir-tensor-text v1\ni32 [2, 0]\n[[],\n []]");
    let none = Tensor::from_vec(&[0, 3], Vec::<i32>::new()).unwrap();
    assert_eq!(none.to_string(), "ovir-tensor-text v1\ni32 [0, 3]\n[]");
    let words = Tensor::from_strings(&[1, 2], vec!["a".into(), "b\"".into()]).unwrap();
    assert_eq!(words.to_string(), "ovir-tensor-text v1\nstring [1, 2]\n[[\"a\", \"b\\\"\"]]");
}

#[test]
fn large_tensors_are_summarised_with_a_hash_of_their_bytes() {
    // XXH3-64 of the little-endian i64s 0 to 1199, from Python's xxhash.
    let t = Tensor::from_vec(&[1200], (0..1200i64).collect()).unwrap();
    let text = t.to_string();
    assert_eq!(
        text,
        "ovir-tensor-text v1\ni64 [1200]\n1200 values, xxh3-64 HASH\n\
         first [0, 1, 2, 3, 4, 5, 6, 7]\nlast [1192, 1193, 1194, 1195, 1196, 1197, 1198, 1199]"
            .replace("HASH", &format!("{:016x}", content_hash(&t)))
    );
    assert_eq!(content_hash(&t), 0x9479_01fc_5587_2cb2);
    // `{:#}` shows every value; 1,024 elements are not yet summarised.
    assert_eq!(format!("{t:#}").lines().count(), 2 + 1200 / 8);
    let at_limit = Tensor::from_vec(&[1024], vec![0u8; 1024]).unwrap();
    assert!(!at_limit.to_string().contains("xxh3-64"));

    // A threshold and edge count of one's own; the edges never overlap.
    let small = Tensor::from_vec(&[20], (0..20i64).collect()).unwrap();
    let options = DisplayOptions::new().threshold(4).edge_items(2);
    assert_eq!(
        small.display_with(options).to_string(),
        "ovir-tensor-text v1\ni64 [20]\n20 values, xxh3-64 84ed8a7f2126eaf1\nfirst [0, 1]\nlast [18, 19]"
    );
    let three = Tensor::from_vec(&[3], vec![1u8, 2, 3]).unwrap();
    let text = three.display_with(DisplayOptions::new().threshold(0).edge_items(2)).to_string();
    assert!(text.ends_with("first [1, 2]\nlast [3]"), "{text}");
    assert!(!small.display_with(DisplayOptions::full().edge_items(1)).to_string().contains("values,"));
}

#[test]
fn the_hash_covers_every_byte_and_string() {
    // References from Python's xxhash 3: xxh3_64 of the same bytes.
    let empty = Tensor::from_vec(&[0], Vec::<f32>::new()).unwrap();
    assert_eq!(content_hash(&empty), 0x2d06_8005_38d3_94c2);
    let ints = Tensor::from_vec(&[2, 3], vec![1i32, 2, 3, 4, 5, 6]).unwrap();
    assert_eq!(content_hash(&ints), 0x09de_c438_37b4_1329);
    let words = Tensor::from_strings(&[3], vec!["ab".into(), String::new(), "é\n".into()]).unwrap();
    assert_eq!(content_hash(&words), 0xfc1c_6acd_ab74_19d4);
    // One changed bit of a NaN's payload changes the hash.
    let a = Tensor::from_vec(&[1], vec![f32::from_bits(0x7fc0_0000)]).unwrap();
    let b = Tensor::from_vec(&[1], vec![f32::from_bits(0x7fc0_0001)]).unwrap();
    assert_ne!(content_hash(&a), content_hash(&b));
}

#[test]
fn json_holds_the_same_strings_as_the_text() {
    let t = Tensor::from_vec(&[3], vec![1.5f32, -0.0, f32::from_bits(0x7fc0_0001)]).unwrap();
    assert_eq!(
        serde_json::to_string(&t).unwrap(),
        r#"{"type":"f32","shape":[3],"values":["1.5","-0","nan:0x7fc00001"]}"#
    );
    let words = Tensor::from_strings(&[2], vec!["a\"b".into(), "日本".into()]).unwrap();
    assert_eq!(
        serde_json::to_string(&words).unwrap(),
        r#"{"type":"string","shape":[2],"values":["a\"b","日本"]}"#
    );
    let codes =
        Tensor::from_bytes(ElementType::I4, &[2], &pack(&[0xf, 3], ElementType::I4).unwrap()).unwrap();
    assert_eq!(serde_json::to_string(&codes).unwrap(), r#"{"type":"i4","shape":[2],"values":["-1","3"]}"#);
    let small = Tensor::from_vec(&[20], (0..20i64).collect()).unwrap();
    let options = DisplayOptions::new().threshold(4).edge_items(2);
    assert_eq!(
        serde_json::to_string(&small.display_with(options)).unwrap(),
        r#"{"type":"i64","shape":[20],"count":20,"xxh3-64":"84ed8a7f2126eaf1","first":["0","1"],"last":["18","19"]}"#
    );
}
