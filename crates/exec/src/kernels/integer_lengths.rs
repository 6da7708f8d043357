//! Integer lengths inputs read in one pass with no branch per value, into
//! [`Count`]s or only scanned.
//!
//! Each value is clamped and flagged in a pass that the compiler
//! vectorizes, and only when a flag is up are they read again, one by one,
//! to report the first that is wrong. A caller that can use 32-bit lengths
//! as they are stored only scans them ([`scan_integers`]), and copies
//! nothing.

use super::copy::ReverseCopier;
use super::counts::Count;

/// What a pass over integer lengths learns besides the counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Scan {
    /// Whether any count is above 1 (moves an element).
    pub(super) moves: bool,
    /// Whether every count is the same.
    pub(super) uniform: bool,
    /// Whether some value is negative, or above the limit when it is not
    /// clamped: the caller reads the values again to report the first.
    pub(super) bad: bool,
}

/// An integer type a lengths input may hold.
pub(super) trait Integer: Copy {
    /// Bytes per value.
    const WIDTH: usize = std::mem::size_of::<Self>();
    /// The value whose little-endian bytes are `raw` (`WIDTH` bytes).
    fn read_le(raw: &[u8]) -> Self;
    /// Whether the value is below zero.
    fn negative(self) -> bool;
    /// The value as a `u64`; meaningful only when it is not negative.
    fn magnitude(self) -> u64;
    /// The value as a `u32`; meaningful only when it is not negative and
    /// the type is at most 4 bytes wide.
    fn magnitude32(self) -> u32;
    /// The value as an `i128`, which holds every one exactly.
    fn wide(self) -> i128;
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl Integer for $t {
            #[inline(always)]
            fn read_le(raw: &[u8]) -> $t {
                let mut b = [0u8; std::mem::size_of::<$t>()];
                b.copy_from_slice(raw);
                <$t>::from_le_bytes(b)
            }

            // Always false for the unsigned types.
            #[allow(unused_comparisons)]
            #[inline(always)]
            fn negative(self) -> bool {
                self < 0
            }

            #[inline(always)]
            fn magnitude(self) -> u64 {
                self as u64
            }

            #[inline(always)]
            fn magnitude32(self) -> u32 {
                self as u32
            }

            fn wide(self) -> i128 {
                self.into()
            }
        }
    )*};
}

integer!(i8, i16, i32, i64, u8, u16, u32, u64);

/// Appends the little-endian `T`s of `bytes` to `lens` as counts: each at
/// most `limit` (which must fit `C`), and 0 for the values 0 and 1, which
/// move nothing. A value above `limit` is clamped to it when `clamp` is
/// set, and flagged otherwise; a negative value is always flagged. When
/// [`Scan::bad`] is set, the counts pushed are meaningless.
pub(super) fn read_integers<T: Integer, C: Count>(
    bytes: &[u8],
    limit: u64,
    clamp: bool,
    lens: &mut Vec<C>,
) -> Scan {
    read_or_scan::<T, C, true>(bytes, limit, clamp, lens)
}

/// [`read_integers`] without keeping the counts, for a caller that uses
/// the values as they are stored. The [`Scan`] is about the counts, in
/// which 0 and 1 are the same: values of 0 and 1 together are uniform, and
/// the caller must read a stored 1 as moving nothing.
pub(super) fn scan_integers<T: Integer>(bytes: &[u8], limit: u64, clamp: bool) -> Scan {
    read_or_scan::<T, u32, false>(bytes, limit, clamp, &mut Vec::new())
}

/// [`read_integers`], appending the counts to `lens` only when `KEEP`.
fn read_or_scan<T: Integer, C: Count, const KEEP: bool>(
    bytes: &[u8],
    limit: u64,
    clamp: bool,
    lens: &mut Vec<C>,
) -> Scan {
    // Values a block, each block converted into an array and then
    // appended: a loop of fixed length with no early exit and its sums in
    // locals, compiled with the widest vector instructions the CPU has
    // (the baseline's SSE2 has no 64-bit compares, and the loop stayed
    // scalar). Pushed value by value, the same work took four to five
    // cycles a value.
    //
    // Values of up to 32 bits with a limit that fits 32 bits are worked on
    // in 32-bit lanes, twice as many to a register as in 64-bit ones.
    const BLOCK: usize = 64;
    let first = bytes.get(..T::WIDTH).map_or(0, |raw| count(T::read_le(raw).magnitude(), limit));
    let narrow = match u32::try_from(limit) {
        Ok(limit) if T::WIDTH <= 4 => Some(limit),
        _ => None,
    };
    let seen = ReverseCopier::detect().vectorized(
        #[inline(always)]
        || {
            let mut seen = Seen::default();
            let mut block = [C::narrow(0); BLOCK];
            let mut blocks = bytes.chunks_exact(T::WIDTH * BLOCK);
            macro_rules! each_block {
                ($convert:expr) => {{
                    for chunk in &mut blocks {
                        seen.join($convert(chunk, &mut block[..]));
                        if KEEP {
                            lens.extend_from_slice(&block);
                        }
                    }
                    let rest = blocks.remainder();
                    let n = rest.len() / T::WIDTH;
                    if let Some(tail) = block.get_mut(..n) {
                        seen.join($convert(rest, tail));
                        if KEEP {
                            lens.extend_from_slice(tail);
                        }
                    }
                }};
            }
            match narrow {
                // `first` is at most `limit`, so it fits 32 bits too.
                Some(limit) => each_block!(|raw: &[u8], out: &mut [C]| convert32::<T, C>(
                    raw,
                    out,
                    limit,
                    clamp,
                    first as u32
                )),
                None => {
                    each_block!(|raw: &[u8], out: &mut [C]| convert::<T, C>(raw, out, limit, clamp, first))
                }
            }
            seen
        },
    );
    Scan { moves: seen.any != 0, uniform: seen.differ == 0, bad: seen.bad != 0 }
}

/// A value's count: at most `limit`, and 0 for 0 and 1.
#[inline(always)]
fn count(magnitude: u64, limit: u64) -> u64 {
    let n = magnitude.min(limit);
    if n <= 1 {
        0
    } else {
        n
    }
}

/// What [`convert`] saw, as bits: any bit set in `any` is a count above 1,
/// in `differ` a count unlike the first, in `bad` a value flagged.
#[derive(Clone, Copy, Default)]
struct Seen {
    any: u64,
    differ: u64,
    bad: u64,
}

impl Seen {
    #[inline(always)]
    fn join(&mut self, other: Seen) {
        self.any |= other.any;
        self.differ |= other.differ;
        self.bad |= other.bad;
    }
}

/// Writes the counts of the `T`s in `raw` into `out`, one per value, and
/// tells what it saw.
#[inline(always)]
fn convert<T: Integer, C: Count>(raw: &[u8], out: &mut [C], limit: u64, clamp: bool, first: u64) -> Seen {
    let (mut any, mut differ, mut bad) = (0u64, 0u64, 0u64);
    for (slot, raw) in out.iter_mut().zip(raw.chunks_exact(T::WIDTH)) {
        let v = T::read_le(raw);
        let m = v.magnitude();
        let n = count(m, limit);
        bad |= u64::from(v.negative()) | u64::from(!clamp & (m > limit));
        any |= n;
        differ |= n ^ first;
        *slot = C::narrow(n);
    }
    Seen { any, differ, bad }
}

/// [`convert`] in 32-bit lanes, for values of at most 4 bytes and a
/// `limit` that fits 32 bits.
#[inline(always)]
fn convert32<T: Integer, C: Count>(raw: &[u8], out: &mut [C], limit: u32, clamp: bool, first: u32) -> Seen {
    let (mut any, mut differ, mut bad) = (0u32, 0u32, 0u32);
    for (slot, raw) in out.iter_mut().zip(raw.chunks_exact(T::WIDTH)) {
        let v = T::read_le(raw);
        let m = v.magnitude32();
        let n = m.min(limit);
        let n = if n <= 1 { 0 } else { n };
        bad |= u32::from(v.negative()) | u32::from(!clamp & (m > limit));
        any |= n;
        differ |= n ^ first;
        *slot = C::narrow(u64::from(n));
    }
    Seen { any: any.into(), differ: differ.into(), bad: bad.into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes_of(values: &[i32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn counts_are_clamped_or_flagged_and_ones_move_nothing() {
        let bytes = bytes_of(&[0, 1, 2, 7, 9]);
        let mut lens = Vec::<u32>::new();
        let scan = read_integers::<i32, u32>(&bytes, 7, true, &mut lens);
        assert_eq!(lens, [0, 0, 2, 7, 7]);
        assert_eq!(scan, Scan { moves: true, uniform: false, bad: false });
        // Unclamped, 9 is above the limit and flagged.
        let mut lens = Vec::<usize>::new();
        assert!(read_integers::<i32, usize>(&bytes, 7, false, &mut lens).bad);
        // A negative value is flagged either way.
        for clamp in [true, false] {
            let mut lens = Vec::<u32>::new();
            assert!(read_integers::<i32, u32>(&bytes_of(&[3, -1, 2]), 7, clamp, &mut lens).bad);
        }
    }

    #[test]
    fn every_value_is_seen_across_blocks_and_the_remainder() {
        // 64 values a block: a flag, a difference or a move in the first
        // block, the second, or the remainder after them.
        for at in [0, 63, 64, 127, 128, 130] {
            let mut values = vec![1i32; 131];
            values[at] = -4;
            let mut lens = Vec::<u32>::new();
            let scan = read_integers::<i32, u32>(&bytes_of(&values), 5, true, &mut lens);
            assert_eq!(lens.len(), 131);
            assert_eq!((scan.bad, scan.moves, scan.uniform), (true, true, false), "negative at {at}");

            let mut values = vec![3i32; 131];
            values[at] = 4;
            let mut lens = Vec::<u32>::new();
            let scan = read_integers::<i32, u32>(&bytes_of(&values), 5, false, &mut lens);
            assert_eq!(scan, Scan { moves: true, uniform: false, bad: false }, "4 at {at}");
            assert_eq!(lens[at], 4);
            assert!(lens.iter().enumerate().all(|(i, &n)| n == if i == at { 4 } else { 3 }));

            let mut values = vec![1i32; 131];
            values[at] = 2;
            let mut lens = Vec::<usize>::new();
            let scan = read_integers::<i32, usize>(&bytes_of(&values), 5, false, &mut lens);
            assert_eq!(scan, Scan { moves: true, uniform: false, bad: false }, "2 at {at}");
        }
        let mut lens = Vec::<u32>::new();
        let scan = read_integers::<i32, u32>(&bytes_of(&[5; 200]), 5, false, &mut lens);
        assert_eq!(scan, Scan { moves: true, uniform: true, bad: false });
        let scan = read_integers::<i32, u32>(&[], 5, false, &mut lens);
        assert_eq!(scan, Scan { moves: false, uniform: true, bad: false });
    }

    /// Counts of `values` worked out one by one, and whether one is flagged.
    fn expected(values: &[i64], limit: u64, clamp: bool) -> (Vec<u64>, bool) {
        let counts = values.iter().map(|&v| count(u64::try_from(v).unwrap_or(0), limit)).collect();
        let bad = values.iter().any(|&v| v < 0 || (!clamp && u64::try_from(v).is_ok_and(|m| m > limit)));
        (counts, bad)
    }

    #[test]
    fn narrow_values_give_the_same_counts_in_32_and_64_bit_lanes() {
        // Limits that fit 32 bits take the 32-bit lanes, the last does not.
        // Some of the `i32`s are negative, which is flagged; their absolute
        // values give the counts.
        let values: Vec<i64> = (0..300).map(|i| (i * 7919) % 600 - 40).collect();
        let unsigned: Vec<i64> = (0..300).map(|i| (i * 2_654_435_761_i64) % (1 << 32)).collect();
        for limit in [5, 300, 700, u64::from(u32::MAX), u64::from(u32::MAX) + 9] {
            for clamp in [true, false] {
                let mut lens = Vec::<usize>::new();
                let scan = read_integers::<i32, usize>(
                    &bytes_of(&values.iter().map(|&v| v as i32).collect::<Vec<_>>()),
                    limit,
                    clamp,
                    &mut lens,
                );
                assert!(scan.bad, "i32, limit {limit}, clamp {clamp}");
                let non_negative: Vec<i64> = values.iter().map(|v| v.abs()).collect();
                let mut lens = Vec::<usize>::new();
                let scan = read_integers::<i32, usize>(
                    &bytes_of(&non_negative.iter().map(|&v| v as i32).collect::<Vec<_>>()),
                    limit,
                    clamp,
                    &mut lens,
                );
                let (want, bad) = expected(&non_negative, limit, clamp);
                assert_eq!(scan.bad, bad, "i32, limit {limit}, clamp {clamp}");
                if !bad {
                    assert_eq!(lens.iter().map(|&n| n as u64).collect::<Vec<_>>(), want);
                }
                // The scan sees what the read sees, and keeps nothing.
                let scanned = scan_integers::<i32>(
                    &bytes_of(&non_negative.iter().map(|&v| v as i32).collect::<Vec<_>>()),
                    limit,
                    clamp,
                );
                assert_eq!(scanned, scan, "scan, limit {limit}, clamp {clamp}");
                let bytes: Vec<u8> = non_negative.iter().flat_map(|&v| (v as i16).to_le_bytes()).collect();
                let mut lens = Vec::<usize>::new();
                let scan = read_integers::<i16, usize>(&bytes, limit, clamp, &mut lens);
                let (want, bad) = expected(&non_negative, limit, clamp);
                assert_eq!(scan.bad, bad, "i16, limit {limit}, clamp {clamp}");
                assert_eq!(lens.iter().map(|&n| n as u64).collect::<Vec<_>>(), want);
                assert_eq!(scan.moves, want.iter().any(|&n| n > 0));
                assert_eq!(scan.uniform, want.iter().all(|&n| n == want[0]));
                let bytes: Vec<u8> = unsigned.iter().flat_map(|&v| (v as u32).to_le_bytes()).collect();
                let mut lens = Vec::<usize>::new();
                let scan = read_integers::<u32, usize>(&bytes, limit, clamp, &mut lens);
                let (want, bad) = expected(&unsigned, limit, clamp);
                assert_eq!(scan.bad, bad, "u32, limit {limit}, clamp {clamp}");
                if !bad {
                    assert_eq!(lens.iter().map(|&n| n as u64).collect::<Vec<_>>(), want);
                }
            }
        }
    }

    #[test]
    fn wide_unsigned_values_are_flagged_not_wrapped() {
        let bytes: Vec<u8> = [2u64, u64::MAX].iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut lens = Vec::<u32>::new();
        assert!(read_integers::<u64, u32>(&bytes, 9, false, &mut lens).bad);
        let mut lens = Vec::<u32>::new();
        let scan = read_integers::<u64, u32>(&bytes, 9, true, &mut lens);
        assert_eq!((lens, scan.bad), (vec![2, 9], false));
        let bytes: Vec<u8> = [i64::MIN, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut lens = Vec::<u32>::new();
        assert!(read_integers::<i64, u32>(&bytes, 9, true, &mut lens).bad);
    }
}
