//! SSSE3: the 16-byte token's shuffles and selects, and rows whose reversed heads vary from row
//! to row.

use std::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8,
    _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_setzero_si128, _mm_shuffle_epi8, _mm_subs_epu8,
};

use super::{aligned, Simd, Ssse3, Stores, Width};
use crate::kernels::run_plan::Heads;

impl Ssse3 {
    /// Stores at `out` a 16-byte block whose first bytes end a reversed
    /// head and whose others are copied in place: the block at `rev`
    /// shuffled by a [`HEAD`] entry, merged with the block at `fwd`
    /// shuffled by the matching [`TAIL`] entry (`hc` and `tc`).
    ///
    /// # Safety
    /// `rev` and `fwd` must be valid for 16-byte reads and `out` for a
    /// 16-byte write, which must be 16-byte aligned when `S` streams.
    #[inline(always)]
    pub(super) unsafe fn head_end_block<S: Stores>(
        self,
        stores: S,
        out: *mut u8,
        rev: *const u8,
        fwd: *const u8,
        hc: __m128i,
        tc: __m128i,
    ) {
        // SAFETY: the caller guarantees the reads and the write; the token
        // proves SSSE3.
        unsafe {
            let rev = self.shuffle(self.load(rev), hc);
            let fwd = self.shuffle(self.load(fwd), tc);
            self.store(stores, out, _mm_or_si128(rev, fwd));
        }
    }

    /// The [`HEAD`] and [`TAIL`] controls for a block whose first `t`
    /// bytes are head, for elements of `N` bytes. For a `t` past 16, or
    /// not a multiple of `N`, both zero the whole block.
    #[inline(always)]
    pub(super) fn head_controls<const N: usize>(self, t: usize) -> (__m128i, __m128i) {
        let none = [i8::MIN; 16];
        let head = HeadTables::<N>::HEAD.get(t).unwrap_or(&none);
        let tail = HeadTables::<N>::TAIL.get(t).unwrap_or(&none);
        (self.control(*head), self.control(*tail))
    }
}

// SAFETY: an `Ssse3` is only made by `detect`, after the CPU reported
// SSSE3, which its `Simd::run` enables.
unsafe impl Width for Ssse3 {
    #[inline(always)]
    fn ssse3(self) -> Ssse3 {
        self
    }

    #[inline(always)]
    fn narrower(self) -> Option<Ssse3> {
        None
    }

    #[inline(always)]
    fn control(self, c: [i8; 16]) -> __m128i {
        // SAFETY: `c` is 16 bytes long and the load takes any address;
        // SSE2 is part of x86_64.
        unsafe { _mm_loadu_si128(c.as_ptr().cast::<__m128i>()) }
    }

    #[inline(always)]
    fn shuffle(self, v: __m128i, control: __m128i) -> __m128i {
        // SAFETY: this token proves the CPU has SSSE3.
        unsafe { _mm_shuffle_epi8(v, control) }
    }

    #[inline(always)]
    unsafe fn load_lanes_reversed(self, p: *const u8) -> __m128i {
        // SAFETY: as for `load`; one lane is its own reverse.
        unsafe { self.load(p) }
    }

    #[inline(always)]
    fn splat(self, v: u8) -> __m128i {
        // SAFETY: SSE2, which every x86_64 CPU has.
        unsafe { _mm_set1_epi8(v as i8) }
    }

    #[inline(always)]
    fn select(self, near: __m128i, far: __m128i, mask: __m128i) -> __m128i {
        // SSSE3 has no byte blend (`pblendvb` is SSE4.1): three logic ops.
        // SAFETY: SSE2, which every x86_64 CPU has.
        unsafe { _mm_or_si128(_mm_and_si128(mask, far), _mm_andnot_si128(mask, near)) }
    }

    #[inline(always)]
    fn has_bits(self, a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: SSE2, which every x86_64 CPU has.
        unsafe { _mm_cmpeq_epi8(_mm_and_si128(a, b), b) }
    }

    #[inline(always)]
    fn is_zero(self, v: __m128i) -> __m128i {
        // SAFETY: SSE2, which every x86_64 CPU has.
        unsafe { _mm_cmpeq_epi8(v, _mm_setzero_si128()) }
    }

    #[inline(always)]
    fn sub_saturating(self, a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: SSE2, which every x86_64 CPU has.
        unsafe { _mm_subs_epu8(a, b) }
    }

    #[inline(always)]
    fn min(self, a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: SSE2, which every x86_64 CPU has.
        unsafe { _mm_min_epu8(a, b) }
    }

    #[inline(always)]
    fn any(self, mask: __m128i) -> bool {
        // SAFETY: SSE2, which every x86_64 CPU has.
        unsafe { _mm_movemask_epi8(mask) != 0 }
    }
}

/// Shuffle controls for a 16-byte output block whose first `t` bytes (`t`
/// a multiple of `N`, the table index) are the end of a reversed head and
/// whose other bytes are copied in order.
struct HeadTables<const N: usize>;

impl<const N: usize> HeadTables<N> {
    const HEAD: [[i8; 16]; 17] = head_table(N);
    const TAIL: [[i8; 16]; 17] = tail_table();
}

/// Entry `t` puts the first `t / n` elements of a block, in reverse order,
/// into its first `t` bytes and zeroes the rest (a control byte with its
/// top bit set gives 0). Computed at compile time.
const fn head_table(n: usize) -> [[i8; 16]; 17] {
    let mut table = [[i8::MIN; 16]; 17];
    let mut t = 0;
    while t <= 16 {
        if t % n == 0 {
            let mut j = 0;
            while j < t {
                // Output element j / n is source element t / n - 1 - j / n.
                table[t][j] = ((t / n - 1 - j / n) * n + j % n) as i8;
                j += 1;
            }
        }
        t += 1;
    }
    table
}

/// Entry `t` keeps bytes `t..16` of a block in place and zeroes the first
/// `t`. Computed at compile time.
const fn tail_table() -> [[i8; 16]; 17] {
    let mut table = [[i8::MIN; 16]; 17];
    let mut t = 0;
    while t <= 16 {
        let mut j = t;
        while j < 16 {
            table[t][j] = j as i8;
            j += 1;
        }
        t += 1;
    }
    table
}

/// Writes rows of `row` bytes (a multiple of 16) from `src` into `dst`
/// (same length), row `r` with its first `heads.of(r)` elements of `N`
/// bytes reversed and the rest in order. Returns how many bytes it wrote, a
/// whole number of rows; it stops before the first row whose head does not
/// fit, for the caller to report, and writes nothing when `row` is not a
/// multiple of 16 or, streaming, `dst` does not start on a 16-byte
/// boundary.
///
/// Every output block is built the same way, without branches that depend
/// on the head's length, which for rows of random lengths would be
/// mispredicted about once a row: with `h` the head's length in bytes and
/// `q` the block's offset, its first `t = clamp(h - q, 0, 16)` bytes are
/// reversed head, the first `t` bytes of the source block at `max(h - q -
/// 16, 0)` in reverse element order, and the rest are the source block at
/// `q` in place.
///
/// Its 32-byte form, [`wide_rows_with_heads`](super::wide_rows_with_heads),
/// reads the reversed part from before a block's row instead of shifting
/// it by a table, which the first row of a run cannot do: that row, and
/// every row without AVX2 or not a whole number of 32-byte blocks, comes
/// here. With one head for every row, the block the head ends in is the
/// only mixed one, and [`rows_with_same_head`](super::rows_with_same_head)
/// uses 32 bytes too.
pub(in crate::kernels::copy) fn rows_with_heads<S: Stores, const N: usize>(
    isa: Ssse3,
    stores: S,
    src: &[u8],
    dst: &mut [u8],
    row: usize,
    heads: Heads<'_>,
) -> usize {
    if row == 0 || !row.is_multiple_of(16) || (S::STREAMING && !aligned(dst.as_ptr(), 16)) {
        return 0;
    }
    isa.run(
        #[inline(always)]
        || {
            let mut done = 0;
            for (r, (o, i)) in dst.chunks_exact_mut(row).zip(src.chunks_exact(row)).enumerate() {
                let h = heads.of(r).saturating_mul(N);
                if h > row {
                    break;
                }
                for q in (0..row).step_by(16) {
                    let t = h.saturating_sub(q).min(16);
                    // Where the reversed part's source block starts: `h - q
                    // - 16` for a block inside the head, else the row's
                    // start.
                    let from = h.saturating_sub(q + 16);
                    let (hc, tc) = isa.head_controls::<N>(t);
                    // SAFETY: `i` and `o` are `row` bytes long and `row` is
                    // a multiple of 16, so the blocks at `q` lie inside them;
                    // `from + 16` is at most `h - q <= row` when the block is
                    // inside the head and 16 otherwise, so that block lies
                    // inside `i` too; streaming, `dst` starts on a 16-byte
                    // boundary (checked above) and `o + q` lies a multiple of
                    // 16 bytes after it.
                    unsafe {
                        let (o, rev, fwd) = (o.as_mut_ptr().add(q), i.as_ptr().add(from), i.as_ptr().add(q));
                        isa.head_end_block(stores, o, rev, fwd, hc, tc);
                    }
                }
                done += row;
            }
            done
        },
    )
}
