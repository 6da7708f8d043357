//! Rows that all move alike, with AVX2: every row of `row` bytes has its
//! bytes permuted the same way (reversed whole, or a shared head
//! reversed), as in an RGB image with its channels swapped, or a batch of
//! 40-byte rows reversed.
//!
//! The output then repeats every `lcm(row, 32)` bytes. When that period is
//! at most 31 registers (rows under 32 bytes, and longer ones up to 248
//! bytes with enough factors of 2 in their length), each register of it is
//! built the same way every time. So a [`Pattern`] works out once, for each
//! register of the period, which 32-byte pieces of the input around it the
//! register needs (one to four) and the in-lane shuffle that places each
//! piece's bytes. A piece is loaded at a fixed shift from the register,
//! so that its low lane serves the register's low lane and its high lane
//! the high one; or, where a row is reversed across both lanes (rows over
//! 32 bytes), with its lanes swapped, as in [`super::mirror`], whichever
//! needs fewer pieces. The loop then builds a register from a load, a
//! shuffle and an `or` per piece, and stores it whole: one 32-byte store
//! per register whatever the row length, where a loop over rows stores one
//! row at a time. Rows of 3, 6, 12 and 24 bytes (RGB in 1, 2, 4 and 8-byte
//! elements) have a period of three registers, which the loop keeps in
//! registers.
//!
//! A piece of a row under 32 bytes, loaded straight, starts at most 30
//! bytes before its register and ends at most 45 past it; other pieces
//! reach further, up to about a row. The periods where that would leave
//! the slices (at both ends) are built from a copy of their input with
//! room on both sides, into a buffer, so every whole row is written.
//!
//! It has the 32-byte form only: the loops it stands in front of (rows
//! one or two to a register under 32 bytes, the general loop's one copy a
//! row above) take CPUs without AVX2.

use std::arch::x86_64::{__m256i, _mm256_loadu2_m128i, _mm256_or_si256};

use super::{Avx2, Plain, Simd, Stores, Width};

/// The most 32-byte pieces a register takes: rows of up to 32 bytes need
/// four at most (rows of 23, 25, 26, 27 and 29 bytes), most need two or
/// three; longer rows reversed whole need two with their lanes swapped,
/// and those with a shorter shared head may need more than four, which
/// other loops then take.
const MAX_PIECES: usize = 4;

/// The most registers in a period: `lcm(row, 32) / 32` is `row` itself
/// for odd rows, 31 at most; longer rows with a longer period are left to
/// other loops.
pub(super) const MAX_REGISTERS: usize = 31;

/// The longest row taken: rows of 248 bytes (a multiple of 8) have a
/// period of 31 registers.
const MAX_ROW: usize = 248;

/// The longest period, in bytes.
const MAX_PERIOD: usize = 32 * MAX_REGISTERS;

/// Room kept before and after a period copied for its edges: more than a
/// piece reaches on either side (a row and a register at most).
const MARGIN: usize = 320;

/// The input bytes that one register of a period needs from one place.
#[derive(Clone, Copy)]
struct Piece {
    /// Where the piece is loaded, in bytes from the register's start.
    shift: isize,
    /// For each byte of the register, its byte in the piece's lane that
    /// serves it, or `-128` (the shuffle writes 0) when another piece
    /// gives it.
    control: [i8; 32],
}

/// How the rows of one length that all move alike are built, a register
/// at a time, over one period of the output.
pub(in crate::kernels::copy) struct Pattern {
    /// Bytes in a period: `lcm(row, 32)`.
    period: usize,
    /// Registers in a period.
    registers: usize,
    /// The most pieces any register needs.
    pieces: usize,
    /// Whether the pieces are loaded with their lanes swapped: the
    /// register's low lane served by the piece's high lane, and its high
    /// lane by the low one.
    swapped: bool,
    /// How far before its register a piece starts, at most.
    before: usize,
    /// How far past its register a piece ends, at most.
    after: usize,
    /// For each register of the period, its pieces; those past the ones
    /// it needs load the register's own bytes and give nothing.
    recipe: [[Piece; MAX_PIECES]; MAX_REGISTERS],
}

impl Pattern {
    /// The pattern of rows of `row` bytes in which byte `b` comes from
    /// byte `from(b)` of the same row. `None` when `row` is 0 or above
    /// [`MAX_ROW`], its period is longer than [`MAX_REGISTERS`] registers,
    /// a register needs more than [`MAX_PIECES`] pieces, or `from` leaves
    /// the row.
    fn new(row: usize, from: impl Fn(usize) -> usize + Copy) -> Option<Pattern> {
        let straight = Pattern::covered(row, from, false);
        match (straight, Pattern::covered(row, from, true)) {
            (Some(straight), Some(swapped)) if swapped.pieces < straight.pieces => Some(swapped),
            (Some(straight), _) => Some(straight),
            (None, swapped) => swapped,
        }
    }

    /// [`Pattern::new`] with the pieces' lanes straight or swapped.
    fn covered(row: usize, from: impl Fn(usize) -> usize, swapped: bool) -> Option<Pattern> {
        if !(1..=MAX_ROW).contains(&row) || (0..row).any(|b| from(b) >= row) {
            return None;
        }
        let period = lcm(row, 32);
        let registers = period / 32;
        if registers > MAX_REGISTERS {
            return None;
        }
        let unused = Piece { shift: 0, control: [i8::MIN; 32] };
        let mut pattern = Pattern {
            period,
            registers,
            pieces: 1,
            swapped,
            before: 0,
            after: 0,
            recipe: [[unused; MAX_PIECES]; MAX_REGISTERS],
        };
        for (k, pieces) in pattern.recipe.iter_mut().take(registers).enumerate() {
            // Byte `j` of the register reads the piece at shift `d` when
            // `d <= t < d + 16`, where `t` is its source, from the
            // register's start, less the start of the piece's lane that
            // serves it: the same lane, or the other one when swapped.
            let start = 32 * k;
            let wanted = |j: usize| {
                let i = start + j;
                let source = i - i % row + from(i % row);
                let lane = if swapped { 16 - j / 16 * 16 } else { j / 16 * 16 };
                source as isize - (start + lane) as isize
            };
            let wanted: [isize; 32] = std::array::from_fn(wanted);
            let mut starts = [0; MAX_PIECES];
            let mut controls = [[i8::MIN; 32]; MAX_PIECES];
            let n = cover(&wanted, &mut starts, &mut controls, 0)?;
            for ((piece, &shift), control) in pieces.iter_mut().zip(&starts).zip(controls).take(n) {
                *piece = Piece { shift, control };
                if shift < 0 {
                    pattern.before = pattern.before.max(shift.unsigned_abs());
                } else {
                    pattern.after = pattern.after.max(shift.unsigned_abs());
                }
            }
            pattern.pieces = pattern.pieces.max(n);
        }
        // A piece reaches less than a period back (the edges then lie in
        // the first period and the last two), and no further than the room
        // the edge periods keep.
        let fits = pattern.before < period && pattern.before <= MARGIN && pattern.after <= MARGIN;
        fits.then_some(pattern)
    }

    /// The periods `first..end` of an input of `len` bytes whose pieces
    /// all read inside it: from the first whose start is at least
    /// `before` bytes in (the second, when a piece starts before its
    /// register), to the last that a piece's reach past it still leaves
    /// inside the input.
    fn in_place(&self, len: usize) -> (usize, usize) {
        (self.before.div_ceil(self.period), len.saturating_sub(self.after) / self.period)
    }

    /// The pattern of rows of `row` bytes (a multiple of `n`) whose first
    /// `head` elements of `n` bytes are reversed and the rest kept in
    /// order. `None` as [`Pattern::new`], or when the head is longer than
    /// the row.
    fn with_head(row: usize, n: usize, head: usize) -> Option<Pattern> {
        if n == 0 || !row.is_multiple_of(n) || head > row / n {
            return None;
        }
        Pattern::new(row, |b| {
            let (element, byte) = (b / n, b % n);
            if element < head {
                (head - 1 - element) * n + byte
            } else {
                b
            }
        })
    }
}

/// Covers the offsets in `wanted` (for each byte of a register or of a
/// lane, where it is read) with as few 16-byte windows as there can be,
/// each starting at the lowest offset not yet covered. Writes the windows'
/// starts into `starts`, and each byte's place in its window into
/// `controls[window][first + j]`; the other bytes of `controls` are left
/// as they are. Returns how many windows it took; `None` when `starts`
/// holds too few.
pub(super) fn cover(
    wanted: &[isize],
    starts: &mut [isize],
    controls: &mut [[i8; 32]],
    first: usize,
) -> Option<usize> {
    let mut covered = [false; 32];
    let covered = covered.get_mut(..wanted.len())?;
    let mut n = 0;
    while let Some(lowest) =
        wanted.iter().zip(covered.iter()).filter(|(_, &done)| !done).map(|(&t, _)| t).min()
    {
        *starts.get_mut(n)? = lowest;
        let control = controls.get_mut(n)?;
        for (j, (&t, done)) in wanted.iter().zip(covered.iter_mut()).enumerate() {
            if !*done && (lowest..lowest + 16).contains(&t) {
                *done = true;
                *control.get_mut(first + j)? = i8::try_from(t - lowest).ok()?;
            }
        }
        n += 1;
    }
    Some(n)
}

/// The most patterns a [`Patterns`] keeps: every head of rows of up to
/// 63 elements, or of a few row lengths.
const PATTERNS_KEPT: usize = 64;

/// Patterns already worked out, and the rows and heads that have none,
/// kept by a writer for the runs it writes next: working one out costs a
/// few microseconds (as much as copying some 20 KiB), and runs of rows
/// that share a head, one per batch index of a ReverseSequence, come back
/// to the same few heads again and again.
#[derive(Default)]
pub(in crate::kernels::copy) struct Patterns {
    /// `(row, n, head)` and the pattern [`Pattern::with_head`] gives them.
    kept: Vec<(PatternKey, Option<Box<Pattern>>)>,
    /// The entry a new pattern replaces once [`PATTERNS_KEPT`] are kept.
    next: usize,
}

/// The row length, element width and head of a kept pattern.
type PatternKey = (usize, usize, usize);

impl Patterns {
    /// [`Pattern::with_head`], worked out once for each `(row, n, head)`
    /// while at most [`PATTERNS_KEPT`] are kept (then each new one takes
    /// the place of the oldest).
    fn with_head(&mut self, row: usize, n: usize, head: usize) -> Option<&Pattern> {
        let key = (row, n, head);
        let at = match self.kept.iter().position(|&(k, _)| k == key) {
            Some(at) => at,
            None => {
                let entry = (key, Pattern::with_head(row, n, head).map(Box::new));
                if self.kept.len() < PATTERNS_KEPT {
                    self.kept.push(entry);
                    self.kept.len() - 1
                } else {
                    let at = self.next % PATTERNS_KEPT;
                    self.next = at + 1;
                    *self.kept.get_mut(at)? = entry;
                    at
                }
            }
        };
        self.kept.get(at)?.1.as_deref()
    }
}

/// Least common multiple of two numbers above 0.
pub(super) fn lcm(a: usize, b: usize) -> usize {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a / x * b
}

/// Writes rows of `row` bytes (at most [`MAX_ROW`], a multiple of `N`) from `src`
/// into `dst`, each with its first `head` elements of `N` bytes reversed
/// and the rest in order, a register at a time. Returns the bytes
/// written: every whole row both slices hold. Writes nothing when the rows
/// or the head do not fit, or when `src` holds fewer than `min_periods`
/// periods of [`Pattern`], which would not repay working it out. When `S`
/// streams, `dst` must lie on a 32-byte boundary; otherwise nothing is
/// written. The pattern is taken from `patterns`, or worked out and kept
/// there.
pub(in crate::kernels::copy) fn rows_alike<S: Stores, const N: usize>(
    isa: Avx2,
    stores: S,
    (src, dst): (&[u8], &mut [u8]),
    row: usize,
    head: usize,
    min_periods: usize,
    patterns: &mut Patterns,
) -> usize {
    let len = src.len().min(dst.len());
    let few = row == 0 || row > MAX_ROW || len / lcm(row, 32) < min_periods.max(1);
    if few || (S::STREAMING && dst.as_ptr().align_offset(32) != 0) {
        return 0;
    }
    let Some(pattern) = patterns.with_head(row, N, head) else {
        return 0;
    };
    let len = len - len % row;
    let (src, dst) = (&src[..len], &mut dst[..len]);
    match (pattern.pieces, pattern.swapped) {
        (1, false) => play::<S, 1, false>(isa, stores, pattern, src, dst),
        (2, false) => play::<S, 2, false>(isa, stores, pattern, src, dst),
        (3, false) => play::<S, 3, false>(isa, stores, pattern, src, dst),
        (_, false) => play::<S, MAX_PIECES, false>(isa, stores, pattern, src, dst),
        (1, true) => play::<S, 1, true>(isa, stores, pattern, src, dst),
        (2, true) => play::<S, 2, true>(isa, stores, pattern, src, dst),
        (_, true) => play::<S, MAX_PIECES, true>(isa, stores, pattern, src, dst),
    }
    len
}

/// One register of a period, ready for a loop: its `P` pieces' shifts
/// and shuffle controls.
#[derive(Clone, Copy)]
pub(super) struct Register<const P: usize> {
    pub(super) shift: [isize; P],
    pub(super) control: [__m256i; P],
}

impl<const P: usize> Register<P> {
    /// The first `count` registers of a period, piece `p` of register `k`
    /// being `piece(k, p)`: its shift and its control. The others give
    /// nothing. For inside [`Simd::run`], whose AVX2 the loads need.
    #[inline(always)]
    pub(super) fn period(
        isa: Avx2,
        count: usize,
        piece: impl Fn(usize, usize) -> (isize, [i8; 32]),
    ) -> [Register<P>; MAX_REGISTERS] {
        let unused = Register { shift: [0; P], control: [isa.splat(0); P] };
        let mut registers = [unused; MAX_REGISTERS];
        for (k, register) in registers.iter_mut().take(count).enumerate() {
            for p in 0..P {
                let (shift, control) = piece(k, p);
                register.shift[p] = shift;
                // SAFETY: the control is 32 bytes long; the token proves
                // AVX2.
                register.control[p] = unsafe { isa.load(control.as_ptr().cast()) };
            }
        }
        registers
    }
}

/// The loop of [`rows_alike`], with `P` pieces a register (at least
/// `pattern.pieces`), loaded with their lanes swapped when `SWAPPED`
/// (which `pattern.swapped` must match), on slices of whole rows and at
/// least one period.
#[inline(always)]
fn play<S: Stores, const P: usize, const SWAPPED: bool>(
    isa: Avx2,
    stores: S,
    pattern: &Pattern,
    src: &[u8],
    dst: &mut [u8],
) {
    let period = pattern.period;
    let len = src.len().min(dst.len());
    let (first, end) = pattern.in_place(len);
    isa.run(
        #[inline(always)]
        || {
            let registers = Register::<P>::period(isa, pattern.registers, |k, p| {
                let piece = pattern.recipe[k][p];
                (piece.shift, piece.control)
            });
            let registers = registers.get(..pattern.registers).unwrap_or_default();
            // SAFETY: for a period `q` in `first..end`, every piece of its
            // register `k` loads 32 bytes from `q * period + 32 * k +
            // shift`, which is at least `q * period - before >= 0` (`q *
            // period >= before`) and ends at most `q * period + period +
            // after <= len`; every store is 32 bytes at `q * period + 32
            // * k`, inside the period, and on a 32-byte boundary when `S`
            // streams, as `dst` is ([`rows_alike`]) and `period` a
            // multiple of 32.
            unsafe {
                let (from, to) = (src.as_ptr(), dst.as_mut_ptr());
                if let Ok(three) = <&[Register<P>; 3]>::try_from(registers) {
                    // A period of three registers (rows of 3, 6, 12, 24, 48
                    // and 96 bytes): its shifts and controls stay in
                    // registers.
                    let three = *three;
                    for q in first..end {
                        build::<_, P, SWAPPED>(isa, stores, &three, from.add(q * period), to.add(q * period));
                    }
                } else {
                    for q in first..end {
                        build::<_, P, SWAPPED>(
                            isa,
                            stores,
                            registers,
                            from.add(q * period),
                            to.add(q * period),
                        );
                    }
                }
            }
            // The periods at the edges, from a copy of their input with
            // room on both sides, into a buffer.
            let mut input = [0u8; MARGIN + MAX_PERIOD + MARGIN];
            let mut output = [0u8; MAX_PERIOD];
            let edges = (0..first).chain(end.max(first)..len.div_ceil(period));
            for q in edges {
                let at = q * period;
                let (lo, hi) = (at.saturating_sub(MARGIN), (at + period + MARGIN).min(len));
                let (Some(part), Some(room)) =
                    (src.get(lo..hi), input.get_mut(MARGIN - (at - lo)..MARGIN - (at - lo) + (hi - lo)))
                else {
                    continue;
                };
                room.copy_from_slice(part);
                // SAFETY: the pieces read from `MARGIN - before` to
                // `MARGIN + period + after` in `input`, inside its `2 *
                // MARGIN + MAX_PERIOD` bytes, and the stores write the
                // `period <= MAX_PERIOD` bytes of `output`, with ordinary
                // stores.
                unsafe {
                    build::<_, P, SWAPPED>(
                        isa,
                        Plain,
                        registers,
                        input.as_ptr().add(MARGIN),
                        output.as_mut_ptr(),
                    )
                };
                // Bytes past the slices' end come from whatever the
                // buffer held there, and are not copied.
                let n = period.min(len.saturating_sub(at));
                if let (Some(out), Some(built)) = (dst.get_mut(at..at + n), output.get(..n)) {
                    out.copy_from_slice(built);
                }
            }
        },
    );
}

/// Builds one period from the input at `from` into `to`, a register at a
/// time.
///
/// # Safety
/// Every piece must read inside the input (from `from - before` to `from
/// + period + after`), the `period` bytes at `to` must be writable, and
/// `to` must lie on a 32-byte boundary when `S` streams.
#[inline(always)]
unsafe fn build<S: Stores, const P: usize, const SWAPPED: bool>(
    isa: Avx2,
    stores: S,
    registers: &[Register<P>],
    from: *const u8,
    to: *mut u8,
) {
    for (k, register) in registers.iter().enumerate() {
        let mut out = isa.splat(0);
        for p in 0..P {
            // SAFETY: the caller guarantees the piece's 32 bytes lie
            // inside the input; the token proves AVX2.
            let v = unsafe {
                let piece = from.offset(register.shift[p]).add(32 * k);
                if SWAPPED {
                    _mm256_loadu2_m128i(piece.cast(), piece.add(16).cast())
                } else {
                    isa.load(piece)
                }
            };
            // SAFETY: the token proves AVX2.
            out = unsafe { _mm256_or_si256(out, isa.shuffle(v, register.control[p])) };
        }
        // SAFETY: the caller guarantees the store's 32 bytes at `32 * k`.
        unsafe { isa.store(stores, to.add(32 * k), out) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks `pattern` for rows of `row` bytes in which byte `b` comes
    /// from byte `from(b)`: each byte of a period given by exactly one
    /// piece, from the right byte, and every piece of the periods read in
    /// place inside the input, for inputs of one to three periods.
    fn check_pattern(pattern: &Pattern, row: usize, from: impl Fn(usize) -> usize) {
        let what = format!("row {row}, swapped {}", pattern.swapped);
        assert_eq!(pattern.period % row, 0, "{what}");
        assert_eq!(pattern.period % 32, 0, "{what}");
        assert!(
            pattern.pieces <= MAX_PIECES && pattern.before <= MARGIN && pattern.after <= MARGIN,
            "{what}"
        );
        for len in [pattern.period, pattern.period + row, 3 * pattern.period + 45] {
            let (first, end) = pattern.in_place(len);
            for q in first..end {
                for (k, pieces) in pattern.recipe[..pattern.registers].iter().enumerate() {
                    for p in pieces {
                        let at = (q * pattern.period + 32 * k) as isize + p.shift;
                        assert!(at >= 0 && at as usize + 32 <= len, "{what}, period {q}");
                    }
                }
            }
        }
        for i in 0..pattern.period {
            let want = (i - i % row + from(i % row)) as isize;
            let (k, j) = (i / 32, i % 32);
            // The piece's lane that serves byte `j`.
            let lane = if pattern.swapped { 16 - j / 16 * 16 } else { j / 16 * 16 };
            let pieces = &pattern.recipe[k];
            let given: Vec<isize> = pieces
                .iter()
                .filter(|p| p.control[j] >= 0)
                .map(|p| (32 * k + lane) as isize + p.shift + isize::from(p.control[j]))
                .collect();
            assert_eq!(given, [want], "{what}, byte {i}");
            assert!(pieces.iter().all(|p| p.control[j] < 16), "{what}");
            assert!(pieces[..pattern.pieces]
                .iter()
                .all(|p| -(pattern.before as isize) <= p.shift && p.shift <= pattern.after as isize));
        }
    }

    /// What [`Pattern`] promises, for every row it takes and every shared
    /// head (a spread of them on rows over 32 bytes): [`check_pattern`].
    #[test]
    fn every_byte_of_a_period_comes_from_one_piece_and_the_right_byte() {
        for n in [1, 2, 4, 8, 16] {
            for row in (n..=MAX_ROW).step_by(n).filter(|&row| lcm(row, 32) <= MAX_PERIOD) {
                let elements = row / n;
                for head in
                    (0..=elements).filter(|&h| row <= 32 || h < 2 || h + 2 > elements || h == elements / 2)
                {
                    let Some(pattern) = Pattern::with_head(row, n, head) else {
                        // Every row under 32 bytes fits, and every longer
                        // one reversed whole; a shorter head on a long row
                        // may need more pieces.
                        assert!(row > 32 && head < elements, "width {n}, row {row}, head {head}");
                        continue;
                    };
                    check_pattern(&pattern, row, |b| {
                        let (element, byte) = (b / n, b % n);
                        let element = if element < head { head - 1 - element } else { element };
                        element * n + byte
                    });
                    if row < 32 && !pattern.swapped {
                        assert!(
                            pattern.before <= 30 && pattern.after <= 45,
                            "width {n}, row {row}, head {head}"
                        );
                    }
                }
            }
        }
        // Rows of 3, 6, 12 and 24 bytes: three registers a period.
        for (row, n) in [(3, 1), (6, 2), (12, 4), (24, 8)] {
            assert_eq!(Pattern::with_head(row, n, row / n).map(|p| p.registers), Some(3));
        }
        assert!(Pattern::new(0, |b| b).is_none());
        assert!(Pattern::new(33, |b| b).is_none());
        assert!(Pattern::new(3, |b| b + 1).is_none());
        assert!(Pattern::with_head(12, 4, 4).is_none());
        assert!(Pattern::with_head(12, 5, 1).is_none());
    }

    /// `src`'s rows of `row` bytes, each with its first `head` elements of
    /// `n` bytes reversed, copied one byte at a time.
    fn by_rule(src: &[u8], row: usize, n: usize, head: usize) -> Vec<u8> {
        (0..src.len())
            .map(|i| {
                let (r, b) = (i / row, i % row);
                let (element, byte) = (b / n, b % n);
                let element = if element < head { head - 1 - element } else { element };
                src[r * row + element * n + byte]
            })
            .collect()
    }

    fn check_rows_alike<const N: usize>(isa: Avx2) {
        // One cache for every row and head, as a writer keeps: each call
        // after the first of a row and head takes its pattern from there,
        // and the cache fills and replaces its entries many times over.
        let patterns = &mut Patterns::default();
        for row in (N..=MAX_ROW).step_by(N).filter(|&row| lcm(row, 32) <= MAX_PERIOD) {
            let elements = row / N;
            let heads =
                (0..=elements).filter(|&h| row <= 32 || h < 2 || h + 2 > elements || h == elements / 2);
            for head in heads.filter(|&h| Pattern::with_head(row, N, h).is_some()) {
                let period = lcm(row, 32);
                // One period (both edges at once), a period and a row, and
                // many periods, each with a few bytes past the last whole
                // row, which are left.
                for (whole, min_periods) in [(period, 1), (period + row, 1), (17 * period + 2 * row, 16)] {
                    let len = whole + N.min(row - 1);
                    let src: Vec<u8> = (0..len).map(|i| (i * 13 + i / 241) as u8).collect();
                    let expected = by_rule(&src[..whole], row, N, head);
                    let mut buf = vec![0xA5u8; len + 96];
                    let line = buf.as_ptr().align_offset(64);
                    for (at, stream) in [(line, false), (line + 1, false), (line + 32, true)] {
                        buf.fill(0xA5);
                        let dst = &mut buf[at..at + len];
                        let done = if stream {
                            // SAFETY: the fence follows the only streaming call.
                            let stream = unsafe { crate::kernels::copy::x86::Streaming::new() };
                            let done = rows_alike::<_, N>(
                                isa,
                                stream,
                                (&src, dst),
                                row,
                                head,
                                min_periods,
                                patterns,
                            );
                            stream.fence();
                            done
                        } else {
                            let plain = super::super::Plain;
                            rows_alike::<_, N>(isa, plain, (&src, dst), row, head, min_periods, patterns)
                        };
                        let what = format!(
                            "width {N}, row {row}, head {head}, {len} bytes, at {at}, stream {stream}"
                        );
                        assert_eq!(done, whole, "{what}");
                        if let Some(k) = (0..whole).find(|&k| buf[at + k] != expected[k]) {
                            panic!("{what}: byte {k} is {}, the rule gives {}", buf[at + k], expected[k]);
                        }
                        assert!(buf[..at].iter().chain(&buf[at + whole..]).all(|&b| b == 0xA5), "{what}");
                    }
                }
                let len = 17 * period + 2 * row;
                let src: Vec<u8> = (0..len).map(|i| (i * 13 + i / 241) as u8).collect();
                // Too few periods, a head too long, or streaming off a
                // 32-byte boundary: nothing is written.
                let mut dst = vec![0u8; len];
                let too_few = len / period + 1;
                assert_eq!(
                    rows_alike::<_, N>(
                        isa,
                        super::super::Plain,
                        (&src, &mut dst),
                        row,
                        head,
                        too_few,
                        patterns
                    ),
                    0
                );
                let long = row / N + 1;
                let plain = super::super::Plain;
                assert_eq!(rows_alike::<_, N>(isa, plain, (&src, &mut dst), row, long, 1, patterns), 0);
                let off = dst.as_ptr().align_offset(32) + 1;
                // SAFETY: nothing is written, and the fence follows.
                let stream = unsafe { crate::kernels::copy::x86::Streaming::new() };
                let slices = (&src[off..], &mut dst[off..]);
                assert_eq!(rows_alike::<_, N>(isa, stream, slices, row, head, 1, patterns), 0);
                stream.fence();
                assert!(dst.iter().all(|&b| b == 0));
            }
        }
    }

    /// The loop writes every whole row, byte for byte as the rule says,
    /// for every row it takes (every row up to 32 bytes, and longer ones
    /// with a short enough period), every width and every shared head (a
    /// spread of them on longer rows), on
    /// and off a line and with streaming stores, and nothing past them.
    #[test]
    fn rows_alike_match_the_rule_for_every_row_and_head() {
        let Some(isa) = Avx2::detect() else {
            eprintln!("no AVX2 on this CPU: rows_alike is not run");
            return;
        };
        check_rows_alike::<1>(isa);
        check_rows_alike::<2>(isa);
        check_rows_alike::<4>(isa);
        check_rows_alike::<8>(isa);
        check_rows_alike::<16>(isa);
    }
}
