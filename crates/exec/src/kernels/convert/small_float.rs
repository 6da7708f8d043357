//! The 8-bit and 4-bit float formats and `nf4`, decoded and encoded as
//! OpenVINO 2026.4's reference Convert does (see `docs/element-types.md`).
//!
//! Crates that implement these formats round from `f32` directly and
//! saturate or not by the OCP rules; OpenVINO rounds `f8e4m3` and `f8e5m2`
//! through `f16` first, turns an `f8e4m3` overflow into NaN, and gives
//! `f8e8m0` and `f4e2m1` rules of its own. The rules are a few lines each,
//! so they are written out here rather than bent from a crate.

use half::f16;

/// The 256 values of a `const fn(u8) -> u32`, computed at compile time.
macro_rules! table {
    ($value:ident) => {{
        let mut t = [0; 256];
        let mut code = 0;
        while code < 256 {
            t[code] = $value(code as u8);
            code += 1;
        }
        t
    }};
}

/// Decoding: every code of each format as the bits of its exact `f32`
/// value, indexed by code.
pub(in crate::kernels) static F8E4M3: [u32; 256] = table!(e4m3_value);
/// See [`F8E4M3`]; NaN payloads are kept, as `f16` widening keeps them.
pub(in crate::kernels) static F8E5M2: [u32; 256] = table!(e5m2_value);
/// See [`F8E4M3`].
pub(in crate::kernels) static F8E8M0: [u32; 256] = table!(e8m0_value);
/// See [`F8E4M3`]; only the first 16 entries are codes.
pub(super) static F4E2M1: [u32; 256] = table!(f4e2m1_value);
/// See [`F8E4M3`]; only the first 16 entries are codes.
pub(super) static NF4: [u32; 256] = table!(nf4_value);

/// The `f32` bits of `m · 2^exp` for `m < 2^24` (0 for `m == 0`), exact
/// while the result is a normal `f32`, which every value below is.
const fn scaled(m: u32, exp: i32) -> u32 {
    if m == 0 {
        return 0;
    }
    let top = 31 - m.leading_zeros() as i32;
    let field = (top + exp + 127) as u32;
    (field << 23) | ((m << (23 - top)) & 0x7F_FFFF)
}

/// `s eeee mmm`, bias 7, no infinity; `s 1111 111` is NaN.
const fn e4m3_value(code: u8) -> u32 {
    let sign = ((code as u32) & 0x80) << 24;
    let (e, m) = (((code >> 3) & 0xF) as i32, (code & 7) as u32);
    if e == 15 && m == 7 {
        return sign | 0x7FC0_0000;
    }
    let magnitude = if e == 0 { scaled(m, -9) } else { scaled(m | 8, e - 10) };
    sign | magnitude
}

/// `s eeeee mm`, bias 15: the high byte of an IEEE `f16`.
const fn e5m2_value(code: u8) -> u32 {
    let sign = ((code as u32) & 0x80) << 24;
    let (e, m) = (((code >> 2) & 0x1F) as i32, (code & 3) as u32);
    let magnitude = match e {
        31 => 0x7F80_0000 | (m << 21),
        0 => scaled(m, -16),
        _ => scaled(m | 4, e - 17),
    };
    sign | magnitude
}

/// `2^(code - 127)`; 0xFF is NaN, and 0x00 is 2^-127, an `f32` subnormal.
const fn e8m0_value(code: u8) -> u32 {
    match code {
        0xFF => 0x7FC0_0000,
        0 => 0x0040_0000,
        _ => (code as u32) << 23,
    }
}

/// `s ee m`, bias 1, no infinity or NaN: 0, 0.5, 1, 1.5, 2, 3, 4, 6.
const fn f4e2m1_value(code: u8) -> u32 {
    const MAGNITUDES: [u32; 8] =
        [0, 0x3F00_0000, 0x3F80_0000, 0x3FC0_0000, 0x4000_0000, 0x4040_0000, 0x4080_0000, 0x40C0_0000];
    let sign = ((code as u32) & 8) << 28;
    sign | MAGNITUDES[(code & 7) as usize]
}

/// OpenVINO's NormalFloat table (`src/core/src/type/nf4.cpp`), as the
/// `f32` bits its 2026.4 build holds.
const NF4_VALUES: [u32; 16] = [
    0xBF80_0000,
    0xBF32_39B1,
    0xBF06_6B30,
    0xBECA_32A0,
    0xBE91_A24D,
    0xBE3D_353F,
    0xBDBA_7871,
    0x0000_0000,
    0x3DA2_FAFF,
    0x3E24_CAE3,
    0x3E7C_04DD,
    0x3EAD_033A,
    0x3EE1_A4B8,
    0x3F10_07AB,
    0x3F39_13B3,
    0x3F80_0000,
];

const fn nf4_value(code: u8) -> u32 {
    NF4_VALUES[(code & 15) as usize]
}

/// The midpoints between neighbouring `nf4` values, ascending, as the `f32`
/// bits OpenVINO's `ConvertNF4::quantize` compares with.
const NF4_THRESHOLDS: [u32; 15] = [
    0xBF59_1CD9,
    0xBF1C_5270,
    0xBEEB_8480,
    0xBEAD_EA76,
    0xBE70_3CEC,
    0xBE0D_38BC,
    0xBD3A_7871,
    0x3D22_FAFF,
    0x3DF6_4863,
    0x3E50_67E0,
    0x3E95_82D4,
    0x3EC7_53F9,
    0x3F00_6D03,
    0x3F24_8DAF,
    0x3F5C_89D9,
];

/// `v / 2^s` rounded to nearest, ties to even (`s` ≥ 1).
fn rne_shift(v: u32, s: u32) -> u32 {
    let (q, r, half) = (v >> s, v & ((1 << s) - 1), 1 << (s - 1));
    q + u32::from(r > half || (r == half && q & 1 == 1))
}

/// `x` as `f16` bits, the first rounding of the 8-bit float encoders:
/// nearest even, overflow to infinity. A NaN keeps the top ten bits of its
/// payload (or gets payload 1 when they are all zero), as OpenVINO's
/// software `float16(float)` does.
pub(in crate::kernels) fn f16_bits(x: f32) -> u16 {
    if x.is_nan() {
        let bits = x.to_bits();
        let payload = ((bits >> 13) & 0x3FF) as u16;
        return ((bits >> 16) as u16 & 0x8000) | 0x7C00 | payload.max(1);
    }
    f16::from_f32(x).to_bits()
}

/// The `f8e4m3` code of the `f16` with bits `h`: nearest even; infinity,
/// NaN and magnitudes above 464 give NaN with the sign kept.
pub(in crate::kernels) fn e4m3_from_f16(h: u16) -> u8 {
    let sign = ((h >> 8) & 0x80) as u8;
    let abs = u32::from(h & 0x7FFF);
    if abs >= 0x7C00 {
        return sign | 0x7F;
    }
    // From 2^-6 (f16 exponent field 9) up the value is an f8e4m3 normal:
    // move the exponent bias from 15 to 7 and round ten mantissa bits to
    // three. Below, count steps of 2^-9, f8e4m3's subnormal spacing: the
    // f16 significand times 2^(field - 25), over 2^-9.
    let code = if abs >= 9 << 10 {
        rne_shift(abs - (8 << 10), 7)
    } else if abs >> 10 == 0 {
        rne_shift(abs, 15)
    } else {
        rne_shift((abs & 0x3FF) | 0x400, 16 - (abs >> 10))
    };
    sign | code.min(0x7F) as u8
}

/// The `f8e5m2` code of the `f16` with bits `h`: its high byte, rounded to
/// nearest even, with overflow to infinity; infinity and NaN keep their
/// high byte, so a NaN whose payload lies in the low byte becomes infinity.
pub(in crate::kernels) fn e5m2_from_f16(h: u16) -> u8 {
    let sign = ((h >> 8) & 0x80) as u8;
    if h & 0x7C00 == 0x7C00 {
        return (h >> 8) as u8;
    }
    sign | rne_shift(u32::from(h & 0x7FFF), 8) as u8
}

/// The `f8e8m0` code of `x`: the nearest power of two, with ties (1.5 ·
/// 2^e) going to the even exponent field. Zero and negative values give
/// 0x00 (2^-127), +inf saturates to 0xFE (2^127), NaN gives 0xFF.
pub(in crate::kernels) fn e8m0_from_f32(x: f32) -> u8 {
    let bits = x.to_bits();
    if bits >> 31 == 1 {
        return 0;
    }
    let (e, m) = (bits >> 23, bits & 0x7F_FFFF);
    let code = match e {
        0xFF if m != 0 => 0xFF,
        0xFE | 0xFF => 0xFE,
        // 2^-127 itself is the subnormal with m = 2^22; halfway to 2^-126
        // is 1.5 times that.
        0 => u32::from(m > 0x60_0000),
        _ => e + u32::from(m > 0x40_0000 || (m == 0x40_0000 && e & 1 == 1)),
    };
    code as u8
}

/// The `f4e2m1` code of `x`: nearest even, saturating at ±6; infinity and
/// NaN give ±6, and the sign is always kept (so -0.1 gives -0).
pub(super) fn f4e2m1_from_f32(x: f32) -> u8 {
    let sign = ((x.to_bits() >> 28) & 8) as u8;
    let a = x.abs();
    // The midpoints between neighbours; a tie goes to the code whose
    // mantissa bit is 0 (the even one), hence `<=` or `<`.
    let code = if a.is_nan() {
        7
    } else if a <= 0.25 {
        0
    } else if a < 0.75 {
        1
    } else if a <= 1.25 {
        2
    } else if a < 1.75 {
        3
    } else if a <= 2.5 {
        4
    } else if a < 3.5 {
        5
    } else if a <= 5.0 {
        6
    } else {
        7
    };
    sign | code
}

/// The `nf4` code of `x`: how many midpoints it lies above, so the nearest
/// table value with a tie going down; NaN gives code 0.
pub(super) fn nf4_from_f32(x: f32) -> u8 {
    NF4_THRESHOLDS.iter().filter(|&&t| x > f32::from_bits(t)).count() as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_lie_between_neighbouring_values() {
        for (k, &t) in NF4_THRESHOLDS.iter().enumerate() {
            let (lo, hi) = (f32::from_bits(NF4_VALUES[k]), f32::from_bits(NF4_VALUES[k + 1]));
            let t = f32::from_bits(t);
            assert!(lo < t && t < hi, "{k}");
            assert!((t - (lo + hi) / 2.0).abs() <= f32::EPSILON, "{k}");
        }
    }

    #[test]
    fn shifts_round_half_to_even() {
        assert_eq!([rne_shift(5, 1), rne_shift(7, 1), rne_shift(6, 2), rne_shift(10, 2)], [2, 4, 2, 2]);
    }
}
