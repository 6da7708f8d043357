//! Blocks of lanes shuffled from windows of the inputs (see
//! `copy::shuffle`), one `pshufb` per window, with SSSE3.

use std::arch::x86_64::{__m128i, _mm_or_si128, _mm_set1_epi8, _mm_setzero_si128};

use super::super::blocks::Blocks;
use super::{streaming, Plain, Simd, Ssse3, Stores, Width};

/// The most windows and lanes a plan may have here.
const MOST: usize = 64;

/// [`super::super::shuffle::shuffle_blocks`] with SSSE3, once it has
/// checked that the first and last blocks read inside their inputs and
/// that `dst` holds every block: every window one unaligned load and one
/// byte shuffle, ORed into its lane, and every lane one store, streamed
/// past the cache when `stream` asks and `dst` is 16-byte aligned. A
/// window that does not move from block to block (a pad's fill value) is
/// shuffled once, before the loop.
pub(in crate::kernels::copy) fn shuffle_blocks(
    isa: Ssse3,
    plan: &Blocks<'_>,
    sources: &[&[u8]],
    blocks: usize,
    dst: &mut [u8],
    stream: bool,
) -> Option<()> {
    // SAFETY: SSE2, which every x86_64 CPU has.
    let (zero, nothing) = unsafe { (_mm_setzero_si128(), _mm_set1_epi8(i8::MIN)) };
    // Each lane's fixed part, and each moving window: its first read,
    // its step a block, its mask and whether it ends its lane.
    let mut fixed = [zero; MOST];
    let mut moving = [(std::ptr::null::<u8>(), 0isize, zero, false); MOST];
    let (mut lanes, mut n) = (0usize, 0usize);
    for w in plan.windows {
        let shift = *plan.shift.get(w.input)?;
        let first = sources.get(w.input)?.get(w.at.checked_add_signed(shift)?..)?.first_chunk::<16>()?;
        // SAFETY: `w.mask` and `first` are 16 readable bytes each.
        let (mask, bytes) = unsafe { (isa.load(w.mask.as_ptr()), isa.load(first.as_ptr())) };
        let advance = *plan.advance.get(w.input)?;
        if advance == 0 {
            let lane = fixed.get_mut(lanes)?;
            // SAFETY: SSE2, which every x86_64 CPU has.
            *lane = unsafe { _mm_or_si128(*lane, isa.shuffle(bytes, mask)) };
            if w.last {
                if let Some(m) = n.checked_sub(1).and_then(|k| moving.get_mut(k)).filter(|m| !m.3) {
                    m.3 = true;
                } else if let Some(m) = moving.get_mut(n) {
                    // A lane with no moving window: a window of nothing
                    // from the same bytes, which stores the lane.
                    *m = (first.as_ptr(), 0, nothing, true);
                    n += 1;
                }
                lanes += 1;
            }
            continue;
        }
        *moving.get_mut(n)? = (first.as_ptr(), advance, mask, w.last);
        n += 1;
        lanes += usize::from(w.last);
    }
    let (fixed, moving) = (fixed.get(..lanes)?, moving.get(..n)?);
    let aligned = dst.as_ptr().align_offset(16) == 0;
    // Lanes of one window each, the common case (a Tile, Pad or Roll of
    // one input), keep their windows in registers.
    macro_rules! lanes {
        ($stores:expr) => {
            match (n == lanes, lanes) {
                (true, 1) => one_each::<_, 1>(isa, $stores, fixed, moving, blocks, dst),
                (true, 2) => one_each::<_, 2>(isa, $stores, fixed, moving, blocks, dst),
                (true, 3) => one_each::<_, 3>(isa, $stores, fixed, moving, blocks, dst),
                (true, 4) => one_each::<_, 4>(isa, $stores, fixed, moving, blocks, dst),
                _ => play(isa, $stores, fixed, moving, plan.bytes, blocks, dst),
            }
        };
    }
    if stream && aligned {
        streaming(|s| {
            isa.run(
                #[inline(always)]
                || lanes!(s),
            )
        })
    } else {
        isa.run(
            #[inline(always)]
            || lanes!(Plain),
        )
    }
}

/// The loop of [`shuffle_blocks`] for blocks of `L` lanes of one moving
/// window each.
#[inline(always)]
fn one_each<S: Stores, const L: usize>(
    isa: Ssse3,
    stores: S,
    fixed: &[__m128i],
    moving: &[(*const u8, isize, __m128i, bool)],
    blocks: usize,
    dst: &mut [u8],
) -> Option<()> {
    let fixed: &[__m128i; L] = fixed.first_chunk()?;
    let moving: &[(*const u8, isize, __m128i, bool); L] = moving.first_chunk()?;
    let mut from = moving.map(|m| m.0);
    for out in dst.as_chunks_mut::<16>().0.chunks_exact_mut(L).take(blocks) {
        for j in 0..L {
            // SAFETY: as in `play`: every window reads inside its input in
            // the first and the last block, so in every block between.
            let v = unsafe { isa.load(from[j]) };
            // SAFETY: SSE2, which every x86_64 CPU has.
            let lane = unsafe { _mm_or_si128(fixed[j], isa.shuffle(v, moving[j].2)) };
            // SAFETY: 16 writable bytes, 16-byte aligned when `S` streams
            // (blocks of whole lanes from an aligned `dst`).
            unsafe { isa.store(stores, out[j].as_mut_ptr(), lane) };
            from[j] = from[j].wrapping_offset(moving[j].1);
        }
    }
    Some(())
}

/// The loop of [`shuffle_blocks`].
#[inline(always)]
fn play<S: Stores>(
    isa: Ssse3,
    stores: S,
    fixed: &[__m128i],
    moving: &[(*const u8, isize, __m128i, bool)],
    bytes: usize,
    blocks: usize,
    dst: &mut [u8],
) -> Option<()> {
    for (k, out) in dst.chunks_exact_mut(bytes).take(blocks).enumerate() {
        let k = k as isize;
        let mut to = out.as_mut_ptr();
        let mut lanes = fixed.iter();
        let mut lane = *lanes.next()?;
        for &(from, advance, mask, last) in moving {
            // SAFETY: the window lies inside its input in the first and the
            // last block (checked by the caller), and so in every block
            // between, as its start moves by a fixed step a block.
            let v = unsafe { isa.load(from.wrapping_offset(k.wrapping_mul(advance))) };
            // SAFETY: SSE2, which every x86_64 CPU has.
            lane = unsafe { _mm_or_si128(lane, isa.shuffle(v, mask)) };
            if last {
                // SAFETY: the block has a lane for every last window
                // (checked by the caller), 16 bytes each, 16-byte aligned
                // when `S` streams (the block is a multiple of 16 bytes from
                // an aligned `dst`).
                unsafe { isa.store(stores, to, lane) };
                to = to.wrapping_add(16);
                lane = lanes.next().copied().unwrap_or(lane);
            }
        }
    }
    Some(())
}
