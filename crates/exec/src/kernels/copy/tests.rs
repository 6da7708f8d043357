//! Every loop against a naive reversal, and every SIMD loop against the
//! portable one.

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
        check::<16>(copier);
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
                RunWriter::with(&mut buf, copier, stream, |w| {
                    assert_eq!(w.reversed::<N>(at, src), Some(()));
                    assert_eq!(w.forward(at + bytes, &pool[..8]), Some(()));
                    assert_eq!(w.forward(at + bytes + 1, &pool[..40]), None);
                });
                let mut expected = vec![0x55u8; at];
                expected.extend(naive::<N>(src));
                expected.extend_from_slice(&pool[..8]);
                expected.extend_from_slice(&[0x55; 32]);
                assert_eq!(buf, expected, "width {N}, at {at}, {elems} elements, stream {stream}");
                let done = RunWriter::with(&mut buf, copier, stream, |w| w.forward(at, src));
                assert_eq!(done, Some(()));
                assert_eq!(&buf[at..at + bytes], src);
            }
        }
    }
}

#[test]
fn runs_held_ahead_land_where_they_were_asked_to() {
    let pool: Vec<u8> = (0..5000u32).map(|i| (i * 13 + i / 256) as u8).collect();
    // Runs of assorted lengths from sources that jump about, written to
    // consecutive places in the output, in as many runs as the ring holds
    // and around it, and runs longer than the part asked for ahead.
    for count in [0, 1, AHEAD_RUNS - 1, AHEAD_RUNS, AHEAD_RUNS + 1, 3 * AHEAD_RUNS + 5] {
        for stream in [false, true] {
            let runs: Vec<(usize, usize)> =
                (0..count).map(|k| ((k * 1237) % 1900, [1, 40, 300, 2100, 64][k % 5])).collect();
            let total: usize = runs.iter().map(|&(_, len)| len).sum();
            let mut expected = Vec::new();
            for &(from, len) in &runs {
                expected.extend_from_slice(&pool[from..from + len]);
            }
            let mut buf = vec![0x33u8; total + 8];
            expected.extend_from_slice(&[0x33; 8]);
            let done = RunWriter::with(&mut buf, ReverseCopier::detect(), stream, |w| {
                let mut ahead = Ahead::new();
                let mut at = 0;
                for &(from, len) in &runs {
                    ahead.forward(w, at, &pool[from..from + len])?;
                    at += len;
                }
                ahead.finish(w)
            });
            assert_eq!(done, Some(()), "{count} runs, stream {stream}");
            assert_eq!(buf, expected, "{count} runs, stream {stream}");
        }
    }
    // A run that does not fit fails, now or when it is written: at the
    // end, or when the full ring writes it to make room.
    for later in [0, AHEAD_RUNS] {
        let mut buf = vec![0u8; 100];
        let written = std::cell::Cell::new(0);
        let done = RunWriter::with(&mut buf, ReverseCopier::detect(), false, |w| {
            let mut ahead = Ahead::new();
            ahead.forward(w, 90, &pool[..20])?;
            for k in 0..later {
                ahead.forward(w, k, &pool[..1])?;
                written.set(k + 1);
            }
            ahead.finish(w)
        });
        assert_eq!(done, None, "{later} runs after");
        // With SIMD the ring holds the bad run until the last one pushes
        // it out; without, it fails at once.
        let simd = cfg!(all(target_arch = "x86_64", not(feature = "no-simd")));
        let expected = if simd { later.saturating_sub(1) } else { 0 };
        assert_eq!(written.get(), expected, "{later} runs after");
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
            check_writer::<16>(copier, stream);
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
                let done = RunWriter::with(&mut buf, copier, stream, |w| {
                    w.rows::<N>(at, src, row, Heads::Same(rev / N))
                });
                assert_eq!(done, Some(()));
                let expected: Vec<u8> = src
                    .chunks(row)
                    .flat_map(|r| {
                        let mut v = naive::<N>(&r[..rev]);
                        v.extend_from_slice(&r[rev..]);
                        v
                    })
                    .collect();
                assert_eq!(&buf[at..at + src.len()], expected.as_slice(), "width {N}, row {row}, rev {rev}");
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
            let narrow: Vec<u32> = heads.iter().map(|&h| h as u32).collect();
            let src = &pool[5..5 + row * count];
            let expected: Vec<u8> = src
                .chunks(row)
                .zip(&heads)
                .flat_map(|(r, &h)| {
                    let mut v = naive::<N>(&r[..h * N]);
                    v.extend_from_slice(&r[h * N..]);
                    v
                })
                .collect();
            // The same heads as 32-bit and as full-width counts, and a
            // byte each where they fit one.
            let bytes: Vec<u8> = heads.iter().map(|&h| h as u8).collect();
            let lists = [Heads::Each(&narrow), Heads::EachWide(&heads), Heads::Bytes(&bytes)];
            for list in lists.into_iter().take(if elems <= 255 { 3 } else { 2 }) {
                buf.fill(0x33);
                let done = RunWriter::with(&mut buf, copier, stream, |w| w.rows::<N>(at, src, row, list));
                assert_eq!(done, Some(()));
                assert_eq!(&buf[at..at + src.len()], expected.as_slice(), "width {N}, row {row}, {list:?}");
                assert!(buf[..at].iter().chain(&buf[at + src.len()..]).all(|&b| b == 0x33));
            }
            // A head longer than its row is refused, not read past.
            let mut bad = narrow.clone();
            bad[count / 2] = elems as u32 + 1;
            let mut bad_wide = heads.clone();
            bad_wide[count / 2] = elems + 1;
            let bad_bytes: Vec<u8> = bad.iter().map(|&h| h.min(255) as u8).collect();
            RunWriter::with(&mut buf, copier, stream, |w| {
                if elems < 255 {
                    assert_eq!(w.rows::<N>(at, src, row, Heads::Bytes(&bad_bytes)), None);
                }
                assert_eq!(w.rows::<N>(at, src, row, Heads::Each(&bad)), None);
                assert_eq!(w.rows::<N>(at, src, row, Heads::Each(&narrow[1..])), None);
                assert_eq!(w.rows::<N>(at, src, row, Heads::EachWide(&bad_wide)), None);
                assert_eq!(w.rows::<N>(at, src, row, Heads::EachWide(&heads[1..])), None);
            });
        }
    }
}

/// Rows of up to 16 bytes with a head each, laid out so that every pair
/// of heads meets in the two rows of a register: the rows that go two to a
/// register, one in each lane, get every head in either lane.
fn check_head_pairs<const N: usize>(copier: ReverseCopier) {
    for row in (N..=16).step_by(N) {
        let elems = row / N;
        let heads: Vec<u32> =
            (0..=elems).flat_map(|a| (0..=elems).flat_map(move |b| [a as u32, b as u32])).collect();
        let count = heads.len();
        let src: Vec<u8> = (0..row * count + 32).map(|i| (i * 11 + i / 253) as u8).collect();
        let src = &src[..row * count];
        let expected = naive_rows::<N>(src, row, Heads::Each(&heads));
        let bytes: Vec<u8> = heads.iter().map(|&h| h as u8).collect();
        for list in [Heads::Each(&heads), Heads::Bytes(&bytes)] {
            let mut buf = vec![0x5Au8; src.len() + 128];
            let at = buf.as_ptr().align_offset(64) + N;
            let done = RunWriter::with(&mut buf, copier, false, |w| w.rows::<N>(at, src, row, list));
            let what = format!("width {N}, row {row}, {list:?}");
            assert_eq!(done, Some(()));
            assert_eq!(&buf[at..at + src.len()], expected.as_slice(), "{what}");
            assert!(buf[..at].iter().chain(&buf[at + src.len()..]).all(|&b| b == 0x5A), "{what}");
        }
    }
}

#[test]
fn every_pair_of_heads_meets_in_one_register() {
    for copier in [ReverseCopier::detect(), ReverseCopier::ssse3_only(), ReverseCopier::portable()] {
        check_head_pairs::<1>(copier);
        check_head_pairs::<2>(copier);
        check_head_pairs::<4>(copier);
        check_head_pairs::<8>(copier);
        check_head_pairs::<16>(copier);
    }
}

/// Rows that share a head, enough of them for a register to be built at a
/// time over whole periods of rows: every row length under 32 bytes and
/// every head, and a few longer rows, on a line and off one, with and
/// without streaming, against the naive copy.
fn check_rows_alike<const N: usize>(copier: ReverseCopier) {
    // Rows under 32 bytes, and longer ones that are not whole 16-byte
    // blocks (a spread of heads on those).
    let long = [40, 72, 100, 200].into_iter().filter(|r| r % N == 0);
    for row in (N..32).step_by(N).chain(long) {
        // 40 periods of `lcm(row, 32)` bytes, and a row more.
        let gcd = (1..=32).rev().find(|d| row % d == 0 && 32 % d == 0).unwrap_or(1);
        let count = 40 * 32 / gcd + 1;
        let src: Vec<u8> = (0..row * count).map(|i| (i * 7 + i / 251) as u8).collect();
        let elements = row / N;
        for head in (0..=elements).filter(|&h| row < 32 || h < 2 || h + 2 > elements || h == elements / 2) {
            let expected = naive_rows::<N>(&src, row, Heads::Same(head));
            for (skew, stream) in [(0, false), (0, true), (N, false), (32, true)] {
                let mut buf = vec![0x5Au8; src.len() + 128];
                let at = buf.as_ptr().align_offset(64) + skew;
                let done = RunWriter::with(&mut buf, copier, stream, |w| {
                    w.rows::<N>(at, &src, row, Heads::Same(head))
                });
                let what = format!("width {N}, row {row}, head {head}, skew {skew}, stream {stream}");
                assert_eq!(done, Some(()), "{what}");
                assert_eq!(&buf[at..at + src.len()], expected.as_slice(), "{what}");
                assert!(buf[..at].iter().chain(&buf[at + src.len()..]).all(|&b| b == 0x5A), "{what}");
            }
        }
    }
}

#[test]
fn many_short_rows_that_share_a_head_match_the_naive_copy() {
    let copiers = [
        ReverseCopier::detect(),
        ReverseCopier::avx2_only(),
        ReverseCopier::ssse3_only(),
        ReverseCopier::portable(),
    ];
    for copier in copiers {
        check_rows_alike::<1>(copier);
        check_rows_alike::<2>(copier);
        check_rows_alike::<4>(copier);
        check_rows_alike::<8>(copier);
        check_rows_alike::<16>(copier);
    }
}

/// Rows of 2 to 16 bytes, thousands of them, so that their heads are
/// checked in several blocks: each block is written right, and a head too
/// long for its row is refused in whichever block it lies.
fn check_many_short_rows<const N: usize>(copier: ReverseCopier) {
    for row in [2, 4, 8, 16].into_iter().filter(|r| r % N == 0) {
        let count = 5000;
        let elems = row / N;
        let src: Vec<u8> = (0..row * count).map(|i| (i * 7 + i / 251) as u8).collect();
        let heads: Vec<u32> = (0..count).map(|r| ((r * 5 + r / 7) % (elems + 1)) as u32).collect();
        let expected = naive_rows::<N>(&src, row, Heads::Each(&heads));
        let bytes: Vec<u8> = heads.iter().map(|&h| h as u8).collect();
        for (stream, in_bytes) in [(false, false), (true, false), (false, true), (true, true)] {
            let list = if in_bytes { Heads::Bytes(&bytes) } else { Heads::Each(&heads) };
            let mut buf = vec![0u8; src.len() + 64];
            let at = buf.as_ptr().align_offset(64);
            let done = RunWriter::with(&mut buf, copier, stream, |w| w.rows::<N>(at, &src, row, list));
            let what = format!("width {N}, row {row}, bytes {in_bytes}");
            assert_eq!(done, Some(()), "{what}");
            assert_eq!(&buf[at..at + src.len()], expected.as_slice(), "{what}");
            for wrong in [0, 1023, 1024, 1025, 2500, 3500, count - 1] {
                let mut bad = heads.clone();
                bad[wrong] = elems as u32 + 1;
                let bad_bytes: Vec<u8> = bad.iter().map(|&h| h as u8).collect();
                let list = if in_bytes { Heads::Bytes(&bad_bytes) } else { Heads::Each(&bad) };
                let done = RunWriter::with(&mut buf, copier, stream, |w| w.rows::<N>(at, &src, row, list));
                assert_eq!(done, None, "{what}, a long head at {wrong}");
            }
        }
    }
}

#[test]
fn thousands_of_short_rows_check_every_head() {
    for copier in [ReverseCopier::detect(), ReverseCopier::ssse3_only(), ReverseCopier::portable()] {
        check_many_short_rows::<1>(copier);
        check_many_short_rows::<2>(copier);
        check_many_short_rows::<4>(copier);
        check_many_short_rows::<8>(copier);
        check_many_short_rows::<16>(copier);
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
            check_rows_with_own_heads::<16>(copier, stream);
        }
    }
}

/// Rows shorter than a 32-byte register, and rows of whole registers, with
/// a head each: heads of every length from 0 to the row (a spread of them on long
/// rows), at every place in a register for the short rows and in the rows
/// after the first for the long ones (the AVX2 loop reads the first apart
/// from the rest), against the naive copy, with and without streaming, on
/// a line and off one.
fn check_every_head_on_register_rows<const N: usize>(copier: ReverseCopier, stream: bool) {
    let pool: Vec<u8> = (0..800_000u32).map(|i| (i * 11 + i / 256) as u8).collect();
    let mut buf = vec![0u8; 800_000];
    let aligned = buf.as_ptr().align_offset(64);
    // On a 32-byte boundary, on a 16-byte one only, and off both.
    for skew in [0, 16, 32, N] {
        let at = aligned + skew;
        let rows = [2, 3, 4, 8, 12, 16, 20, 24, 31, 64, 96, 128, 160, 256, 1024, 4096, 4128];
        for row in rows.into_iter().filter(|r| r % N == 0) {
            let elems = row / N;
            let heads: Vec<u32> = if row < 32 {
                // Rows shorter than a register, several to one or one
                // each: row `p` of register `g` gets the head `g + p`
                // (wrapped), so every length comes at every place in one.
                // 509 rows, so that the last register is part full and
                // the rows after the last whole one are left to the
                // general loop.
                let per = (32 / row).max(1);
                let heads: Vec<u32> = (0..509).map(|r| ((r / per + r % per) % (elems + 1)) as u32).collect();
                let places: std::collections::HashSet<(usize, u32)> =
                    heads.iter().enumerate().map(|(r, &h)| (r % per, h)).collect();
                assert_eq!(places.len(), per * (elems + 1), "row {row}: some head misses some place");
                heads
            } else {
                // Row 0 the whole row, then every head length on rows up
                // to 256 bytes; on longer ones the shortest and longest 40
                // and 40 more spread between.
                let every = (0..=elems)
                    .filter(|&h| row <= 256 || h <= 40 || h + 40 >= elems || h % (elems / 40) == 0);
                std::iter::once(elems).chain(every).map(|h| h as u32).collect()
            };
            let src = &pool[7..7 + row * heads.len()];
            buf.fill(0x4B);
            let done =
                RunWriter::with(&mut buf, copier, stream, |w| w.rows::<N>(at, src, row, Heads::Each(&heads)));
            let what = format!("width {N}, row {row}, skew {skew}, stream {stream}, {:?}", copier.level);
            assert_eq!(done, Some(()), "{what}");
            assert_eq!(buf[at..at + src.len()], naive_rows::<N>(src, row, Heads::Each(&heads)), "{what}");
            assert!(buf[..at].iter().chain(&buf[at + src.len()..]).all(|&b| b == 0x4B), "{what}");
        }
    }
}

#[test]
fn rows_of_whole_registers_take_heads_of_every_length() {
    for copier in [ReverseCopier::detect(), ReverseCopier::ssse3_only(), ReverseCopier::portable()] {
        for stream in [false, true] {
            check_every_head_on_register_rows::<1>(copier, stream);
            check_every_head_on_register_rows::<2>(copier, stream);
            check_every_head_on_register_rows::<4>(copier, stream);
            check_every_head_on_register_rows::<8>(copier, stream);
            check_every_head_on_register_rows::<16>(copier, stream);
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
            check_rows::<16>(copier, stream);
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
            let copiers = [ReverseCopier::detect(), ReverseCopier::ssse3_only(), ReverseCopier::portable()];
            let cases = copiers.into_iter().flat_map(|c| [(c, false), (c, true)]);
            // One block, then two blocks one after the other.
            for ((copier, stream), blocks) in cases.flat_map(|c| [(c, 1), (c, 2)]) {
                let src = &pool[7..7 + block * blocks];
                buf.fill(0x44);
                RunWriter::with(&mut buf, copier, stream, |w| {
                    assert_eq!(w.descending_rows(at, src, row, block), Some(()));
                    assert_eq!(w.descending_rows(at, &src[1..], row.max(2), block), None);
                    assert_eq!(w.descending_rows(at, src, row, block + 1), None);
                    assert_eq!(w.descending_rows(at, src, row, 0), None);
                });
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
    #[cfg(all(target_arch = "x86_64", not(feature = "no-simd")))]
    {
        let c = ReverseCopier::detect();
        assert_eq!(c.ssse3().is_some(), std::arch::is_x86_feature_detected!("ssse3"));
        assert_eq!(c.avx2().is_some(), c.ssse3().is_some() && std::arch::is_x86_feature_detected!("avx2"));
        assert!(ReverseCopier::ssse3_only().avx2().is_none());
    }
    // Without the x86 loops in the build, only the portable ones are left.
    #[cfg(not(all(target_arch = "x86_64", not(feature = "no-simd"))))]
    assert!(matches!(ReverseCopier::detect().level, Level::Portable));
}

#[test]
fn mismatched_lengths_write_only_the_common_whole_elements() {
    let src = [1u8, 2, 3, 4, 5, 6, 7];
    let mut dst = [0u8; 4];
    ReverseCopier::detect().copy::<2>(&src, &mut dst);
    assert_eq!(dst, [3, 4, 1, 2]);
}

/// The copiers with SIMD loops this machine can run: the widest, its AVX2
/// loops alone where it also has AVX-512 VBMI's, and the 16-byte one when
/// that is narrower. None with the `no-simd` feature.
fn simd_copiers() -> Vec<ReverseCopier> {
    let mut copiers = Vec::new();
    for copier in [ReverseCopier::detect(), ReverseCopier::avx2_only(), ReverseCopier::ssse3_only()] {
        // The tokens are alike but for the features they carry, which
        // their `Debug` names.
        let kind = format!("{:?}", copier.level);
        let known = copiers.iter().any(|c: &ReverseCopier| format!("{:?}", c.level) == kind);
        if !known && !matches!(copier.level, Level::Portable) {
            copiers.push(copier);
        }
    }
    copiers
}

/// Runs `write` over `buf` with the portable copier and then with every
/// SIMD one, each time on a buffer filled alike, with and without
/// streaming, and checks that every SIMD copier returns the same and
/// leaves every byte of `buf` as the portable one did. Leaves `buf` as the
/// portable copier wrote it (without streaming), for the caller to check
/// against a naive copy.
fn agree(buf: &mut [u8], what: impl Fn() -> String, write: impl Fn(&mut RunWriter<'_, '_>) -> Option<()>) {
    for stream in [true, false] {
        buf.fill(0x5A);
        let reference = RunWriter::with(buf, ReverseCopier::portable(), stream, &write);
        let want = buf.to_vec();
        for copier in simd_copiers() {
            buf.fill(0x5A);
            let got = RunWriter::with(buf, copier, stream, &write);
            let what = || format!("{}, {:?}, stream {stream}", what(), copier.level);
            assert_eq!(got, reference, "{}", what());
            if let Some(k) = buf.iter().zip(&want).position(|(a, b)| a != b) {
                panic!("{}: byte {k} is {}, the portable copy wrote {}", what(), buf[k], want[k]);
            }
        }
        buf.copy_from_slice(&want);
    }
}

/// `src`'s rows of `row` bytes, each with its first `heads.of(r)`
/// elements reversed, copied naively.
fn naive_rows<const N: usize>(src: &[u8], row: usize, heads: Heads<'_>) -> Vec<u8> {
    let rows = src.chunks(row).enumerate();
    rows.flat_map(|(r, i)| {
        let h = heads.of(r) * N;
        let mut v = naive::<N>(&i[..h]);
        v.extend_from_slice(&i[h..]);
        v
    })
    .collect()
}

/// Rows of every length up to 300 bytes, with a head per row and with one
/// head for all rows, on a line, on a block off a line, and off any block.
/// The loops for one head take rows of whole 16-byte blocks, and those get
/// heads of every length; other rows are copied a head and a tail at a
/// time, which `runs_agree` checks at every length.
fn rows_agree<const N: usize>() {
    let pool: Vec<u8> = (0..1024u32).map(|i| (i * 37 + i / 256) as u8).collect();
    let mut buf = vec![0u8; 1024];
    let line = buf.as_ptr().align_offset(64);
    for row in (N..=300).step_by(N) {
        let elems = row / N;
        // Enough rows for the streaming loops to take them.
        let count = STREAM_MIN_RUN.div_ceil(row).max(2);
        let src = &pool[1..1 + row * count];
        let each: Vec<usize> = (0..count).map(|r| (r * 7 + r / 3 + row) % (elems + 1)).collect();
        let narrow: Vec<u32> = each.iter().map(|&h| h as u32).collect();
        for skew in [0, 16, N] {
            let at = line + skew;
            let every =
                (0..=elems).filter(|&h| row.is_multiple_of(16) || h < 2 || h + 2 > elems || h == elems / 2);
            let bytes: Vec<u8> = each.iter().map(|&h| h as u8).collect();
            let lists = [Heads::Each(&narrow), Heads::EachWide(&each), Heads::Bytes(&bytes)];
            let lists = lists.into_iter().take(if elems <= 255 { 3 } else { 2 });
            for heads in every.map(Heads::Same).chain(lists) {
                let what = || format!("width {N}, row {row}, {heads:?}, skew {skew}");
                agree(&mut buf, what, |w| w.rows::<N>(at, src, row, heads));
                assert_eq!(buf[at..at + src.len()], naive_rows::<N>(src, row, heads), "{}", what());
            }
        }
    }
}

#[test]
fn simd_rows_match_the_portable_ones_on_every_row_and_head_length() {
    rows_agree::<1>();
    rows_agree::<2>();
    rows_agree::<4>();
    rows_agree::<8>();
    rows_agree::<16>();
}

/// Rows of 1 to 2 KiB that share a head, which the register loop takes
/// in place of two runs a row, and rows just past that (two runs each):
/// heads that end on a register, inside one, near either end of the row,
/// on a line and off one, with and without streaming, in every copier,
/// against the naive copy.
#[test]
fn long_rows_that_share_a_head_match_the_naive_copy() {
    fn check<const N: usize>() {
        for row in [1024, 1040, 1536, 2048, 2064, 4096].into_iter().filter(|r| r % N == 0) {
            let elems = row / N;
            let count = 3;
            let src: Vec<u8> = (0..row * count).map(|i| (i * 31 + i / 253) as u8).collect();
            let mut buf = vec![0u8; src.len() + 128];
            let heads = [0, 1, 2, 32 / N, 32 / N + 1, 100 / N, elems / 2, elems - 1, elems];
            for skew in [0, N] {
                let at = buf.as_ptr().align_offset(64) + skew;
                for h in heads.into_iter().filter(|&h| h <= elems) {
                    let what = || format!("width {N}, row {row}, head {h}, skew {skew}");
                    agree(&mut buf, what, |w| w.rows::<N>(at, &src, row, Heads::Same(h)));
                    let expected = naive_rows::<N>(&src, row, Heads::Same(h));
                    assert_eq!(buf[at..at + src.len()], expected, "{}", what());
                }
            }
        }
    }
    check::<1>();
    check::<2>();
    check::<4>();
    check::<8>();
    check::<16>();
}

/// Rows of 17 to 31 bytes of elements of 1 to 8 bytes, a register each:
/// every head as the rows' own (each once, then again in reverse order),
/// as 32-bit heads and as byte ones, and every head shared by a run of
/// rows too short to be built a period at a time, off a line, against the
/// portable copy with every SIMD copier (the AVX2 loops and, where the CPU
/// has AVX-512 VBMI, its permute) and against the naive copy; and a head
/// longer than its row refused.
#[test]
fn rows_of_17_to_31_bytes_take_every_head() {
    fn check<const N: usize>() {
        for row in (17..32).filter(|r| r % N == 0) {
            let elems = row / N;
            let heads: Vec<u32> = (0..=elems).chain((0..=elems).rev()).map(|h| h as u32).collect();
            let src: Vec<u8> = (0..row * heads.len()).map(|i| (i * 13 + i / 251) as u8).collect();
            let mut buf = vec![0u8; src.len() + 128];
            let at = buf.as_ptr().align_offset(64) + N;
            // The heads as 32 bits and as bytes, as ReverseSequence keeps
            // them for constant lengths of rows this short.
            let bytes: Vec<u8> = heads.iter().map(|&h| h as u8).collect();
            for own in [Heads::Each(&heads), Heads::Bytes(&bytes)] {
                agree(
                    &mut buf,
                    || format!("width {N}, row {row}, own heads {own:?}"),
                    |w| w.rows::<N>(at, &src, row, own),
                );
                assert_eq!(buf[at..at + src.len()], naive_rows::<N>(&src, row, own), "width {N}, row {row}");
            }
            // A head longer than its row, as bytes and as 32 bits, is
            // refused.
            let mut long = bytes.clone();
            long[1] = elems as u8 + 1;
            let long_each: Vec<u32> = long.iter().map(|&h| u32::from(h)).collect();
            for bad in [Heads::Bytes(&long), Heads::Each(&long_each)] {
                let got = RunWriter::with(&mut buf, ReverseCopier::detect(), false, |w| {
                    w.rows::<N>(at, &src, row, bad)
                });
                assert_eq!(got, None, "width {N}, row {row}, {bad:?}");
            }
            // Four rows: fewer than the periods the shared-head loop needs.
            let few = &src[..4 * row];
            for h in 0..=elems {
                let what = || format!("width {N}, row {row}, head {h} shared");
                agree(&mut buf, what, |w| w.rows::<N>(at, few, row, Heads::Same(h)));
                assert_eq!(buf[at..at + few.len()], naive_rows::<N>(few, row, Heads::Same(h)), "{}", what());
            }
        }
    }
    check::<1>();
    check::<2>();
    check::<4>();
    check::<8>();
}

/// Runs of every length up to 700 bytes, in order and reversed, from every
/// kind of boundary.
fn runs_agree<const N: usize>() {
    let pool: Vec<u8> = (0..1024u32).map(|i| (i * 53 + i / 256) as u8).collect();
    let mut buf = vec![0u8; 1024];
    let line = buf.as_ptr().align_offset(64);
    for bytes in (0..=700).step_by(N) {
        let src = &pool[3..3 + bytes];
        for skew in [0, 1, 3, 8, 16, 32, 48, 63] {
            let at = line + skew;
            let what = || format!("width {N}, {bytes} bytes, skew {skew}");
            agree(&mut buf, what, |w| w.reversed::<N>(at, src));
            assert_eq!(buf[at..at + bytes], naive::<N>(src), "{}", what());
            agree(&mut buf, what, |w| w.forward(at, src));
            assert_eq!(&buf[at..at + bytes], src, "{}", what());
        }
    }
}

#[test]
fn simd_runs_match_the_portable_ones_on_every_length() {
    runs_agree::<1>();
    runs_agree::<2>();
    runs_agree::<4>();
    runs_agree::<8>();
    runs_agree::<16>();
}

#[test]
fn simd_descending_rows_match_the_portable_ones_on_every_row_length() {
    let pool: Vec<u8> = (0..8192u32).map(|i| (i * 41 + i / 256) as u8).collect();
    let mut buf = vec![0u8; 8192];
    let line = buf.as_ptr().align_offset(64);
    for row in 1..=300 {
        // One row a block, a few, and a whole group of the 32-byte loop and
        // one more; then two blocks. An even number of rows a block too:
        // streamed 32-byte rows go in pairs, with or without a row before
        // the first line boundary (skews 0 and 32) and after the last pair.
        for (per_block, blocks) in [(1, 2), (3, 1), (9, 2), (4, 2)] {
            let block = row * per_block;
            let count = (STREAM_MIN_RUN.div_ceil(block)).max(blocks);
            let src = &pool[5..5 + block * count];
            for skew in [0, 16, 32, 3] {
                let at = line + skew;
                let what = || format!("row {row}, {per_block} rows a block, skew {skew}");
                agree(&mut buf, what, |w| w.descending_rows(at, src, row, block));
                let expected: Vec<u8> =
                    src.chunks(block).flat_map(|b| b.chunks(row).rev()).flatten().copied().collect();
                assert_eq!(buf[at..at + src.len()], expected, "{}", what());
            }
        }
    }
}

/// Columns `first..first + lens.len()` of output row `k` of a tile with
/// rows `pitch` bytes apart, by the rule of ReverseSubsequences, element by
/// element.
fn naive_subsequence_columns<const N: usize>(
    tile: &[u8],
    pitch: usize,
    k: usize,
    first: usize,
    lens: &[u32],
) -> Vec<u8> {
    let mut out = Vec::new();
    for (j, &len) in lens.iter().enumerate() {
        let len = len as usize;
        let source = if k < len { len - 1 - k } else { k };
        let at = source * pitch + (first + j) * N;
        out.extend_from_slice(&tile[at..at + N]);
    }
    out
}

fn check_subsequence_columns<const N: usize>() {
    let copier = ReverseCopier::detect();
    // Tiles of whole lines and not, a line's columns and a few registers'
    // (so that both the cache-line groups and the single registers after
    // them run), pitches odd in lines and not.
    for (width, size, pad) in [(8, 1, 0), (16, 3, 64), (40, 8, 4), (67, 17, 64), (100, 64, 28)] {
        let pitch = width * N + pad;
        let tile: Vec<u8> = (0..pitch * size + 4).map(|i| (i * 31 + i / 7) as u8).collect();
        for first in [0, 3, width / 2] {
            let count = width - first;
            // Every length from 0 to the axis size, scrambled.
            let lens: Vec<u32> = (0..count).map(|j| ((j * 7 + j / 3) % (size + 1)) as u32).collect();
            // Streamed, rows 32-byte aligned, and not: with a stride that no
            // streaming store could take.
            let rows = [(0, size - 1), (size / 2, size / 2), (size / 3, size - 1)];
            for ((k0, k1), stream) in rows.into_iter().flat_map(|rows| [(rows, false), (rows, true)]) {
                let what = || {
                    format!(
                        "width {N}, tile {width}x{size}, pitch {pitch}, first {first}, rows {k0}..={k1}, stream {stream}"
                    )
                };
                let stride = if stream { (count * N).next_multiple_of(32) + 32 } else { count * N + 5 };
                let len = (k1 - k0) * stride + count * N;
                let mut storage = vec![0xab; len + 32];
                let skew = storage.as_ptr().align_offset(32);
                let out = &mut storage[skew..skew + len];
                let done = copier.subsequence_columns::<N>(
                    &tile,
                    (pitch, size),
                    first,
                    &lens,
                    (k0, k1),
                    (&mut *out, stride),
                    stream,
                );
                let expect = if copier.gathers() { count / 8 * 8 } else { 0 };
                assert_eq!(done, expect, "{}", what());
                // Every written byte by the rule, and nothing else touched:
                // neither the columns left to the caller nor the bytes
                // between rows.
                let mut expected = vec![0xab; out.len()];
                for k in k0..=k1 {
                    let want = naive_subsequence_columns::<N>(&tile, pitch, k, first, &lens);
                    expected[(k - k0) * stride..][..done * N].copy_from_slice(&want[..done * N]);
                }
                assert!(*out == expected, "{}", what());
            }
            // Lengths past the axis, or past `i32::MAX`, still read rows of
            // the tile, from the same column.
            let wild: Vec<u32> = (0..count).map(|j| [size as u32 + 2, u32::MAX, 1 << 31][j % 3]).collect();
            let mut out = vec![0; count * N];
            let done = copier.subsequence_columns::<N>(
                &tile,
                (pitch, size),
                first,
                &wild,
                (0, 0),
                (&mut out, 0),
                false,
            );
            for (j, got) in out.chunks_exact(N).enumerate().take(done) {
                let column = (0..size).map(|r| &tile[r * pitch + (first + j) * N..][..N]).collect::<Vec<_>>();
                assert!(column.contains(&got), "width {N}, element {j}");
            }
        }
        // Arguments that do not fit write nothing: a tile a byte short of
        // what the last element's read needs, a row past the axis, rows out
        // of order, an output a byte short.
        let whole = width / 8 * 8;
        let lens = vec![1u32; whole];
        let read = if N == 2 { 4 } else { N };
        let short = (size - 1) * pitch + (whole - 1) * N + read - 1;
        let mut out = vec![0; whole * N];
        // The columns written from column 0 of `tile` at `rows` into `out`.
        let columns = |tile: &[u8], rows, out: &mut [u8]| {
            copier.subsequence_columns::<N>(tile, (pitch, size), 0, &lens, rows, (out, 0), false)
        };
        // The same arguments fit with the byte back.
        let mut fits = out.clone();
        assert_eq!(columns(&tile[..short + 1], (0, 0), &mut fits), if copier.gathers() { whole } else { 0 });
        assert_eq!(columns(&tile[..short], (0, 0), &mut out), 0);
        assert_eq!(columns(&tile, (size, size), &mut out), 0);
        if size > 1 {
            assert_eq!(columns(&tile, (1, 0), &mut out), 0);
        }
        assert_eq!(columns(&tile, (0, 0), &mut out[..whole * N - 1]), 0);
    }
}

#[test]
fn subsequence_columns_gathered_match_the_rule_element_by_element() {
    check_subsequence_columns::<2>();
    check_subsequence_columns::<4>();
    // Other widths are left to the caller whole.
    let copier = ReverseCopier::detect();
    let tile = vec![0u8; 1024];
    let mut out = vec![0u8; 64];
    assert_eq!(copier.subsequence_columns::<1>(&tile, (64, 8), 0, &[2; 64], (0, 0), (&mut out, 0), false), 0);
    assert_eq!(copier.subsequence_columns::<8>(&tile, (64, 8), 0, &[2; 8], (0, 0), (&mut out, 0), false), 0);
}

/// Checks an in-place ReverseSubsequences kernel on `n`-byte elements
/// against the rule, element by element, on an axis of each of `sizes`:
/// rows of each of `widths` columns (a few bytes longer than the columns
/// read), columns from 0 and 3 on, every length from 0 to the axis size
/// scrambled, then lengths past the axis and past `i32::MAX` (which read as
/// the whole axis), and several ranges of output rows. `run` is given the
/// input, its stride and axis size, the first column, the lengths, the rows,
/// the output and its stride, and returns how many columns it wrote; it
/// must write `per_call(count)` of the `count` columns, and nothing else:
/// neither the columns left to the caller nor the bytes between rows.
fn check_in_place<const N: usize>(
    sizes: &[usize],
    widths: &[usize],
    per_call: impl Fn(usize) -> usize,
    mut run: impl FnMut(&[u8], (usize, usize), usize, &[u32], (usize, usize), &mut [u8], usize) -> usize,
) {
    for &size in sizes {
        for &width in widths {
            let stride = width * N + 7;
            let input: Vec<u8> = (0..stride * size).map(|i| (i * 31 + i / 7) as u8).collect();
            for first in [0, 3] {
                let count = width - first;
                let scrambled: Vec<u32> = (0..count).map(|j| ((j * 7 + j / 3) % (size + 1)) as u32).collect();
                let wild: Vec<u32> =
                    (0..count).map(|j| [size as u32 + 2, u32::MAX, 1 << 31, 3][j % 4]).collect();
                let capped: Vec<u32> = wild.iter().map(|&l| l.min(size as u32)).collect();
                for (lens, rule) in [(&scrambled, &scrambled), (&wild, &capped)] {
                    let rows = [
                        (0, size - 1),
                        (size / 2, size / 2),
                        (1, size - 1),
                        (0, 0),
                        (0, size - 2),
                        (1, size - 2),
                        (3, size - 2),
                    ];
                    for (k0, k1) in rows.into_iter().filter(|(k0, k1)| k0 <= k1) {
                        let what = || {
                            format!(
                                "width {N}, {count} columns, axis {size}, first {first}, rows {k0}..={k1}"
                            )
                        };
                        let out_stride = count * N + 5;
                        let mut out = vec![0xab; (k1 - k0) * out_stride + count * N];
                        let done = run(&input, (stride, size), first, lens, (k0, k1), &mut out, out_stride);
                        assert_eq!(done, per_call(count), "{}", what());
                        let mut expected = vec![0xab; out.len()];
                        for k in k0..=k1 {
                            let want = naive_subsequence_columns::<N>(&input, stride, k, first, rule);
                            expected[(k - k0) * out_stride..][..done * N].copy_from_slice(&want[..done * N]);
                        }
                        assert!(*out == expected, "{}", what());
                    }
                }
            }
        }
    }
}

fn check_subsequence_transposed<const N: usize>() {
    let copier = ReverseCopier::detect();
    let per = 32 / N;
    // A register of columns, a few and some left over.
    check_in_place::<N>(
        &[2, 3, 4, 5, 6, 7, 8],
        &[per, 3 * per + 5],
        |count| if copier.transposes() { count / per * per } else { 0 },
        |input, shape, first, lens, rows, out, out_stride| {
            copier.subsequence_transposed::<N, u32>(input, shape, first, lens, rows, out, out_stride)
        },
    );
    // The same lengths a byte each, those past a byte cut to 255, which is
    // past every axis here as they are.
    check_in_place::<N>(
        &[2, 3, 4, 5, 6, 7, 8],
        &[per, 3 * per + 5],
        |count| if copier.transposes() { count / per * per } else { 0 },
        |input, shape, first, lens, rows, out, out_stride| {
            let bytes: Vec<u8> = lens.iter().map(|&l| l.min(255) as u8).collect();
            copier.subsequence_transposed::<N, u8>(input, shape, first, &bytes, rows, out, out_stride)
        },
    );
    // Arguments that do not fit write nothing: an axis of 1 or 9 rows, an
    // input a byte short of its last row, a row past the axis, rows out of
    // order, an output a byte short.
    let (size, stride) = (8, 2 * per * N);
    let input = vec![1u8; size * stride];
    let lens = vec![2u32; per];
    let mut out = vec![0u8; per * N];
    let exact = (size - 1) * stride + per * N;
    let fits = |input: &[u8], size: usize, rows: (usize, usize), out: &mut [u8]| {
        copier.subsequence_transposed::<N, u32>(input, (stride, size), 0, &lens, rows, out, 0)
    };
    assert_eq!(fits(&input[..exact], size, (0, 0), &mut out), if copier.transposes() { per } else { 0 });
    out.fill(0);
    for (size, rows, input_len) in [
        (1, (0, 0), exact),
        (9, (0, 0), input.len()),
        (8, (0, 0), exact - 1),
        (8, (8, 8), exact),
        (8, (3, 2), exact),
    ] {
        assert_eq!(fits(&input[..input_len.min(input.len())], size, rows, &mut out), 0, "{size} {rows:?}");
    }
    assert_eq!(fits(&input, size, (0, 0), &mut out[..per * N - 1]), 0);
    assert!(out.iter().all(|&b| b == 0));
}

#[test]
fn subsequence_columns_transposed_match_the_rule_element_by_element() {
    check_subsequence_transposed::<1>();
    check_subsequence_transposed::<2>();
    check_subsequence_transposed::<4>();
    check_subsequence_transposed::<8>();
    // Other widths are left to the caller whole.
    let copier = ReverseCopier::detect();
    let input = vec![0u8; 1024];
    let mut out = vec![0u8; 64];
    assert_eq!(
        copier.subsequence_transposed::<16, u32>(&input, (64, 4), 0, &[2; 16], (0, 0), &mut out, 0),
        0
    );
    // Lengths of other widths too.
    assert_eq!(
        copier.subsequence_transposed::<1, usize>(&input, (64, 4), 0, &[2; 32], (0, 0), &mut out, 0),
        0
    );
}

#[test]
fn subsequence_lines_match_the_rule_element_by_element() {
    let copier = ReverseCopier::detect();
    // Axes from 2 rows up, on both sides of whole groups of 4, 8, 16 and 32, and
    // past the rows staged ahead; column counts with and without columns
    // left over, and (300) more than the 256 columns a group of rows is
    // staged in at a time.
    let sizes = [2, 3, 5, 7, 8, 9, 10, 11, 16, 17, 64, 129, 130, 200];
    let mut lines = vec![0u8; 300 * line_pitch::<8>(200).unwrap()];
    // `N`-byte elements on `widths` columns, written in whole groups of
    // `group` columns with AVX2 and not at all without.
    macro_rules! lines_of {
        ($n:literal, $group:literal, $widths:expr) => {
            check_in_place::<$n>(
                &sizes,
                &$widths,
                |count| if copier.transposes() { count / $group * $group } else { 0 },
                |input, shape, first, lens, rows, out, out_stride| {
                    let lines = &mut lines[..lens.len() * line_pitch::<$n>(shape.1).unwrap()];
                    copier.subsequence_lines::<$n>(input, shape, first, lens, lines, rows, out, out_stride)
                },
            )
        };
    }
    lines_of!(8, 4, [4, 9, 23, 300]);
    lines_of!(4, 8, [8, 11, 19, 31, 300]);
    lines_of!(2, 16, [16, 19, 33, 47, 300]);
    lines_of!(1, 32, [32, 35, 64, 95, 300]);
    // Other widths write nothing.
    let input = vec![1u8; 20 * 64];
    let mut out = vec![0u8; 64];
    let mut lines = vec![0u8; 1 << 12];
    assert_eq!(
        copier.subsequence_lines::<3>(&input, (64, 20), 0, &[2; 10], &mut lines, (0, 0), &mut out, 0),
        0
    );
    assert_eq!(
        copier.subsequence_lines::<16>(&input, (64, 20), 0, &[2; 2], &mut lines, (0, 0), &mut out, 0),
        0
    );
    assert!(out.iter().all(|&b| b == 0));
    lines_that_do_not_fit_write_nothing::<8>(copier);
    lines_that_do_not_fit_write_nothing::<4>(copier);
    lines_that_do_not_fit_write_nothing::<2>(copier);
    lines_that_do_not_fit_write_nothing::<1>(copier);
}

/// [`ReverseCopier::subsequence_lines`] with `N`-byte elements writes
/// nothing for arguments that do not fit: an axis of 1 row, an input a
/// byte short of its last row, scratch a byte short, a row past the axis,
/// rows out of order, an output a byte short, and an axis whose lines
/// would not fit `usize`.
fn lines_that_do_not_fit_write_nothing<const N: usize>(copier: ReverseCopier) {
    let group = line_group(N);
    let (size, stride) = (20, 64);
    let input = vec![1u8; size * stride];
    let lens = vec![2u32; group];
    let mut lines = vec![0u8; group * line_pitch::<N>(size).unwrap()];
    let mut out = vec![0u8; 32];
    let exact = (size - 1) * stride + 32;
    let expect = if copier.transposes() { group } else { 0 };
    assert_eq!(
        copier.subsequence_lines::<N>(
            &input[..exact],
            (stride, size),
            0,
            &lens,
            &mut lines,
            (0, 0),
            &mut out,
            0
        ),
        expect
    );
    out.fill(0);
    for (size, rows, input_len, lines_len) in [
        (1, (0, 0), exact, lines.len()),
        (20, (0, 0), exact - 1, lines.len()),
        (20, (0, 0), exact, lines.len() - 1),
        (20, (20, 20), exact, lines.len()),
        (20, (3, 2), exact, lines.len()),
    ] {
        let done = copier.subsequence_lines::<N>(
            &input[..input_len],
            (stride, size),
            0,
            &lens,
            &mut lines[..lines_len],
            rows,
            &mut out,
            0,
        );
        assert_eq!(done, 0, "{N} bytes, {size} {rows:?}");
    }
    assert_eq!(
        copier.subsequence_lines::<N>(
            &input,
            (stride, size),
            0,
            &lens,
            &mut lines,
            (0, 0),
            &mut out[..31],
            0
        ),
        0
    );
    assert_eq!(
        copier.subsequence_lines::<N>(&input, (0, usize::MAX / 2), 0, &lens, &mut lines, (0, 0), &mut out, 0),
        0
    );
    assert!(out.iter().all(|&b| b == 0));
}

/// Output rows `k0..=k1` of one strip by the rule itself: byte `b` of row
/// `k` comes from row `len - 1 - k` while `k < len` (its column's length,
/// `size` where it is longer), else from row `k`.
fn strip_by_rule(
    input: &[u8],
    stride: usize,
    size: usize,
    lens: &[u8],
    (k0, k1): (usize, usize),
) -> Vec<Vec<u8>> {
    (k0..=k1)
        .map(|k| {
            lens.iter()
                .enumerate()
                .map(|(b, &len)| {
                    let len = usize::from(len).min(size);
                    let from = if k < len { len - 1 - k } else { k };
                    input[from * stride + b]
                })
                .collect()
        })
        .collect()
}

#[test]
fn subsequence_strips_match_the_rule_at_every_width() {
    for copier in [
        ReverseCopier::detect(),
        ReverseCopier::avx2_only(),
        ReverseCopier::ssse3_only(),
        ReverseCopier::portable(),
    ] {
        let bytes = copier.strip_bytes();
        for size in [2, 3, 7, 8, 9, 16, 17, 64, 100, 129, 255] {
            // Rows a few bytes more than a strip apart, with bytes that
            // differ everywhere, so that a byte from the wrong row shows.
            let stride = bytes + 5;
            let input: Vec<u8> = (0..size * stride).map(|i| (i * 7 + i / 251) as u8).collect();
            // A length per byte, from 0 to a few past the axis size, and
            // 255 in every seventh byte.
            let lens: Vec<u8> = (0..bytes)
                .map(|b| if b % 7 == 3 { 255 } else { ((b * 37 + size * 11) % (size + 4)).min(255) as u8 })
                .collect();
            for rows in [(0, size - 1), (1, size - 1), (size / 2, size / 2), (0, 0)] {
                let strip = SubsequenceStrip { input: &input, stride, size, lens: &lens, rows };
                let out_stride = bytes + 3;
                let mut out = vec![0xA5u8; (rows.1 - rows.0 + 1) * out_stride];
                // Scratch that holds something already: the result must
                // not depend on it.
                let mut buffer = vec![0xC3u8; (size + 7) * bytes];
                assert!(
                    copier.subsequence_strip(&strip, &mut out, out_stride, &mut buffer),
                    "{size} {rows:?}"
                );
                for (k, expected) in strip_by_rule(&input, stride, size, &lens, rows).into_iter().enumerate()
                {
                    let row = &out[k * out_stride..(k + 1) * out_stride];
                    assert_eq!(
                        &row[..bytes],
                        expected.as_slice(),
                        "size {size}, rows {rows:?}, row {k}, {bytes} bytes"
                    );
                    assert_eq!(row[bytes..], [0xA5; 3], "size {size}, rows {rows:?}, row {k}");
                }
            }
        }
        // Arguments that do not fit write nothing.
        let input = vec![1u8; 300 * bytes];
        let lens = vec![2u8; bytes];
        let mut out = vec![0u8; 300 * bytes];
        let mut buffer = vec![0u8; 300 * bytes];
        for (size, rows, input_len) in
            [(256, (0, 0), 256), (8, (0, 8), 8), (8, (3, 2), 8), (8, (0, 7), 7), (1, (0, 0), 1)]
        {
            let strip = SubsequenceStrip {
                input: &input[..input_len * bytes],
                stride: bytes,
                size,
                lens: &lens,
                rows,
            };
            assert!(!copier.subsequence_strip(&strip, &mut out, bytes, &mut buffer), "{size} {rows:?}");
            assert!(out.iter().all(|&b| b == 0));
        }
        let strip = SubsequenceStrip { input: &input, stride: bytes, size: 8, lens: &lens, rows: (0, 7) };
        assert!(!copier.subsequence_strip(&strip, &mut out[..7 * bytes], bytes, &mut buffer));
        assert!(!copier.subsequence_strip(&strip, &mut out, bytes, &mut buffer[..14 * bytes]));
    }
}

/// Rows of 64 and 96 bytes made of blocks of whole 4-byte words, of 48
/// and 24 bytes two and four at a time, and of 36 to 92 bytes one at a
/// time in the registers they reach into, with every head from none to the
/// whole row and, for the rows that go several at a time, every mix of
/// heads in one group, against the blocks copied one by one; with and
/// without streaming, on destinations on a 32-byte boundary and off it.
/// Rows too few for a group are left, a head longer than its row stops the
/// loop before that row's group, nothing is written past the last group's
/// registers, and rows of other shapes are not taken.
#[test]
fn rows_of_word_blocks_match_the_blocks_copied_one_by_one() {
    let copier = ReverseCopier::detect();
    let cases = [
        (64, 4),
        (64, 8),
        (64, 16),
        (64, 32),
        (96, 4),
        (96, 8),
        (96, 12),
        (96, 16),
        (96, 24),
        (96, 32),
        (96, 48),
        (48, 8),
        (48, 12),
        (48, 16),
        (48, 24),
        (24, 12),
        (36, 12),
        (40, 8),
        (52, 4),
        (60, 12),
        (60, 20),
        (72, 24),
        (84, 12),
        (84, 28),
        (92, 4),
    ];
    for (row, block) in cases {
        let blocks = row / block;
        assert_eq!(copier.takes_word_rows(row, block), copier.transposes(), "{row} {block}");
        // Rows in a group, and the heads of group `g` the digits of `g` in
        // base `blocks + 1`, so every mix comes up.
        // Rows of 36 to 92 bytes other than 48 and 64 go one at a time, a
        // row apart, and the last one's registers spill past it.
        let exact = matches!(row, 24 | 48 | 64 | 96);
        let group = if exact && row != 64 { 96 / row } else { 1 };
        let registers = (row * group).div_ceil(32);
        let spill = 32 * registers - row * group;
        let mixes = (blocks + 1).pow(group as u32);
        let groups = mixes + 3;
        let rows = group * groups + group - 1;
        let heads: Vec<usize> =
            (0..rows).map(|r| (r / group) / (blocks + 1).pow((r % group) as u32) % (blocks + 1)).collect();
        let src: Vec<u8> = (0..rows * row).map(|i| (i * 7 + i / 251) as u8).collect();
        let mut expected = Vec::new();
        for (r, &h) in heads.iter().enumerate() {
            for j in 0..blocks {
                let from = r * row + if j < h { h - 1 - j } else { j } * block;
                expected.extend_from_slice(&src[from..from + block]);
            }
        }
        let whole = match (copier.takes_word_rows(row, block), exact) {
            (false, _) => 0,
            (true, true) => group * groups * row,
            // Every row whose registers end inside the rows.
            (true, false) => ((rows * row - 32 * registers) / row + 1) * row,
        };
        word_rows_match(copier, (&src, 0), (row, block), &heads, &expected, (whole, spill));
        // A head past the row's blocks on row 4, which starts a group, and
        // on each later row of that group: the loop stops before the
        // group, having read its heads up to the bad one.
        for bad in 4..4 + group {
            let mut dst = vec![0u8; rows * row];
            let mut calls = 0;
            let done = copier.word_block_rows((&src, 0), &mut dst, (row, block), false, || {
                calls += 1;
                if calls == bad + 1 {
                    blocks + 1
                } else {
                    heads[calls - 1]
                }
            });
            let stopped = if whole > 0 { (4 * row, bad + 1) } else { (0, 0) };
            assert_eq!((done, calls), stopped, "{row} {block}, row {bad}");
            assert!(dst[..done] == expected[..done], "{row} {block}");
            let last = if done > 0 { done + spill } else { 0 };
            assert!(dst[last..].iter().all(|&b| b == 0), "{row} {block}, row {bad}");
        }
    }
    for (row, block) in [
        (32, 4),
        (32, 16),
        (96, 6),
        (96, 20),
        (96, 96),
        (128, 32),
        (48, 4),
        (24, 24),
        (64, 0),
        (0, 4),
        (100, 4),
        (30, 6),
        (42, 14),
        (44, 44),
    ] {
        assert!(!copier.takes_word_rows(row, block), "{row} {block}");
        let src = vec![1u8; 256];
        let mut dst = vec![0u8; 256];
        assert_eq!(
            copier.word_block_rows((&src, 0), &mut dst, (row, block), false, || 0),
            0,
            "{row} {block}"
        );
        assert!(dst.iter().all(|&b| b == 0));
    }
}

/// Rows longer than 96 bytes of blocks of 3, 5, 6 or 7 whole 4-byte words
/// go a register at a time, each from a window its head places: every
/// head of every row, rows that fill their registers and rows that spill
/// into the next, rows of more than 16 registers (which stop the windows
/// after the head), against the blocks copied one by one. The rows start
/// at the data's start and 32 bytes into it (the first row, whose windows
/// could reach before the data, a block at a time), 64 bytes into it (the
/// windows of the first row reach back to the start) and a row into it,
/// into destinations on a
/// 32-byte boundary and off it, streaming and not, with the bytes around
/// checked. A head past a row's blocks stops the loop before that row.
#[test]
fn long_rows_of_word_blocks_match_the_blocks_copied_one_by_one() {
    let copier = ReverseCopier::detect();
    let cases = [
        (108, 12),
        (192, 12),
        (384, 12),
        (1200, 12),
        (120, 20),
        (320, 20),
        (144, 24),
        (576, 24),
        (112, 28),
        (336, 28),
        (560, 20),
        (224, 28),
        (644, 28),
    ];
    for (row, block) in cases {
        let blocks = row / block;
        assert_eq!(copier.takes_word_rows(row, block), copier.transposes(), "{row} {block}");
        let registers = row.div_ceil(32);
        let spill = 32 * registers - row;
        // Every head once, in a scrambled order (a step with no factor in
        // common with `blocks + 1`) that gives the first row a head other
        // than 0, then a few more rows.
        let rows = blocks + 4;
        let step = (5..).find(|s| (1..=*s).filter(|d| s % d == 0 && (blocks + 1) % d == 0).max() == Some(1));
        let step = step.unwrap_or(1);
        let heads: Vec<usize> = (0..rows).map(|r| ((r + 1) * step) % (blocks + 1)).collect();
        assert!((0..=blocks).all(|h| heads.contains(&h)), "{row} {block}");
        assert_ne!(heads[0], 0, "{row} {block}");
        for pad in [0, 32, 64, row] {
            let src: Vec<u8> = (0..pad + rows * row).map(|i| (i * 7 + i / 251) as u8).collect();
            let mut expected = Vec::new();
            for (r, &h) in heads.iter().enumerate() {
                for j in 0..blocks {
                    let from = pad + r * row + if j < h { h - 1 - j } else { j } * block;
                    expected.extend_from_slice(&src[from..from + block]);
                }
            }
            // Every row whose registers end inside the destination and
            // whose loads, to the end of its registers or 32 bytes past
            // the row, end inside the source.
            let reach = (32 * registers).max(row + 32);
            let taken = (0..rows)
                .take_while(|r| r * row + 32 * registers <= rows * row && pad + r * row + reach <= src.len());
            let whole = if copier.takes_word_rows(row, block) { taken.count() * row } else { 0 };
            word_rows_match(copier, (&src, pad), (row, block), &heads, &expected, (whole, spill));
            // A head past the row's blocks on row 2: the loop stops before
            // it, having read the heads up to it.
            let mut dst = vec![0u8; rows * row];
            let mut calls = 0;
            let done = copier.word_block_rows((&src, pad), &mut dst, (row, block), false, || {
                calls += 1;
                if calls == 3 {
                    blocks + 1
                } else {
                    heads[calls - 1]
                }
            });
            let stopped = if whole > 0 { (2 * row, 3) } else { (0, 0) };
            assert_eq!((done, calls), stopped, "{row} {block}, {pad} bytes before");
            assert!(dst[..done] == expected[..done], "{row} {block}, {pad} bytes before");
            let last = if done > 0 { done + spill } else { 0 };
            assert!(dst[last..].iter().all(|&b| b == 0), "{row} {block}, {pad} bytes before");
        }
    }
    // Blocks of other widths, or rows the windows do not take.
    for (row, block) in
        [(144, 36), (120, 8), (160, 16), (128, 32), (100, 4), (104, 52), (99, 33), (0, 12), (120, 0)]
    {
        assert!(!copier.takes_word_rows(row, block), "{row} {block}");
        let src = vec![1u8; 512];
        let mut dst = vec![0u8; 256];
        assert_eq!(
            copier.word_block_rows((&src, 128), &mut dst, (row, block), false, || 0),
            0,
            "{row} {block}"
        );
        assert!(dst.iter().all(|&b| b == 0));
    }
}

/// Writes the rows of `src` from byte `pad` on through
/// [`ReverseCopier::word_block_rows`] with `heads`, streaming and not, into
/// destinations on a 32-byte boundary and 4 and 32 bytes past one, and
/// checks that it wrote `whole` bytes, those of `expected`, and nothing
/// past them but the `spill` bytes of the last row's registers.
fn word_rows_match(
    copier: ReverseCopier,
    (src, pad): (&[u8], usize),
    (row, block): (usize, usize),
    heads: &[usize],
    expected: &[u8],
    (whole, spill): (usize, usize),
) {
    let bytes = heads.len() * row;
    for stream in [false, true] {
        for off in [0, 4, 32] {
            let mut buf = vec![0xAAu8; bytes + 96];
            let at = buf.as_ptr().align_offset(32) + off;
            let dst = &mut buf[at..at + bytes];
            let mut next = heads.iter().copied();
            let done = copier.word_block_rows((src, pad), dst, (row, block), stream, || next.next().unwrap());
            let what = format!(
                "rows of {row} bytes, blocks of {block}, {pad} bytes before, stream {stream}, offset {off}"
            );
            assert_eq!(done, whole, "{what}");
            let wrong = dst[..done].iter().zip(expected).position(|(a, b)| a != b);
            assert_eq!(wrong, None, "{what}: the first byte that differs");
            let last = if done > 0 { done + spill } else { 0 };
            assert!(dst[last..].iter().all(|&b| b == 0xAA), "{what}");
            assert!(buf[..at].iter().chain(&buf[at + bytes..]).all(|&b| b == 0xAA), "{what}");
        }
    }
}

fn check_transpose<const N: usize>(copier: ReverseCopier) {
    // Sizes below, at and past a block (16, 8 or 4 elements a side) and a
    // tile (a 64-byte line of elements a side), with pitches wider than a
    // row and a guard past the last element written.
    for (rows, cols) in [(1, 1), (3, 70), (16, 16), (17, 65), (64, 64), (70, 130), (129, 9)] {
        let (src_pitch, dst_pitch) = ((cols + 3) * N, (rows + 5) * N);
        let src: Vec<u8> = (0..rows * src_pitch).map(|i| (i * 7 + i / 251) as u8).collect();
        let len = (cols - 1) * dst_pitch + rows * N;
        let mut dst = vec![0xAAu8; len + 2];
        copier.transpose::<N>(&src, src_pitch, &mut dst[..len], dst_pitch, rows, cols).unwrap();
        for i in 0..rows {
            for j in 0..cols {
                let (from, to) = (i * src_pitch + j * N, j * dst_pitch + i * N);
                assert_eq!(
                    dst[to..to + N],
                    src[from..from + N],
                    "width {N}, {rows} × {cols}, element ({i}, {j})"
                );
            }
        }
        assert_eq!(dst[len..], [0xAA, 0xAA], "width {N}, {rows} × {cols}");
        // A destination one byte short is refused, not overrun.
        assert!(copier.transpose::<N>(&src, src_pitch, &mut dst[..len - 1], dst_pitch, rows, cols).is_none());
    }
}

#[test]
fn transposes_of_every_width_match_the_definition_at_every_level() {
    for copier in [
        ReverseCopier::detect(),
        ReverseCopier::avx2_only(),
        ReverseCopier::ssse3_only(),
        ReverseCopier::portable(),
    ] {
        check_transpose::<1>(copier);
        check_transpose::<2>(copier);
        check_transpose::<4>(copier);
        check_transpose::<8>(copier);
    }
}
