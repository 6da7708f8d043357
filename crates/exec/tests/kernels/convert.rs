use ovir_exec::kernels::{convert, convert_into, ExecOptions, KernelError};
use ovir_shape::ShapeErrorKind;
use ovir_tensor::{bf16, f16, ElementType, Tensor};

use crate::common::{iota, ok, tensor};

const CONVERTIBLE: [ElementType; 13] = [
    ElementType::Boolean,
    ElementType::I8,
    ElementType::I16,
    ElementType::I32,
    ElementType::I64,
    ElementType::U8,
    ElementType::U16,
    ElementType::U32,
    ElementType::U64,
    ElementType::F16,
    ElementType::Bf16,
    ElementType::F32,
    ElementType::F64,
];

fn f16_bits(t: &Tensor) -> Vec<u16> {
    t.to_vec::<f16>().unwrap_or_default().iter().map(|v| v.to_bits()).collect()
}

fn bf16_bits(t: &Tensor) -> Vec<u16> {
    t.to_vec::<bf16>().unwrap_or_default().iter().map(|v| v.to_bits()).collect()
}

#[test]
fn every_pair_converts_small_values() {
    for from in CONVERTIBLE {
        let data = iota(from, &[2, 3]);
        let expected: Vec<i128> =
            if from == ElementType::Boolean { vec![0, 1, 0, 1, 0, 1] } else { (0..6).collect() };
        for to in CONVERTIBLE {
            let got = ok(convert(&data, to));
            assert_eq!((got.element_type(), got.shape()), (to, &[2usize, 3][..]));
            let back = ok(convert(&got, ElementType::I64)).integer_values();
            let want: Vec<i128> = if to == ElementType::Boolean {
                expected.iter().map(|&v| i128::from(v != 0)).collect()
            } else {
                expected.clone()
            };
            assert_eq!(back, Some(want), "{from} -> {to}");
        }
    }
}

#[test]
fn same_type_is_zero_copy() {
    let data = iota(ElementType::Bf16, &[4]);
    assert!(ok(convert(&data, ElementType::Bf16)).shares_storage_with(&data));
}

#[test]
fn reals_round_to_nearest_even_into_f16() {
    // Near 1.0 one f16 step is 2^-10: 0x3C00 is 1.0, 0x3C01 is 1 + 2^-10.
    let step = 2f32.powi(-10);
    let tie = 1.0 + step / 2.0;
    let above_tie = tie + 2f32.powi(-20);
    let odd_tie = 1.0 + 1.5 * step;
    let data = tensor(&[5], vec![1.0f32, tie, above_tie, odd_tie, 1.0 + step + 2f32.powi(-22)]);
    let got = f16_bits(&ok(convert(&data, ElementType::F16)));
    assert_eq!(got, vec![0x3C00, 0x3C00, 0x3C01, 0x3C02, 0x3C01]);
}

#[test]
fn f64_rounds_once_into_f16_and_bf16() {
    // Just above a tie by less than the part that f32 keeps: rounding via
    // f32, or dropping the low mantissa bits, would see an exact tie and
    // round down to even.
    let just_above = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
    let exact_tie = 1.0 + 2f64.powi(-11);
    let data = tensor(&[2], vec![just_above, exact_tie]);
    let got = f16_bits(&ok(convert(&data, ElementType::F16)));
    assert_eq!(got, vec![0x3C01, 0x3C00]);

    let just_above = 1.0 + 2f64.powi(-8) + 2f64.powi(-40);
    let data = tensor(&[2], vec![just_above, -just_above]);
    let got = bf16_bits(&ok(convert(&data, ElementType::Bf16)));
    let up = bf16::from_f32(1.0 + 2f32.powi(-7));
    assert_eq!(got, vec![up.to_bits(), (-up).to_bits()]);
}

#[test]
fn large_integers_round_once() {
    // 2^30 + 2^22 + 1 lies just above a bf16 tie; through f32 it would land
    // on the tie exactly.
    let v = (1i64 << 30) + (1 << 22) + 1;
    let data = tensor(&[2], vec![v, -v]);
    let got = bf16_bits(&ok(convert(&data, ElementType::Bf16)));
    let up = bf16::from_f32(2f32.powi(30) + 2f32.powi(23));
    assert_eq!(got, vec![up.to_bits(), (-up).to_bits()]);

    let data = tensor(&[4], vec![2049i32, 2051, 65519, 65520]);
    let got = ok(convert(&data, ElementType::F16)).to_vec::<f16>().unwrap_or_default();
    assert_eq!(got, vec![f16::from_f32(2048.0), f16::from_f32(2052.0), f16::MAX, f16::INFINITY]);

    let data = tensor(&[3], vec![(1u64 << 24) + 1, (1 << 24) + 3, u64::MAX]);
    let got = ok(convert(&data, ElementType::F32)).to_vec::<f32>().unwrap_or_default();
    assert_eq!(got, vec![2f32.powi(24), 2f32.powi(24) + 4.0, 2f32.powi(64)]);

    let data = tensor(&[1], vec![(1u64 << 53) + 1]);
    let got = ok(convert(&data, ElementType::F64)).to_vec::<f64>().unwrap_or_default();
    assert_eq!(got, vec![2f64.powi(53)]);
}

#[test]
fn widening_reals_is_exact() {
    let data = tensor(&[3], vec![0.1f32, f32::MIN_POSITIVE / 4.0, -f32::MAX]);
    let got = ok(convert(&data, ElementType::F64)).to_vec::<f64>().unwrap_or_default();
    assert_eq!(got, vec![f64::from(0.1f32), f64::from(f32::MIN_POSITIVE / 4.0), -f64::from(f32::MAX)]);
    let halves = tensor(&[2], vec![f16::from_bits(0x0001), f16::MAX]);
    let got = ok(convert(&halves, ElementType::F32)).to_vec::<f32>().unwrap_or_default();
    assert_eq!(got, vec![2f32.powi(-24), 65504.0]);
    let data = tensor(&[2], vec![0.1f64, 1e300]);
    let got = ok(convert(&data, ElementType::F32)).to_vec::<f32>().unwrap_or_default();
    assert_eq!(got, vec![0.1f32, f32::INFINITY]);
}

#[test]
fn reals_truncate_and_saturate_into_integers() {
    let data = tensor(&[7], vec![-2.7f32, 2.7, 1e10, -1e10, f32::NAN, f32::INFINITY, -0.5]);
    let got = ok(convert(&data, ElementType::I32)).to_vec::<i32>().unwrap_or_default();
    assert_eq!(got, vec![-2, 2, i32::MAX, i32::MIN, 0, i32::MAX, 0]);
    let got = ok(convert(&data, ElementType::I64)).to_vec::<i64>().unwrap_or_default();
    assert_eq!(got, vec![-2, 2, 10_000_000_000, -10_000_000_000, 0, i64::MAX, 0]);
    let got = ok(convert(&data, ElementType::U8)).to_vec::<u8>().unwrap_or_default();
    assert_eq!(got, vec![0, 2, 255, 0, 0, 255, 0]);
    let halves = tensor(&[2], vec![f16::from_f32(-2.75), f16::from_f32(300.0)]);
    let got = ok(convert(&halves, ElementType::I8)).to_vec::<i8>().unwrap_or_default();
    assert_eq!(got, vec![-2, 127]);
}

#[test]
fn integers_wrap_around() {
    let data = tensor(&[4], vec![300i32, -1, -129, i32::MIN]);
    assert_eq!(ok(convert(&data, ElementType::U8)).to_vec::<u8>().ok(), Some(vec![44, 255, 127, 0]));
    assert_eq!(ok(convert(&data, ElementType::I8)).to_vec::<i8>().ok(), Some(vec![44, -1, 127, 0]));
    assert_eq!(
        ok(convert(&data, ElementType::U32)).to_vec::<u32>().ok(),
        Some(vec![300, u32::MAX, 4294967167, 1 << 31])
    );
    let data = tensor(&[2], vec![u64::MAX, 1 << 63]);
    assert_eq!(ok(convert(&data, ElementType::I64)).to_vec::<i64>().ok(), Some(vec![-1, i64::MIN]));
    assert_eq!(ok(convert(&data, ElementType::U16)).to_vec::<u16>().ok(), Some(vec![u16::MAX, 0]));
    let data = tensor(&[2], vec![-1i8, i8::MIN]);
    assert_eq!(
        ok(convert(&data, ElementType::U64)).to_vec::<u64>().ok(),
        Some(vec![u64::MAX, u64::MAX - 127])
    );
}

#[test]
fn booleans_are_zero_or_not() {
    let data = tensor(&[5], vec![0.0f32, -0.0, f32::NAN, 0.5, -3.0]);
    assert_eq!(
        ok(convert(&data, ElementType::Boolean)).to_vec::<bool>().ok(),
        Some(vec![false, false, true, true, true])
    );
    let data = tensor(&[3], vec![0i64, 256, -1]);
    assert_eq!(ok(convert(&data, ElementType::Boolean)).to_vec::<bool>().ok(), Some(vec![false, true, true]));
    let data = tensor(&[2], vec![true, false]);
    assert_eq!(ok(convert(&data, ElementType::F32)).to_vec::<f32>().ok(), Some(vec![1.0, 0.0]));
    assert_eq!(
        ok(convert(&data, ElementType::Bf16)).to_vec::<bf16>().ok(),
        Some(vec![bf16::ONE, bf16::ZERO])
    );
    assert_eq!(ok(convert(&data, ElementType::U64)).to_vec::<u64>().ok(), Some(vec![1, 0]));
    // Booleans stored as other non-zero bytes still read as true.
    let odd = Tensor::from_bytes(ElementType::Boolean, &[2], &[2, 0]).unwrap_or_else(|e| unreachable!("{e}"));
    assert_eq!(ok(convert(&odd, ElementType::I32)).to_vec::<i32>().ok(), Some(vec![1, 0]));
}

#[test]
fn nan_and_infinities_stay_special() {
    let data = tensor(&[3], vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
    let halves = ok(convert(&data, ElementType::F16)).to_vec::<f16>().unwrap_or_default();
    assert!(halves[0].is_nan());
    assert_eq!(&halves[1..], &[f16::INFINITY, f16::NEG_INFINITY]);
    let brains = ok(convert(&data, ElementType::Bf16)).to_vec::<bf16>().unwrap_or_default();
    assert!(brains[0].is_nan());
    assert_eq!(&brains[1..], &[bf16::INFINITY, bf16::NEG_INFINITY]);
    let singles = ok(convert(&data, ElementType::F32)).to_vec::<f32>().unwrap_or_default();
    assert!(singles[0].is_nan());
}

#[test]
fn unsupported_types_are_named() {
    let strings = iota(ElementType::String, &[2]);
    let err = convert(&strings, ElementType::F32).err();
    assert_eq!(err, Some(KernelError::UnsupportedType { op: "Convert", ty: ElementType::String }));
    let data = iota(ElementType::F32, &[2]);
    for to in [ElementType::String, ElementType::Dynamic] {
        assert_eq!(convert(&data, to).err(), Some(KernelError::UnsupportedType { op: "Convert", ty: to }));
    }
    // A pair OpenVINO leaves undefined names both types.
    assert_eq!(
        convert(&data, ElementType::Nf4).err(),
        Some(KernelError::Shape(ShapeErrorKind::UndefinedConversion {
            from: ElementType::F32,
            to: ElementType::Nf4
        }))
    );
    let packed = Tensor::zeros(ElementType::U1, &[8]).unwrap_or_else(|e| unreachable!("{e}"));
    assert!(ok(convert(&packed, ElementType::U1)).shares_storage_with(&packed));
}

#[test]
fn into_checks_the_output_and_reuses_its_buffer() {
    let data = tensor(&[3], vec![1.5f32, -2.5, 7.0]);
    let mut wrong = Tensor::zeros(ElementType::F32, &[3]).unwrap_or_else(|e| unreachable!("{e}"));
    assert!(matches!(
        convert_into(&data, ElementType::I32, &mut wrong, &ExecOptions::single_thread()),
        Err(KernelError::OutputMismatch { expected_ty: ElementType::I32, found_ty: ElementType::F32, .. })
    ));
    let mut out = Tensor::zeros(ElementType::I32, &[3]).unwrap_or_else(|e| unreachable!("{e}"));
    let before = out.bytes().map(<[u8]>::as_ptr);
    ok(convert_into(&data, ElementType::I32, &mut out, &ExecOptions::single_thread()));
    assert_eq!(out.bytes().map(<[u8]>::as_ptr), before);
    assert_eq!(out.to_vec::<i32>().ok(), Some(vec![1, -2, 7]));
    let mut same = Tensor::zeros(ElementType::F32, &[3]).unwrap_or_else(|e| unreachable!("{e}"));
    ok(convert_into(&data, ElementType::F32, &mut same, &ExecOptions::single_thread()));
    assert_eq!(same, data);
}

/// Bytes borrowed from a weights file may be unaligned; the result must not
/// depend on that.
#[test]
fn unaligned_sources_convert_like_aligned_ones() {
    for from in CONVERTIBLE {
        let aligned = iota(from, &[7]);
        let mut raw = vec![0u8];
        raw.extend_from_slice(aligned.bytes().unwrap_or_default());
        let len = raw.len();
        let owner: std::sync::Arc<dyn AsRef<[u8]> + Send + Sync> = std::sync::Arc::new(raw);
        let unaligned =
            Tensor::from_shared(from, &[7], owner, 1..len).unwrap_or_else(|e| unreachable!("{e}"));
        for to in CONVERTIBLE {
            assert_eq!(ok(convert(&unaligned, to)), ok(convert(&aligned, to)), "{from} -> {to}");
        }
    }
    let specials = tensor(&[4], vec![f32::NAN, -2.7, 65520.0, 1.0 + 2f32.powi(-11)]);
    let mut raw = vec![0u8; 2];
    raw.extend_from_slice(specials.bytes().unwrap_or_default());
    let owner: std::sync::Arc<dyn AsRef<[u8]> + Send + Sync> = std::sync::Arc::new(raw);
    let unaligned =
        Tensor::from_shared(ElementType::F32, &[4], owner, 2..18).unwrap_or_else(|e| unreachable!("{e}"));
    for to in [ElementType::F16, ElementType::Bf16, ElementType::I8, ElementType::F64] {
        assert_eq!(ok(convert(&unaligned, to)), ok(convert(&specials, to)), "f32 -> {to}");
    }
}
