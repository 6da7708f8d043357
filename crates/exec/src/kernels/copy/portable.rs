//! The copy loops that need no special instructions: what runs on CPUs
//! without SSSE3, on other architectures, and with the `no-simd` feature,
//! and what finishes every run's last few elements.

/// Reverses 8-byte words: `dst`'s first words get `src`'s last ones, each
/// read as a little-endian integer whose `N`-byte lanes are then swapped
/// with rotations and byte swaps. Returns how many bytes of `dst`'s start
/// it wrote; what is left is less than 8 bytes. Elements wider than a
/// word are left whole to [`finish`], which writes nothing here.
pub(super) fn reverse_words<const N: usize>(src: &[u8], dst: &mut [u8]) -> usize {
    if N > 8 {
        return 0;
    }
    let mut done = 0;
    for (o, i) in dst.chunks_exact_mut(8).zip(src.rchunks_exact(8)) {
        let mut word = [0u8; 8];
        word.copy_from_slice(i);
        let w = u64::from_le_bytes(word);
        let r = match N {
            1 => w.swap_bytes(),
            2 => {
                // Swap the 32-bit halves, then the 16-bit lanes in each.
                let h = w.rotate_left(32);
                ((h & 0x0000_ffff_0000_ffff) << 16) | ((h >> 16) & 0x0000_ffff_0000_ffff)
            }
            4 => w.rotate_left(32),
            _ => w,
        };
        o.copy_from_slice(&r.to_le_bytes());
        done += 8;
    }
    done
}

/// Copies what a block loop left: `dst[done..]` gets `src[..len - done]`
/// back to front, one `N`-byte element at a time.
pub(super) fn finish<const N: usize>(src: &[u8], dst: &mut [u8], done: usize) {
    let rest = src.len().saturating_sub(done);
    let (Some(src), Some(dst)) = (src.get(..rest), dst.get_mut(done..)) else {
        return;
    };
    for (o, i) in dst.chunks_exact_mut(N).zip(src.rchunks_exact(N)) {
        o.copy_from_slice(i);
    }
}

/// The rule of [`super::ReverseCopier::subsequence_strip`], byte by byte,
/// on strips of `bytes` bytes: row `k` of a column of length `len > k`
/// (at most `size`) reads the input's row `len - 1 - k`, and otherwise
/// row `k`. `None`, having written nothing, when the arguments do not
/// fit.
pub(super) fn subsequence_strip(
    strip: &super::SubsequenceStrip<'_>,
    bytes: usize,
    out: &mut [u8],
    out_stride: usize,
) -> Option<()> {
    if !strip.fits(bytes, out.len(), out_stride) {
        return None;
    }
    let super::SubsequenceStrip { input, stride, size, lens, rows: (k0, k1) } = *strip;
    let lens = lens.get(..bytes)?;
    for k in k0..=k1 {
        let row = out.get_mut((k - k0) * out_stride..)?.get_mut(..bytes)?;
        for (o, (i, &len)) in row.iter_mut().zip(lens.iter().enumerate()) {
            let len = usize::from(len).min(size);
            let from = if k < len { len - 1 - k } else { k };
            *o = *input.get(from * stride + i)?;
        }
    }
    Some(())
}

/// Lane `j` of the groups of `K` `N`-byte elements of `src` into the row
/// at byte `j * pitch` of `dst`: the source read once, in order, in blocks
/// of 16 groups whose lanes each go to their row as one store of fixed
/// size, which the compiler makes shuffles where the CPU has them.
#[inline(always)]
pub(super) fn deinterleave_lanes<const K: usize, const N: usize>(
    src: &[u8],
    dst: &mut [u8],
    pitch: usize,
) -> Option<()> {
    const G: usize = 16;
    let elements = src.as_chunks::<N>().0;
    let mut done = 0;
    for block in elements.chunks_exact(K * G) {
        let mut lanes = [[[0u8; N]; G]; K];
        for (g, group) in block.chunks_exact(K).enumerate() {
            for (lane, &e) in lanes.iter_mut().zip(group) {
                lane[g] = e;
            }
        }
        for (j, lane) in lanes.iter().enumerate() {
            let to = j * pitch + done * N;
            dst.get_mut(to..to + G * N)?.copy_from_slice(lane.as_flattened());
        }
        done += G;
    }
    for (g, group) in elements.chunks_exact(K).enumerate().skip(done) {
        for (j, e) in group.iter().enumerate() {
            *dst.get_mut(j * pitch + g * N..)?.first_chunk_mut::<N>()? = *e;
        }
    }
    Some(())
}

/// Row `j` of `K` rows of `N`-byte elements, the row at byte `j * pitch`
/// of `src`, into lane `j` of the groups of `K` elements that fill `dst`:
/// the inverse of [`deinterleave_lanes`]. Each row is read in order, in
/// blocks of 16 elements that go to their lanes through a block held in
/// registers, which the compiler makes shuffles where the CPU has them.
#[inline(always)]
pub(super) fn interleave_lanes<const K: usize, const N: usize>(
    src: &[u8],
    pitch: usize,
    dst: &mut [u8],
) -> Option<()> {
    const G: usize = 16;
    let elements = dst.as_chunks_mut::<N>().0;
    let mut done = 0;
    for block in elements.chunks_exact_mut(K * G) {
        let mut lanes = [[[0u8; N]; G]; K];
        for (j, lane) in lanes.iter_mut().enumerate() {
            let from = j * pitch + done * N;
            lane.as_flattened_mut().copy_from_slice(src.get(from..from + G * N)?);
        }
        for (g, group) in block.chunks_exact_mut(K).enumerate() {
            for (e, lane) in group.iter_mut().zip(&lanes) {
                *e = lane[g];
            }
        }
        done += G;
    }
    for (g, group) in elements.chunks_exact_mut(K).enumerate().skip(done) {
        for (j, e) in group.iter_mut().enumerate() {
            *e = *src.get(j * pitch + g * N..)?.first_chunk()?;
        }
    }
    Some(())
}
