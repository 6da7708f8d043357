//! Copying a stretch of elements back to front, at close to memory speed.
//!
//! An element-by-element loop moves one element per step, which for 1- to
//! 4-byte elements is several times slower than the memory can go. Here
//! the copy moves 16-byte blocks: a block is read from the source's far
//! end, its elements are put in reverse order inside a register, and it is
//! stored at the destination's near end. On x86_64 with SSSE3 one `pshufb`
//! does the reordering for every width; elsewhere 8-byte words are
//! reordered with rotations and byte swaps, which needs no special
//! instructions.

use super::Heads;

/// The CPU features the copy routines may use. Found once per kernel
/// call, so the feature test is not repeated for every run.
#[derive(Clone, Copy, Debug)]
pub(super) struct ReverseCopier {
    /// Set only when the running CPU has SSSE3; the SIMD path relies on it.
    #[cfg(target_arch = "x86_64")]
    ssse3: bool,
    /// Set only when the running CPU has AVX2 (and so SSSE3 too); the
    /// 32-byte paths rely on it.
    #[cfg(target_arch = "x86_64")]
    avx2: bool,
}

impl ReverseCopier {
    /// Picks the fastest routine the running CPU supports.
    pub(super) fn detect() -> ReverseCopier {
        #[cfg(target_arch = "x86_64")]
        let ssse3 = std::arch::is_x86_feature_detected!("ssse3");
        ReverseCopier {
            #[cfg(target_arch = "x86_64")]
            ssse3,
            #[cfg(target_arch = "x86_64")]
            avx2: ssse3 && std::arch::is_x86_feature_detected!("avx2"),
        }
    }

    /// A copier limited to the 16-byte SSSE3 routines (when the CPU has
    /// them), so tests can check them on machines that have AVX2.
    #[cfg(test)]
    fn ssse3_only() -> ReverseCopier {
        ReverseCopier {
            #[cfg(target_arch = "x86_64")]
            avx2: false,
            ..ReverseCopier::detect()
        }
    }

    /// A copier that never uses SIMD instructions, so tests can check the
    /// portable routine on machines that have SSSE3.
    #[cfg(test)]
    fn portable() -> ReverseCopier {
        ReverseCopier {
            #[cfg(target_arch = "x86_64")]
            ssse3: false,
            #[cfg(target_arch = "x86_64")]
            avx2: false,
        }
    }

    /// Writes the whole `N`-byte elements of `src` into `dst` in reverse
    /// order: the last element of `src` lands first. Both slices should
    /// have the same length, a multiple of `N`; when they do not, only the
    /// first `min(len) / N` elements of `dst` are written, from the
    /// matching stretch at the start of `src`.
    pub(super) fn copy<const N: usize>(self, src: &[u8], dst: &mut [u8]) {
        let len = src.len().min(dst.len()) / N * N;
        let (Some(src), Some(dst)) = (src.get(..len), dst.get_mut(..len)) else {
            return;
        };
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: `avx2` is only set when the CPU reports AVX2.
            let done = unsafe { x86::reverse_blocks_avx2::<N, false>(src, dst) };
            return finish::<N>(src, dst, done);
        }
        #[cfg(target_arch = "x86_64")]
        if self.ssse3 {
            // SAFETY: `ssse3` is only set when the CPU reports SSSE3.
            let done = unsafe { x86::reverse_blocks::<N, false>(src, dst) };
            return finish::<N>(src, dst, done);
        }
        let done = reverse_words::<N>(src, dst);
        finish::<N>(src, dst, done)
    }
}

/// Writes runs into one output buffer, with streaming (non-temporal)
/// stores when asked to and the CPU allows.
///
/// A streaming store sends its line to memory without first reading it
/// into the cache, which for outputs larger than the cache saves the read
/// an ordinary store needs; measured on 32 MiB reversals it made the copy
/// ~20% faster than ordinary stores, and about as fast as `memcpy`, which
/// streams large copies itself. Such stores are weakly ordered, so they
/// must be fenced before anyone reads what they wrote: the writer holds the
/// buffer borrowed for as long as it lives, and fences when it is dropped.
pub(super) struct RunWriter<'a> {
    dst: &'a mut [u8],
    copier: ReverseCopier,
    /// Whether streaming stores may be used; only ever set on x86_64.
    stream: bool,
}

/// Rows of at least this many bytes with a reversed head are written as
/// two runs each, the head by the reversing copy (which prefetches the
/// source it reads backwards) and the rest by the forward one: the cost of
/// two calls per row is small next to such a row, and on 1 KiB rows that
/// measured faster than the block-by-block SIMD row writer, which on
/// shorter rows is the faster one by far.
#[cfg(target_arch = "x86_64")]
const HEADS_MAX_ROW: usize = 1024;

/// Rows written in descending order longer than this are copied one
/// forward run each, so that they stream on the same terms as any other.
const DESCENDING_MAX_ROW: usize = 64 << 10;

/// Rows up to this many bytes, written in descending order without
/// streaming, are copied by an inline loop rather than one call to the
/// library's copy each: on 128-byte rows held in the cache the calls cost
/// 10–20% more.
#[cfg(target_arch = "x86_64")]
const INLINE_MAX_ROW: usize = 2048;

/// Runs shorter than this are written with ordinary stores: setting up
/// the aligned loop would cost more than streaming saves.
#[cfg(target_arch = "x86_64")]
const STREAM_MIN_RUN: usize = 256;

impl<'a> RunWriter<'a> {
    /// A writer over `dst`; `stream` asks for streaming stores, used only
    /// on CPUs that have them (every x86_64 one).
    pub(super) fn new(dst: &'a mut [u8], copier: ReverseCopier, stream: bool) -> RunWriter<'a> {
        let stream = stream && cfg!(target_arch = "x86_64");
        RunWriter { dst, copier, stream }
    }

    /// Copies `src` to the output at byte `at`, in order. `None` when it
    /// does not fit.
    pub(super) fn forward(&mut self, at: usize, src: &[u8]) -> Option<()> {
        let dst = self.dst.get_mut(at..at.checked_add(src.len())?)?;
        #[cfg(target_arch = "x86_64")]
        if self.stream && src.len() >= STREAM_MIN_RUN {
            // Ordinary stores up to the first line boundary, then the
            // streaming loop over whole lines, then ordinary stores for the
            // rest. Streaming only whole lines matters: a line that gets
            // both kinds of store, or a partial streaming write, costs far
            // more than the store saves.
            let head = dst.as_ptr().align_offset(64);
            let (dst_head, dst_body) = dst.split_at_mut_checked(head)?;
            let (src_head, src_body) = src.split_at_checked(head)?;
            dst_head.copy_from_slice(src_head);
            // SAFETY: the writer fences its streaming stores when it is
            // dropped, and until then it holds the buffer, so no one can
            // read these bytes before the fence.
            let done = unsafe { x86::stream_forward(src_body, dst_body) };
            let (Some(src_rest), Some(dst_rest)) = (src_body.get(done..), dst_body.get_mut(done..)) else {
                return None;
            };
            dst_rest.copy_from_slice(src_rest);
            return Some(());
        }
        dst.copy_from_slice(src);
        Some(())
    }

    /// Copies the `N`-byte elements of `src` to the output at byte `at`,
    /// back to front. `None` when they do not fit.
    pub(super) fn reversed<const N: usize>(&mut self, at: usize, src: &[u8]) -> Option<()> {
        let dst = self.dst.get_mut(at..at.checked_add(src.len())?)?;
        #[cfg(target_arch = "x86_64")]
        if self.stream && self.copier.ssse3 && src.len() >= STREAM_MIN_RUN {
            // Whole lines only, as in `forward`.
            let head = dst.as_ptr().align_offset(64);
            // Blocks must start on element boundaries in both buffers;
            // when the boundary to align to is inside an element, the
            // ordinary stores below do the whole run.
            let split = (
                dst.split_at_mut_checked(head),
                src.len().checked_sub(head).and_then(|k| src.split_at_checked(k)),
            );
            if let (0, Some((dst_head, dst_body)), Some((src_body, src_head))) = (head % N, split.0, split.1)
            {
                self.copier.copy::<N>(src_head, dst_head);
                let done = if self.copier.avx2 {
                    // SAFETY: `avx2` is only set when the CPU reports AVX2;
                    // `dst_body` starts on a 64-byte boundary, as the
                    // streaming stores need; the writer fences them when it
                    // is dropped, and until then it holds the buffer, so no
                    // one reads these bytes before the fence.
                    unsafe { x86::reverse_blocks_avx2::<N, true>(src_body, dst_body) }
                } else {
                    // SAFETY: `ssse3` is only set when the CPU reports
                    // SSSE3; the rest as above.
                    unsafe { x86::reverse_blocks::<N, true>(src_body, dst_body) }
                };
                // What is left is less than a line: ordinary stores.
                let rest = src_body.len().saturating_sub(done);
                if let (Some(s), Some(d)) = (src_body.get(..rest), dst_body.get_mut(done..)) {
                    self.copier.copy::<N>(s, d);
                }
                return Some(());
            }
        }
        self.copier.copy::<N>(src, dst);
        Some(())
    }
}

impl RunWriter<'_> {
    /// Writes `src`, blocks of `block` bytes each made of rows of `row`
    /// bytes, to the output at byte `at`, the blocks in order and the rows
    /// of each in reverse order (its last row lands first), each row copied
    /// in order. `None` when it does not fit, or `src` is not whole blocks
    /// of whole rows.
    ///
    /// The source is read upwards, row after row, and the rows are written
    /// downwards. Reading the rows downwards instead, each one upwards,
    /// defeats the hardware prefetcher, which follows addresses that keep
    /// going one way: even with the source fetched ahead by hand, that ran
    /// 1.4–1.7× slower than a memory copy on 256-byte rows of 16 MiB, and
    /// this order runs level with it. Stores going downwards cost little:
    /// streaming stores fill whole lines in any order, and ordinary ones
    /// wait in the store buffer, not in the loop.
    pub(super) fn descending_rows(&mut self, at: usize, src: &[u8], row: usize, block: usize) -> Option<()> {
        if row == 0 || block == 0 || !block.is_multiple_of(row) || !src.len().is_multiple_of(block) {
            return None;
        }
        let dst = self.dst.get_mut(at..at.checked_add(src.len())?)?;
        if row > DESCENDING_MAX_ROW {
            // Rows this long are one copy each, which streams when it can.
            for (b, i) in src.chunks_exact(block).enumerate() {
                let last = at + b * block + block - row;
                for (k, i) in i.chunks_exact(row).enumerate() {
                    self.forward(last - k * row, i)?;
                }
            }
            return Some(());
        }
        #[cfg(target_arch = "x86_64")]
        if self.stream
            && row.is_multiple_of(16)
            && dst.as_ptr().align_offset(16) == 0
            && src.len() >= STREAM_MIN_RUN
        {
            // SAFETY: `dst` starts on a 16-byte boundary and rows are whole
            // blocks, so every block is aligned, as the streaming stores
            // need; the writer fences them when it is dropped and holds the
            // buffer until then.
            unsafe { x86::stream_descending_rows(src, dst, row, block) };
            return Some(());
        }
        #[cfg(target_arch = "x86_64")]
        if self.copier.avx2 && row.is_multiple_of(32) && row <= INLINE_MAX_ROW {
            // SAFETY: `avx2` is only set when the CPU reports AVX2.
            unsafe { x86::descending_rows_avx2(src, dst, row, block) };
            return Some(());
        }
        // Longer rows: the library's copy, which for data the cache holds
        // is the fastest there is (on 16 KiB rows it beat a loop of
        // 32-byte moves by a third).
        for (o, i) in dst.chunks_exact_mut(block).zip(src.chunks_exact(block)) {
            for (o, i) in o.rchunks_exact_mut(row).zip(i.chunks_exact(row)) {
                o.copy_from_slice(i);
            }
        }
        Some(())
    }

    /// Writes `src`, rows of `row` bytes each, to the output at byte `at`:
    /// in row `r` the first `heads.of(r)` elements of `N` bytes are
    /// reversed and the rest copied in order. `None` when it does not fit,
    /// or a head is longer than its row.
    pub(super) fn rows<const N: usize>(
        &mut self,
        at: usize,
        src: &[u8],
        row: usize,
        heads: Heads<'_>,
    ) -> Option<()> {
        if row == 0 || !src.len().is_multiple_of(row) || !heads.fits(src.len() / row, row / N) {
            return None;
        }
        let done = match heads {
            Heads::Same(n) if n * N == row => self.reverse_whole_rows::<N>(at, src, row)?,
            _ => self.rows_with_heads::<N>(at, src, row, heads)?,
        };
        let rest = src.get(done..)?;
        let skipped = done / row;
        for (k, i) in rest.chunks_exact(row).enumerate() {
            let rev = heads.of(skipped + k).checked_mul(N)?;
            let (head, tail) = i.split_at_checked(rev)?;
            let to = at + done + k * row;
            self.reversed::<N>(to, head)?;
            self.forward(to + rev, tail)?;
        }
        Some(())
    }

    /// The SIMD part of [`RunWriter::rows`] for rows whose heads vary or
    /// are shorter than the row: how many bytes of `src` (whole rows) it
    /// wrote at `at`. Rows must be whole 16-byte blocks shorter than
    /// [`HEADS_MAX_ROW`]; others are left to the general loop.
    #[cfg(target_arch = "x86_64")]
    fn rows_with_heads<const N: usize>(
        &mut self,
        at: usize,
        src: &[u8],
        row: usize,
        heads: Heads<'_>,
    ) -> Option<usize> {
        if !self.copier.ssse3 || !row.is_multiple_of(16) || row >= HEADS_MAX_ROW {
            return Some(0);
        }
        let dst = self.dst.get_mut(at..at.checked_add(src.len())?)?;
        // Every block is written whole and in order, so the streaming
        // stores fill whole lines wherever the output starts (only the
        // first and last line may be partial); the stores themselves need
        // 16-byte blocks.
        let stream = self.stream && dst.as_ptr().align_offset(16) == 0 && src.len() >= STREAM_MIN_RUN;
        if let (true, true, Heads::Same(n)) = (self.copier.avx2, row.is_multiple_of(32), heads) {
            let h = n.saturating_mul(N);
            let done = if stream && dst.as_ptr().align_offset(32) == 0 {
                // SAFETY: `avx2` is only set when the CPU reports AVX2;
                // `dst` starts on a 32-byte boundary and rows are whole
                // blocks, so every block is aligned, as the streaming
                // stores need; the writer fences them when it is dropped and
                // holds the buffer until then.
                unsafe { x86::rows_with_same_head_avx2::<N, true>(src, dst, row, h) }
            } else if !stream {
                // SAFETY: `avx2` is only set when the CPU reports AVX2.
                unsafe { x86::rows_with_same_head_avx2::<N, false>(src, dst, row, h) }
            } else {
                0
            };
            if done > 0 || src.is_empty() {
                return Some(done);
            }
        }
        let done = if stream {
            // SAFETY: `ssse3` is only set when the CPU reports SSSE3; `dst`
            // starts on a 16-byte boundary and rows are whole blocks, so
            // every block is aligned, as the streaming stores need; the
            // writer fences them when it is dropped and holds the buffer
            // until then.
            unsafe { x86::rows_with_heads::<N, true>(src, dst, row, heads) }
        } else {
            // SAFETY: `ssse3` is only set when the CPU reports SSSE3.
            unsafe { x86::rows_with_heads::<N, false>(src, dst, row, heads) }
        };
        Some(done)
    }

    /// Without SIMD, every row goes through the general loop.
    #[cfg(not(target_arch = "x86_64"))]
    fn rows_with_heads<const N: usize>(
        &mut self,
        _at: usize,
        _src: &[u8],
        _row: usize,
        _heads: Heads<'_>,
    ) -> Option<usize> {
        Some(0)
    }

    /// The SIMD part of [`RunWriter::rows`] for rows reversed whole: how
    /// many bytes of `src` (whole rows) it wrote at `at`.
    #[cfg(target_arch = "x86_64")]
    fn reverse_whole_rows<const N: usize>(&mut self, at: usize, src: &[u8], row: usize) -> Option<usize> {
        if !self.copier.ssse3 {
            return Some(0);
        }
        let dst = self.dst.get_mut(at..at.checked_add(src.len())?)?;
        // Streaming needs rows made of whole lines (or lines made of whole
        // rows) starting on a line.
        let stream = self.stream
            && dst.as_ptr().align_offset(64) == 0
            && (row <= 16 || row.is_multiple_of(64))
            && src.len() >= STREAM_MIN_RUN;
        let done = if stream && self.copier.avx2 {
            // SAFETY: `avx2` is only set when the CPU reports AVX2; `dst`
            // starts on a line and the rows fill whole lines, as the
            // streaming stores need; the writer fences them when it is
            // dropped and holds the buffer until then.
            unsafe { x86::reverse_rows_avx2::<N, true>(src, dst, row) }
        } else if stream {
            // SAFETY: `ssse3` is only set when the CPU reports SSSE3; `dst`
            // starts on a line and the rows fill whole lines, as the
            // streaming stores need; the writer fences them when it is
            // dropped and holds the buffer until then.
            unsafe { x86::reverse_rows::<N, true>(src, dst, row) }
        } else if self.copier.avx2 {
            // SAFETY: `avx2` is only set when the CPU reports AVX2.
            unsafe { x86::reverse_rows_avx2::<N, false>(src, dst, row) }
        } else {
            // SAFETY: `ssse3` is only set when the CPU reports SSSE3.
            unsafe { x86::reverse_rows::<N, false>(src, dst, row) }
        };
        Some(done)
    }

    /// Without SIMD, every row goes through the general loop.
    #[cfg(not(target_arch = "x86_64"))]
    fn reverse_whole_rows<const N: usize>(&mut self, _at: usize, _src: &[u8], _row: usize) -> Option<usize> {
        Some(0)
    }
}

impl Drop for RunWriter<'_> {
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        if self.stream {
            // Orders the streaming stores before everything that follows,
            // so whoever reads the buffer next sees them.
            // SAFETY: `sfence` is part of SSE, which every x86_64 CPU has.
            unsafe { std::arch::x86_64::_mm_sfence() };
        }
    }
}

/// Copies what the block loop left: `dst[done..]` gets `src[..len - done]`
/// back to front, one element at a time (fewer than 16 bytes).
fn finish<const N: usize>(src: &[u8], dst: &mut [u8], done: usize) {
    let rest = src.len().saturating_sub(done);
    let (Some(src), Some(dst)) = (src.get(..rest), dst.get_mut(done..)) else {
        return;
    };
    for (o, i) in dst.chunks_exact_mut(N).zip(src.rchunks_exact(N)) {
        o.copy_from_slice(i);
    }
}

/// The portable block loop: reverses 8-byte words, each read from the
/// source's end as a little-endian integer whose `N`-byte lanes are then
/// swapped. Returns how many bytes of `dst`'s start it wrote.
fn reverse_words<const N: usize>(src: &[u8], dst: &mut [u8]) -> usize {
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

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::{
        __m128i, __m256i, _mm256_broadcastsi128_si256, _mm256_castsi128_si256, _mm256_inserti128_si256,
        _mm256_loadu_si256, _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_storeu_si256,
        _mm256_stream_si256, _mm_loadu_si128, _mm_or_si128, _mm_prefetch, _mm_shuffle_epi8, _mm_storeu_si128,
        _mm_stream_si128, _MM_HINT_T0,
    };

    /// Stores `v` at `p` (32 bytes), streaming when `STREAM` is set.
    ///
    /// # Safety
    /// The CPU must support AVX2; `p` must be valid for a 32-byte write,
    /// and 32-byte aligned when `STREAM` is set.
    #[inline(always)]
    unsafe fn store256<const STREAM: bool>(p: *mut u8, v: __m256i) {
        if STREAM {
            // SAFETY: the caller guarantees AVX2 and a valid, aligned
            // destination.
            unsafe { _mm256_stream_si256(p.cast::<__m256i>(), v) }
        } else {
            // SAFETY: the caller guarantees AVX2 and a valid destination;
            // this store takes any alignment.
            unsafe { _mm256_storeu_si256(p.cast::<__m256i>(), v) }
        }
    }

    /// The 16-byte `pshufb` control `c` in both 128-bit lanes of a 256-bit
    /// register, as `vpshufb` shuffles each lane on its own.
    #[target_feature(enable = "avx2")]
    fn broadcast_control(c: [i8; 16]) -> __m256i {
        // SAFETY: `c` is 16 bytes long; the load takes any address.
        let v = unsafe { _mm_loadu_si128(c.as_ptr().cast::<__m128i>()) };
        _mm256_broadcastsi128_si256(v)
    }

    /// Loads the 32 bytes at `p` with their 16-byte halves swapped, so one
    /// in-lane shuffle then reverses all of them: the swap costs a load,
    /// not a second shuffle on the port shuffles share.
    ///
    /// # Safety
    /// The CPU must support AVX2; `p` must be valid for a 32-byte read.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn load_swapped(p: *const u8) -> __m256i {
        // SAFETY: the caller guarantees 32 readable bytes at `p`; the loads
        // take any address.
        unsafe {
            let lo = _mm_loadu_si128(p.cast::<__m128i>());
            let hi = _mm_loadu_si128(p.add(16).cast::<__m128i>());
            _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(hi), lo)
        }
    }

    /// [`reverse_blocks`] with 32-byte registers. Returns how many bytes
    /// of `dst` were written; what is left is less than 16 bytes (with
    /// `STREAM`, less than 64).
    ///
    /// # Safety
    /// The CPU must support AVX2. With `STREAM` set, `dst` must start on a
    /// 32-byte boundary, and the caller fences the stores before the bytes
    /// are read.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn reverse_blocks_avx2<const N: usize, const STREAM: bool>(
        src: &[u8],
        dst: &mut [u8],
    ) -> usize {
        let control = broadcast_control(lane_reversal::<N>());
        let len = src.len();
        let base = src.as_ptr();
        // As in `reverse_blocks`.
        let prefetch = len <= PREFETCH_MAX_RUN;
        let mut done = 0;
        for (o, i) in dst.chunks_exact_mut(64).zip(src.rchunks_exact(64)) {
            if prefetch {
                // A hint only, never dereferenced, and it never faults.
                let ahead = base.wrapping_add(len + done + PREFETCH_AHEAD);
                _mm_prefetch::<_MM_HINT_T0>(ahead.cast());
            }
            // SAFETY: `i` and `o` are 64 bytes long, so the 32 bytes at 0
            // and 32 lie inside them; the loads take any address, and with
            // `STREAM` the caller aligned `dst`, so both 32-byte blocks of
            // `o` are aligned.
            unsafe {
                let a = load_swapped(i.as_ptr());
                let b = load_swapped(i.as_ptr().add(32));
                store256::<STREAM>(o.as_mut_ptr(), _mm256_shuffle_epi8(b, control));
                store256::<STREAM>(o.as_mut_ptr().add(32), _mm256_shuffle_epi8(a, control));
            }
            done += 64;
        }
        if STREAM {
            return done;
        }
        let (Some(src), Some(dst)) = (src.get(..len - done), dst.get_mut(done..)) else {
            return done;
        };
        let mut rest = 0;
        for (o, i) in dst.chunks_exact_mut(32).zip(src.rchunks_exact(32)) {
            // SAFETY: `i` and `o` are exactly 32 bytes long; the load and
            // the store take any address.
            unsafe {
                let v = load_swapped(i.as_ptr());
                store256::<false>(o.as_mut_ptr(), _mm256_shuffle_epi8(v, control));
            }
            rest += 32;
        }
        let (Some(src), Some(dst)) = (src.get(..src.len() - rest), dst.get_mut(rest..)) else {
            return done + rest;
        };
        // SAFETY: AVX2 includes SSSE3, and the copy writes no streaming
        // stores.
        done + rest + unsafe { reverse_blocks::<N, false>(src, dst) }
    }

    /// [`reverse_rows`] with 32-byte registers, for rows that divide 16
    /// bytes or are a multiple of 32; other rows go to [`reverse_rows`].
    ///
    /// # Safety
    /// As for [`reverse_rows`], with AVX2 in place of SSSE3.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn reverse_rows_avx2<const N: usize, const STREAM: bool>(
        src: &[u8],
        dst: &mut [u8],
        row: usize,
    ) -> usize {
        if row == 0 || !row.is_multiple_of(N) {
            return 0;
        }
        if row <= 16 && 16 % row == 0 {
            let control = broadcast_control(group_reversal::<N>(row));
            let mut done = 0;
            for (o, i) in dst.chunks_exact_mut(64).zip(src.chunks_exact(64)) {
                // SAFETY: `i` and `o` are 64 bytes long, so the 32 bytes at
                // 0 and 32 lie inside them; with `STREAM` the caller
                // aligned `dst`, and `o` lies a multiple of 64 bytes after
                // its start.
                unsafe {
                    let a = _mm256_loadu_si256(i.as_ptr().cast::<__m256i>());
                    let b = _mm256_loadu_si256(i.as_ptr().add(32).cast::<__m256i>());
                    store256::<STREAM>(o.as_mut_ptr(), _mm256_shuffle_epi8(a, control));
                    store256::<STREAM>(o.as_mut_ptr().add(32), _mm256_shuffle_epi8(b, control));
                }
                done += 64;
            }
            if STREAM {
                return done;
            }
            let (Some(src), Some(dst)) = (src.get(done..), dst.get_mut(done..)) else {
                return done;
            };
            // SAFETY: AVX2 includes SSSE3; no streaming stores here.
            return done + unsafe { reverse_rows::<N, false>(src, dst, row) };
        }
        if !row.is_multiple_of(32) {
            // SAFETY: AVX2 includes SSSE3; the rest of the contract is the
            // same.
            return unsafe { reverse_rows::<N, STREAM>(src, dst, row) };
        }
        let control = broadcast_control(lane_reversal::<N>());
        let blocks = row / 32;
        let mut done = 0;
        if row <= REGISTER_MAX_ROW {
            // Short rows: each is held in registers whole, so both buffers
            // are read and written upwards; see `REGISTER_MAX_ROW`.
            // SAFETY: forwarded from this function's own contract; `row =
            // 32 * blocks`.
            return unsafe {
                match blocks {
                    1 => mirror_rows_avx2::<1, STREAM>(src, dst, control),
                    2 => mirror_rows_avx2::<2, STREAM>(src, dst, control),
                    3 => mirror_rows_avx2::<3, STREAM>(src, dst, control),
                    4 => mirror_rows_avx2::<4, STREAM>(src, dst, control),
                    5 => mirror_rows_avx2::<5, STREAM>(src, dst, control),
                    6 => mirror_rows_avx2::<6, STREAM>(src, dst, control),
                    7 => mirror_rows_avx2::<7, STREAM>(src, dst, control),
                    _ => mirror_rows_avx2::<8, STREAM>(src, dst, control),
                }
            };
        }
        for (o, i) in dst.chunks_exact_mut(row).zip(src.chunks_exact(row)) {
            for j in 0..blocks {
                if j % 2 == 0 && row <= PREFETCH_MAX_RUN {
                    // As in `reverse_rows`; a prefetch never faults.
                    _mm_prefetch::<_MM_HINT_T0>(
                        i.as_ptr().wrapping_add(row + 32 * j + PREFETCH_AHEAD).cast(),
                    );
                }
                // SAFETY: `i` and `o` are `row = 32 * blocks` bytes long, so
                // the 32 bytes at `32 * j` and `32 * (blocks - 1 - j)`
                // (j < blocks) lie inside them; with `STREAM` the caller
                // aligned `dst` and `row` is a multiple of 64, so every
                // block of `o` is 32-byte aligned.
                unsafe {
                    let v = load_swapped(i.as_ptr().add(32 * (blocks - 1 - j)));
                    store256::<STREAM>(o.as_mut_ptr().add(32 * j), _mm256_shuffle_epi8(v, control));
                }
            }
            done += row;
        }
        done
    }

    /// How far past the run's end the source is prefetched. A run that is
    /// read back to front goes against the direction the hardware
    /// prefetcher expects when rows follow one another upwards in memory,
    /// and measured copies of 512-byte rows ran 2–4× slower without this;
    /// 256 bytes ahead was the best of the distances tried, and did not slow
    /// down long runs or 64-byte rows.
    const PREFETCH_AHEAD: usize = 256;

    /// Rows reversed whole up to this many bytes (eight 32-byte registers)
    /// are loaded into registers whole and stored from the first block, so
    /// that both buffers are read and written upwards. Taking a row from
    /// its end defeats the hardware prefetcher, and so does writing it from
    /// its end: on 128-byte u8 rows held in the cache, a row read upwards
    /// and written from its end ran at 1.25–1.3× a memory copy, and this
    /// order runs level with one (the same on 256-byte rows). Longer rows
    /// no longer fit the registers and are read from their end.
    const REGISTER_MAX_ROW: usize = 256;

    /// Reverses the `N`-byte elements of every row of `B` 32-byte blocks
    /// (`control` reverses them inside a block loaded by [`load_swapped`]),
    /// holding each row in registers. Returns how many bytes it wrote, a
    /// whole number of rows.
    ///
    /// # Safety
    /// The CPU must support AVX2. With `STREAM` set, `dst` must start on a
    /// 32-byte boundary, and the caller fences the stores before the bytes
    /// are read.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn mirror_rows_avx2<const B: usize, const STREAM: bool>(
        src: &[u8],
        dst: &mut [u8],
        control: __m256i,
    ) -> usize {
        let row = 32 * B;
        let mut done = 0;
        for (o, i) in dst.chunks_exact_mut(row).zip(src.chunks_exact(row)) {
            let mut v = [control; B];
            for (j, v) in v.iter_mut().enumerate() {
                // SAFETY: `i` is `32 * B` bytes long and `j < B`, so the 32
                // bytes at `32 * j` lie inside it.
                *v = unsafe { load_swapped(i.as_ptr().add(32 * j)) };
            }
            for (j, v) in v.iter().rev().enumerate() {
                // SAFETY: `o` is `32 * B` bytes long and `j < B`, so the 32
                // bytes at `32 * j` lie inside it; with `STREAM` the caller
                // aligned `dst`, and `o + 32 * j` lies a multiple of 32
                // bytes after its start.
                unsafe { store256::<STREAM>(o.as_mut_ptr().add(32 * j), _mm256_shuffle_epi8(*v, control)) };
            }
            done += row;
        }
        done
    }

    /// Runs longer than this are not prefetched (see `reverse_blocks`).
    const PREFETCH_MAX_RUN: usize = 64 << 10;

    /// The `pshufb` control that reverses the order of `N`-byte lanes in a
    /// 16-byte register and keeps the byte order inside each lane.
    fn lane_reversal<const N: usize>() -> [i8; 16] {
        let mut control = [0i8; 16];
        for (k, c) in control.iter_mut().enumerate() {
            let lane = k / N;
            let within = k % N;
            // At most 15, so it fits `i8`.
            *c = ((16 / N - 1 - lane) * N + within) as i8;
        }
        control
    }

    /// The 16-byte `pshufb` control `c` in a register.
    #[inline(always)]
    fn control(c: [i8; 16]) -> __m128i {
        // SAFETY: `c` is 16 bytes long; the load takes any address, and
        // SSE2, which it belongs to, is part of every x86_64 CPU.
        unsafe { _mm_loadu_si128(c.as_ptr().cast::<__m128i>()) }
    }

    /// Stores `v` at `p` (16 bytes), streaming when `STREAM` is set.
    ///
    /// # Safety
    /// `p` must be valid for a 16-byte write, and 16-byte aligned when
    /// `STREAM` is set.
    #[inline(always)]
    unsafe fn store<const STREAM: bool>(p: *mut u8, v: __m128i) {
        if STREAM {
            // SAFETY: the caller guarantees a valid, aligned destination.
            unsafe { _mm_stream_si128(p.cast::<__m128i>(), v) }
        } else {
            // SAFETY: the caller guarantees a valid destination; this
            // store takes any alignment.
            unsafe { _mm_storeu_si128(p.cast::<__m128i>(), v) }
        }
    }

    /// The `pshufb` control that reverses the order of `N`-byte lanes
    /// inside each group of `group` bytes (a divisor of 16).
    fn group_reversal<const N: usize>(group: usize) -> [i8; 16] {
        let mut control = [0i8; 16];
        let lanes = group / N;
        for (k, c) in control.iter_mut().enumerate() {
            let (g, lane, within) = (k / group, (k % group) / N, k % N);
            // At most 15, so it fits `i8`.
            *c = (g * group + (lanes - 1 - lane) * N + within) as i8;
        }
        control
    }

    /// Reverses the `N`-byte elements inside every row of `row` bytes of
    /// `src` into `dst` (same length), for rows that divide 16 bytes (one
    /// shuffle reverses every row in a block) or are a multiple of 16 (each
    /// row's blocks are mirrored). Returns how many bytes it wrote, a whole
    /// number of rows; 0 for other row lengths.
    ///
    /// # Safety
    /// The CPU must support SSSE3. With `STREAM` set, `dst` must start on a
    /// 64-byte boundary and `row` must divide 16 or be a multiple of 64;
    /// the caller fences the stores before the bytes are read.
    #[target_feature(enable = "ssse3")]
    pub(super) unsafe fn reverse_rows<const N: usize, const STREAM: bool>(
        src: &[u8],
        dst: &mut [u8],
        row: usize,
    ) -> usize {
        if row == 0 || !row.is_multiple_of(N) {
            return 0;
        }
        if row <= 16 && 16 % row == 0 {
            let c = group_reversal::<N>(row);
            let control = control(c);
            let mut done = 0;
            for (o, i) in dst.chunks_exact_mut(64).zip(src.chunks_exact(64)) {
                for k in 0..4 {
                    // SAFETY: `i` and `o` are 64 bytes long, so the 16
                    // bytes at `16 * k` (k < 4) lie inside them; with
                    // `STREAM` the caller aligned `dst`, and `o` lies a
                    // multiple of 64 bytes after its start.
                    unsafe {
                        let v = _mm_loadu_si128(i.as_ptr().add(16 * k).cast::<__m128i>());
                        store::<STREAM>(o.as_mut_ptr().add(16 * k), _mm_shuffle_epi8(v, control));
                    }
                }
                done += 64;
            }
            if STREAM {
                return done;
            }
            let (Some(src), Some(dst)) = (src.get(done..), dst.get_mut(done..)) else {
                return done;
            };
            for (o, i) in dst.chunks_exact_mut(16).zip(src.chunks_exact(16)) {
                // SAFETY: `i` and `o` are exactly 16 bytes long; the load
                // and this store take any address.
                unsafe {
                    let v = _mm_loadu_si128(i.as_ptr().cast::<__m128i>());
                    store::<false>(o.as_mut_ptr(), _mm_shuffle_epi8(v, control));
                }
                done += 16;
            }
            return done;
        }
        if !row.is_multiple_of(16) {
            return 0;
        }
        let c = lane_reversal::<N>();
        let control = control(c);
        let blocks = row / 16;
        let mut done = 0;
        for (o, i) in dst.chunks_exact_mut(row).zip(src.chunks_exact(row)) {
            for j in 0..blocks {
                if j % 4 == 0 && row <= PREFETCH_MAX_RUN {
                    // As in `reverse_blocks`: rows read back to front need
                    // the next rows fetched ahead. A prefetch never faults.
                    _mm_prefetch::<_MM_HINT_T0>(
                        i.as_ptr().wrapping_add(row + 16 * j + PREFETCH_AHEAD).cast(),
                    );
                }
                // SAFETY: `i` and `o` are `row = 16 * blocks` bytes long, so
                // the 16 bytes at `16 * j` and `16 * (blocks - 1 - j)`
                // (j < blocks) lie inside them; with `STREAM` the caller
                // aligned `dst` and `row` is a multiple of 64, so every
                // block of `o` is aligned.
                unsafe {
                    let v = _mm_loadu_si128(i.as_ptr().add(16 * (blocks - 1 - j)).cast::<__m128i>());
                    store::<STREAM>(o.as_mut_ptr().add(16 * j), _mm_shuffle_epi8(v, control));
                }
            }
            done += row;
        }
        done
    }

    /// `pshufb` controls for a 16-byte output block whose first `t` bytes
    /// (`t` a multiple of `N`, the table index) are the end of a reversed
    /// head and whose other bytes are copied in order.
    struct HeadControls<const N: usize>;

    impl<const N: usize> HeadControls<N> {
        /// Entry `t` puts the first `t / N` elements of a block, in
        /// reverse order, into its first `t` bytes and zeroes the rest (a
        /// control byte with its top bit set gives 0).
        const HEAD: [[i8; 16]; 17] = head_controls(N);
        /// Entry `t` keeps bytes `t..16` of a block in place and zeroes
        /// the first `t`.
        const TAIL: [[i8; 16]; 17] = tail_controls();
    }

    /// See [`HeadControls::HEAD`]; computed at compile time.
    const fn head_controls(n: usize) -> [[i8; 16]; 17] {
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

    /// See [`HeadControls::TAIL`]; computed at compile time.
    const fn tail_controls() -> [[i8; 16]; 17] {
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
    /// (same length), each with its first `heads.of(r)` elements reversed
    /// and the rest in order. Returns how many bytes it wrote, a whole
    /// number of rows; it stops before the first row whose head does not
    /// fit, for the caller to report.
    ///
    /// Every output block is built the same way, without branches that
    /// depend on the head's length, which for rows of random lengths would
    /// be mispredicted about once a row: with `h` the head's length in
    /// bytes and `q` the block's offset, its first `t = clamp(h - q, 0,
    /// 16)` bytes are reversed head, the first `t` bytes of the source
    /// block at `max(h - q - 16, 0)` in reverse element order, and the rest
    /// are the source block at `q` in place.
    ///
    /// # Safety
    /// The CPU must support SSSE3. With `STREAM` set, `dst` must start on a
    /// 16-byte boundary, and the caller fences the stores before the bytes
    /// are read.
    #[target_feature(enable = "ssse3")]
    pub(super) unsafe fn rows_with_heads<const N: usize, const STREAM: bool>(
        src: &[u8],
        dst: &mut [u8],
        row: usize,
        heads: super::Heads<'_>,
    ) -> usize {
        if row == 0 || !row.is_multiple_of(16) {
            return 0;
        }
        if let super::Heads::Same(n) = heads {
            // SAFETY: forwarded from this function's own contract.
            return unsafe { rows_with_same_head::<N, STREAM>(src, dst, row, n.saturating_mul(N)) };
        }
        let (head, tail) = (&HeadControls::<N>::HEAD, &HeadControls::<N>::TAIL);
        let none = [i8::MIN; 16];
        let mut done = 0;
        for (r, (o, i)) in dst.chunks_exact_mut(row).zip(src.chunks_exact(row)).enumerate() {
            let h = heads.of(r).saturating_mul(N);
            if h > row {
                break;
            }
            for q in (0..row).step_by(16) {
                let t = h.saturating_sub(q).min(16);
                // Where the reversed part's source block starts: `h - q -
                // 16` for a block inside the head, else the row's start.
                let from = h.saturating_sub(q + 16);
                let (hc, tc) = (head.get(t).unwrap_or(&none), tail.get(t).unwrap_or(&none));
                // SAFETY: `i` and `o` are `row` bytes long and `row` is a
                // multiple of 16, so the blocks at `q` lie inside them;
                // `from + 16` is at most `h - q <= row` when the block is
                // inside the head and 16 otherwise, so that block lies
                // inside `i` too; the tables are 16 bytes per entry; with
                // `STREAM` the caller aligned `dst`, and `o + q` lies a
                // multiple of 16 bytes after its start.
                unsafe {
                    let (o, rev, fwd) = (o.as_mut_ptr().add(q), i.as_ptr().add(from), i.as_ptr().add(q));
                    head_end_block::<STREAM>(o, rev, fwd, control(*hc), control(*tc));
                }
            }
            done += row;
        }
        done
    }

    /// Copies the blocks of `block` bytes of `src` into `dst` (same
    /// length, a whole number of blocks) in order, the rows of `row` bytes
    /// (a multiple of 16) of each block in reverse row order, each row in
    /// order, with streaming stores; the source is read upwards, as
    /// [`RunWriter::descending_rows`](super::RunWriter::descending_rows)
    /// explains.
    ///
    /// # Safety
    /// `dst` must start on a 16-byte boundary, and the caller fences the
    /// stores before the bytes are read. (SSE2, which the loop uses, is
    /// part of every x86_64 CPU.)
    #[target_feature(enable = "sse2")]
    pub(super) unsafe fn stream_descending_rows(src: &[u8], dst: &mut [u8], row: usize, block: usize) {
        if row == 0 || !row.is_multiple_of(16) || block == 0 {
            return;
        }
        let blocks = dst.chunks_exact_mut(block).zip(src.chunks_exact(block));
        for (o, i) in blocks.flat_map(|(o, i)| o.rchunks_exact_mut(row).zip(i.chunks_exact(row))) {
            // Four blocks a step while they last, so the loop costs little
            // next to the copy even on short rows.
            let mut q = 0;
            while q + 64 <= row {
                for k in 0..4 {
                    // SAFETY: `i` and `o` are `row` bytes long and `q + 64
                    // <= row`, so the 16 bytes at `q + 16 * k` (k < 4) lie
                    // inside them; the load takes any address; the caller
                    // aligned `dst`, and `o + q + 16 * k` lies a multiple of
                    // 16 bytes after its start (`o` starts a whole number of
                    // rows in).
                    unsafe {
                        let v = _mm_loadu_si128(i.as_ptr().add(q + 16 * k).cast::<__m128i>());
                        store::<true>(o.as_mut_ptr().add(q + 16 * k), v);
                    }
                }
                q += 64;
            }
            while q < row {
                // SAFETY: `row` is a multiple of 16 and `q < row` too, so
                // the 16 bytes at `q` lie inside `i` and `o`; alignment as
                // above.
                unsafe {
                    let v = _mm_loadu_si128(i.as_ptr().add(q).cast::<__m128i>());
                    store::<true>(o.as_mut_ptr().add(q), v);
                }
                q += 16;
            }
        }
    }

    /// [`stream_descending_rows`] with ordinary 32-byte stores, for rows
    /// that are a multiple of 32 bytes.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn descending_rows_avx2(src: &[u8], dst: &mut [u8], row: usize, block: usize) {
        if row == 0 || !row.is_multiple_of(32) || block == 0 {
            return;
        }
        // All the blocks in one call: the match below goes the same way
        // for every block, so each block costs little more than its copy.
        for (o, i) in dst.chunks_exact_mut(block).zip(src.chunks_exact(block)) {
            // SAFETY: the CPU supports AVX2, as this function's contract
            // says.
            unsafe {
                match row {
                    32 => descending_block_avx2::<32>(i, o, row),
                    64 => descending_block_avx2::<64>(i, o, row),
                    128 => descending_block_avx2::<128>(i, o, row),
                    _ => descending_block_avx2::<0>(i, o, row),
                }
            }
        }
    }

    /// One block of [`descending_rows_avx2`], rows of `ROW` bytes, or of
    /// `row` bytes (any multiple of 32) when `ROW` is 0.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn descending_block_avx2<const ROW: usize>(src: &[u8], dst: &mut [u8], row: usize) {
        // SAFETY: the CPU supports AVX2, as this function's contract says.
        let done = if ROW == 0 { 0 } else { unsafe { descending_groups_avx2::<ROW>(src, dst) } };
        // The rows the groups left are the last of `src`, and they go to
        // the start of `dst`.
        let (Some(src), Some(dst)) = (src.get(done..), dst.get_mut(..dst.len().saturating_sub(done))) else {
            return;
        };
        for (o, i) in dst.rchunks_exact_mut(row).zip(src.chunks_exact(row)) {
            let mut q = 0;
            while q < row {
                // SAFETY: `row` is a multiple of 32 and `q < row` too, so
                // the 32 bytes at `q` lie inside `i` and `o`, which are
                // `row` bytes long; the load and the store take any
                // address.
                unsafe {
                    let v = _mm256_loadu_si256(i.as_ptr().add(q).cast::<__m256i>());
                    store256::<false>(o.as_mut_ptr().add(q), v);
                }
                q += 32;
            }
        }
    }

    /// Bytes of rows that [`descending_groups_avx2`] moves at once: eight
    /// 32-byte registers.
    const GROUP: usize = 256;

    /// Copies rows of `ROW` bytes (32, 64 or 128) in reverse row order, a
    /// group of [`GROUP`] bytes of rows at a time: the group is loaded into
    /// registers upwards and its rows are stored upwards, last row first.
    /// The output then goes down a group at a time, not a row at a time,
    /// and on 128-byte u8 rows held in the cache that ran 4–6% faster than
    /// a row at a time. Returns how many bytes it wrote: the first whole
    /// groups of `src`, at the end of `dst`.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn descending_groups_avx2<const ROW: usize>(src: &[u8], dst: &mut [u8]) -> usize {
        let (blocks, rows) = (ROW / 32, GROUP / ROW);
        let mut done = 0;
        for (o, i) in dst.rchunks_exact_mut(GROUP).zip(src.chunks_exact(GROUP)) {
            let mut v = [_mm256_setzero_si256(); GROUP / 32];
            for (k, v) in v.iter_mut().enumerate() {
                // SAFETY: `i` is `GROUP` bytes long and `k < GROUP / 32`,
                // so the 32 bytes at `32 * k` lie inside it.
                *v = unsafe { _mm256_loadu_si256(i.as_ptr().add(32 * k).cast::<__m256i>()) };
            }
            for r in 0..rows {
                for b in 0..blocks {
                    // Output row `r` of the group is its input row `rows -
                    // 1 - r`.
                    let Some(&w) = v.get((rows - 1 - r) * blocks + b) else {
                        continue;
                    };
                    // SAFETY: `o` is `GROUP = rows * ROW` bytes long, `r <
                    // rows` and `32 * b < ROW`, so the 32 bytes at `ROW * r
                    // + 32 * b` lie inside it; the store takes any address.
                    unsafe { store256::<false>(o.as_mut_ptr().add(ROW * r + 32 * b), w) };
                }
            }
            done += GROUP;
        }
        done
    }

    /// [`rows_with_heads`] for rows that all reverse their first `h`
    /// bytes. With one head for all, the branches below go the same way on
    /// every row, so they cost nothing, and each block gets only the work
    /// it needs: one shuffle inside the head, a plain copy past it, and the
    /// mix of both only for the block the head ends in. On 128-byte rows
    /// that ran several times faster than building every block from both.
    ///
    /// # Safety
    /// As for [`rows_with_heads`].
    #[target_feature(enable = "ssse3")]
    unsafe fn rows_with_same_head<const N: usize, const STREAM: bool>(
        src: &[u8],
        dst: &mut [u8],
        row: usize,
        h: usize,
    ) -> usize {
        if row == 0 || !row.is_multiple_of(16) || h > row {
            return 0;
        }
        let c = lane_reversal::<N>();
        let reversal = control(c);
        // The block the head ends in, when it ends inside one: where it
        // starts and its two controls.
        let split = h / 16 * 16;
        let none = [i8::MIN; 16];
        let t = h - split;
        let (hc, tc) = (
            HeadControls::<N>::HEAD.get(t).unwrap_or(&none),
            HeadControls::<N>::TAIL.get(t).unwrap_or(&none),
        );
        // SAFETY: the tables are 16 bytes per entry.
        let (hc, tc) = unsafe {
            (_mm_loadu_si128(hc.as_ptr().cast::<__m128i>()), _mm_loadu_si128(tc.as_ptr().cast::<__m128i>()))
        };
        let mut done = 0;
        for (o, i) in dst.chunks_exact_mut(row).zip(src.chunks_exact(row)) {
            // The head's blocks are taken from its source upwards, so they
            // are written from the head's end down. Read the other way,
            // against the rows' direction, a head of most of a 512-byte
            // row ran 3.5–4× slower than a memory copy; this way it runs
            // faster than one.
            let mut q = split;
            while q > 0 {
                q -= 16;
                // SAFETY: `q + 16 <= split <= h <= row`, and `i` and `o` are
                // `row` bytes long, so the blocks at `h - q - 16` and `q`
                // lie inside them; with `STREAM` the caller aligned `dst`,
                // and `o + q` lies a multiple of 16 bytes after its start.
                unsafe {
                    let v = _mm_loadu_si128(i.as_ptr().add(h - q - 16).cast::<__m128i>());
                    store::<STREAM>(o.as_mut_ptr().add(q), _mm_shuffle_epi8(v, reversal));
                }
            }
            let mut q = split;
            if t > 0 {
                // SAFETY: `split < h <= row` and `row` is a multiple of 16,
                // so the block at `split` lies inside `i` and `o`; the
                // reversed part reads the row's first block; alignment as
                // above.
                unsafe {
                    head_end_block::<STREAM>(o.as_mut_ptr().add(q), i.as_ptr(), i.as_ptr().add(q), hc, tc)
                };
                q += 16;
            }
            while q < row {
                // SAFETY: `q < row`, both multiples of 16, so the block at
                // `q` lies inside `i` and `o`; alignment as above.
                unsafe {
                    let v = _mm_loadu_si128(i.as_ptr().add(q).cast::<__m128i>());
                    store::<STREAM>(o.as_mut_ptr().add(q), v);
                }
                q += 16;
            }
            done += row;
        }
        done
    }

    /// Stores at `out` a 16-byte block whose first bytes end a reversed
    /// head and whose others are copied in place: the block at `rev`
    /// shuffled by a [`HeadControls::HEAD`] entry, merged with the block at
    /// `fwd` shuffled by the matching [`HeadControls::TAIL`] entry.
    ///
    /// # Safety
    /// The CPU must support SSSE3; `rev` and `fwd` must be valid for
    /// 16-byte reads and `out` for a 16-byte write, which with `STREAM` set
    /// must be 16-byte aligned and fenced by the caller before it is read.
    #[target_feature(enable = "ssse3")]
    #[inline]
    unsafe fn head_end_block<const STREAM: bool>(
        out: *mut u8,
        rev: *const u8,
        fwd: *const u8,
        hc: __m128i,
        tc: __m128i,
    ) {
        // SAFETY: the caller guarantees the reads, the write and its
        // alignment.
        unsafe {
            let rev = _mm_shuffle_epi8(_mm_loadu_si128(rev.cast::<__m128i>()), hc);
            let fwd = _mm_shuffle_epi8(_mm_loadu_si128(fwd.cast::<__m128i>()), tc);
            store::<STREAM>(out, _mm_or_si128(rev, fwd));
        }
    }

    /// [`rows_with_same_head`] with 32-byte blocks, for rows that are a
    /// multiple of 32 bytes: half the loads and stores per row, which for
    /// 1-byte elements held in the cache is what the 16-byte loop was short
    /// of (1.3× a memory copy on 128-byte rows).
    ///
    /// # Safety
    /// The CPU must support AVX2. With `STREAM` set, `dst` must start on a
    /// 32-byte boundary, and the caller fences the stores before the bytes
    /// are read.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn rows_with_same_head_avx2<const N: usize, const STREAM: bool>(
        src: &[u8],
        dst: &mut [u8],
        row: usize,
        h: usize,
    ) -> usize {
        if row == 0 || !row.is_multiple_of(32) || h > row {
            return 0;
        }
        let reversal = broadcast_control(lane_reversal::<N>());
        // The 32-byte block the head ends in, when it ends inside one, is
        // built as two 16-byte halves: the head has `t0` bytes in the first
        // and `t1` in the second.
        let split = h / 32 * 32;
        let t = h - split;
        let (t0, t1) = (t.min(16), t.saturating_sub(16));
        let none = [i8::MIN; 16];
        let table = |t: usize| {
            let (hc, tc) = (
                HeadControls::<N>::HEAD.get(t).unwrap_or(&none),
                HeadControls::<N>::TAIL.get(t).unwrap_or(&none),
            );
            (control(*hc), control(*tc))
        };
        let ((hc0, tc0), (hc1, tc1)) = (table(t0), table(t1));
        let mut done = 0;
        for (o, i) in dst.chunks_exact_mut(row).zip(src.chunks_exact(row)) {
            // As in `rows_with_same_head`, the head is read upwards.
            let mut q = split;
            while q > 0 {
                q -= 32;
                // SAFETY: `q + 32 <= split <= h <= row`, and `i` and `o` are
                // `row` bytes long, so the blocks at `h - q - 32` and `q`
                // lie inside them; with `STREAM` the caller aligned `dst`,
                // and `o + q` lies a multiple of 32 bytes after its start.
                unsafe {
                    let v = load_swapped(i.as_ptr().add(h - q - 32));
                    store256::<STREAM>(o.as_mut_ptr().add(q), _mm256_shuffle_epi8(v, reversal));
                }
            }
            let mut q = split;
            if t > 0 {
                // The first half takes the head's bytes `t1..t`, reversed,
                // and the second half its first `t1` bytes.
                // SAFETY: `split < h <= row` and `row` is a multiple of 32,
                // so the 32 bytes at `split` lie inside `i` and `o`; `t1 +
                // 16 <= 32 <= row`, so the block at `t1` does too; with
                // `STREAM` both halves are 16-byte aligned, as above.
                unsafe {
                    head_end_block::<STREAM>(
                        o.as_mut_ptr().add(q),
                        i.as_ptr().add(t1),
                        i.as_ptr().add(q),
                        hc0,
                        tc0,
                    );
                    head_end_block::<STREAM>(
                        o.as_mut_ptr().add(q + 16),
                        i.as_ptr(),
                        i.as_ptr().add(q + 16),
                        hc1,
                        tc1,
                    );
                }
                q += 32;
            }
            while q < row {
                // SAFETY: `q < row`, both multiples of 32, so the block at
                // `q` lies inside `i` and `o`; alignment as above.
                unsafe {
                    let v = _mm256_loadu_si256(i.as_ptr().add(q).cast::<__m256i>());
                    store256::<STREAM>(o.as_mut_ptr().add(q), v);
                }
                q += 32;
            }
            done += row;
        }
        done
    }

    /// Copies whole 64-byte blocks from `src` to the start of `dst` with
    /// streaming stores; returns how many bytes it copied. When `dst` does
    /// not start on a 16-byte boundary, the copy is left to the caller (0
    /// is returned).
    ///
    /// # Safety
    /// The caller must fence the stores (`_mm_sfence`) before the bytes
    /// are read.
    pub(super) unsafe fn stream_forward(src: &[u8], dst: &mut [u8]) -> usize {
        if dst.as_ptr().align_offset(16) != 0 {
            return 0;
        }
        let mut done = 0;
        for (o, i) in dst.chunks_exact_mut(64).zip(src.chunks_exact(64)) {
            for k in 0..4 {
                // SAFETY: `i` and `o` are 64 bytes long, so the 16 bytes at
                // `16 * k` (k < 4) lie inside them; `o` starts 64 bytes
                // after the previous chunk from a 16-byte boundary, so
                // `o + 16 * k` is 16-byte aligned, as the streaming store
                // needs. SSE2, which it belongs to, is part of x86_64.
                unsafe {
                    let v = _mm_loadu_si128(i.as_ptr().add(16 * k).cast::<__m128i>());
                    store::<true>(o.as_mut_ptr().add(16 * k), v);
                }
            }
            done += 64;
        }
        done
    }

    /// Reverses whole 16-byte blocks: `dst`'s first blocks get `src`'s last
    /// ones with their lanes reversed. `src` and `dst` have the same
    /// length, a multiple of `N`, so every block read starts on an element
    /// boundary. Returns how many bytes of `dst` were written.
    ///
    /// With `STREAM` set only whole 64-byte blocks are written, with
    /// streaming stores.
    ///
    /// # Safety
    /// The CPU must support SSSE3. With `STREAM` set, `dst` must start on a
    /// 16-byte boundary, and the caller fences the stores before the bytes
    /// are read.
    #[target_feature(enable = "ssse3")]
    pub(super) unsafe fn reverse_blocks<const N: usize, const STREAM: bool>(
        src: &[u8],
        dst: &mut [u8],
    ) -> usize {
        let c = lane_reversal::<N>();
        let control = control(c);
        let len = src.len();
        let base = src.as_ptr();
        // A long run is read downwards long enough for the hardware
        // prefetcher to follow, and prefetching past its end would only
        // touch memory that may not even be mapped.
        let prefetch = len <= PREFETCH_MAX_RUN;
        let mut done = 0;
        for (o, i) in dst.chunks_exact_mut(64).zip(src.rchunks_exact(64)) {
            // `wrapping_add` because the address may lie past the end of
            // `src`; it is only used as a hint and never dereferenced.
            if prefetch {
                let ahead = base.wrapping_add(len + done + PREFETCH_AHEAD);
                // A prefetch is a hint that never faults, so it is safe to
                // call with any address.
                _mm_prefetch::<_MM_HINT_T0>(ahead.cast());
            }
            // Source block k (from the chunk's start) goes to destination
            // block 3 - k.
            for k in 0..4 {
                // SAFETY: `i` and `o` are 64 bytes long, so the 16 bytes at
                // `16 * k` and `16 * (3 - k)` (k < 4) lie inside them; the
                // load takes any address, and with `STREAM` the caller
                // aligned `dst`, so every 16-byte block of `o` is aligned.
                unsafe {
                    let v = _mm_loadu_si128(i.as_ptr().add(16 * k).cast::<__m128i>());
                    let r = _mm_shuffle_epi8(v, control);
                    store::<STREAM>(o.as_mut_ptr().add(16 * (3 - k)), r);
                }
            }
            done += 64;
        }
        if STREAM {
            return done;
        }
        let (Some(src), Some(dst)) = (src.get(..len - done), dst.get_mut(done..)) else {
            return done;
        };
        for (o, i) in dst.chunks_exact_mut(16).zip(src.rchunks_exact(16)) {
            // SAFETY: `i` and `o` are exactly 16 bytes long; the load takes
            // any address; `STREAM` is not set here.
            unsafe {
                let v = _mm_loadu_si128(i.as_ptr().cast::<__m128i>());
                store::<false>(o.as_mut_ptr(), _mm_shuffle_epi8(v, control));
            }
            done += 16;
        }
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive<const N: usize>(src: &[u8]) -> Vec<u8> {
        src.chunks_exact(N).rev().flatten().copied().collect()
    }

    fn check<const N: usize>(copier: ReverseCopier) {
        // Bytes that differ everywhere, so a misplaced byte shows.
        let pool: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 256) as u8).collect();
        // Every length up to several 64-byte steps, so every mix of 64-,
        // 32- and 16-byte blocks and single elements occurs.
        for start in 0..5 {
            for off in [0, 1, 3, 32] {
                for elems in 0..(600 / N) {
                    let src = &pool[start..start + elems * N];
                    let mut buf = vec![0xAAu8; off + elems * N + 2];
                    // Odd offsets make the destination unaligned too.
                    let dst = &mut buf[off..off + elems * N];
                    copier.copy::<N>(src, dst);
                    let what = format!("width {N}, start {start}, offset {off}, {elems} elements");
                    assert_eq!(dst, naive::<N>(src).as_slice(), "{what}");
                    assert!(buf[..off].iter().all(|&b| b == 0xAA), "{what}");
                    assert_eq!(buf[off + elems * N..], [0xAA, 0xAA], "{what}");
                }
            }
        }
    }

    #[test]
    fn every_width_matches_the_naive_reversal() {
        for copier in [ReverseCopier::detect(), ReverseCopier::ssse3_only(), ReverseCopier::portable()] {
            check::<1>(copier);
            check::<2>(copier);
            check::<4>(copier);
            check::<8>(copier);
        }
    }

    fn check_writer<const N: usize>(copier: ReverseCopier, stream: bool) {
        let pool: Vec<u8> = (0..2000u32).map(|i| (i * 11 + i / 256) as u8).collect();
        // Runs long enough for the streaming loops, at every offset from an
        // aligned address, including offsets inside an element.
        for at in 0..20 {
            for elems in [0, 1, 63 / N, 300 / N, 301 / N + 1, 1024 / N] {
                let bytes = elems * N;
                for from in [0, 3] {
                    let src = &pool[from..from + bytes];
                    let mut buf = vec![0x55u8; at + bytes + 40];
                    {
                        let mut w = RunWriter::new(&mut buf, copier, stream);
                        assert_eq!(w.reversed::<N>(at, src), Some(()));
                        assert_eq!(w.forward(at + bytes, &pool[..8]), Some(()));
                        assert_eq!(w.forward(at + bytes + 1, &pool[..40]), None);
                    }
                    let mut expected = vec![0x55u8; at];
                    expected.extend(naive::<N>(src));
                    expected.extend_from_slice(&pool[..8]);
                    expected.extend_from_slice(&[0x55; 32]);
                    assert_eq!(buf, expected, "width {N}, at {at}, {elems} elements, stream {stream}");
                    let mut w = RunWriter::new(&mut buf, copier, stream);
                    assert_eq!(w.forward(at, src), Some(()));
                    drop(w);
                    assert_eq!(&buf[at..at + bytes], src);
                }
            }
        }
    }

    #[test]
    fn writer_matches_the_naive_copies_with_and_without_streaming() {
        for copier in [ReverseCopier::detect(), ReverseCopier::ssse3_only(), ReverseCopier::portable()] {
            for stream in [false, true] {
                check_writer::<1>(copier, stream);
                check_writer::<2>(copier, stream);
                check_writer::<4>(copier, stream);
                check_writer::<8>(copier, stream);
            }
        }
    }

    fn check_rows<const N: usize>(copier: ReverseCopier, stream: bool) {
        let pool: Vec<u8> = (0..3000u32).map(|i| (i * 29 + i / 256) as u8).collect();
        let mut buf = vec![0u8; 2600];
        // A line boundary, so the streaming loops run; then one byte past
        // it, so they do not.
        let aligned = buf.as_ptr().align_offset(64);
        for skew in [0, N] {
            let at = aligned + skew;
            for row in [N, 2 * N, 4, 8, 16, 24, 32, 48, 64, 96, 128, 160, 192, 224, 256, 288]
                .into_iter()
                .filter(|r| r % N == 0)
            {
                // Heads that end in every byte of the first 48, and half
                // and whole rows.
                let short = (0..=row.min(48)).filter(|h| h % N == 0);
                for rev in short.chain([row / 2 / N * N, row]) {
                    let src = &pool[3..3 + row * (2048 / row)];
                    buf.fill(0x77);
                    let mut w = RunWriter::new(&mut buf, copier, stream);
                    assert_eq!(w.rows::<N>(at, src, row, Heads::Same(rev / N)), Some(()));
                    drop(w);
                    let expected: Vec<u8> = src
                        .chunks(row)
                        .flat_map(|r| {
                            let mut v = naive::<N>(&r[..rev]);
                            v.extend_from_slice(&r[rev..]);
                            v
                        })
                        .collect();
                    assert_eq!(
                        &buf[at..at + src.len()],
                        expected.as_slice(),
                        "width {N}, row {row}, rev {rev}"
                    );
                    assert!(buf[..at].iter().chain(&buf[at + src.len()..]).all(|&b| b == 0x77));
                }
            }
        }
    }

    fn check_rows_with_own_heads<const N: usize>(copier: ReverseCopier, stream: bool) {
        let pool: Vec<u8> = (0..4000u32).map(|i| (i * 13 + i / 256) as u8).collect();
        let mut buf = vec![0u8; 3000];
        let aligned = buf.as_ptr().align_offset(64);
        // On a line, inside a line on a block, and off any block.
        for skew in [0, 16, N] {
            let at = aligned + skew;
            for row in [N, 3 * N, 16, 32, 48, 64, 80, 512, 1024].into_iter().filter(|r| r % N == 0) {
                let count = 2048 / row;
                let elems = row / N;
                // Every head length from 0 to the whole row, in a scrambled
                // order, so blocks inside, across and past the head occur.
                let heads: Vec<usize> = (0..count).map(|r| (r * 7 + r / 3) % (elems + 1)).collect();
                let src = &pool[5..5 + row * count];
                buf.fill(0x33);
                let mut w = RunWriter::new(&mut buf, copier, stream);
                assert_eq!(w.rows::<N>(at, src, row, Heads::Each(&heads)), Some(()));
                drop(w);
                let expected: Vec<u8> = src
                    .chunks(row)
                    .zip(&heads)
                    .flat_map(|(r, &h)| {
                        let mut v = naive::<N>(&r[..h * N]);
                        v.extend_from_slice(&r[h * N..]);
                        v
                    })
                    .collect();
                assert_eq!(&buf[at..at + src.len()], expected.as_slice(), "width {N}, row {row}");
                assert!(buf[..at].iter().chain(&buf[at + src.len()..]).all(|&b| b == 0x33));
                // A head longer than its row is refused, not read past.
                let mut bad = heads.clone();
                bad[count / 2] = elems + 1;
                let mut w = RunWriter::new(&mut buf, copier, stream);
                assert_eq!(w.rows::<N>(at, src, row, Heads::Each(&bad)), None);
                assert_eq!(w.rows::<N>(at, src, row, Heads::Each(&heads[1..])), None);
            }
        }
    }

    #[test]
    fn rows_with_a_head_per_row_match_the_naive_copies() {
        for copier in [ReverseCopier::detect(), ReverseCopier::ssse3_only(), ReverseCopier::portable()] {
            for stream in [false, true] {
                check_rows_with_own_heads::<1>(copier, stream);
                check_rows_with_own_heads::<2>(copier, stream);
                check_rows_with_own_heads::<4>(copier, stream);
                check_rows_with_own_heads::<8>(copier, stream);
            }
        }
    }

    #[test]
    fn rows_match_the_naive_copies_with_and_without_streaming() {
        for copier in [ReverseCopier::detect(), ReverseCopier::ssse3_only(), ReverseCopier::portable()] {
            for stream in [false, true] {
                check_rows::<1>(copier, stream);
                check_rows::<2>(copier, stream);
                check_rows::<4>(copier, stream);
                check_rows::<8>(copier, stream);
            }
        }
    }

    #[test]
    fn descending_rows_match_the_naive_copies_with_and_without_streaming() {
        let long = DESCENDING_MAX_ROW + 48;
        let pool: Vec<u8> = (0..5 * long as u32).map(|i| (i * 31 + i / 256) as u8).collect();
        let mut buf = vec![0u8; 5 * long];
        let aligned = buf.as_ptr().align_offset(64);
        // Rows the 16- and 32-byte loops take, rows they leave to the
        // library copy, and rows long enough to be copied one run each; on
        // a line, on a block and off both.
        for skew in [0, 16, 3] {
            let at = aligned + skew;
            for row in [1, 5, 16, 32, 48, 64, 96, 128, 256, 400, 512, 4096 + 64, long] {
                // Rows the 32-byte loop moves in groups get one more than a
                // whole number of groups.
                let count = (8192 / row).max(2) + usize::from((32..=128).contains(&row));
                let block = row * count;
                let copiers =
                    [ReverseCopier::detect(), ReverseCopier::ssse3_only(), ReverseCopier::portable()];
                let cases = copiers.into_iter().flat_map(|c| [(c, false), (c, true)]);
                // One block, then two blocks one after the other.
                for ((copier, stream), blocks) in cases.flat_map(|c| [(c, 1), (c, 2)]) {
                    let src = &pool[7..7 + block * blocks];
                    buf.fill(0x44);
                    let mut w = RunWriter::new(&mut buf, copier, stream);
                    assert_eq!(w.descending_rows(at, src, row, block), Some(()));
                    assert_eq!(w.descending_rows(at, &src[1..], row.max(2), block), None);
                    assert_eq!(w.descending_rows(at, src, row, block + 1), None);
                    assert_eq!(w.descending_rows(at, src, row, 0), None);
                    drop(w);
                    let expected: Vec<u8> =
                        src.chunks(block).flat_map(|b| b.chunks(row).rev()).flatten().copied().collect();
                    let what = format!("row {row}, skew {skew}, {blocks} blocks");
                    assert_eq!(&buf[at..at + src.len()], expected.as_slice(), "{what}");
                    assert!(buf[..at].iter().chain(&buf[at + src.len()..]).all(|&b| b == 0x44));
                }
            }
        }
    }

    #[test]
    fn detect_uses_every_feature_the_cpu_has() {
        #[cfg(target_arch = "x86_64")]
        {
            let c = ReverseCopier::detect();
            assert_eq!(c.ssse3, std::arch::is_x86_feature_detected!("ssse3"));
            assert_eq!(c.avx2, c.ssse3 && std::arch::is_x86_feature_detected!("avx2"));
            assert!(!ReverseCopier::ssse3_only().avx2);
        }
    }

    #[test]
    fn mismatched_lengths_write_only_the_common_whole_elements() {
        let src = [1u8, 2, 3, 4, 5, 6, 7];
        let mut dst = [0u8; 4];
        ReverseCopier::detect().copy::<2>(&src, &mut dst);
        assert_eq!(dst, [3, 4, 1, 2]);
    }
}
