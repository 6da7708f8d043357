//! Convert on the small float formats (`f8e4m3`, `f8e5m2`, `f8e8m0`,
//! `f4e2m1`, `nf4`) and the packed integers, against tables that
//! `tools/convert_reference.py` computed with NumPy and ml_dtypes (and
//! checked against OpenVINO's reference Convert): every code decoded,
//! edge values encoded, and the pairs OpenVINO defines.

use ovir_exec::kernels::{convert, convert_into, ExecOptions, KernelError};
use ovir_shape::ShapeErrorKind;
use ovir_tensor::packed::{is_packed, pack, unpack};
use ovir_tensor::{bf16, f16, ElementType, Tensor};

use crate::common::{ok, tensor};

/// A tensor of `ty` holding one element per code (packed when `ty` is).
fn coded(ty: ElementType, codes: &[u8]) -> Tensor {
    let bytes = if is_packed(ty) { pack(codes, ty).unwrap_or_default() } else { codes.to_vec() };
    Tensor::from_bytes(ty, &[codes.len()], &bytes).unwrap_or_else(|e| unreachable!("{e}"))
}

/// The codes of a tensor of `ty`, one per element.
fn codes_of(t: &Tensor) -> Vec<u8> {
    let (ty, bytes) = (t.element_type(), t.bytes().unwrap_or_default());
    if is_packed(ty) {
        unpack(bytes, ty, t.len()).unwrap_or_default()
    } else {
        bytes.to_vec()
    }
}

fn f32_bits(t: &Tensor) -> Vec<u32> {
    t.to_vec::<f32>().unwrap_or_default().iter().map(|v| v.to_bits()).collect()
}

/// A row of `F32_TO_CODES`.
type CodeRow = (u32, u8, u8, u8, u8, [u8; 6]);

const FORMATS: [(ElementType, &[u32]); 5] = [
    (ElementType::F8e4m3, &F8E4M3_TO_F32),
    (ElementType::F8e5m2, &F8E5M2_TO_F32),
    (ElementType::F8e8m0, &F8E8M0_TO_F32),
    (ElementType::F4e2m1, &F4E2M1_TO_F32),
    (ElementType::Nf4, &NF4_TO_F32),
];

#[test]
fn every_code_decodes_to_its_f32_value() {
    for (ty, table) in FORMATS {
        let codes: Vec<u8> = (0..table.len()).map(|c| c as u8).collect();
        let got = f32_bits(&ok(convert(&coded(ty, &codes), ElementType::F32)));
        for (c, (&g, &w)) in got.iter().zip(table).enumerate() {
            assert_eq!(g, w, "{ty} code {c:#x}: {g:#010x}, expected {w:#010x}");
        }
        assert_eq!(got.len(), table.len());
    }
}

#[test]
fn every_code_decodes_to_f16_bf16_and_f64_by_its_value() {
    for (ty, table) in FORMATS {
        let codes: Vec<u8> = (0..table.len()).map(|c| c as u8).collect();
        let data = coded(ty, &codes);
        let halves = ok(convert(&data, ElementType::F16)).to_vec::<f16>().unwrap_or_default();
        let brains = ok(convert(&data, ElementType::Bf16)).to_vec::<bf16>().unwrap_or_default();
        // Of these formats, OpenVINO converts only f8e4m3 and f8e5m2 to f64.
        let doubles = match ty {
            ElementType::F8e4m3 | ElementType::F8e5m2 => {
                ok(convert(&data, ElementType::F64)).to_vec::<f64>().unwrap_or_default()
            }
            _ => table.iter().map(|&b| f64::from(f32::from_bits(b))).collect(),
        };
        assert_eq!((halves.len(), brains.len(), doubles.len()), (codes.len(), codes.len(), codes.len()));
        for (c, &bits) in table.iter().enumerate() {
            let v = f32::from_bits(bits);
            if v.is_nan() {
                assert!(halves[c].is_nan() && brains[c].is_nan() && doubles[c].is_nan(), "{ty} {c:#x}");
                continue;
            }
            assert_eq!(halves[c].to_bits(), f16::from_f32(v).to_bits(), "{ty} {c:#x} to f16");
            assert_eq!(brains[c].to_bits(), bf16::from_f32(v).to_bits(), "{ty} {c:#x} to bf16");
            assert_eq!(doubles[c], f64::from(v), "{ty} {c:#x} to f64");
        }
    }
}

/// NaN payloads of `f8e5m2` survive as they do in OpenVINO, where the
/// format widens as the high byte of an `f16`.
#[test]
fn f8e5m2_nans_keep_their_payload() {
    let data = coded(ElementType::F8e5m2, &[0x7D, 0x7E, 0x7F, 0xFD]);
    let halves = ok(convert(&data, ElementType::F16)).to_vec::<f16>().unwrap_or_default();
    assert_eq!(halves.iter().map(|h| h.to_bits()).collect::<Vec<_>>(), vec![0x7D00, 0x7E00, 0x7F00, 0xFD00]);
    let brains = ok(convert(&data, ElementType::Bf16)).to_vec::<bf16>().unwrap_or_default();
    assert_eq!(brains.iter().map(|h| h.to_bits()).collect::<Vec<_>>(), vec![0x7FA0, 0x7FC0, 0x7FE0, 0xFFA0]);
    // And on from bf16 to f32, the signalling ones too.
    let wide = ok(convert(&tensor(&[4], brains), ElementType::F32));
    assert_eq!(f32_bits(&wide), vec![0x7FA0_0000, 0x7FC0_0000, 0x7FE0_0000, 0xFFA0_0000]);
}

#[test]
fn f32_edge_values_encode_to_the_expected_codes() {
    let values: Vec<f32> = F32_TO_CODES.iter().map(|row| f32::from_bits(row.0)).collect();
    let data = tensor(&[values.len()], values);
    let columns = [
        ElementType::F8e4m3,
        ElementType::F8e5m2,
        ElementType::F8e8m0,
        ElementType::F4e2m1,
        ElementType::U1,
        ElementType::U2,
        ElementType::U3,
        ElementType::U4,
        ElementType::U6,
        ElementType::I4,
    ];
    let column = |row: &CodeRow, k: usize| match k {
        0 => row.1,
        1 => row.2,
        2 => row.3,
        3 => row.4,
        _ => row.5[k - 4],
    };
    for (k, ty) in columns.into_iter().enumerate() {
        let got = codes_of(&ok(convert(&data, ty)));
        for (row, g) in F32_TO_CODES.iter().zip(&got) {
            assert_eq!(*g, column(row, k), "f32 {:#010x} ({}) to {ty}", row.0, f32::from_bits(row.0));
        }
        assert_eq!(got.len(), F32_TO_CODES.len());
    }
}

#[test]
fn f16_values_encode_to_the_nearest_nf4_code() {
    let values: Vec<f16> = F16_TO_NF4.iter().map(|&(bits, _)| f16::from_bits(bits)).collect();
    let got = codes_of(&ok(convert(&tensor(&[values.len()], values), ElementType::Nf4)));
    for (&(bits, code), g) in F16_TO_NF4.iter().zip(&got) {
        assert_eq!(*g, code, "f16 {bits:#06x} ({})", f16::from_bits(bits));
    }
}

/// The 8-bit floats round through `f16` first, as OpenVINO 2026.4 does:
/// 0x40080001 lies just above the f8e4m3 tie 2.125, but its nearest f16
/// is the tie itself, which goes to the even 2.0.
#[test]
fn eight_bit_floats_round_through_f16() {
    let data = tensor(&[2], vec![f32::from_bits(0x4008_0001), f32::from_bits(0x3F90_0001)]);
    assert_eq!(codes_of(&ok(convert(&data, ElementType::F8e4m3))), vec![0x40, 0x39]);
    // 1.1250002 likewise becomes the f8e5m2 tie 1.125, which goes to 1.0.
    assert_eq!(codes_of(&ok(convert(&data, ElementType::F8e5m2))), vec![0x40, 0x3C]);
    let wide = tensor(&[3], vec![2.125f64 + 2f64.powi(-12), 61439.0, 57344.0]);
    assert_eq!(codes_of(&ok(convert(&wide, ElementType::F8e4m3))), vec![0x40, 0x7F, 0x7F]);
    assert_eq!(codes_of(&ok(convert(&wide, ElementType::F8e5m2))), vec![0x40, 0x7C, 0x7B]);
    let ints = tensor(&[4], vec![61439i64, 61424, 448, -465]);
    assert_eq!(codes_of(&ok(convert(&ints, ElementType::F8e5m2))), vec![0x7C, 0x7C, 0x5F, 0xDF]);
    assert_eq!(codes_of(&ok(convert(&ints, ElementType::F8e4m3))), vec![0x7F, 0x7F, 0x7E, 0xFF]);
}

/// An f16 NaN whose payload lies only in its low byte has no f8e5m2
/// NaN to go to: OpenVINO keeps the high byte, an infinity.
#[test]
fn f16_nans_with_a_low_payload_become_f8e5m2_infinities() {
    let data = tensor(&[4], [0x7C01u16, 0xFC80, 0x7E00, 0x7D00].map(f16::from_bits).to_vec());
    assert_eq!(codes_of(&ok(convert(&data, ElementType::F8e5m2))), vec![0x7C, 0xFC, 0x7E, 0x7D]);
    assert_eq!(codes_of(&ok(convert(&data, ElementType::F8e4m3))), vec![0x7F, 0xFF, 0x7F, 0x7F]);
}

#[test]
fn packed_integers_read_as_their_values() {
    let cases: [(ElementType, Vec<u8>, Vec<i32>); 6] = [
        (ElementType::U1, vec![0, 1, 1, 0, 1, 0, 0, 1, 1], vec![0, 1, 1, 0, 1, 0, 0, 1, 1]),
        (ElementType::U2, vec![3, 0, 1, 2, 3], vec![3, 0, 1, 2, 3]),
        (ElementType::U3, (0..11).map(|i| (i * 5 % 8) as u8).collect(), (0..11).map(|i| i * 5 % 8).collect()),
        (ElementType::U4, vec![15, 0, 8, 7, 1], vec![15, 0, 8, 7, 1]),
        (ElementType::U6, vec![63, 0, 32, 17, 5], vec![63, 0, 32, 17, 5]),
        (ElementType::I4, vec![15, 0, 8, 7, 9], vec![-1, 0, -8, 7, -7]),
    ];
    for (ty, codes, values) in cases {
        let data = coded(ty, &codes);
        assert_eq!(ok(convert(&data, ElementType::I32)).to_vec::<i32>().ok(), Some(values.clone()), "{ty}");
        let reals: Vec<f32> = values.iter().map(|&v| v as f32).collect();
        assert_eq!(ok(convert(&data, ElementType::F32)).to_vec::<f32>().ok(), Some(reals), "{ty}");
        // i4's -1 wraps to 255 in u8, as every narrowing integer conversion does.
        let bytes: Vec<u8> = values.iter().map(|&v| v as u8).collect();
        assert_eq!(ok(convert(&data, ElementType::U8)).to_vec::<u8>().ok(), Some(bytes), "{ty}");
        let flags: Vec<bool> = values.iter().map(|&v| v != 0).collect();
        assert_eq!(ok(convert(&data, ElementType::Boolean)).to_vec::<bool>().ok(), Some(flags), "{ty}");
    }
}

#[test]
fn integers_into_packed_types_keep_their_low_bits() {
    let data = tensor(&[6], vec![21i32, -1, -16, 255, 8, -9]);
    assert_eq!(codes_of(&ok(convert(&data, ElementType::U4))), vec![5, 15, 0, 15, 8, 7]);
    assert_eq!(codes_of(&ok(convert(&data, ElementType::I4))), vec![5, 15, 0, 15, 8, 7]);
    assert_eq!(codes_of(&ok(convert(&data, ElementType::U1))), vec![1, 1, 0, 1, 0, 1]);
    assert_eq!(codes_of(&ok(convert(&data, ElementType::U3))), vec![5, 7, 0, 7, 0, 7]);
    // Between packed types too: u4 15 is i4 -1.
    let nibbles = coded(ElementType::U4, &[15, 9]);
    let signed = ok(convert(&nibbles, ElementType::I4));
    assert_eq!(ok(convert(&signed, ElementType::I8)).to_vec::<i8>().ok(), Some(vec![-1, -7]));
    let flags = tensor(&[3], vec![true, false, true]);
    assert_eq!(codes_of(&ok(convert(&flags, ElementType::U6))), vec![1, 0, 1]);
}

#[test]
fn eight_bit_floats_truncate_and_saturate_into_integers() {
    // 448, -448, 1.75, -1.75, NaN, then f8e5m2's 57344 and -inf.
    let e4 = coded(ElementType::F8e4m3, &[0x7E, 0xFE, 0x3E, 0xBE, 0x7F]);
    assert_eq!(ok(convert(&e4, ElementType::U8)).to_vec::<u8>().ok(), Some(vec![255, 0, 1, 0, 0]));
    assert_eq!(ok(convert(&e4, ElementType::I32)).to_vec::<i32>().ok(), Some(vec![448, -448, 1, -1, 0]));
    assert_eq!(codes_of(&ok(convert(&e4, ElementType::U4))), vec![15, 0, 1, 0, 0]);
    assert_eq!(codes_of(&ok(convert(&e4, ElementType::I4))), vec![7, 8, 1, 15, 0]);
    let e5 = coded(ElementType::F8e5m2, &[0x7B, 0xFC]);
    assert_eq!(ok(convert(&e5, ElementType::I16)).to_vec::<i16>().ok(), Some(vec![i16::MAX, i16::MIN]));
    assert_eq!(ok(convert(&e5, ElementType::Boolean)).to_vec::<bool>().ok(), Some(vec![true, true]));
    // Between the two 8-bit floats: 448 fits f8e5m2, 57344 overflows f8e4m3.
    assert_eq!(codes_of(&ok(convert(&e4, ElementType::F8e5m2))), vec![0x5F, 0xDF, 0x3F, 0xBF, 0x7E]);
    assert_eq!(codes_of(&ok(convert(&e5, ElementType::F8e4m3))), vec![0x7F, 0xFF]);
}

/// Long tensors go through in blocks; every block must start where the
/// last one ended, inside the packed layouts' groups too.
#[test]
fn long_and_odd_lengths_convert_every_element() {
    for ty in [ElementType::U1, ElementType::U3, ElementType::U6, ElementType::I4, ElementType::F4e2m1] {
        for n in [1, 7, 255, 256, 257, 1000] {
            let max = 1u32 << ty.bit_width();
            let codes: Vec<u8> = (0..n).map(|i| ((i as u32 * 37 + 11) % max) as u8).collect();
            let data = coded(ty, &codes);
            let back = ok(convert(&ok(convert(&data, ElementType::F32)), ty));
            assert_eq!(codes_of(&back), codes, "{ty} n={n}");
        }
    }
    let codes: Vec<u8> = (0..1000).map(|i| (i * 7 % 256) as u8).collect();
    let data = coded(ElementType::F8e5m2, &codes);
    let mut out = Tensor::zeros(ElementType::F32, &[1000]).unwrap_or_else(|e| unreachable!("{e}"));
    ok(convert_into(&data, ElementType::F32, &mut out, &ExecOptions::with_threads(2)));
    let want: Vec<u32> = codes.iter().map(|&c| F8E5M2_TO_F32[usize::from(c)]).collect();
    assert_eq!(f32_bits(&out), want);
}

fn type_named(name: &str) -> ElementType {
    ElementType::from_ir_name(name).unwrap_or_else(|| unreachable!("{name}"))
}

#[test]
fn the_pairs_openvino_defines_convert_and_the_others_are_refused() {
    for (from, targets) in DEFINED {
        let from = type_named(from);
        let defined: Vec<ElementType> = targets.split(' ').map(type_named).collect();
        let data = Tensor::zeros(from, &[3]).unwrap_or_else(|e| unreachable!("{e}"));
        for (to, _) in DEFINED {
            let to = type_named(to);
            let got = convert(&data, to);
            if defined.contains(&to) {
                assert!(got.is_ok(), "{from} -> {to}: {got:?}");
            } else {
                assert_eq!(
                    got.err(),
                    Some(KernelError::Shape(ShapeErrorKind::UndefinedConversion { from, to })),
                    "{from} -> {to}"
                );
            }
        }
    }
}

// Generated by tools/convert_reference.py (NumPy, ml_dtypes); do not edit.

const F8E4M3_TO_F32: [u32; 256] = [
    0x00000000, 0x3B000000, 0x3B800000, 0x3BC00000, 0x3C000000, 0x3C200000, 0x3C400000, 0x3C600000,
    0x3C800000, 0x3C900000, 0x3CA00000, 0x3CB00000, 0x3CC00000, 0x3CD00000, 0x3CE00000, 0x3CF00000,
    0x3D000000, 0x3D100000, 0x3D200000, 0x3D300000, 0x3D400000, 0x3D500000, 0x3D600000, 0x3D700000,
    0x3D800000, 0x3D900000, 0x3DA00000, 0x3DB00000, 0x3DC00000, 0x3DD00000, 0x3DE00000, 0x3DF00000,
    0x3E000000, 0x3E100000, 0x3E200000, 0x3E300000, 0x3E400000, 0x3E500000, 0x3E600000, 0x3E700000,
    0x3E800000, 0x3E900000, 0x3EA00000, 0x3EB00000, 0x3EC00000, 0x3ED00000, 0x3EE00000, 0x3EF00000,
    0x3F000000, 0x3F100000, 0x3F200000, 0x3F300000, 0x3F400000, 0x3F500000, 0x3F600000, 0x3F700000,
    0x3F800000, 0x3F900000, 0x3FA00000, 0x3FB00000, 0x3FC00000, 0x3FD00000, 0x3FE00000, 0x3FF00000,
    0x40000000, 0x40100000, 0x40200000, 0x40300000, 0x40400000, 0x40500000, 0x40600000, 0x40700000,
    0x40800000, 0x40900000, 0x40A00000, 0x40B00000, 0x40C00000, 0x40D00000, 0x40E00000, 0x40F00000,
    0x41000000, 0x41100000, 0x41200000, 0x41300000, 0x41400000, 0x41500000, 0x41600000, 0x41700000,
    0x41800000, 0x41900000, 0x41A00000, 0x41B00000, 0x41C00000, 0x41D00000, 0x41E00000, 0x41F00000,
    0x42000000, 0x42100000, 0x42200000, 0x42300000, 0x42400000, 0x42500000, 0x42600000, 0x42700000,
    0x42800000, 0x42900000, 0x42A00000, 0x42B00000, 0x42C00000, 0x42D00000, 0x42E00000, 0x42F00000,
    0x43000000, 0x43100000, 0x43200000, 0x43300000, 0x43400000, 0x43500000, 0x43600000, 0x43700000,
    0x43800000, 0x43900000, 0x43A00000, 0x43B00000, 0x43C00000, 0x43D00000, 0x43E00000, 0x7FC00000,
    0x80000000, 0xBB000000, 0xBB800000, 0xBBC00000, 0xBC000000, 0xBC200000, 0xBC400000, 0xBC600000,
    0xBC800000, 0xBC900000, 0xBCA00000, 0xBCB00000, 0xBCC00000, 0xBCD00000, 0xBCE00000, 0xBCF00000,
    0xBD000000, 0xBD100000, 0xBD200000, 0xBD300000, 0xBD400000, 0xBD500000, 0xBD600000, 0xBD700000,
    0xBD800000, 0xBD900000, 0xBDA00000, 0xBDB00000, 0xBDC00000, 0xBDD00000, 0xBDE00000, 0xBDF00000,
    0xBE000000, 0xBE100000, 0xBE200000, 0xBE300000, 0xBE400000, 0xBE500000, 0xBE600000, 0xBE700000,
    0xBE800000, 0xBE900000, 0xBEA00000, 0xBEB00000, 0xBEC00000, 0xBED00000, 0xBEE00000, 0xBEF00000,
    0xBF000000, 0xBF100000, 0xBF200000, 0xBF300000, 0xBF400000, 0xBF500000, 0xBF600000, 0xBF700000,
    0xBF800000, 0xBF900000, 0xBFA00000, 0xBFB00000, 0xBFC00000, 0xBFD00000, 0xBFE00000, 0xBFF00000,
    0xC0000000, 0xC0100000, 0xC0200000, 0xC0300000, 0xC0400000, 0xC0500000, 0xC0600000, 0xC0700000,
    0xC0800000, 0xC0900000, 0xC0A00000, 0xC0B00000, 0xC0C00000, 0xC0D00000, 0xC0E00000, 0xC0F00000,
    0xC1000000, 0xC1100000, 0xC1200000, 0xC1300000, 0xC1400000, 0xC1500000, 0xC1600000, 0xC1700000,
    0xC1800000, 0xC1900000, 0xC1A00000, 0xC1B00000, 0xC1C00000, 0xC1D00000, 0xC1E00000, 0xC1F00000,
    0xC2000000, 0xC2100000, 0xC2200000, 0xC2300000, 0xC2400000, 0xC2500000, 0xC2600000, 0xC2700000,
    0xC2800000, 0xC2900000, 0xC2A00000, 0xC2B00000, 0xC2C00000, 0xC2D00000, 0xC2E00000, 0xC2F00000,
    0xC3000000, 0xC3100000, 0xC3200000, 0xC3300000, 0xC3400000, 0xC3500000, 0xC3600000, 0xC3700000,
    0xC3800000, 0xC3900000, 0xC3A00000, 0xC3B00000, 0xC3C00000, 0xC3D00000, 0xC3E00000, 0xFFC00000,
];

const F8E5M2_TO_F32: [u32; 256] = [
    0x00000000, 0x37800000, 0x38000000, 0x38400000, 0x38800000, 0x38A00000, 0x38C00000, 0x38E00000,
    0x39000000, 0x39200000, 0x39400000, 0x39600000, 0x39800000, 0x39A00000, 0x39C00000, 0x39E00000,
    0x3A000000, 0x3A200000, 0x3A400000, 0x3A600000, 0x3A800000, 0x3AA00000, 0x3AC00000, 0x3AE00000,
    0x3B000000, 0x3B200000, 0x3B400000, 0x3B600000, 0x3B800000, 0x3BA00000, 0x3BC00000, 0x3BE00000,
    0x3C000000, 0x3C200000, 0x3C400000, 0x3C600000, 0x3C800000, 0x3CA00000, 0x3CC00000, 0x3CE00000,
    0x3D000000, 0x3D200000, 0x3D400000, 0x3D600000, 0x3D800000, 0x3DA00000, 0x3DC00000, 0x3DE00000,
    0x3E000000, 0x3E200000, 0x3E400000, 0x3E600000, 0x3E800000, 0x3EA00000, 0x3EC00000, 0x3EE00000,
    0x3F000000, 0x3F200000, 0x3F400000, 0x3F600000, 0x3F800000, 0x3FA00000, 0x3FC00000, 0x3FE00000,
    0x40000000, 0x40200000, 0x40400000, 0x40600000, 0x40800000, 0x40A00000, 0x40C00000, 0x40E00000,
    0x41000000, 0x41200000, 0x41400000, 0x41600000, 0x41800000, 0x41A00000, 0x41C00000, 0x41E00000,
    0x42000000, 0x42200000, 0x42400000, 0x42600000, 0x42800000, 0x42A00000, 0x42C00000, 0x42E00000,
    0x43000000, 0x43200000, 0x43400000, 0x43600000, 0x43800000, 0x43A00000, 0x43C00000, 0x43E00000,
    0x44000000, 0x44200000, 0x44400000, 0x44600000, 0x44800000, 0x44A00000, 0x44C00000, 0x44E00000,
    0x45000000, 0x45200000, 0x45400000, 0x45600000, 0x45800000, 0x45A00000, 0x45C00000, 0x45E00000,
    0x46000000, 0x46200000, 0x46400000, 0x46600000, 0x46800000, 0x46A00000, 0x46C00000, 0x46E00000,
    0x47000000, 0x47200000, 0x47400000, 0x47600000, 0x7F800000, 0x7FA00000, 0x7FC00000, 0x7FE00000,
    0x80000000, 0xB7800000, 0xB8000000, 0xB8400000, 0xB8800000, 0xB8A00000, 0xB8C00000, 0xB8E00000,
    0xB9000000, 0xB9200000, 0xB9400000, 0xB9600000, 0xB9800000, 0xB9A00000, 0xB9C00000, 0xB9E00000,
    0xBA000000, 0xBA200000, 0xBA400000, 0xBA600000, 0xBA800000, 0xBAA00000, 0xBAC00000, 0xBAE00000,
    0xBB000000, 0xBB200000, 0xBB400000, 0xBB600000, 0xBB800000, 0xBBA00000, 0xBBC00000, 0xBBE00000,
    0xBC000000, 0xBC200000, 0xBC400000, 0xBC600000, 0xBC800000, 0xBCA00000, 0xBCC00000, 0xBCE00000,
    0xBD000000, 0xBD200000, 0xBD400000, 0xBD600000, 0xBD800000, 0xBDA00000, 0xBDC00000, 0xBDE00000,
    0xBE000000, 0xBE200000, 0xBE400000, 0xBE600000, 0xBE800000, 0xBEA00000, 0xBEC00000, 0xBEE00000,
    0xBF000000, 0xBF200000, 0xBF400000, 0xBF600000, 0xBF800000, 0xBFA00000, 0xBFC00000, 0xBFE00000,
    0xC0000000, 0xC0200000, 0xC0400000, 0xC0600000, 0xC0800000, 0xC0A00000, 0xC0C00000, 0xC0E00000,
    0xC1000000, 0xC1200000, 0xC1400000, 0xC1600000, 0xC1800000, 0xC1A00000, 0xC1C00000, 0xC1E00000,
    0xC2000000, 0xC2200000, 0xC2400000, 0xC2600000, 0xC2800000, 0xC2A00000, 0xC2C00000, 0xC2E00000,
    0xC3000000, 0xC3200000, 0xC3400000, 0xC3600000, 0xC3800000, 0xC3A00000, 0xC3C00000, 0xC3E00000,
    0xC4000000, 0xC4200000, 0xC4400000, 0xC4600000, 0xC4800000, 0xC4A00000, 0xC4C00000, 0xC4E00000,
    0xC5000000, 0xC5200000, 0xC5400000, 0xC5600000, 0xC5800000, 0xC5A00000, 0xC5C00000, 0xC5E00000,
    0xC6000000, 0xC6200000, 0xC6400000, 0xC6600000, 0xC6800000, 0xC6A00000, 0xC6C00000, 0xC6E00000,
    0xC7000000, 0xC7200000, 0xC7400000, 0xC7600000, 0xFF800000, 0xFFA00000, 0xFFC00000, 0xFFE00000,
];

const F8E8M0_TO_F32: [u32; 256] = [
    0x00400000, 0x00800000, 0x01000000, 0x01800000, 0x02000000, 0x02800000, 0x03000000, 0x03800000,
    0x04000000, 0x04800000, 0x05000000, 0x05800000, 0x06000000, 0x06800000, 0x07000000, 0x07800000,
    0x08000000, 0x08800000, 0x09000000, 0x09800000, 0x0A000000, 0x0A800000, 0x0B000000, 0x0B800000,
    0x0C000000, 0x0C800000, 0x0D000000, 0x0D800000, 0x0E000000, 0x0E800000, 0x0F000000, 0x0F800000,
    0x10000000, 0x10800000, 0x11000000, 0x11800000, 0x12000000, 0x12800000, 0x13000000, 0x13800000,
    0x14000000, 0x14800000, 0x15000000, 0x15800000, 0x16000000, 0x16800000, 0x17000000, 0x17800000,
    0x18000000, 0x18800000, 0x19000000, 0x19800000, 0x1A000000, 0x1A800000, 0x1B000000, 0x1B800000,
    0x1C000000, 0x1C800000, 0x1D000000, 0x1D800000, 0x1E000000, 0x1E800000, 0x1F000000, 0x1F800000,
    0x20000000, 0x20800000, 0x21000000, 0x21800000, 0x22000000, 0x22800000, 0x23000000, 0x23800000,
    0x24000000, 0x24800000, 0x25000000, 0x25800000, 0x26000000, 0x26800000, 0x27000000, 0x27800000,
    0x28000000, 0x28800000, 0x29000000, 0x29800000, 0x2A000000, 0x2A800000, 0x2B000000, 0x2B800000,
    0x2C000000, 0x2C800000, 0x2D000000, 0x2D800000, 0x2E000000, 0x2E800000, 0x2F000000, 0x2F800000,
    0x30000000, 0x30800000, 0x31000000, 0x31800000, 0x32000000, 0x32800000, 0x33000000, 0x33800000,
    0x34000000, 0x34800000, 0x35000000, 0x35800000, 0x36000000, 0x36800000, 0x37000000, 0x37800000,
    0x38000000, 0x38800000, 0x39000000, 0x39800000, 0x3A000000, 0x3A800000, 0x3B000000, 0x3B800000,
    0x3C000000, 0x3C800000, 0x3D000000, 0x3D800000, 0x3E000000, 0x3E800000, 0x3F000000, 0x3F800000,
    0x40000000, 0x40800000, 0x41000000, 0x41800000, 0x42000000, 0x42800000, 0x43000000, 0x43800000,
    0x44000000, 0x44800000, 0x45000000, 0x45800000, 0x46000000, 0x46800000, 0x47000000, 0x47800000,
    0x48000000, 0x48800000, 0x49000000, 0x49800000, 0x4A000000, 0x4A800000, 0x4B000000, 0x4B800000,
    0x4C000000, 0x4C800000, 0x4D000000, 0x4D800000, 0x4E000000, 0x4E800000, 0x4F000000, 0x4F800000,
    0x50000000, 0x50800000, 0x51000000, 0x51800000, 0x52000000, 0x52800000, 0x53000000, 0x53800000,
    0x54000000, 0x54800000, 0x55000000, 0x55800000, 0x56000000, 0x56800000, 0x57000000, 0x57800000,
    0x58000000, 0x58800000, 0x59000000, 0x59800000, 0x5A000000, 0x5A800000, 0x5B000000, 0x5B800000,
    0x5C000000, 0x5C800000, 0x5D000000, 0x5D800000, 0x5E000000, 0x5E800000, 0x5F000000, 0x5F800000,
    0x60000000, 0x60800000, 0x61000000, 0x61800000, 0x62000000, 0x62800000, 0x63000000, 0x63800000,
    0x64000000, 0x64800000, 0x65000000, 0x65800000, 0x66000000, 0x66800000, 0x67000000, 0x67800000,
    0x68000000, 0x68800000, 0x69000000, 0x69800000, 0x6A000000, 0x6A800000, 0x6B000000, 0x6B800000,
    0x6C000000, 0x6C800000, 0x6D000000, 0x6D800000, 0x6E000000, 0x6E800000, 0x6F000000, 0x6F800000,
    0x70000000, 0x70800000, 0x71000000, 0x71800000, 0x72000000, 0x72800000, 0x73000000, 0x73800000,
    0x74000000, 0x74800000, 0x75000000, 0x75800000, 0x76000000, 0x76800000, 0x77000000, 0x77800000,
    0x78000000, 0x78800000, 0x79000000, 0x79800000, 0x7A000000, 0x7A800000, 0x7B000000, 0x7B800000,
    0x7C000000, 0x7C800000, 0x7D000000, 0x7D800000, 0x7E000000, 0x7E800000, 0x7F000000, 0x7FC00000,
];

const F4E2M1_TO_F32: [u32; 16] = [
    0x00000000, 0x3F000000, 0x3F800000, 0x3FC00000, 0x40000000, 0x40400000, 0x40800000, 0x40C00000,
    0x80000000, 0xBF000000, 0xBF800000, 0xBFC00000, 0xC0000000, 0xC0400000, 0xC0800000, 0xC0C00000,
];

const NF4_TO_F32: [u32; 16] = [
    0xBF800000, 0xBF3239B1, 0xBF066B30, 0xBECA32A0, 0xBE91A24D, 0xBE3D353F, 0xBDBA7871, 0x00000000,
    0x3DA2FAFF, 0x3E24CAE3, 0x3E7C04DD, 0x3EAD033A, 0x3EE1A4B8, 0x3F1007AB, 0x3F3913B3, 0x3F800000,
];

/// f32 bits, then the code in f8e4m3, f8e5m2, f8e8m0, f4e2m1, and in
/// u1, u2, u3, u4, u6, i4 (two's complement).
const F32_TO_CODES: [CodeRow; 87] = [
    (0x00000000, 0x00, 0x00, 0x00, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x80000000, 0x80, 0x80, 0x00, 0x8, [0, 0, 0, 0, 0, 0]),
    (0x00000001, 0x00, 0x00, 0x00, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x80000001, 0x80, 0x80, 0x00, 0x8, [0, 0, 0, 0, 0, 0]),
    (0x00400000, 0x00, 0x00, 0x00, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x00600000, 0x00, 0x00, 0x00, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x00600001, 0x00, 0x00, 0x01, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x00800000, 0x00, 0x00, 0x01, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x7F7FFFFF, 0x7F, 0x7C, 0xFE, 0x7, [1, 3, 7, 15, 63, 7]),
    (0xFF7FFFFF, 0xFF, 0xFC, 0x00, 0xF, [0, 0, 0, 0, 0, 8]),
    (0x7F800000, 0x7F, 0x7C, 0xFE, 0x7, [1, 3, 7, 15, 63, 7]),
    (0xFF800000, 0xFF, 0xFC, 0x00, 0xF, [0, 0, 0, 0, 0, 8]),
    (0x7FC00000, 0x7F, 0x7E, 0xFF, 0x7, [0, 0, 0, 0, 0, 0]),
    (0xFFC00000, 0xFF, 0xFE, 0x00, 0xF, [0, 0, 0, 0, 0, 0]),
    (0x7F800001, 0x7F, 0x7C, 0xFF, 0x7, [0, 0, 0, 0, 0, 0]),
    (0x7FA00000, 0x7F, 0x7D, 0xFF, 0x7, [0, 0, 0, 0, 0, 0]),
    (0x7F000000, 0x7F, 0x7C, 0xFE, 0x7, [1, 3, 7, 15, 63, 7]),
    (0x7F400000, 0x7F, 0x7C, 0xFE, 0x7, [1, 3, 7, 15, 63, 7]),
    (0x7EFFFFFF, 0x7F, 0x7C, 0xFE, 0x7, [1, 3, 7, 15, 63, 7]),
    (0x3F800000, 0x38, 0x3C, 0x7F, 0x2, [1, 1, 1, 1, 1, 1]),
    (0xBF800000, 0xB8, 0xBC, 0x00, 0xA, [0, 0, 0, 0, 0, 15]),
    (0x40080001, 0x40, 0x40, 0x80, 0x4, [1, 2, 2, 2, 2, 2]),
    (0x3F900001, 0x39, 0x3C, 0x7F, 0x2, [1, 1, 1, 1, 1, 1]),
    (0x36FFF800, 0x00, 0x00, 0x6E, 0x0, [0, 0, 0, 0, 0, 0]),
    (0xB77FF000, 0x80, 0x81, 0x00, 0x8, [0, 0, 0, 0, 0, 0]),
    (0x37FFFFFF, 0x00, 0x02, 0x70, 0x0, [0, 0, 0, 0, 0, 0]),
    (0xB9100001, 0x80, 0x88, 0x00, 0x8, [0, 0, 0, 0, 0, 0]),
    (0x3F000000, 0x30, 0x38, 0x7E, 0x1, [0, 0, 0, 0, 0, 0]),
    (0x3E800000, 0x28, 0x34, 0x7D, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x3E851EB8, 0x28, 0x34, 0x7D, 0x1, [0, 0, 0, 0, 0, 0]),
    (0x3F400000, 0x34, 0x3A, 0x7E, 0x2, [0, 0, 0, 0, 0, 0]),
    (0x3FA00000, 0x3A, 0x3D, 0x7F, 0x2, [1, 1, 1, 1, 1, 1]),
    (0x3FC00000, 0x3C, 0x3E, 0x80, 0x3, [1, 1, 1, 1, 1, 1]),
    (0x3FE00000, 0x3E, 0x3F, 0x80, 0x4, [1, 1, 1, 1, 1, 1]),
    (0x40200000, 0x42, 0x41, 0x80, 0x4, [1, 2, 2, 2, 2, 2]),
    (0x40400000, 0x44, 0x42, 0x80, 0x5, [1, 3, 3, 3, 3, 3]),
    (0x40600000, 0x46, 0x43, 0x81, 0x6, [1, 3, 3, 3, 3, 3]),
    (0x40A00000, 0x4A, 0x45, 0x81, 0x6, [1, 3, 5, 5, 5, 5]),
    (0x40C00000, 0x4C, 0x46, 0x82, 0x7, [1, 3, 6, 6, 6, 6]),
    (0x40E00000, 0x4E, 0x47, 0x82, 0x7, [1, 3, 7, 7, 7, 7]),
    (0x41000000, 0x50, 0x48, 0x82, 0x7, [1, 3, 7, 8, 8, 7]),
    (0x42C80000, 0x6C, 0x56, 0x86, 0x7, [1, 3, 7, 15, 63, 7]),
    (0xBDCCCCCD, 0x9D, 0xAE, 0x00, 0x8, [0, 0, 0, 0, 0, 0]),
    (0xBE99999A, 0xAA, 0xB5, 0x00, 0x9, [0, 0, 0, 0, 0, 0]),
    (0xC0200000, 0xC2, 0xC1, 0x00, 0xC, [0, 0, 0, 0, 0, 14]),
    (0x43E00000, 0x7E, 0x5F, 0x88, 0x7, [1, 3, 7, 15, 63, 7]),
    (0x43E60000, 0x7E, 0x5F, 0x88, 0x7, [1, 3, 7, 15, 63, 7]),
    (0x43E80000, 0x7E, 0x5F, 0x88, 0x7, [1, 3, 7, 15, 63, 7]),
    (0x43E81000, 0x7E, 0x5F, 0x88, 0x7, [1, 3, 7, 15, 63, 7]),
    (0x43E810A4, 0x7F, 0x5F, 0x88, 0x7, [1, 3, 7, 15, 63, 7]),
    (0x43E88000, 0x7F, 0x5F, 0x88, 0x7, [1, 3, 7, 15, 63, 7]),
    (0x43F00000, 0x7F, 0x60, 0x88, 0x7, [1, 3, 7, 15, 63, 7]),
    (0xC3E00000, 0xFE, 0xDF, 0x00, 0xF, [0, 0, 0, 0, 0, 8]),
    (0xC3E88000, 0xFF, 0xDF, 0x00, 0xF, [0, 0, 0, 0, 0, 8]),
    (0x49742400, 0x7F, 0x7C, 0x93, 0x7, [1, 3, 7, 15, 63, 7]),
    (0x47600000, 0x7F, 0x7B, 0x8F, 0x7, [1, 3, 7, 15, 63, 7]),
    (0x476FEFFD, 0x7F, 0x7B, 0x8F, 0x7, [1, 3, 7, 15, 63, 7]),
    (0x476FF000, 0x7F, 0x7C, 0x8F, 0x7, [1, 3, 7, 15, 63, 7]),
    (0x47700000, 0x7F, 0x7C, 0x8F, 0x7, [1, 3, 7, 15, 63, 7]),
    (0x477FE000, 0x7F, 0x7C, 0x8F, 0x7, [1, 3, 7, 15, 63, 7]),
    (0x477FF000, 0x7F, 0x7C, 0x8F, 0x7, [1, 3, 7, 15, 63, 7]),
    (0x3C800000, 0x08, 0x24, 0x79, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x3C000000, 0x04, 0x20, 0x78, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x3B000000, 0x01, 0x18, 0x76, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x3A800000, 0x00, 0x14, 0x75, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x3AC00000, 0x01, 0x16, 0x76, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x39800000, 0x00, 0x0C, 0x73, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x38800000, 0x00, 0x04, 0x71, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x37800000, 0x00, 0x01, 0x6F, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x37000000, 0x00, 0x00, 0x6E, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x37C00000, 0x00, 0x02, 0x70, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x33800000, 0x00, 0x00, 0x67, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x33000000, 0x00, 0x00, 0x66, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x3DCCCCCD, 0x1D, 0x2E, 0x7C, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x3EAAAAAB, 0x2B, 0x35, 0x7D, 0x1, [0, 0, 0, 0, 0, 0]),
    (0x3DA30553, 0x1A, 0x2D, 0x7B, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x3F19999A, 0x32, 0x39, 0x7E, 0x1, [0, 0, 0, 0, 0, 0]),
    (0x3FCCCCCD, 0x3D, 0x3E, 0x80, 0x3, [1, 1, 1, 1, 1, 1]),
    (0x3F333333, 0x33, 0x3A, 0x7E, 0x1, [0, 0, 0, 0, 0, 0]),
    (0x43960000, 0x79, 0x5D, 0x87, 0x7, [1, 3, 7, 15, 63, 7]),
    (0xC3960000, 0xF9, 0xDD, 0x00, 0xF, [0, 0, 0, 0, 0, 8]),
    (0x7F000000, 0x7F, 0x7C, 0xFE, 0x7, [1, 3, 7, 15, 63, 7]),
    (0x7EC00000, 0x7F, 0x7C, 0xFE, 0x7, [1, 3, 7, 15, 63, 7]),
    (0x00800000, 0x00, 0x00, 0x01, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x00C00000, 0x00, 0x00, 0x02, 0x0, [0, 0, 0, 0, 0, 0]),
    (0x3EC00000, 0x2C, 0x36, 0x7E, 0x1, [0, 0, 0, 0, 0, 0]),
    (0x3F200000, 0x32, 0x39, 0x7E, 0x1, [0, 0, 0, 0, 0, 0]),
];

/// f16 bits and their nf4 code.
const F16_TO_NF4: [(u16, u8); 69] = [
    (0x0000, 7),
    (0x8000, 7),
    (0x7C00, 15),
    (0xFC00, 0),
    (0x7E00, 0),
    (0x4000, 15),
    (0xC000, 0),
    (0x0002, 7),
    (0xBAC9, 0),
    (0xBACA, 0),
    (0xBAC8, 1),
    (0xB8E3, 1),
    (0xB8E4, 1),
    (0xB8E2, 2),
    (0xB75C, 3),
    (0xB75D, 2),
    (0xB75B, 3),
    (0xB56F, 4),
    (0xB570, 3),
    (0xB56E, 4),
    (0xB382, 4),
    (0xB383, 4),
    (0xB381, 5),
    (0xB06A, 5),
    (0xB06B, 5),
    (0xB069, 6),
    (0xA9D4, 6),
    (0xA9D5, 6),
    (0xA9D3, 7),
    (0x2918, 8),
    (0x2917, 7),
    (0x2919, 8),
    (0x2FB2, 8),
    (0x2FB1, 8),
    (0x2FB3, 9),
    (0x3283, 9),
    (0x3282, 9),
    (0x3284, 10),
    (0x34AC, 10),
    (0x34AB, 10),
    (0x34AD, 11),
    (0x363B, 12),
    (0x363A, 11),
    (0x363C, 12),
    (0x3803, 12),
    (0x3802, 12),
    (0x3804, 13),
    (0x3924, 13),
    (0x3923, 13),
    (0x3925, 14),
    (0x3AE4, 14),
    (0x3AE3, 14),
    (0x3AE5, 15),
    (0xBC00, 0),
    (0xB992, 1),
    (0xB833, 2),
    (0xB652, 3),
    (0xB48D, 4),
    (0xB1EA, 5),
    (0xADD4, 6),
    (0x0000, 7),
    (0x2D18, 8),
    (0x3126, 9),
    (0x33E0, 10),
    (0x3568, 11),
    (0x370D, 12),
    (0x3880, 13),
    (0x39C9, 14),
    (0x3C00, 15),
];

/// Each type and the types OpenVINO's reference Convert takes it to.
const DEFINED: [(&str, &str); 24] = [
    ("boolean", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f8e4m3 f8e5m2"),
    ("i8", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f8e4m3 f8e5m2"),
    ("i16", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f8e4m3 f8e5m2"),
    ("i32", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f8e4m3 f8e5m2"),
    ("i64", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f8e4m3 f8e5m2"),
    ("u8", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f8e4m3 f8e5m2"),
    ("u16", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f8e4m3 f8e5m2"),
    ("u32", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f8e4m3 f8e5m2"),
    ("u64", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f8e4m3 f8e5m2"),
    ("f16", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 nf4 f4e2m1 f8e4m3 f8e5m2 f8e8m0"),
    ("bf16", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f4e2m1 f8e4m3 f8e5m2 f8e8m0"),
    ("f32", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f4e2m1 f8e4m3 f8e5m2 f8e8m0"),
    ("f64", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f8e4m3 f8e5m2"),
    ("u1", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f8e4m3 f8e5m2"),
    ("u2", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f8e4m3 f8e5m2"),
    ("u3", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f8e4m3 f8e5m2"),
    ("u4", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f8e4m3 f8e5m2"),
    ("u6", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f8e4m3 f8e5m2"),
    ("i4", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f8e4m3 f8e5m2"),
    ("nf4", "f16 bf16 f32 nf4"),
    ("f4e2m1", "f16 bf16 f32 f4e2m1"),
    ("f8e4m3", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f8e4m3 f8e5m2"),
    ("f8e5m2", "boolean i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 u1 u2 u3 u4 u6 i4 f8e4m3 f8e5m2"),
    ("f8e8m0", "f16 bf16 f32 f8e8m0"),
];
