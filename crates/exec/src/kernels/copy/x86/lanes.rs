//! Three lanes of bytes pulled apart with SSSE3's byte shuffles: the
//! channels of an interleaved 8-bit image (NHWC to NCHW with three
//! channels). Each block of 16 pixels is three 16-byte loads, and each of
//! its three output rows the OR of three shuffles, one per load, with
//! controls worked out at compile time.

use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_or_si128, _mm_shuffle_epi8, _mm_storeu_si128};

/// Byte `i` of lane `j`'s 16 bytes is source byte `3 * i + j` of a block
/// of 48: the control of load `r` puts those among its 16 bytes in place
/// and zeroes the rest (−128).
const fn controls() -> [[[i8; 16]; 3]; 3] {
    let mut c = [[[-128i8; 16]; 3]; 3];
    let mut j = 0;
    while j < 3 {
        let mut i = 0;
        while i < 16 {
            let p = 3 * i + j;
            c[j][p / 16][i] = (p % 16) as i8;
            i += 1;
        }
        j += 1;
    }
    c
}

const CONTROLS: [[[i8; 16]; 3]; 3] = controls();

/// Lane `j` of the groups of three bytes of `src` into the row at byte
/// `j * pitch` of `dst`, 16 groups at a time with SSSE3 where the CPU has
/// it; what is left, and every group on a CPU without it, one at a time.
/// `None` when a row leaves `dst`.
pub(in crate::kernels) fn deinterleave3_bytes(src: &[u8], dst: &mut [u8], pitch: usize) -> Option<()> {
    #[target_feature(enable = "ssse3")]
    fn enabled(src: &[u8], dst: &mut [u8], pitch: usize) -> Option<usize> {
        let load = |bytes: &[u8]| -> Option<__m128i> {
            let b: &[u8; 16] = bytes.first_chunk()?;
            // SAFETY: `b` is 16 bytes, and the load takes any alignment.
            Some(unsafe { _mm_loadu_si128(b.as_ptr().cast()) })
        };
        let control = |c: &[i8; 16]| -> __m128i {
            // SAFETY: `c` is 16 bytes, and the load takes any alignment.
            unsafe { _mm_loadu_si128(c.as_ptr().cast()) }
        };
        let c: [[__m128i; 3]; 3] = CONTROLS.map(|lane| lane.map(|r| control(&r)));
        let blocks = src.len() / 48;
        for b in 0..blocks {
            let from = src.get(48 * b..48 * b + 48)?;
            let r = [load(from)?, load(from.get(16..)?)?, load(from.get(32..)?)?];
            for (j, cj) in c.iter().enumerate() {
                let lane = _mm_or_si128(
                    _mm_or_si128(_mm_shuffle_epi8(r[0], cj[0]), _mm_shuffle_epi8(r[1], cj[1])),
                    _mm_shuffle_epi8(r[2], cj[2]),
                );
                let to = j.checked_mul(pitch)?.checked_add(16 * b)?;
                let out: &mut [u8; 16] = dst.get_mut(to..)?.first_chunk_mut()?;
                // SAFETY: `out` is 16 bytes, and the store takes any
                // alignment.
                unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), lane) };
            }
        }
        Some(blocks * 16)
    }
    let done = if std::arch::is_x86_feature_detected!("ssse3") {
        // SAFETY: the CPU has SSSE3, checked just above.
        unsafe { enabled(src, dst, pitch) }?
    } else {
        0
    };
    for (g, group) in src.chunks_exact(3).enumerate().skip(done) {
        for (j, &e) in group.iter().enumerate() {
            *dst.get_mut(j.checked_mul(pitch)?.checked_add(g)?)? = e;
        }
    }
    Some(())
}
