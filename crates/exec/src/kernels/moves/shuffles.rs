//! Short units as blocks of byte shuffles.
//!
//! An output of many units of a few bytes each (a Tile, Pad or Roll of
//! short rows, a Concat of pairs, a channel swap) walked a unit at a time
//! costs the walk, about 10 ns a unit, for a copy of a few bytes. But
//! every unit reads its inputs at the same offsets, moved on by a fixed
//! stride per input from one unit to the next. So a block of units that
//! fills whole 16-byte lanes reads the same pattern in every block: each
//! lane is a few 16-byte windows of the inputs, shuffled byte by byte into
//! place. The pattern is worked out once per play from the first block,
//! and every block then costs a load and a shuffle per window and a store
//! per lane (`copy::shuffle_blocks`).

use super::{Moves, Step};
use crate::kernels::copy::{shuffle_blocks, Blocks, Window, NONE};

/// The longest unit, in bytes, played as shuffles; longer units are rows
/// the walk copies whole.
const MAX_UNIT: usize = 64;

/// The longest block: the units of a block fill whole lanes, so a block
/// is the least common multiple of the unit and 16 bytes.
const MAX_BLOCK: usize = 256;

/// The most inputs the units may read: one for most ops, two for a pad
/// with its fill value or a Concat of two.
pub(super) const MAX_INPUTS: usize = 4;

/// The most windows a lane may read. Past a few, each window brings
/// fewer bytes than the load costs, and the walk does as well.
const MAX_LANE_WINDOWS: usize = 4;

/// The most windows a block may read: two per lane on the longest block.
const MAX_WINDOWS: usize = 2 * MAX_BLOCK / 16;

/// Outputs shorter than this are walked: working the pattern out costs
/// about as much as walking this many bytes of short units.
const MIN_OUTPUT: usize = 16 << 10;

/// Inputs shorter than this are read from a copy padded to this length,
/// so that a window of 16 bytes fits in them: a pad's fill value, one
/// element, is read this way.
pub(super) const PADDED: usize = 64;

/// The pattern of a block of units, and the unit range it may play.
#[derive(Clone, Debug)]
pub(super) struct UnitShuffles {
    /// Units per block.
    units: usize,
    /// Bytes per block: a multiple of 16.
    bytes: usize,
    /// The windows of the first block's lanes, lane after lane.
    windows: [Window; MAX_WINDOWS],
    /// How many of `windows` there are.
    len: usize,
    /// Bytes each input moves from one unit to the next.
    stride: [isize; MAX_INPUTS],
    /// The first and last unit a block may start at, its reads inside
    /// every input.
    starts: (usize, usize),
}

impl UnitShuffles {
    /// The pattern of `moves` for elements of `n` bytes read from inputs of
    /// `lens` bytes, `None` when it does not pay or does not fit: units
    /// longer than [`MAX_UNIT`], an indexed outer step, a lane that needs
    /// more than [`MAX_LANE_WINDOWS`] windows, or too short an output.
    pub(super) fn new(moves: &Moves, n: usize, lens: &[usize]) -> Option<UnitShuffles> {
        let unit = moves.unit.checked_mul(n)?;
        if unit == 0 || unit > MAX_UNIT || lens.len() > MAX_INPUTS {
            return None;
        }
        // 16 is a power of two: the largest power of two dividing `unit`,
        // up to 16, is their greatest common divisor.
        let bytes = unit / (unit & unit.wrapping_neg()).min(16) * 16;
        let units = bytes / unit;
        if bytes > MAX_BLOCK
            || moves.outer < units.checked_mul(4)?
            || moves.len()?.checked_mul(n)? < MIN_OUTPUT
        {
            return None;
        }
        let mut stride: [Option<isize>; MAX_INPUTS] = [None; MAX_INPUTS];
        for piece in &moves.pieces {
            let Step::Stride(s) = piece.outer else { return None };
            let s = s.checked_mul(isize::try_from(n).ok()?)?;
            let slot = stride.get_mut(piece.input)?;
            match *slot {
                None => *slot = Some(s),
                Some(t) if t == s => {}
                Some(_) => return None,
            }
        }
        // Where each byte of the first block comes from: an input and a
        // byte of it, or nowhere (a zero).
        let mut from: [Option<(usize, usize)>; MAX_BLOCK] = [None; MAX_BLOCK];
        moves.each_element(0..units, |at, src| {
            if let Some((k, i)) = src {
                for j in 0..n {
                    let byte = i.checked_mul(n)?.checked_add(j)?;
                    *from.get_mut(at.checked_mul(n)?.checked_add(j)?)? = Some((k, byte));
                }
            }
            Some(())
        })?;
        let empty = Window { input: 0, at: 0, mask: [NONE; 16], last: false };
        let mut windows = [empty; MAX_WINDOWS];
        let mut len = 0;
        for lane in from.get(..bytes)?.chunks_exact(16) {
            let first = len;
            let mut left: [Option<(usize, usize)>; 16] = lane.try_into().ok()?;
            // Each window starts at the lowest byte left of the lowest
            // input left, and takes every byte left within its 16.
            while let Some((k, low)) = left.iter().flatten().min().copied() {
                let mut mask = [NONE; 16];
                for (m, e) in mask.iter_mut().zip(left.iter_mut()) {
                    if let Some((input, byte)) = *e {
                        if input == k && byte - low < 16 {
                            *m = u8::try_from(byte - low).ok()?;
                            *e = None;
                        }
                    }
                }
                *windows.get_mut(len)? = Window { input: k, at: low, mask, last: false };
                len += 1;
            }
            if len == first || len - first > MAX_LANE_WINDOWS {
                return None;
            }
            windows.get_mut(len - 1)?.last = true;
        }
        // Runs of 8 bytes and more in order are one load and one store
        // each in the walk: where lanes need several windows, each window
        // brings no more than such a run, and the walk is as fast (a
        // Concat of pairs of f32 ran 1.15 times slower as shuffles).
        let long_runs = moves.pieces.iter().all(|p| {
            p.dims.last().is_some_and(|d| d.src == Step::Stride(1) && d.count.saturating_mul(n) >= 8)
        });
        if len > 2 * bytes / 16 || (long_runs && len > bytes / 16) {
            return None;
        }
        let stride = stride.map(|s| s.unwrap_or(0));
        let last = moves.outer - units;
        let starts = starts(&windows[..len], &stride, lens, last)?;
        Some(UnitShuffles { units, bytes, windows, len, stride, starts })
    }

    /// Units per block.
    pub(super) fn units(&self) -> usize {
        self.units
    }

    /// The first and last unit a block may start at.
    pub(super) fn starts(&self) -> (usize, usize) {
        self.starts
    }

    /// Plays `blocks` blocks from unit `first` (a start within
    /// [`UnitShuffles::starts`]) into `dst`, reading `sources` (the inputs,
    /// each shorter than [`PADDED`] bytes padded to it), with streaming
    /// stores when `stream` asks and `dst` is 16-byte aligned.
    pub(super) fn play(
        &self,
        sources: &[&[u8]],
        first: usize,
        blocks: usize,
        dst: &mut [u8],
        stream: bool,
    ) -> Option<()> {
        let first = isize::try_from(first).ok()?;
        let units = isize::try_from(self.units).ok()?;
        let mut shift = [0isize; MAX_INPUTS];
        let mut advance = [0isize; MAX_INPUTS];
        for ((sh, ad), &s) in shift.iter_mut().zip(&mut advance).zip(&self.stride) {
            *sh = s.checked_mul(first)?;
            *ad = s.checked_mul(units)?;
        }
        let plan = Blocks {
            windows: self.windows.get(..self.len)?,
            bytes: self.bytes,
            advance: &advance,
            shift: &shift,
        };
        shuffle_blocks(&plan, sources, blocks, dst, stream)
    }
}

/// The first and last unit, up to `last`, at which a block's windows
/// all read inside their inputs (of `lens` bytes), each input moving
/// `stride` bytes a unit; `None` when there is none.
fn starts(windows: &[Window], stride: &[isize], lens: &[usize], last: usize) -> Option<(usize, usize)> {
    let (mut lo, mut hi) = (0i128, i128::try_from(last).ok()?);
    for w in windows {
        let s = i128::try_from(*stride.get(w.input)?).ok()?;
        let at = i128::try_from(w.at).ok()?;
        // The reads of a block starting at unit `u` are
        // `at + u * s .. at + u * s + 16`, inside `0..len`.
        let room = i128::try_from(*lens.get(w.input)?).ok()? - 16 - at;
        match s.signum() {
            0 if room < 0 => return None,
            0 => {}
            1 => hi = hi.min(room.checked_div_euclid(s)?),
            _ => {
                hi = hi.min(at.checked_div_euclid(-s)?);
                lo = lo.max((-room).checked_add(-s - 1)?.checked_div_euclid(-s)?);
            }
        }
    }
    (lo <= hi).then_some(())?;
    Some((usize::try_from(lo).ok()?, usize::try_from(hi).ok()?))
}
