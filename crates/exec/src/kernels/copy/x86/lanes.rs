//! Three lanes of bytes pulled apart, and put together, with SSSE3's byte
//! shuffles: the channels of an 8-bit image of three (NHWC to NCHW and
//! back). Each block of 16 pixels is three 16-byte loads, and each of its
//! three 16-byte stores the OR of three shuffles, one per load, with
//! controls worked out at compile time.

use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_or_si128, _mm_storeu_si128};

use super::{Simd, Ssse3, Width};

/// A 16-byte control as a register.
#[inline(always)]
fn control(c: &[i8; 16]) -> __m128i {
    // SAFETY: `c` is 16 bytes, and the load takes any alignment (SSE2,
    // which every x86_64 CPU has).
    unsafe { _mm_loadu_si128(c.as_ptr().cast()) }
}

/// The bits of either.
#[inline(always)]
fn or(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: SSE2, which every x86_64 CPU has.
    unsafe { _mm_or_si128(a, b) }
}

/// The first 16 bytes of `bytes` as a register.
#[inline(always)]
fn load(bytes: &[u8]) -> Option<__m128i> {
    let b: &[u8; 16] = bytes.first_chunk()?;
    // SAFETY: `b` is 16 bytes, and the load takes any alignment.
    Some(unsafe { _mm_loadu_si128(b.as_ptr().cast()) })
}

/// `v` into the first 16 bytes of `bytes`.
#[inline(always)]
fn store(bytes: &mut [u8], v: __m128i) -> Option<()> {
    let b: &mut [u8; 16] = bytes.first_chunk_mut()?;
    // SAFETY: `b` is 16 bytes, and the store takes any alignment.
    unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), v) };
    Some(())
}

/// Byte `i` of lane `j`'s 16 bytes is byte `3 * i + j` of a block of 48
/// interleaved ones: the control of load `r` puts those among its 16
/// bytes in place and zeroes the rest (−128).
const fn pull_controls() -> [[[i8; 16]; 3]; 3] {
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

const PULL: [[[i8; 16]; 3]; 3] = pull_controls();

/// The inverse: byte `q` of interleaved register `r` is byte `p / 3` of
/// lane `p % 3`, where `p = 16 * r + q`; the control of lane `j` for
/// register `r` takes those.
const fn push_controls() -> [[[i8; 16]; 3]; 3] {
    let mut c = [[[-128i8; 16]; 3]; 3];
    let mut r = 0;
    while r < 3 {
        let mut q = 0;
        while q < 16 {
            let p = 16 * r + q;
            c[r][p % 3][q] = (p / 3) as i8;
            q += 1;
        }
        r += 1;
    }
    c
}

const PUSH: [[[i8; 16]; 3]; 3] = push_controls();

/// Lane `j` of the groups of three bytes of `src` into the row at byte
/// `j * pitch` of `dst`, 16 groups at a time with SSSE3 where the CPU has
/// it; what is left, and every group on a CPU without it, one at a time.
/// `None` when a row leaves `dst`.
pub(in crate::kernels) fn deinterleave3_bytes(src: &[u8], dst: &mut [u8], pitch: usize) -> Option<()> {
    let done = match Ssse3::detect() {
        Some(isa) => isa.run(
            #[inline(always)]
            || pull(isa, src, dst, pitch),
        )?,
        None => 0,
    };
    for (g, group) in src.chunks_exact(3).enumerate().skip(done) {
        for (j, &e) in group.iter().enumerate() {
            *dst.get_mut(j.checked_mul(pitch)?.checked_add(g)?)? = e;
        }
    }
    Some(())
}

/// Row `j` of the three rows at bytes `j * pitch` of `src` into lane `j`
/// of the groups of three bytes that fill `dst`: the inverse of
/// [`deinterleave3_bytes`], 16 groups at a time with SSSE3 where the CPU
/// has it. `None` when a row leaves `src`.
pub(in crate::kernels) fn interleave3_bytes(src: &[u8], pitch: usize, dst: &mut [u8]) -> Option<()> {
    let done = match Ssse3::detect() {
        Some(isa) => isa.run(
            #[inline(always)]
            || push(isa, src, pitch, dst),
        )?,
        None => 0,
    };
    for (g, group) in dst.chunks_exact_mut(3).enumerate().skip(done) {
        for (j, e) in group.iter_mut().enumerate() {
            *e = *src.get(j.checked_mul(pitch)?.checked_add(g)?)?;
        }
    }
    Some(())
}

/// The whole blocks of 16 groups of [`deinterleave3_bytes`]; returns the
/// groups written.
#[inline(always)]
fn pull(isa: Ssse3, src: &[u8], dst: &mut [u8], pitch: usize) -> Option<usize> {
    let c: [[__m128i; 3]; 3] = PULL.map(|lane| lane.map(|r| control(&r)));
    let blocks = src.len() / 48;
    for b in 0..blocks {
        let from = src.get(48 * b..48 * b + 48)?;
        let r = [load(from)?, load(from.get(16..)?)?, load(from.get(32..)?)?];
        for (j, cj) in c.iter().enumerate() {
            let lane = or(or(isa.shuffle(r[0], cj[0]), isa.shuffle(r[1], cj[1])), isa.shuffle(r[2], cj[2]));
            let to = j.checked_mul(pitch)?.checked_add(16 * b)?;
            store(dst.get_mut(to..)?, lane)?;
        }
    }
    Some(blocks * 16)
}

/// The whole blocks of 16 groups of [`interleave3_bytes`]; returns the
/// groups written.
#[inline(always)]
fn push(isa: Ssse3, src: &[u8], pitch: usize, dst: &mut [u8]) -> Option<usize> {
    let c: [[__m128i; 3]; 3] = PUSH.map(|reg| reg.map(|l| control(&l)));
    let blocks = dst.len() / 48;
    for b in 0..blocks {
        let row =
            |j: usize| -> Option<__m128i> { load(src.get(j.checked_mul(pitch)?.checked_add(16 * b)?..)?) };
        let lanes = [row(0)?, row(1)?, row(2)?];
        let out = dst.get_mut(48 * b..48 * b + 48)?;
        for (r, cr) in c.iter().enumerate() {
            let v = or(
                or(isa.shuffle(lanes[0], cr[0]), isa.shuffle(lanes[1], cr[1])),
                isa.shuffle(lanes[2], cr[2]),
            );
            store(out.get_mut(16 * r..)?, v)?;
        }
    }
    Some(blocks * 16)
}
