//! AVX2: the 32-byte token, rows copied in descending order with ordinary
//! stores, and rows with a head each: 32-byte rows, shorter rows several
//! to a register (a lane's worth of rows of 2, 4 and 8 bytes, up to four a
//! lane of 3, 5, 6 and 7 bytes, two a register of other lengths up to 16
//! bytes, one up to 32), and longer rows of whole registers by blends.

use std::arch::x86_64::{
    __m128i, __m256i, _mm256_add_epi32, _mm256_add_epi8, _mm256_and_si256, _mm256_andnot_si256,
    _mm256_blendv_epi8, _mm256_broadcastq_epi64, _mm256_broadcastsi128_si256, _mm256_castsi128_si256,
    _mm256_castsi256_si128, _mm256_cmpeq_epi32, _mm256_cmpeq_epi8, _mm256_cmpgt_epi32, _mm256_cmpgt_epi8,
    _mm256_extracti128_si256, _mm256_inserti128_si256, _mm256_loadu2_m128i, _mm256_loadu_si256,
    _mm256_max_epu32, _mm256_max_epu8, _mm256_min_epu8, _mm256_movemask_epi8, _mm256_or_si256,
    _mm256_permute2x128_si256, _mm256_permutevar8x32_epi32, _mm256_set1_epi16, _mm256_set1_epi32,
    _mm256_set1_epi8, _mm256_set_m128i, _mm256_setr_epi32, _mm256_setzero_si256, _mm256_shuffle_epi8,
    _mm256_subs_epu8, _mm256_xor_si256, _mm_loadl_epi64, _mm_loadu_si128, _mm_setzero_si128,
    _mm_storeu_si128,
};

use super::{narrow_rows_in, vbmi, Avx2, Simd, Ssse3, Stores, Width};
use crate::kernels::counts::Count;
use crate::kernels::run_plan::Heads;

// SAFETY: an `Avx2` is only made by `detect`, after the CPU reported AVX2
// and SSSE3, and its `Simd::run` enables AVX2 (which includes SSSE3).
unsafe impl Width for Avx2 {
    #[inline(always)]
    fn ssse3(self) -> Ssse3 {
        Avx2::ssse3(self)
    }

    #[inline(always)]
    fn narrower(self) -> Option<Ssse3> {
        Some(Avx2::ssse3(self))
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
    fn min(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: this token proves the CPU has AVX2.
        unsafe { _mm256_min_epu8(a, b) }
    }

    #[inline(always)]
    fn any(self, mask: __m256i) -> bool {
        // SAFETY: this token proves the CPU has AVX2.
        unsafe { _mm256_movemask_epi8(mask) != 0 }
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

/// A mask of `t` leading ones for every `t` from 0 to 32: the 32 bytes
/// at `32 - t`.
const LEADING_ONES: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut j = 0;
    while j < 32 {
        table[j] = 0xff;
        j += 1;
    }
    table
};

/// Writes rows of `row` bytes (a multiple of 32, at least 64) from `src`
/// into `dst` (same length), row `r` with its first `heads.of(r)` elements
/// of `N` bytes reversed and the rest in order, one 32-byte register at a
/// time. Returns how many bytes it wrote, a whole number of rows; it stops
/// before the first row whose head does not fit, for the caller to report,
/// and writes nothing when `row` does not fit or, streaming, `dst` does
/// not start on a 32-byte boundary.
///
/// Like the 16-byte [`rows_with_heads`](super::rows_with_heads), every
/// block is built the same way, with no branch on the head's length `h`
/// (bytes): the block at `q` is the source block at `q` in place, with
/// its first `t = clamp(h - q, 0, 32)` bytes taken from the 32 bytes that
/// end `h - q` bytes into the row, reversed. Where `h - q < 32` those 32
/// bytes begin before the row; the bytes before it are never picked, but
/// they must be readable, so the first row goes through the 16-byte loop,
/// which reads inside its row only, and every later one reads at most 32
/// bytes into the row before it. Where the 16-byte loop takes two table
/// lookups and two shuffles per 16 bytes, this takes one shuffle and one
/// blend per 32.
pub(in crate::kernels::copy) fn wide_rows_with_heads<S: Stores, const N: usize>(
    isa: Avx2,
    stores: S,
    src: &[u8],
    dst: &mut [u8],
    row: usize,
    heads: Heads<'_>,
) -> usize {
    if row < 64 || !row.is_multiple_of(32) || (S::STREAMING && !super::aligned(dst.as_ptr(), 32)) {
        return 0;
    }
    let (Some(first_src), Some(first_dst)) = (src.get(..row), dst.get_mut(..row)) else {
        return 0;
    };
    if super::rows_with_heads::<S, N>(isa.ssse3(), stores, first_src, first_dst, row, heads) < row {
        return 0;
    }
    isa.run(
        #[inline(always)]
        || {
            let reversal = isa.control(super::reverse::lane_reversal::<N>());
            let rows = src.len().min(dst.len()) / row;
            let mut done = row;
            for r in 1..rows {
                let h = heads.of(r).saturating_mul(N);
                if h > row {
                    break;
                }
                let at = r * row;
                let mut q = 0;
                while q < row {
                    let d = h.saturating_sub(q);
                    let t = d.min(32);
                    // SAFETY: `q` and `row` are multiples of 32 and `q <
                    // row`, and `r < rows`, so the blocks at `at + q` lie
                    // inside `src` and `dst`; the reversed block ends `d <=
                    // h <= row` bytes into row `r` and starts at most 32
                    // bytes before it, inside row `r - 1` of `src` (`r >= 1`
                    // and `row >= 64`); the mask is the 32 bytes at `32 - t
                    // <= 32` of a 64-byte table; streaming, `dst` starts on
                    // a 32-byte boundary (checked above) and `at + q` is a
                    // multiple of 32; the token proves AVX2.
                    unsafe {
                        let rev =
                            isa.shuffle(isa.load_lanes_reversed(src.as_ptr().add(at + d - 32)), reversal);
                        let mask = isa.load(LEADING_ONES.as_ptr().add(32 - t));
                        let fwd = isa.load(src.as_ptr().add(at + q));
                        isa.store(stores, dst.as_mut_ptr().add(at + q), isa.select(fwd, rev, mask));
                    }
                    q += 32;
                }
                done += row;
            }
            done
        },
    )
}

/// Heads [`short_rows_with_heads`] checks at a time: 4 KiB of them, the
/// largest kept in a register as their rows are written.
const FIT_BLOCK: usize = 1024;

/// How many heads from the start of `heads` are at most `most`: one pass
/// the compiler vectorizes finds that all of them are, which is the rule,
/// and only when one is not is the first such looked for.
#[inline(always)]
fn fitting<H: Copy + Ord + Default>(heads: &[H], most: usize) -> usize
where
    usize: TryFrom<H>,
{
    let fits = |h: H| usize::try_from(h).is_ok_and(|h| h <= most);
    let longest = heads.iter().fold(H::default(), |m, &h| m.max(h));
    if fits(longest) {
        heads.len()
    } else {
        heads.iter().position(|&h| !fits(h)).unwrap_or(heads.len())
    }
}

/// The constant registers of [`short_rows_with_heads`] for rows of `row`
/// bytes (2, 4, 8 or 16) of `n`-byte elements, the same in both 16-byte
/// lanes: for lane byte `b` at byte `j` of its row, `j` itself (`AT`), and
/// `(b - j) - n - j + 2 * (j % n)` (`BACK`), which plus the head's length
/// in bytes is the lane byte that a byte inside the head reads.
struct ShortRows<const ROW: usize, const N: usize>;

impl<const ROW: usize, const N: usize> ShortRows<ROW, N> {
    const AT: [i8; 16] = short_rows_table(ROW, N, false);
    const BACK: [i8; 16] = short_rows_table(ROW, N, true);
}

/// One of [`ShortRows`]' tables, computed at compile time.
const fn short_rows_table(row: usize, n: usize, back: bool) -> [i8; 16] {
    let mut table = [0i8; 16];
    let mut b = 0;
    while b < 16 {
        let j = b % row;
        table[b] = if back { (b - j) as i8 - n as i8 - j as i8 + 2 * (j % n) as i8 } else { j as i8 };
        b += 1;
    }
    table
}

/// The shuffle controls that copy the low byte of each 32-bit head to the
/// bytes of its row, for rows of `row` bytes: for rows of 2 bytes (16 rows
/// a register), the controls for the lanes' first and second halves; for
/// longer rows, the second is unused.
const fn spread_controls(row: usize) -> ([i8; 32], [i8; 32]) {
    let mut first = [i8::MIN; 32];
    let mut second = [i8::MIN; 32];
    let mut b = 0;
    while b < 32 {
        let (lane, at) = (b / 16, b % 16);
        let r = at / row;
        match row {
            // Each lane holds the heads of the rows it writes.
            16 => first[b] = (4 * lane) as i8,
            8 => first[b] = (8 * lane + 4 * r) as i8,
            4 => first[b] = (4 * r) as i8,
            // Each lane holds four heads of its first eight rows, then
            // four of its last eight.
            _ => {
                if r < 4 {
                    first[b] = (4 * r) as i8;
                } else {
                    second[b] = (4 * (r - 4)) as i8;
                }
            }
        }
        b += 1;
    }
    (first, second)
}

/// The shuffle that copies each head of a byte to the bytes of its row, for
/// rows of `row` bytes (2, 4, 8 or 16): both lanes hold all the register's
/// heads, and lane `l` writes rows `l * 16 / row` on.
const fn byte_spread_control(row: usize) -> [i8; 32] {
    let mut c = [0i8; 32];
    let mut b = 0;
    while b < 32 {
        c[b] = ((b / 16) * (16 / row) + (b % 16) / row) as i8;
        b += 1;
    }
    c
}

/// Writes rows of `ROW` bytes (2, 4, 8 or 16) from `src` into `dst` (same
/// length), row `r` with its first `heads[r]` elements of `N` bytes
/// reversed and the rest in order, a register of `32 / ROW` rows at a
/// time. Returns how many bytes it wrote right, whole registers: up to the
/// register holding the first row whose head does not fit, or that runs
/// past `heads`, for the caller to go on with (the rest of that row's
/// block of [`FIT_BLOCK`] rows may have been written too, wrongly, which
/// the caller's loop writes again until it stops at that row); and nothing
/// when, streaming, `dst` does not start on a 32-byte boundary.
///
/// Every row lies inside one 16-byte lane, so one in-lane shuffle of the
/// source register writes all of them; its control is computed from the
/// heads in the vector: the heads, spread over their rows' bytes by a
/// shuffle, pick for each byte its own place or its place in the reversed
/// head.
pub(in crate::kernels::copy) fn short_rows_with_heads<
    S: Stores,
    H: Count,
    const ROW: usize,
    const N: usize,
>(
    isa: Avx2,
    stores: S,
    src: &[u8],
    dst: &mut [u8],
    heads: &[H],
) -> usize {
    // Heads of 4 bytes (`u32`) or of one (`u8`).
    let bytes = std::mem::size_of::<H>() == 1;
    if !bytes && std::mem::size_of::<H>() != 4 {
        return 0;
    }
    if !matches!(ROW, 2 | 4 | 8 | 16)
        || !ROW.is_multiple_of(N)
        || (S::STREAMING && !super::aligned(dst.as_ptr(), 32))
    {
        return 0;
    }
    let per = 32 / ROW;
    let rows = (src.len().min(dst.len()) / ROW).min(heads.len());
    let heads = heads.get(..rows).unwrap_or_default();
    isa.run(
        #[inline(always)]
        || {
            let (first, second) = const { spread_controls(ROW) };
            let byte_spread = const { byte_spread_control(ROW) };
            // SAFETY: the controls are 32 bytes long; the token proves
            // AVX2.
            let (first, second, byte_spread) = unsafe {
                (
                    isa.load(first.as_ptr().cast()),
                    isa.load(second.as_ptr().cast()),
                    isa.load(byte_spread.as_ptr().cast()),
                )
            };
            let at = isa.control(ShortRows::<ROW, N>::AT);
            let back = isa.control(ShortRows::<ROW, N>::BACK);
            let lane_bytes = isa.control(const { short_rows_table(16, 1, false) });
            // The heads are checked as they are read, a block at a time:
            // the largest of a block is kept in a register, and only when it
            // is too long for its row is the first such head looked for.
            // The rows of the block past it have been written by then, with
            // the low byte of a head that does not fit, which moves bytes
            // only inside their register; the caller's loop writes them
            // again from that row on, and stops there.
            // SAFETY: the token proves AVX2.
            let most = unsafe {
                if bytes {
                    _mm256_set1_epi8((ROW / N) as i8)
                } else {
                    _mm256_set1_epi32((ROW / N) as i32)
                }
            };
            let mut registers = 0;
            for block in heads.chunks(FIT_BLOCK) {
                let from = registers;
                let count = block.len() / per;
                // SAFETY: the token proves AVX2.
                let mut longest = unsafe { _mm256_setzero_si256() };
                for g in from..from + count {
                    // SAFETY: register `g` covers rows `g * per..(g + 1) *
                    // per`, inside this block and so below `rows`: its 32
                    // bytes lie inside `src` and `dst`, and the `per` heads
                    // read below (`per` of them, 64 bytes at most) inside
                    // `heads`; streaming, `dst` starts on a 32-byte
                    // boundary (checked above) and the register lies a
                    // multiple of 32 bytes after it; the token proves AVX2.
                    unsafe {
                        let h = heads.as_ptr().add(g * per).cast::<u8>();
                        // Every 32-bit lane of `read` (every byte, for
                        // heads of a byte) holds one of the register's
                        // heads.
                        let (spread, read) = if bytes {
                            let read = match ROW {
                                16 => _mm256_set1_epi16(h.cast::<i16>().read_unaligned()),
                                8 => _mm256_set1_epi32(h.cast::<i32>().read_unaligned()),
                                4 => _mm256_broadcastq_epi64(_mm_loadl_epi64(h.cast())),
                                _ => _mm256_broadcastsi128_si256(_mm_loadu_si128(h.cast())),
                            };
                            (isa.shuffle(read, byte_spread), read)
                        } else {
                            match ROW {
                                16 => {
                                    let read = _mm256_broadcastq_epi64(_mm_loadl_epi64(h.cast()));
                                    (isa.shuffle(read, first), read)
                                }
                                8 => {
                                    let read = _mm256_broadcastsi128_si256(_mm_loadu_si128(h.cast()));
                                    (isa.shuffle(read, first), read)
                                }
                                4 => {
                                    let read = isa.load(h);
                                    (isa.shuffle(read, first), read)
                                }
                                _ => {
                                    let (a, b) = (isa.load(h), isa.load(h.add(32)));
                                    let spread = _mm256_or_si256(
                                        isa.shuffle(_mm256_permute2x128_si256::<0x20>(a, b), first),
                                        isa.shuffle(_mm256_permute2x128_si256::<0x31>(a, b), second),
                                    );
                                    (spread, _mm256_max_epu32(a, b))
                                }
                            }
                        };
                        longest = if bytes {
                            _mm256_max_epu8(longest, read)
                        } else {
                            _mm256_max_epu32(longest, read)
                        };
                        // The head in bytes: at most `ROW` where it fits,
                        // so the sums fit.
                        let mut bytes = spread;
                        let mut k = 1;
                        while k < N {
                            bytes = _mm256_add_epi8(bytes, bytes);
                            k *= 2;
                        }
                        let inside = _mm256_cmpgt_epi8(bytes, at);
                        let control = isa.select(lane_bytes, _mm256_add_epi8(back, bytes), inside);
                        let v = isa.shuffle(isa.load(src.as_ptr().add(32 * g)), control);
                        isa.store(stores, dst.as_mut_ptr().add(32 * g), v);
                    }
                }
                // All ones where no head is longer than its row.
                // SAFETY: the token proves AVX2.
                let fits = unsafe {
                    _mm256_movemask_epi8(if bytes {
                        _mm256_cmpeq_epi8(_mm256_max_epu8(longest, most), most)
                    } else {
                        _mm256_cmpeq_epi32(_mm256_max_epu32(longest, most), most)
                    })
                };
                if fits != -1 {
                    let fit = block.iter().position(|&h| h.get() > ROW / N).unwrap_or(block.len());
                    registers = from + fit / per;
                    break;
                }
                registers = from + count;
            }
            registers * 32
        },
    )
}

/// [`narrow_rows`] on rows of at most 16 bytes: two rows a register, one
/// in each 16-byte lane, so that one in-lane shuffle writes both. Each
/// lane loads and stores the 16 bytes from its row's start; the bytes past
/// the row belong to the next row, which is stored after and overwrites
/// them. Rows `0..count` are written in pairs (`count` at most
/// [`narrow_rows_in`]); returns the bytes written.
///
/// The lane's control for every head the row can have is worked out once,
/// before the rows; each pair of rows then loads its two.
#[inline(always)]
fn lane_rows<const N: usize>(
    isa: Avx2,
    src: &[u8],
    dst: &mut [u8],
    row: usize,
    count: usize,
    heads: impl Iterator<Item = usize>,
    only: Option<usize>,
) -> usize {
    // The heads whose controls are worked out: all, or the one every row
    // shares.
    let built = |h: usize| only.is_none_or(|only| only == h);
    let pairs = count.min(narrow_rows_in(src, dst, row, N)) / 2;
    // At most 16: `narrow_rows_in` is 0 for longer rows.
    let most = row / N;
    isa.run(
        #[inline(always)]
        move || {
            let iota = isa.control(const { short_rows_table(16, 1, false) });
            let back = isa.control(const { lane_table(narrow_rows_table(N, true)) });
            // SAFETY: the token proves AVX2, which every intrinsic here
            // needs.
            let mut lanes = [unsafe { _mm_setzero_si128() }; 17];
            for (h, lane) in lanes.iter_mut().enumerate().take(most + 1).filter(|&(h, _)| built(h)) {
                // At most 16 elements of at most 16 bytes in all.
                let bytes = isa.splat((h * N) as u8);
                // SAFETY: as above.
                unsafe {
                    let inside = _mm256_cmpgt_epi8(bytes, iota);
                    *lane = _mm256_castsi256_si128(isa.select(iota, _mm256_add_epi8(back, bytes), inside));
                }
            }
            let mut heads = heads.take(2 * pairs);
            let mut r = 0;
            while let (Some(first), Some(second)) = (heads.next(), heads.next()) {
                let (first, second) = (lanes[first.min(most)], lanes[second.min(most)]);
                // SAFETY: `r + 1 < count <= narrow_rows_in(..)`, so `(r +
                // 1) * row + 32` is at most the length of both `src` and
                // `dst`: the 16 bytes at `r * row` and at `(r + 1) * row`
                // lie inside both; the token proves AVX2, which every
                // intrinsic here needs.
                unsafe {
                    let control = _mm256_set_m128i(second, first);
                    let at = src.as_ptr().add(r * row);
                    let v = _mm256_loadu2_m128i(at.add(row).cast(), at.cast());
                    let out = isa.shuffle(v, control);
                    let to = dst.as_mut_ptr().add(r * row);
                    _mm_storeu_si128(to.cast(), _mm256_castsi256_si128(out));
                    _mm_storeu_si128(to.add(row).cast(), _mm256_extracti128_si256::<1>(out));
                }
                r += 2;
            }
            pairs * 2 * row
        },
    )
}

/// The first 16 entries of a 32-byte table, for both lanes of a register.
const fn lane_table(table: [i8; 32]) -> [i8; 16] {
    let mut lane = [0i8; 16];
    let mut i = 0;
    while i < 16 {
        lane[i] = table[i];
        i += 1;
    }
    lane
}

/// For each byte `b` of a 32-byte register, `b` itself (`IOTA`) and `2 *
/// (b % n) - n - b` (`BACK`): plus a head's length in bytes, the byte that
/// `b` reads when it lies inside a reversed head of `n`-byte elements
/// starting at byte 0.
struct NarrowRows<const N: usize>;

impl<const N: usize> NarrowRows<N> {
    const IOTA: [i8; 32] = narrow_rows_table(N, false);
    const BACK: [i8; 32] = narrow_rows_table(N, true);
}

/// One of [`NarrowRows`]' tables, computed at compile time.
const fn narrow_rows_table(n: usize, back: bool) -> [i8; 32] {
    let mut table = [0i8; 32];
    let mut b = 0;
    while b < 32 {
        table[b] = if back { 2 * (b % n) as i8 - n as i8 - b as i8 } else { b as i8 };
        b += 1;
    }
    table
}

/// Writes rows of `row` bytes (at most 32, a multiple of `N`) from `src`
/// into `dst` (same length), row `r` with its first `heads[r]` elements of
/// `N` bytes reversed and the rest in order: rows of 3, 5, 6 and 7 bytes
/// up to four a lane ([`grouped_rows`]), then rows of up to 16 bytes two
/// a register, one in each lane ([`lane_rows`]), and longer ones one a
/// register. Returns how many bytes it wrote, whole rows; it stops before
/// the first row whose head does not fit or that runs past `heads`, before
/// the rows within 32 bytes of the end, and, two rows a register, before
/// an odd last row, for the caller to go on with.
///
/// Each row is loaded as the 32 bytes it starts, and stored the same way:
/// the bytes past the row are the next rows' own, which their turn
/// overwrites. The controls for every head a row can have are worked out
/// before the rows, as in [`short_rows_with_heads`], and each row loads
/// its own: for 4- and 8-byte elements one permute across the lanes
/// ([`permuted_rows`]); for narrower ones of 17 to 31 bytes one byte
/// permute where the CPU has AVX-512 VBMI (`vbmi::byte_rows`), else two
/// in-lane shuffles of the register and of the register with its lanes
/// swapped, as in [`rows32_with_heads`], since a row of this length may
/// cross from one lane into the other. The
/// stores are ordinary ones; a row does not start on a register boundary.
pub(in crate::kernels::copy) fn narrow_rows_with_heads<const N: usize>(
    isa: Avx2,
    src: &[u8],
    dst: &mut [u8],
    row: usize,
    heads: &[u32],
) -> usize {
    let heads = narrow_heads::<_, N>(isa, (src, dst), row, heads);
    // Rows of 3, 5, 6 and 7 bytes, several a lane, then the rest.
    let grouped = match row {
        3 => grouped_rows::<3, N>(isa, src, dst, heads),
        5 => grouped_rows::<5, N>(isa, src, dst, heads),
        6 => grouped_rows::<6, N>(isa, src, dst, heads),
        7 => grouped_rows::<7, N>(isa, src, dst, heads),
        _ => 0,
    };
    let (Some(src), Some(dst), Some(heads)) = (
        src.get(grouped..),
        dst.get_mut(grouped..),
        grouped.checked_div(row).and_then(|done| heads.get(done..)),
    ) else {
        return grouped;
    };
    grouped + narrow_rows::<N>(isa, src, dst, row, heads.len(), heads.iter().map(|&h| h as usize), None)
}

/// The heads of the rows the narrow loops may write: those of the rows
/// inside both slices ([`narrow_rows_in`]), up to the first that does not
/// fit its row of `row` bytes of `N`-byte elements.
fn narrow_heads<'h, H: Copy + Ord + Default, const N: usize>(
    isa: Avx2,
    (src, dst): (&[u8], &[u8]),
    row: usize,
    heads: &'h [H],
) -> &'h [H]
where
    usize: TryFrom<H>,
{
    let rows = narrow_rows_in(src, dst, row, N).min(heads.len());
    let heads = heads.get(..rows).unwrap_or_default();
    // With AVX2, so that the pass that finds the largest head is as wide.
    // Keeping the largest as the rows are written, or checking a block at a
    // time, measured slower here.
    let fit = isa.run(
        #[inline(always)]
        || fitting(heads, row / N),
    );
    heads.get(..fit).unwrap_or_default()
}

/// [`narrow_rows_with_heads`] for rows of 17 to 31 bytes with their heads
/// a byte each, as ReverseSequence keeps them for constant lengths of rows
/// that short: a quarter of the bytes of 32-bit heads to read, which on 8
/// MiB of 24-byte rows are a sixth as many bytes as the data. 0 for other
/// rows.
pub(in crate::kernels::copy) fn narrow_rows_with_byte_heads<const N: usize>(
    isa: Avx2,
    src: &[u8],
    dst: &mut [u8],
    row: usize,
    heads: &[u8],
) -> usize {
    if !(17..32).contains(&row) {
        return 0;
    }
    let heads = narrow_heads::<_, N>(isa, (src, dst), row, heads);
    narrow_rows::<N>(isa, src, dst, row, heads.len(), heads.iter().map(|&h| usize::from(h)), None)
}

/// The constant lanes of [`grouped_rows`] for rows of `ROW` bytes of
/// `N`-byte elements, [`GroupedRows::PER`] of them a lane. For lane byte
/// `b` at byte `j` of row `i` of the lane: the byte of that row's head in a
/// lane of four 32-bit heads (`SPREAD`), `j` (`AT`), and `(b - j) - N - j +
/// 2 * (j % N)` (`BACK`), which plus the head's length in bytes is the
/// byte that `b` reads inside the head. Past the lane's rows, `SPREAD`
/// zeroes and `AT` is 127, which no head in bytes exceeds: those bytes
/// stay in place.
struct GroupedRows<const ROW: usize, const N: usize>;

impl<const ROW: usize, const N: usize> GroupedRows<ROW, N> {
    /// Rows a lane: as many as it holds, up to the four heads a lane of
    /// 32-bit heads holds.
    const PER: usize = if ROW == 0 || 16 / ROW > 4 { 4 } else { 16 / ROW };
    const SPREAD: [i8; 16] = Self::past_rows(Self::spread(), i8::MIN);
    const AT: [i8; 16] = Self::past_rows(short_rows_table(ROW, N, false), i8::MAX);
    const BACK: [i8; 16] = short_rows_table(ROW, N, true);

    /// Byte `b` of row `b / ROW` takes the low byte of head `b / ROW`.
    const fn spread() -> [i8; 16] {
        let mut table = [0i8; 16];
        let mut b = 0;
        while b < 16 {
            table[b] = (4 * (b / if ROW == 0 { 1 } else { ROW })) as i8;
            b += 1;
        }
        table
    }

    /// `table` with `value` in the bytes past the lane's rows.
    const fn past_rows(mut table: [i8; 16], value: i8) -> [i8; 16] {
        let mut b = Self::PER * ROW;
        while b < 16 {
            table[b] = value;
            b += 1;
        }
        table
    }
}

/// Writes rows of `ROW` bytes (3, 5, 6 or 7, a multiple of `N`) from `src`
/// into `dst` (same length), row `r` with its first `heads[r]` elements of
/// `N` bytes reversed and the rest in order, [`GroupedRows::PER`] rows in
/// each lane of a register. Every head must fit its row (the caller has
/// checked). Returns the bytes it wrote, whole registers' rows; the 16
/// bytes each lane stores reach past its rows into those after them, which
/// the next lane, or the caller after this, writes again.
///
/// Each lane loads the 16 bytes from its first row, and the four 32-bit
/// heads from its first row's; a shuffle spreads each row's head over the
/// row's bytes, which then pick their own place or their place in the
/// reversed head, as in [`short_rows_with_heads`].
fn grouped_rows<const ROW: usize, const N: usize>(
    isa: Avx2,
    src: &[u8],
    dst: &mut [u8],
    heads: &[u32],
) -> usize {
    if !matches!(ROW, 3 | 5 | 6 | 7) || !ROW.is_multiple_of(N) {
        return 0;
    }
    let per = GroupedRows::<ROW, N>::PER;
    // Register `g` reads heads `2 per g` to `2 per g + per + 4` and bytes
    // `2 per g ROW` to `(2 per g + per) ROW + 16`, of both slices.
    let len = src.len().min(dst.len());
    let by_heads = heads.len().checked_sub(per + 4).map_or(0, |last| last / (2 * per) + 1);
    let by_bytes = len.checked_sub(per * ROW + 16).map_or(0, |last| last / (2 * per * ROW) + 1);
    let registers = by_heads.min(by_bytes);
    isa.run(
        #[inline(always)]
        move || {
            let spread = isa.control(GroupedRows::<ROW, N>::SPREAD);
            let at = isa.control(GroupedRows::<ROW, N>::AT);
            let back = isa.control(GroupedRows::<ROW, N>::BACK);
            let lane_bytes = isa.control(const { short_rows_table(16, 1, false) });
            for g in 0..registers {
                let r = 2 * per * g;
                // SAFETY: `g < registers`, so the 16 bytes of heads at rows
                // `r` and `r + per` lie inside `heads`, and the 16 bytes at
                // `r * ROW` and `(r + per) * ROW` inside `src` and `dst`;
                // the token proves AVX2, which every intrinsic here needs.
                unsafe {
                    let h = heads.as_ptr();
                    let read = _mm256_loadu2_m128i(h.add(r + per).cast(), h.add(r).cast());
                    // The head in bytes: at most `ROW`, so the sums fit.
                    let mut bytes = isa.shuffle(read, spread);
                    let mut k = 1;
                    while k < N {
                        bytes = _mm256_add_epi8(bytes, bytes);
                        k *= 2;
                    }
                    let inside = _mm256_cmpgt_epi8(bytes, at);
                    let control = isa.select(lane_bytes, _mm256_add_epi8(back, bytes), inside);
                    let from = src.as_ptr().add(r * ROW);
                    let v =
                        isa.shuffle(_mm256_loadu2_m128i(from.add(per * ROW).cast(), from.cast()), control);
                    let to = dst.as_mut_ptr().add(r * ROW);
                    _mm_storeu_si128(to.cast(), _mm256_castsi256_si128(v));
                    _mm_storeu_si128(to.add(per * ROW).cast(), _mm256_extracti128_si256::<1>(v));
                }
            }
            registers * 2 * per * ROW
        },
    )
}

/// [`narrow_rows_with_heads`] with one head of `head` elements for every
/// row: rows reversed whole, and rows that share a shorter head. Runs of
/// enough rows go a register at a time
/// ([`rows_alike`](super::periodic::rows_alike), with `stores`, which must
/// be plain unless `dst` lies on a 32-byte boundary), which writes every
/// whole row, and takes
/// rows longer than 32 bytes too when their period is short enough;
/// shorter runs of rows under 32 bytes go a row or two a register. Writes
/// nothing when the head does not fit the row.
pub(in crate::kernels::copy) fn narrow_rows_with_same_head<S: Stores, const N: usize>(
    isa: Avx2,
    stores: S,
    (src, dst): (&[u8], &mut [u8]),
    row: usize,
    head: usize,
    patterns: &mut super::periodic::Patterns,
) -> usize {
    if head > row / N.max(1) {
        return 0;
    }
    // Streaming off a 32-byte boundary, `rows_alike` writes nothing and
    // the rows go a row or two a register; the caller streams only from
    // one.
    let alike = super::periodic::rows_alike::<S, N>(
        isa,
        stores,
        (src, &mut *dst),
        row,
        head,
        ALIKE_MIN_PERIODS,
        patterns,
    );
    let (Some(src), Some(dst)) = (src.get(alike..), dst.get_mut(alike..)) else {
        return alike;
    };
    let rows = narrow_rows_in(src, dst, row, N);
    alike + narrow_rows::<N>(isa, src, dst, row, rows, std::iter::repeat(head), Some(head))
}

/// The fewest periods for which rows that move alike are built a register
/// at a time: working out the pattern costs about as much as writing a
/// dozen periods, which a row at a time would have written slower.
const ALIKE_MIN_PERIODS: usize = 16;

/// The loop of the narrow rows: the first `count` rows (at most
/// [`narrow_rows_in`]), row `r` with a head of as many elements as the
/// `r`-th of `heads` says, cut to `row / N`. `only`, when given, is the
/// head of every row (at most `row / N`): only its controls are worked
/// out, so that a short run of rows alike costs no more set-up than a
/// row. Rows of 17 to 31 bytes of 1- or 2-byte elements go one byte
/// permute each where the token carries VBMI. Returns the bytes written.
#[inline(always)]
fn narrow_rows<const N: usize>(
    isa: Avx2,
    src: &[u8],
    dst: &mut [u8],
    row: usize,
    count: usize,
    heads: impl Iterator<Item = usize>,
    only: Option<usize>,
) -> usize {
    // The heads whose controls are worked out: all, or the one every row
    // shares.
    let built = |h: usize| only.is_none_or(|only| only == h);
    let count = count.min(narrow_rows_in(src, dst, row, N));
    if row <= 16 {
        return lane_rows::<N>(isa, src, dst, row, count, heads, only);
    }
    if N >= 4 {
        return permuted_rows::<N>(isa, src, dst, row, count, heads, only);
    }
    if let Some(vbmi) = isa.vbmi().filter(|_| row < 32) {
        // One permute a row in place of two shuffles of it: on 24-byte rows
        // of bytes with a head each (`rseq_heads24_i8`) the loop's work,
        // not its stores, is what bounds it (docs/performance.md).
        return vbmi::byte_rows::<N>(vbmi, src, dst, row, count, heads, only);
    }
    // At most 32: `narrow_rows_in` is 0 for longer rows.
    let most = row / N;
    isa.run(
        #[inline(always)]
        move || {
            // SAFETY: the tables are 32 bytes long; the token proves AVX2.
            let (iota, back) = unsafe {
                (
                    isa.load(NarrowRows::<N>::IOTA.as_ptr().cast()),
                    isa.load(NarrowRows::<N>::BACK.as_ptr().cast()),
                )
            };
            let (lane, zero) = (isa.splat(16), isa.splat(0x80));
            // For every head the row can have, the control of the row
            // itself and of the row with its lanes swapped.
            // SAFETY: the token proves AVX2.
            let mut controls = [[unsafe { _mm256_setzero_si256() }; 2]; 33];
            for (h, pair) in controls.iter_mut().enumerate().take(most + 1).filter(|&(h, _)| built(h)) {
                // At most `row < 32` bytes.
                let bytes = isa.splat((h * N) as u8);
                // SAFETY: the token proves AVX2, which every intrinsic
                // here needs.
                unsafe {
                    let inside = _mm256_cmpgt_epi8(bytes, iota);
                    let control = isa.select(iota, _mm256_add_epi8(back, bytes), inside);
                    // Bytes whose source lies in the other lane.
                    let across =
                        _mm256_cmpeq_epi8(_mm256_and_si256(_mm256_xor_si256(control, iota), lane), lane);
                    *pair = [
                        _mm256_or_si256(control, _mm256_and_si256(across, zero)),
                        _mm256_or_si256(control, _mm256_andnot_si256(across, zero)),
                    ];
                }
            }
            for (r, h) in heads.take(count).enumerate() {
                let [same, swapped] = controls[h.min(most)];
                // SAFETY: `r < count <= narrow_rows_in(..)`, so `r * row +
                // 32` is at most the length of both `src` and `dst`: the
                // 32 bytes at `r * row` lie inside both; the token proves
                // AVX2, which every intrinsic here needs.
                unsafe {
                    let v = isa.load(src.as_ptr().add(r * row));
                    let lanes = _mm256_permute2x128_si256::<0x01>(v, v);
                    let out = _mm256_or_si256(isa.shuffle(v, same), isa.shuffle(lanes, swapped));
                    isa.store(super::Plain, dst.as_mut_ptr().add(r * row), out);
                }
            }
            count * row
        },
    )
}

/// [`narrow_rows`] on rows of 17 to 31 bytes of 4- or 8-byte elements:
/// whole 32-bit words move, so one permute across the lanes writes a row,
/// under a control loaded for its head from the controls of every head
/// the row can have, worked out before the rows.
#[inline(always)]
fn permuted_rows<const N: usize>(
    isa: Avx2,
    src: &[u8],
    dst: &mut [u8],
    row: usize,
    count: usize,
    heads: impl Iterator<Item = usize>,
    only: Option<usize>,
) -> usize {
    // The heads whose controls are worked out: all, or the one every row
    // shares.
    let built = |h: usize| only.is_none_or(|only| only == h);
    // Words an element, and elements a row: at most 8.
    let (words, most) = (N / 4, row / N);
    isa.run(
        #[inline(always)]
        move || {
            // SAFETY: the token proves AVX2, which every intrinsic here
            // needs.
            let mut controls = [unsafe { _mm256_setzero_si256() }; 9];
            // SAFETY: as above.
            let (iota, back) = unsafe {
                (
                    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                    _mm256_loadu_si256(PermutedRows::<N>::BACK.as_ptr().cast()),
                )
            };
            for (h, control) in controls.iter_mut().enumerate().take(most + 1).filter(|&(h, _)| built(h)) {
                // SAFETY: as above.
                unsafe {
                    // At most 8 words.
                    let head = _mm256_set1_epi32((h * words) as i32);
                    let inside = _mm256_cmpgt_epi32(head, iota);
                    *control = _mm256_blendv_epi8(iota, _mm256_add_epi32(back, head), inside);
                }
            }
            for (r, h) in heads.take(count).enumerate() {
                let control = controls[h.min(most)];
                // SAFETY: `r < count <= narrow_rows_in(..)`, so `r * row +
                // 32` is at most the length of both `src` and `dst`: the
                // 32 bytes at `r * row` lie inside both; the token proves
                // AVX2, which every intrinsic here needs.
                unsafe {
                    let v = isa.load(src.as_ptr().add(r * row));
                    isa.store(
                        super::Plain,
                        dst.as_mut_ptr().add(r * row),
                        _mm256_permutevar8x32_epi32(v, control),
                    );
                }
            }
            count * row
        },
    )
}

/// For each 32-bit word `k` of a register of `N`-byte elements (4 or 8),
/// `2 * (k % w) - w - k` with `w = N / 4` words an element: plus a head's
/// length in words, the word that `k` reads when it lies inside the head.
/// [`narrow_rows_table`]'s rule, in words.
struct PermutedRows<const N: usize>;

impl<const N: usize> PermutedRows<N> {
    const BACK: [i32; 8] = {
        // 1 for narrower elements, which never use the table.
        let bytes = narrow_rows_table(if N >= 4 { N / 4 } else { 1 }, true);
        let mut table = [0i32; 8];
        let mut k = 0;
        while k < 8 {
            table[k] = bytes[k] as i32;
            k += 1;
        }
        table
    };
}
