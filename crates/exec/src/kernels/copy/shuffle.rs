//! Blocks of output bytes, each 16-byte lane of a block put together from
//! a few 16-byte windows of the inputs by byte shuffles: how rows of a
//! few bytes (a Tile, Pad or Roll of short rows, a Concat of pairs) move
//! a register at a time rather than a row at a time.

use super::blocks::{Blocks, Window};

/// Writes `blocks` blocks into `dst` (at least `blocks * bytes` bytes),
/// block `k` reading each input's windows `k * advance` bytes after the
/// first block's, with streaming stores when `stream` asks for them
/// and `dst` is 16-byte aligned. `None`, having written nothing, when a read of the
/// first or the last block would leave its input: the reads move by a
/// fixed step per block, so those two bound every other.
pub(in crate::kernels) fn shuffle_blocks(
    plan: &Blocks<'_>,
    sources: &[&[u8]],
    blocks: usize,
    dst: &mut [u8],
    stream: bool,
) -> Option<()> {
    if blocks == 0 {
        return Some(());
    }
    let dst = dst.get_mut(..blocks.checked_mul(plan.bytes)?)?;
    if !plan.bytes.is_multiple_of(16) || plan.windows.iter().filter(|w| w.last).count() != plan.bytes / 16 {
        return None;
    }
    for w in plan.windows {
        read(sources, plan, w, 0)?;
        read(sources, plan, w, blocks - 1)?;
    }
    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    if let Some(isa) = crate::kernels::simd::Ssse3::detect() {
        return super::x86::shuffle_blocks(isa, plan, sources, blocks, dst, stream);
    }
    let _ = stream;
    portable(plan, sources, blocks, dst)
}

/// The window of `window` in block `k`, 16 bytes of its input.
#[inline(always)]
pub(super) fn read<'s>(
    sources: &[&'s [u8]],
    plan: &Blocks<'_>,
    window: &Window,
    k: usize,
) -> Option<&'s [u8; 16]> {
    let moved = isize::try_from(k).ok()?.checked_mul(*plan.advance.get(window.input)?)?;
    let shift = moved.checked_add(*plan.shift.get(window.input)?)?;
    let at = window.at.checked_add_signed(shift)?;
    sources.get(window.input)?.get(at..)?.first_chunk::<16>()
}

/// [`shuffle_blocks`] a byte at a time.
fn portable(plan: &Blocks<'_>, sources: &[&[u8]], blocks: usize, dst: &mut [u8]) -> Option<()> {
    let outs = dst.get_mut(..blocks.checked_mul(plan.bytes)?)?;
    for (k, out) in outs.chunks_exact_mut(plan.bytes.max(1)).enumerate() {
        let mut lanes = out.as_chunks_mut::<16>().0.iter_mut();
        let mut lane = [0u8; 16];
        for w in plan.windows {
            let bytes = read(sources, plan, w, k)?;
            for (l, &m) in lane.iter_mut().zip(&w.mask) {
                if m < 16 {
                    *l |= bytes[usize::from(m)];
                }
            }
            if w.last {
                *lanes.next()? = lane;
                lane = [0; 16];
            }
        }
    }
    Some(())
}
