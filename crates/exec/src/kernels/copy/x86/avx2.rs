//! AVX2: the 32-byte token, rows copied in descending order with ordinary
//! stores, and 32-byte rows with a head each.

use std::arch::x86_64::{
    __m128i, __m256i, _mm256_and_si256, _mm256_blendv_epi8, _mm256_broadcastsi128_si256,
    _mm256_castsi128_si256, _mm256_cmpeq_epi8, _mm256_inserti128_si256, _mm256_loadu_si256, _mm256_or_si256,
    _mm256_permute2x128_si256, _mm256_set1_epi8, _mm256_setzero_si256, _mm256_shuffle_epi8,
    _mm256_storeu_si256, _mm256_stream_si256, _mm256_subs_epu8, _mm_loadu_si128,
};

use super::{Ssse3, Stores, Width};
use crate::kernels::Heads;

/// Proof that the running CPU has AVX2 and SSSE3: only [`Avx2::detect`]
/// makes one. It carries the [`Ssse3`] token it was checked with, for the
/// 16-byte blocks at the ends of runs.
#[derive(Clone, Copy, Debug)]
pub(in crate::kernels::copy) struct Avx2 {
    ssse3: Ssse3,
}

impl Avx2 {
    /// The token, when the running CPU has AVX2 and SSSE3.
    pub(in crate::kernels::copy) fn detect() -> Option<Avx2> {
        let ssse3 = Ssse3::detect()?;
        std::arch::is_x86_feature_detected!("avx2").then_some(Avx2 { ssse3 })
    }
}

// SAFETY: an `Avx2` is only made by `detect`, after the CPU reported AVX2,
// and `run` enables AVX2 alone (which includes SSSE3).
unsafe impl Width for Avx2 {
    type Reg = __m256i;
    const BYTES: usize = 32;

    #[inline(always)]
    fn ssse3(self) -> Ssse3 {
        self.ssse3
    }

    #[inline(always)]
    fn narrower(self) -> Option<Ssse3> {
        Some(self.ssse3)
    }

    #[inline(always)]
    fn run<R>(self, f: impl FnOnce() -> R) -> R {
        #[target_feature(enable = "avx2")]
        fn enabled<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        // SAFETY: this token proves the CPU has AVX2.
        unsafe { enabled(f) }
    }

    #[inline(always)]
    fn control(self, c: [i8; 16]) -> __m256i {
        // SAFETY: `c` is 16 bytes long and the load takes any address;
        // this token proves the CPU has AVX2, which the broadcast needs.
        unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(c.as_ptr().cast::<__m128i>())) }
    }

    #[inline(always)]
    fn shuffle(self, v: __m256i, control: __m256i) -> __m256i {
        // SAFETY: this token proves the CPU has AVX2.
        unsafe { _mm256_shuffle_epi8(v, control) }
    }

    #[inline(always)]
    unsafe fn load(self, p: *const u8) -> __m256i {
        // SAFETY: the caller guarantees 32 readable bytes; the load takes
        // any address; the token proves AVX2.
        unsafe { _mm256_loadu_si256(p.cast::<__m256i>()) }
    }

    #[inline(always)]
    unsafe fn load_lanes_reversed(self, p: *const u8) -> __m256i {
        // SAFETY: the caller guarantees 32 readable bytes at `p`, so both
        // 16-byte halves are readable; the loads take any address; the
        // token proves AVX2.
        unsafe {
            let lo = _mm_loadu_si128(p.cast::<__m128i>());
            let hi = _mm_loadu_si128(p.add(16).cast::<__m128i>());
            _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(hi), lo)
        }
    }

    #[inline(always)]
    fn splat(self, v: u8) -> __m256i {
        // SAFETY: this token proves the CPU has AVX2.
        unsafe { _mm256_set1_epi8(v as i8) }
    }

    #[inline(always)]
    fn select(self, near: __m256i, far: __m256i, mask: __m256i) -> __m256i {
        // SAFETY: this token proves the CPU has AVX2.
        unsafe { _mm256_blendv_epi8(near, far, mask) }
    }

    #[inline(always)]
    fn has_bits(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: this token proves the CPU has AVX2.
        unsafe { _mm256_cmpeq_epi8(_mm256_and_si256(a, b), b) }
    }

    #[inline(always)]
    fn is_zero(self, v: __m256i) -> __m256i {
        // SAFETY: this token proves the CPU has AVX2.
        unsafe { _mm256_cmpeq_epi8(v, _mm256_setzero_si256()) }
    }

    #[inline(always)]
    fn sub_saturating(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: this token proves the CPU has AVX2.
        unsafe { _mm256_subs_epu8(a, b) }
    }

    #[inline(always)]
    unsafe fn store<S: Stores>(self, _: S, p: *mut u8, v: __m256i) {
        if S::STREAMING {
            // SAFETY: the caller guarantees a valid destination, 32-byte
            // aligned as the streaming store needs; the `Streaming` witness
            // `S` promises the fence; the token proves AVX2.
            unsafe { _mm256_stream_si256(p.cast::<__m256i>(), v) }
        } else {
            // SAFETY: the caller guarantees a valid destination; this
            // store takes any address; the token proves AVX2.
            unsafe { _mm256_storeu_si256(p.cast::<__m256i>(), v) }
        }
    }
}

/// Copies the blocks of `block` bytes of `src` into `dst` (same length, a
/// whole number of blocks) in order, the rows of `row` bytes of each block
/// in reverse row order, each row in order, with ordinary 32-byte moves.
/// The source is read upwards, as
/// [`RunWriter::descending_rows`](crate::kernels::copy::RunWriter::descending_rows)
/// explains. Returns whether it did: `row` must be a multiple of 32 and
/// divide `block`.
///
/// This is AVX2 only: it was measured against the library's copy with
/// 32-byte registers, where holding a group of rows in registers paid
/// off. No 16-byte form was measured, so CPUs without AVX2 keep the
/// library's copy.
pub(in crate::kernels::copy) fn descending_rows(
    isa: Avx2,
    src: &[u8],
    dst: &mut [u8],
    row: usize,
    block: usize,
) -> bool {
    if row == 0 || !row.is_multiple_of(32) || block == 0 || !block.is_multiple_of(row) {
        return false;
    }
    isa.run(
        #[inline(always)]
        || {
            // All the blocks in one call: the match below goes the same way
            // for every block, so each block costs little more than its
            // copy.
            for (o, i) in dst.chunks_exact_mut(block).zip(src.chunks_exact(block)) {
                match row {
                    32 => descending_block::<32>(isa, i, o, row),
                    64 => descending_block::<64>(isa, i, o, row),
                    128 => descending_block::<128>(isa, i, o, row),
                    _ => descending_block::<0>(isa, i, o, row),
                }
            }
        },
    );
    true
}

/// One block of [`descending_rows`], rows of `ROW` bytes, or of `row`
/// bytes (any multiple of 32) when `ROW` is 0.
#[inline(always)]
fn descending_block<const ROW: usize>(isa: Avx2, src: &[u8], dst: &mut [u8], row: usize) {
    let done = if ROW == 0 { 0 } else { descending_groups::<ROW>(isa, src, dst) };
    // The rows the groups left are the last of `src`, and they go to the
    // start of `dst`.
    let (Some(src), Some(dst)) = (src.get(done..), dst.get_mut(..dst.len().saturating_sub(done))) else {
        return;
    };
    for (o, i) in dst.rchunks_exact_mut(row).zip(src.chunks_exact(row)) {
        let mut q = 0;
        while q < row {
            // SAFETY: `row` is a multiple of 32 and `q < row` too, so the 32
            // bytes at `q` lie inside `i` and `o`, which are `row` bytes
            // long.
            unsafe { isa.store(super::Plain, o.as_mut_ptr().add(q), isa.load(i.as_ptr().add(q))) };
            q += 32;
        }
    }
}

/// Bytes of rows that [`descending_groups`] moves at once: eight 32-byte
/// registers.
const GROUP: usize = 256;

// `descending_groups` loads the eight registers one by one.
const _: () = assert!(GROUP == 8 * 32);

/// Copies rows of `ROW` bytes (32, 64 or 128) in reverse row order, a
/// group of [`GROUP`] bytes of rows at a time: the group is loaded into
/// registers upwards and its rows are stored upwards, last row first. The
/// output then goes down a group at a time, not a row at a time, and on
/// 128-byte u8 rows held in the cache that ran 4–6% faster than a row at a
/// time. Returns how many bytes it wrote: the first whole groups of `src`,
/// at the end of `dst`.
#[inline(always)]
fn descending_groups<const ROW: usize>(isa: Avx2, src: &[u8], dst: &mut [u8]) -> usize {
    let mut done = 0;
    for (o, i) in dst.rchunks_exact_mut(GROUP).zip(src.chunks_exact(GROUP)) {
        let p = i.as_ptr();
        // Written out rather than filled in a loop, which the compiler kept
        // in memory instead of registers.
        // SAFETY: `i` is `GROUP = 8 * 32` bytes long, so the 32 bytes at
        // each of these offsets lie inside it.
        let v = unsafe {
            [
                isa.load(p),
                isa.load(p.add(32)),
                isa.load(p.add(64)),
                isa.load(p.add(96)),
                isa.load(p.add(128)),
                isa.load(p.add(160)),
                isa.load(p.add(192)),
                isa.load(p.add(224)),
            ]
        };
        // Output row `r` of the group is its `r`-th input row from the end.
        for (r, row) in v.chunks_exact(ROW / 32).rev().enumerate() {
            for (b, &w) in row.iter().enumerate() {
                // SAFETY: `o` is `GROUP` bytes long and holds `GROUP / ROW`
                // rows; `r` counts those rows and `32 * b < ROW`, so the 32
                // bytes at `ROW * r + 32 * b` lie inside it.
                unsafe { isa.store(super::Plain, o.as_mut_ptr().add(ROW * r + 32 * b), w) };
            }
        }
        done += GROUP;
    }
    done
}

/// The two shuffle controls per head length for [`rows32_with_heads`]:
/// entry `h` (a head of `h` elements of `N` bytes, up to `32 / N`) picks
/// each output byte of a 32-byte row from the row itself (`SAME`) or from
/// the row with its 16-byte lanes swapped (`SWAPPED`), whichever holds its
/// source byte in the output byte's lane; the other control zeroes it.
/// Computed at compile time.
struct Rows32Tables<const N: usize>;

impl<const N: usize> Rows32Tables<N> {
    const SAME: [[i8; 32]; 33] = rows32_table(N, false);
    const SWAPPED: [[i8; 32]; 33] = rows32_table(N, true);
}

/// One of [`Rows32Tables`]' tables for `n`-byte elements: output byte `j`
/// of element `e = j / n` comes from element `h - 1 - e` while `e < h`,
/// else from element `e`.
const fn rows32_table(n: usize, swapped: bool) -> [[i8; 32]; 33] {
    let mut table = [[i8::MIN; 32]; 33];
    let mut h = 0;
    while h <= 32 / n {
        let mut j = 0;
        while j < 32 {
            let e = j / n;
            let from = if e < h { h - 1 - e } else { e };
            let s = from * n + j % n;
            // Source and output in one lane come from the row itself, in
            // different lanes from the swapped row.
            if (s / 16 == j / 16) != swapped {
                table[h][j] = (s % 16) as i8;
            }
            j += 1;
        }
        h += 1;
    }
    table
}

/// Writes rows of 32 bytes from `src` into `dst` (same length), row `r`
/// with its first `heads.of(r)` elements of `N` bytes reversed and the rest
/// in order, one register a row: two in-lane shuffles, of the row and of
/// the row with its lanes swapped, picked by the head's length. Returns how
/// many bytes it wrote, a whole number of rows; it stops before the first
/// row whose head does not fit, for the caller to report, and writes
/// nothing when, streaming, `dst` does not start on a 32-byte boundary.
///
/// The 16-byte [`rows_with_heads`](super::rows_with_heads) builds each
/// block from two source blocks instead, twice a row here.
pub(in crate::kernels::copy) fn rows32_with_heads<S: Stores, const N: usize>(
    isa: Avx2,
    stores: S,
    src: &[u8],
    dst: &mut [u8],
    heads: Heads<'_>,
) -> usize {
    if S::STREAMING && !super::aligned(dst.as_ptr(), 32) {
        return 0;
    }
    isa.run(
        #[inline(always)]
        || {
            let mut done = 0;
            for (r, (o, i)) in dst.chunks_exact_mut(32).zip(src.chunks_exact(32)).enumerate() {
                let h = heads.of(r);
                let (Some(same), Some(swapped)) =
                    (Rows32Tables::<N>::SAME.get(h), Rows32Tables::<N>::SWAPPED.get(h))
                else {
                    break;
                };
                if h.saturating_mul(N) > 32 {
                    break;
                }
                // SAFETY: `i`, `o` and both controls are 32 bytes long;
                // streaming, `dst` starts on a 32-byte boundary (checked
                // above) and `o` lies a multiple of 32 bytes after it; the
                // token proves AVX2.
                unsafe {
                    let v = isa.load(i.as_ptr());
                    let lanes = _mm256_permute2x128_si256::<0x01>(v, v);
                    let a = isa.shuffle(v, isa.load(same.as_ptr().cast()));
                    let b = isa.shuffle(lanes, isa.load(swapped.as_ptr().cast()));
                    isa.store(stores, o.as_mut_ptr(), _mm256_or_si256(a, b));
                }
                done += 32;
            }
            done
        },
    )
}
