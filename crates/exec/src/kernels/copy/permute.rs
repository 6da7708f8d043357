//! Reversals as byte permutations fixed when compiling: the portable
//! tier's fast paths for runs reversed whole, short rows reversed whole,
//! and short rows flipped in order.
//!
//! A block of `B` bytes is read into an array and written out through a
//! table that says, for each output byte, which input byte it takes. The
//! table is a constant of the block's type, so once the loop is inlined
//! the compiler sees a fixed shuffle of a few registers and emits the
//! target's shuffles for it (`pshufd` and `pshuflw` with SSE2, `tbl` on
//! NEON) instead of a load and a store per byte. No intrinsics: the same
//! code serves every architecture and the `no-simd` build.
//!
//! Bytes shuffled in one register are the exception on x86_64's baseline,
//! which has no byte shuffle: for rows of 3, 5, 6 or 7 bytes each reversed
//! byte by byte, a few loads shifted by whole elements are masked and
//! merged instead ([`reverse_byte_rows`]), and runs of 3-, 5- and 7-byte
//! elements are reversed byte by byte and then each element put back in
//! order the same way ([`reverse_odd_run`]).

/// Rows of `R` bytes, each made of `R / N` elements of `N` bytes, that
/// fill a block of `B` bytes, each row's elements in reverse order.
struct Rows<const R: usize, const N: usize, const B: usize>;

impl<const R: usize, const N: usize, const B: usize> Rows<R, N, B> {
    /// Whether the sizes fit one another: whole elements to a row, whole
    /// rows to a block, and a block small enough for byte indices.
    const FITS: bool = N > 0 && R > 0 && R.is_multiple_of(N) && B.is_multiple_of(R) && B <= 256;

    /// For output byte `i` of a block, the input byte it takes; where the
    /// sizes do not fit, every byte stays in place (and nothing uses it).
    const FROM: [u8; B] = {
        let mut from = [0u8; B];
        let mut i = 0;
        while i < B {
            from[i] = if Self::FITS {
                let (row, j) = (i / R, i % R);
                (row * R + (R / N - 1 - j / N) * N + j % N) as u8
            } else {
                i as u8
            };
            i += 1;
        }
        from
    };
}

/// `block` through the table `from`: output byte `i` is `block[from[i]]`.
/// With `from` a constant, the compiler makes this a fixed shuffle.
#[inline(always)]
fn permute<const B: usize>(block: &[u8; B], from: &[u8; B]) -> [u8; B] {
    let mut out = [0u8; B];
    for (o, &f) in out.iter_mut().zip(from) {
        *o = block[usize::from(f)];
    }
    out
}

/// Writes the `N`-byte elements of `src` into `dst` in reverse order, `B`
/// bytes at a time (whole elements), and returns how many bytes of `dst`
/// it wrote: all of the slices' common length, when that is whole
/// elements. Writes nothing where a block is not whole elements or is
/// longer than 256 bytes.
///
/// `src` is read upwards and `dst` written downwards: read downwards, as
/// the order of the output would have it, the loads of a long run wait on
/// memory (2.2× a memory copy on 1 KiB rows of `i64`), where the hardware
/// prefetcher follows them upwards; stores wait in the store buffer
/// whichever way they go.
#[inline(always)]
pub(super) fn reverse_run<const N: usize, const B: usize>(src: &[u8], dst: &mut [u8]) -> usize {
    let len = src.len().min(dst.len());
    if !Rows::<B, N, B>::FITS || !len.is_multiple_of(N) {
        return 0;
    }
    let (Some(src), Some(dst)) = (src.get(..len), dst.get_mut(..len)) else {
        return 0;
    };
    let from = &Rows::<B, N, B>::FROM;
    let (blocks, rest) = src.as_chunks::<B>();
    let tail = dst.get_mut(rest.len()..).unwrap_or_default();
    let reverse = |block: &[u8; B]| {
        if N == 1 && B.is_multiple_of(2) {
            reverse_bytes::<B, B>(block)
        } else {
            permute(block, from)
        }
    };
    for (o, i) in tail.as_rchunks_mut::<B>().1.iter_mut().rev().zip(blocks) {
        *o = reverse(i);
    }
    if rest.is_empty() {
        return len;
    }
    // The few elements past the last whole block land at the start of
    // `dst`: a run of a block or more writes them as the block that ends
    // where `src` does, again over the start of the block after them, with
    // the same bytes.
    if let (Some(i), Some(o)) = (src.last_chunk::<B>(), dst.first_chunk_mut::<B>()) {
        *o = reverse(i);
        return len;
    }
    for (o, i) in dst.chunks_exact_mut(N).zip(rest.rchunks_exact(N)) {
        o.copy_from_slice(i);
    }
    len
}

/// The rows of `R` bytes of `block` (`R` even) each with its bytes in
/// reverse order, as its 2-byte words in reverse order with their bytes
/// swapped: the compiler makes that shifts and word shuffles, 8
/// instructions for 16 bytes with SSE2, where a byte table's shuffle took
/// 11 (x86_64's baseline has no byte shuffle).
#[inline(always)]
fn reverse_bytes<const R: usize, const B: usize>(block: &[u8; B]) -> [u8; B] {
    let mut out = [0u8; B];
    for (o, i) in out.chunks_exact_mut(R).zip(block.chunks_exact(R)) {
        for (o, i) in o.as_chunks_mut::<2>().0.iter_mut().zip(i.as_chunks::<2>().0.iter().rev()) {
            *o = u16::from_ne_bytes(*i).swap_bytes().to_ne_bytes();
        }
    }
    out
}

/// Writes the rows of `R` bytes of `src` into `dst`, each with its `N`-byte
/// elements in reverse order, `B` bytes (whole rows) at a time, and
/// returns how many bytes of each it went through; what is left is less
/// than a block. Writes nothing where the sizes do not fit (see
/// [`reverse_run`]).
#[inline(always)]
pub(super) fn reverse_rows<const R: usize, const N: usize, const B: usize>(
    src: &[u8],
    dst: &mut [u8],
) -> usize {
    if !Rows::<R, N, B>::FITS {
        return 0;
    }
    let from = &Rows::<R, N, B>::FROM;
    let mut done = 0;
    for (o, i) in dst.as_chunks_mut::<B>().0.iter_mut().zip(src.as_chunks::<B>().0) {
        *o = if N == 1 && R.is_multiple_of(2) { reverse_bytes::<R, B>(i) } else { permute(i, from) };
        done += B;
    }
    done
}

/// Writes the rows of `R` bytes of `src` into `dst`, row `k` with the
/// first of its `N`-byte elements, as many as the `k`-th of `heads` says,
/// in reverse order and the rest
/// in place, and returns how many bytes of each it went through: whole
/// rows from the start, up to the first row whose head is longer than the
/// row (which the caller refuses).
///
/// A row's reversed head is the head end of the `R` bytes that end where
/// the head does, reversed whole as a fixed shuffle; a mask for the head's
/// length picks those bytes or the row's own. So a row costs two loads, a
/// shuffle and a merge whatever its head, where an element-by-element copy
/// would branch on it. The first row reads before the start of `src`
/// through a buffer.
#[inline(always)]
pub(super) fn rows_with_heads<const R: usize, const N: usize>(
    src: &[u8],
    dst: &mut [u8],
    heads: impl Iterator<Item = usize>,
) -> usize {
    if !Rows::<R, N, R>::FITS || R > 64 {
        return 0;
    }
    let from = &Rows::<R, N, R>::FROM;
    let masks = &HeadMasks::<R, N>::MASKS;
    let mut heads = heads;
    let rows = src.as_chunks::<R>().0;
    let (Some((o, out)), Some((row, rows))) =
        (dst.as_chunks_mut::<R>().0.split_first_mut(), rows.split_first())
    else {
        return 0;
    };
    // The first row's window starts before `src`: its head is padded
    // in front.
    let Some(head) = heads.next().filter(|&head| head <= R / N) else {
        return 0;
    };
    let (Some(mask), Some(head_bytes)) = (masks.get(head), row.get(..head * N)) else {
        return 0;
    };
    let mut padded = [0u8; R];
    if let Some(tail) = padded.get_mut(R - head_bytes.len()..) {
        tail.copy_from_slice(head_bytes);
    }
    *o = merge(&permute(&padded, from), row, mask);
    // Every later window lies in `src`: it ends at least a row in.
    let mut done = R;
    for (k, ((o, row), head)) in out.iter_mut().zip(rows).zip(heads).enumerate() {
        let (Some(mask), true) = (masks.get(head), head <= R / N) else {
            return done;
        };
        let start = k * R + head * N;
        let Some(window) = src.get(start..start + R).and_then(<[u8]>::first_chunk::<R>) else {
            return done;
        };
        *o = merge(&permute(window, from), row, mask);
        done += R;
    }
    done
}

/// The bytes of `a` where `mask` is set and of `b` elsewhere; as one
/// 8-byte word for rows of 8 bytes, which the compiler otherwise merges a
/// byte at a time (2.5× a memory copy that way against 16×). Longer rows
/// stay bytes: merged in words, rows of 16 and 24 bytes ran 5× slower.
#[inline(always)]
fn merge<const R: usize>(a: &[u8; R], b: &[u8; R], mask: &[u8; R]) -> [u8; R] {
    let mut merged = [0u8; R];
    if R == 8 {
        let words = merged.as_chunks_mut::<8>().0.iter_mut();
        for (((v, a), b), m) in
            words.zip(a.as_chunks::<8>().0).zip(b.as_chunks::<8>().0).zip(mask.as_chunks::<8>().0)
        {
            let (a, b, m) = (u64::from_ne_bytes(*a), u64::from_ne_bytes(*b), u64::from_ne_bytes(*m));
            *v = ((a & m) | (b & !m)).to_ne_bytes();
        }
        return merged;
    }
    for (((v, &a), &b), &m) in merged.iter_mut().zip(a).zip(b).zip(mask) {
        *v = (a & m) | (b & !m);
    }
    merged
}

/// The masks of [`rows_with_heads`]: `MASKS[h]` keeps the first `h`
/// elements of a row of `R` bytes.
struct HeadMasks<const R: usize, const N: usize>;

impl<const R: usize, const N: usize> HeadMasks<R, N> {
    const MASKS: [[u8; R]; 65] = {
        let mut masks = [[0u8; R]; 65];
        let mut h = 0;
        while h < 65 {
            let mut i = 0;
            while i < R {
                if i < h * N {
                    masks[h][i] = 0xff;
                }
                i += 1;
            }
            h += 1;
        }
        masks
    };
}

/// Rows of `R` bytes reversed byte by byte, from `window` into `out`,
/// whose length is a whole number of steps of `R * 16` bytes: `window`
/// holds the input with `R - 1` bytes more on either side, which are
/// read but never used. Byte `j` of a row takes the input byte
/// `R - 1 - 2 * j` places after it, so a block of 16 output bytes is the
/// merge of `R` loads of the input, each shifted by one of those distances
/// and masked to the bytes it serves; the masks repeat every `R` blocks, a
/// whole number of rows. `None` when the lengths do not fit.
///
/// The masks are read through `black_box`: seen as constants, they lead
/// the compiler to split the merges into moves of single bytes.
#[inline(always)]
fn byte_rows_in_window<const R: usize>(window: &[u8], out: &mut [u8]) -> Option<()> {
    const L: usize = 16;
    let step = R * L;
    if !out.len().is_multiple_of(step) || window.len() != out.len() + 2 * (R - 1) {
        return None;
    }
    let masks = core::hint::black_box(&ByteRows::<R>::MASKS);
    for (s, out) in out.chunks_exact_mut(step).enumerate() {
        let window = window.get(s * step..)?;
        for (b, (o, masks)) in out.as_chunks_mut::<L>().0.iter_mut().zip(masks).enumerate() {
            let mut merged = [0u8; L];
            for (m, mask) in masks.iter().enumerate() {
                let shifted = window.get(b * L + 2 * m..)?.first_chunk::<L>()?;
                for ((v, &x), &keep) in merged.iter_mut().zip(shifted).zip(mask) {
                    *v |= x & keep;
                }
            }
            *o = merged;
        }
    }
    Some(())
}

/// [`reverse_rows`] for rows of `R` bytes reversed byte by byte
/// ([`byte_rows_in_window`]), with the rows the window's reach leaves at
/// the start (a step's worth) and after its last whole step written by
/// [`reverse_rows`] in blocks of `B` bytes: returns how many bytes of
/// each it went through, whole rows from the start; what is left is less
/// than a block.
#[inline(always)]
pub(super) fn reverse_byte_rows<const R: usize, const B: usize>(src: &[u8], dst: &mut [u8]) -> usize {
    let (step, reach) = (R * 16, R - 1);
    let len = src.len().min(dst.len());
    let steps = len.saturating_sub(step + reach) / step;
    let end = step * (steps + 1);
    let window = src.get(step - reach..end + reach);
    let (Some(window), Some(out), true) = (window, dst.get_mut(step..end), steps > 0) else {
        return reverse_rows::<R, 1, B>(src, dst);
    };
    if byte_rows_in_window::<R>(window, out).is_none() {
        return 0;
    }
    let (Some(s0), Some(d0)) = (src.get(..step), dst.get_mut(..step)) else {
        return 0;
    };
    if reverse_rows::<R, 1, B>(s0, d0) != step {
        return 0;
    }
    let (Some(s1), Some(d1)) = (src.get(end..), dst.get_mut(end..)) else {
        return 0;
    };
    end + reverse_rows::<R, 1, B>(s1, d1)
}

/// Writes the elements of `E` bytes of `src` into `dst` in reverse order,
/// for element sizes whose blocks would be bytes shuffled one by one (3, 5
/// and 7 bytes): a stretch of `src` is reversed byte by byte into a
/// buffer ([`reverse_run`]), and its elements' bytes put back in order
/// from there ([`byte_rows_in_window`]), in steps of `E * 16` bytes, the
/// few elements past the last whole step one at a time. `src` is read
/// upwards, as in [`reverse_run`]. Returns how many bytes of `dst` it
/// wrote: all of the slices' common length, when that is whole elements;
/// none for other element sizes.
#[inline(always)]
pub(super) fn reverse_odd_run<const E: usize>(src: &[u8], dst: &mut [u8]) -> usize {
    const SLACK: usize = 8;
    const BUFFER: usize = 1024;
    let step = E * 16;
    let len = src.len().min(dst.len());
    if E < 2 || 2 * (E - 1) > SLACK || step > BUFFER - SLACK || !len.is_multiple_of(E) {
        return 0;
    }
    let chunk = (BUFFER - SLACK) / step * step;
    let whole = len / step * step;
    let mut buffer = [0u8; BUFFER];
    let mut read = 0;
    while read < whole {
        let n = (whole - read).min(chunk);
        // The stretch of `src` from `read` on lands `read` bytes from the
        // end of `dst`.
        let (Some(from), Some(staged)) = (src.get(read..read + n), buffer.get_mut(E - 1..E - 1 + n)) else {
            return 0;
        };
        if reverse_run::<1, 32>(from, staged) != n {
            return 0;
        }
        let (Some(window), Some(out)) =
            (buffer.get(..n + 2 * (E - 1)), dst.get_mut(len - read - n..len - read))
        else {
            return 0;
        };
        if byte_rows_in_window::<E>(window, out).is_none() {
            return 0;
        }
        read += n;
    }
    let (Some(rest), Some(head)) = (src.get(whole..len), dst.get_mut(..len - whole)) else {
        return 0;
    };
    for (o, i) in head.chunks_exact_mut(E).zip(rest.rchunks_exact(E)) {
        o.copy_from_slice(i);
    }
    len
}

/// The masks of [`byte_rows_in_window`]: `MASKS[b][m][i]` keeps byte `i` of
/// block `b` of a step from load `m`, the one that starts `2 * m` bytes
/// into the step's window (which begins `R - 1` bytes before the step):
/// the load of byte `j = R - 1 - m` of each row.
struct ByteRows<const R: usize>;

impl<const R: usize> ByteRows<R> {
    const MASKS: [[[u8; 16]; R]; R] = {
        let mut masks = [[[0u8; 16]; R]; R];
        let mut b = 0;
        while b < R {
            let mut i = 0;
            while i < 16 {
                let j = (b * 16 + i) % R;
                masks[b][R - 1 - j][i] = 0xff;
                i += 1;
            }
            b += 1;
        }
        masks
    };
}

#[cfg(test)]
mod tests {
    use super::super::{Heads, ReverseCopier};

    /// Every row length `by_row_bytes` takes.
    const ROWS: [usize; 19] = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56];

    /// The rows of `row` bytes of `src`, each with its `n`-byte elements in
    /// reverse order, written out element by element.
    fn naive_rows(src: &[u8], row: usize, n: usize) -> Vec<u8> {
        src.chunks(row).flat_map(|r| r.chunks(n).rev().flatten().copied()).collect()
    }

    /// Counts of rows around the blocks' sizes, the byte rows' steps and
    /// the staging buffer of odd elements, with a few rows past them.
    fn counts(row: usize) -> impl Iterator<Item = usize> {
        (0..40).chain([63, 64, 65, 127, 128, 129, 300, 341, 342, 1000 / row.max(1) + 3])
    }

    #[test]
    fn short_rows_reversed_whole_match_the_naive_reversal() {
        let pool: Vec<u8> = (0..20000u32).map(|i| (i * 13 + i / 253) as u8).collect();
        for copier in [ReverseCopier::portable(), ReverseCopier::detect()] {
            for row in ROWS {
                for n in [1, 2, 4, 8].into_iter().filter(|n| row % n == 0) {
                    for count in counts(row) {
                        let src = &pool[5..5 + row * count];
                        let mut dst = vec![0x77u8; src.len() + 3];
                        let done = match n {
                            1 => copier.reverse_short_rows::<1>(row, src, &mut dst[..src.len()]),
                            2 => copier.reverse_short_rows::<2>(row, src, &mut dst[..src.len()]),
                            4 => copier.reverse_short_rows::<4>(row, src, &mut dst[..src.len()]),
                            _ => copier.reverse_short_rows::<8>(row, src, &mut dst[..src.len()]),
                        };
                        let what = format!("row {row}, width {n}, {count} rows, {:?}", copier.level);
                        assert!(done % row == 0 && done <= src.len(), "{what}: {done}");
                        // What is left is less than a block of at most 128 bytes.
                        assert!(src.len() - done < 128, "{what}: {done}");
                        assert_eq!(dst[..done], naive_rows(&src[..done], row, n), "{what}");
                        assert!(dst[done..].iter().all(|&b| b == 0x77), "{what}");
                    }
                }
            }
        }
    }

    #[test]
    fn runs_of_short_elements_reverse_whole() {
        let pool: Vec<u8> = (0..20000u32).map(|i| (i * 29 + i / 251) as u8).collect();
        for copier in [ReverseCopier::portable(), ReverseCopier::detect()] {
            for row in ROWS {
                for count in counts(row) {
                    let src = &pool[3..3 + row * count];
                    let mut dst = vec![0u8; src.len()];
                    let what = format!("element {row}, {count} elements, {:?}", copier.level);
                    assert!(copier.reverse_elements(row, src, &mut dst), "{what}");
                    let expected: Vec<u8> = src.chunks(row).rev().flatten().copied().collect();
                    assert_eq!(dst, expected, "{what}");
                }
            }
            // Lengths it has no block for, and slices that do not match.
            let mut dst = [0u8; 18];
            assert!(!copier.reverse_elements(9, &pool[..18], &mut dst));
            assert!(!copier.reverse_elements(64, &pool[..64], &mut [0u8; 64]));
            assert!(!copier.reverse_elements(3, &pool[..15], &mut dst));
            assert!(!copier.reverse_elements(4, &pool[..18], &mut dst));
            assert!(!copier.reverse_elements(0, &pool[..18], &mut dst));
            assert_eq!(dst, [0; 18]);
        }
    }

    /// Row `k` of `src` with its first `heads[k]` elements of `n` bytes
    /// reversed, element by element.
    fn naive_heads(src: &[u8], row: usize, n: usize, heads: &[usize]) -> Vec<u8> {
        let mut out = Vec::new();
        for (r, &h) in src.chunks(row).zip(heads) {
            out.extend(r[..h * n].chunks(n).rev().flatten());
            out.extend(&r[h * n..]);
        }
        out
    }

    #[test]
    fn short_rows_with_a_head_each_match_the_naive_copy() {
        let pool: Vec<u8> = (0..20000u32).map(|i| (i * 7 + i / 249) as u8).collect();
        for copier in [ReverseCopier::portable(), ReverseCopier::detect()] {
            for row in ROWS {
                for n in [1, 2, 4, 8].into_iter().filter(|n| row % n == 0) {
                    let elements = row / n;
                    let count = 3 * elements + 5;
                    let src = &pool[11..11 + row * count];
                    // Every head, the first row's among them, in a varied
                    // order.
                    let heads: Vec<usize> = (0..count).map(|k| (k * 5 + k / 3) % (elements + 1)).collect();
                    let wide: Vec<u32> = heads.iter().map(|&h| h as u32).collect();
                    let bytes: Vec<u8> = heads.iter().map(|&h| h as u8).collect();
                    let expected = naive_heads(src, row, n, &heads);
                    for list in [Heads::Each(&wide), Heads::Bytes(&bytes), Heads::EachWide(&heads)] {
                        let mut dst = vec![0x33u8; src.len()];
                        let done = match n {
                            1 => copier.short_rows_with_heads::<1>(row, src, &mut dst, list),
                            2 => copier.short_rows_with_heads::<2>(row, src, &mut dst, list),
                            4 => copier.short_rows_with_heads::<4>(row, src, &mut dst, list),
                            _ => copier.short_rows_with_heads::<8>(row, src, &mut dst, list),
                        };
                        let what = format!("row {row}, width {n}, {list:?}, {:?}", copier.level);
                        assert_eq!(done, src.len(), "{what}");
                        assert_eq!(dst, expected, "{what}");
                    }
                    for head in [0, 1, elements] {
                        let mut dst = vec![0x33u8; src.len()];
                        let done = match n {
                            1 => copier.short_rows_with_heads::<1>(row, src, &mut dst, Heads::Same(head)),
                            2 => copier.short_rows_with_heads::<2>(row, src, &mut dst, Heads::Same(head)),
                            4 => copier.short_rows_with_heads::<4>(row, src, &mut dst, Heads::Same(head)),
                            _ => copier.short_rows_with_heads::<8>(row, src, &mut dst, Heads::Same(head)),
                        };
                        assert_eq!(done, src.len(), "row {row}, width {n}, head {head}");
                        assert_eq!(
                            dst,
                            naive_heads(src, row, n, &vec![head; count]),
                            "row {row}, head {head}"
                        );
                    }
                }
            }
            // A head longer than its row stops the copy before that row.
            let (src, mut dst) = (&pool[..32], [0u8; 32]);
            let heads = [2u8, 9, 1, 1];
            assert_eq!(copier.short_rows_with_heads::<1>(8, src, &mut dst, Heads::Bytes(&heads)), 8);
        }
    }
}
