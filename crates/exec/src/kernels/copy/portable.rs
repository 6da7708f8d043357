//! The copy loops that need no special instructions: what runs on CPUs
//! without SSSE3, on other architectures, and with the `no-simd` feature,
//! and what finishes every run's last few elements.

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

/// A routine that transposes one square block of [`Block::SIDE`] ×
/// [`Block::SIDE`] elements: row `i` at byte `i * src_pitch` of `src`
/// becomes column `i` of the rows at bytes `j * dst_pitch` of `dst`.
/// `None`, with nothing written, when a row leaves its slice. The x86
/// routines implement it on their tokens, so that a tile's loops, generic
/// over it, compile with their instructions inlined.
pub(super) trait Block: Copy {
    /// Elements a side.
    const SIDE: usize;

    /// Transposes the block at the start of `src` into `dst`.
    fn transpose(self, src: &[u8], src_pitch: usize, dst: &mut [u8], dst_pitch: usize) -> Option<()>;
}

/// [`transpose_block`] as a [`Block`].
#[derive(Clone, Copy, Debug)]
pub(super) struct ArrayBlock<const N: usize, const B: usize>;

impl<const N: usize, const B: usize> Block for ArrayBlock<N, B> {
    const SIDE: usize = B;

    #[inline(always)]
    fn transpose(self, src: &[u8], src_pitch: usize, dst: &mut [u8], dst_pitch: usize) -> Option<()> {
        transpose_block::<N, B>(src, src_pitch, dst, dst_pitch)
    }
}

/// Transposes one block of `B` × `B` `N`-byte elements: row `i` at byte
/// `i * src_pitch` of `src` becomes column `i` of the rows at bytes
/// `j * dst_pitch` of `dst`. The block is read into an array, which the
/// compiler keeps in registers and shuffles as it sees fit.
#[inline(always)]
pub(super) fn transpose_block<const N: usize, const B: usize>(
    src: &[u8],
    src_pitch: usize,
    dst: &mut [u8],
    dst_pitch: usize,
) -> Option<()> {
    let mut block = [[[0u8; N]; B]; B];
    for (i, row) in block.iter_mut().enumerate() {
        let from = i * src_pitch;
        row.as_flattened_mut().copy_from_slice(src.get(from..from + B * N)?);
    }
    for j in 0..B {
        let mut column = [[0u8; N]; B];
        for (c, row) in column.iter_mut().zip(&block) {
            *c = row[j];
        }
        let to = j * dst_pitch;
        dst.get_mut(to..to + B * N)?.copy_from_slice(column.as_flattened());
    }
    Some(())
}

/// Transposes `rows` rows of `cols` `N`-byte elements: element `(i, j)`,
/// at byte `i * src_pitch + j * N` of `src`, goes to byte
/// `j * dst_pitch + i * N` of `dst`. Square blocks go through `block`;
/// the rows and columns past the
/// last whole block are moved an element at a time. `None` when a row or
/// column leaves its slice.
#[inline(always)]
pub(super) fn transpose_blocks<const N: usize, K: Block>(
    src: &[u8],
    src_pitch: usize,
    dst: &mut [u8],
    dst_pitch: usize,
    (rows, cols): (usize, usize),
    block: K,
) -> Option<()> {
    let b = K::SIDE;
    let whole_rows = rows - rows % b;
    let whole_cols = cols - cols % b;
    for i0 in (0..whole_rows).step_by(b) {
        for j0 in (0..whole_cols).step_by(b) {
            let from = i0 * src_pitch + j0 * N;
            let to = j0 * dst_pitch + i0 * N;
            block.transpose(src.get(from..)?, src_pitch, dst.get_mut(to..)?, dst_pitch)?;
        }
    }
    let one = |i: usize, j: usize, dst: &mut [u8]| -> Option<()> {
        let e: &[u8; N] = src.get(i * src_pitch + j * N..)?.first_chunk()?;
        *dst.get_mut(j * dst_pitch + i * N..)?.first_chunk_mut()? = *e;
        Some(())
    };
    for i in 0..whole_rows {
        for j in whole_cols..cols {
            one(i, j, dst)?;
        }
    }
    for i in whole_rows..rows {
        for j in 0..cols {
            one(i, j, dst)?;
        }
    }
    Some(())
}

/// [`transpose_blocks`] a line at a time: tiles of `L` × `L` elements,
/// `L` of them a 64-byte line, each read whole into a buffer and turned
/// `block` by `block`, for 1- and 2-byte elements into a second buffer
/// that is written out a whole line of the output at a time. A tile's source lines and its output
/// lines lie a pitch apart, often a power of two, so they share a few
/// cache sets: read straight from the source, the lines a block leaves
/// half used would be gone from the cache before the next block came back
/// for them, and output lines written a block's width at a time likewise
/// (a 16-byte piece at a time for bytes). Through the buffers each source
/// line is read once and each output line written once, each in one go.
/// What is left past the last whole tile goes through
/// [`transpose_blocks`].
#[inline(always)]
pub(super) fn transpose_lines<const N: usize, const L: usize, K: Block>(
    src: &[u8],
    src_pitch: usize,
    dst: &mut [u8],
    dst_pitch: usize,
    (rows, cols): (usize, usize),
    block: K,
) -> Option<()> {
    let b = K::SIDE;
    // Blocks 16 bytes wide would leave 16 output lines open at once, more
    // than a cache set holds when they lie a power of two apart: their
    // output goes through a second buffer ([`u8`]: 12.9 ms for 15.3 ms on a
    // [8192, 4096] matrix). Wider blocks write straight out (through the
    // buffer `f32` took 10–15% longer).
    let staged_out = N <= 2;
    let whole_rows = rows - rows % L;
    let whole_cols = cols - cols % L;
    // The buffers are made only where a whole tile needs it: a call of a
    // few short rows would spend as long clearing it as moving them.
    if whole_rows > 0 && whole_cols > 0 {
        let mut tile = [[[0u8; N]; L]; L];
        let mut out = [[[0u8; N]; L]; L];
        for i0 in (0..whole_rows).step_by(L) {
            for j0 in (0..whole_cols).step_by(L) {
                // The lines of the tile below, which the hardware does not
                // foresee: they lie a pitch apart, in as many pages.
                if i0 + 2 * L <= whole_rows {
                    for i in i0 + L..i0 + 2 * L {
                        if let Some(ahead) = src.get(i * src_pitch + j0 * N..) {
                            super::prefetch_lines(ahead, L * N);
                        }
                    }
                }
                for (i, line) in tile.iter_mut().enumerate() {
                    let from = (i0 + i) * src_pitch + j0 * N;
                    line.as_flattened_mut().copy_from_slice(src.get(from..from + L * N)?);
                }
                let lines = tile.as_flattened().as_flattened();
                if !staged_out {
                    for jb in (0..L).step_by(b) {
                        for ib in (0..L).step_by(b) {
                            let (from, to) = (ib * L * N + jb * N, (j0 + jb) * dst_pitch + (i0 + ib) * N);
                            block.transpose(lines.get(from..)?, L * N, dst.get_mut(to..)?, dst_pitch)?;
                        }
                    }
                    continue;
                }
                let turned = out.as_flattened_mut().as_flattened_mut();
                for jb in (0..L).step_by(b) {
                    for ib in (0..L).step_by(b) {
                        let from = ib * L * N + jb * N;
                        block.transpose(
                            lines.get(from..)?,
                            L * N,
                            turned.get_mut(jb * L * N + ib * N..)?,
                            L * N,
                        )?;
                    }
                }
                for (j, line) in out.iter().enumerate() {
                    let to = (j0 + j) * dst_pitch + i0 * N;
                    dst.get_mut(to..to + L * N)?.copy_from_slice(line.as_flattened());
                }
            }
        }
    }
    if whole_cols < cols {
        let (from, to) = (whole_cols * N, whole_cols * dst_pitch);
        let left = (whole_rows, cols - whole_cols);
        transpose_blocks::<N, K>(src.get(from..)?, src_pitch, dst.get_mut(to..)?, dst_pitch, left, block)?;
    }
    if whole_rows < rows {
        let (from, to) = (whole_rows * src_pitch, whole_rows * N);
        let left = (rows - whole_rows, cols);
        transpose_blocks::<N, K>(src.get(from..)?, src_pitch, dst.get_mut(to..)?, dst_pitch, left, block)?;
    }
    Some(())
}

/// Element `g` of each of the `K` slices of `srcs` into group `g` of `dst`,
/// one after another: `dst` is `K`-element groups of `B` bytes, element
/// `j` of each from `srcs[j]` (a Concat of equal runs of `B` bytes along
/// the innermost axis). Blocks of 16 groups go through an array held in
/// registers, which the compiler makes shuffles where the CPU has them;
/// the groups after the last whole block one at a time. `None` when a
/// source is shorter than `dst` needs.
#[inline(always)]
pub(super) fn zip_runs<const K: usize, const B: usize>(srcs: [&[u8]; K], dst: &mut [u8]) -> Option<()> {
    const G: usize = 16;
    let groups = dst.len() / (K * B);
    let whole = groups - groups % G;
    for (g0, block) in dst.get_mut(..whole * K * B)?.chunks_exact_mut(G * K * B).enumerate() {
        let mut lanes = [[[0u8; B]; G]; K];
        for (lane, src) in lanes.iter_mut().zip(srcs) {
            let from = g0 * G * B;
            lane.as_flattened_mut().copy_from_slice(src.get(from..from + G * B)?);
        }
        for (g, group) in block.chunks_exact_mut(K * B).enumerate() {
            for (e, lane) in group.chunks_exact_mut(B).zip(&lanes) {
                e.copy_from_slice(&lane[g]);
            }
        }
    }
    for g in whole..groups {
        for (j, src) in srcs.iter().enumerate() {
            let to = (g * K + j) * B;
            dst.get_mut(to..to + B)?.copy_from_slice(src.get(g * B..g * B + B)?);
        }
    }
    Some(())
}
