//! Lines whose lengths change every few lines: data seen as `[outer,
//! size, inner]`, where every line `(o, i)` along the middle axis reverses
//! its own first `lens[o * inner + i]` elements and keeps the rest.
//!
//! ReverseSubsequences plays its lengths this way off the innermost axis
//! wherever neighbouring lines rarely share a length (runs would be an
//! element long there), and ReverseSequence plays time-major data this way
//! where its own runs would be a few elements each ([`play_lines`]).
//! Neither kernel reaches into the other: both hand their lines to this
//! module.
//!
//! The strategies, each in a file of its own, tried in this order for
//! each chunk of the output ([`ScatteredLines::play`]):
//! - `transposed`: with AVX2, axes of up to 8 rows are turned into lines
//!   and back in registers, a register of columns at a time, each line's
//!   head reversed by one shuffle;
//! - `strips`: 1- and 2-byte elements on axes of 16 to 255 rows are
//!   shifted by byte-wise selects, `log2(size)` per row, one register of
//!   columns at a time (with AVX-512, whose registers are a cache line,
//!   in place, and 8-byte elements in lines of at least 512 bytes too);
//! - `staged`: longer axes (1- and 2-byte elements on axes of over 255
//!   rows, 4-byte ones on axes of over 2048, or of over 64 with 1024
//!   columns or more, 8-byte ones whose blocks outgrow the gathers'
//!   buffer) go through lines staged in a buffer;
//! - `shift`: other 1-byte elements are shifted a whole row at a time;
//! - `gather`: the rest are gathered from a tile staged in a buffer (on
//!   the stack, or, without AVX2's gathers, for axes too long for it, in
//!   the thread's buffer, tiles of up to 1 MiB).
//!
//! `tiles` holds the walk over blocks and tiles they share, and `tuning`
//! every constant that picks between them or sizes their tiles, each with
//! the measurement behind it (the long story is in `docs/performance.md`,
//! "Why the ReverseSequence and ReverseSubsequences constants are what
//! they are").

mod gather;
mod shift;
mod staged;
mod strips;
#[cfg(test)]
mod tests;
mod tiles;
mod transposed;
mod tuning;

use ovir_tensor::{ElementType, Tensor};

use crate::kernels::copy::ReverseCopier;
use crate::kernels::counts::Count;
use crate::kernels::{parallel, ExecOptions, KernelError};

pub(super) use staged::lines_win;
use tuning::{scattered_cost, SCATTERED_STREAM_MIN_BYTES};

/// The data seen as `[outer, size, inner]`, where `size` is the reversed
/// axis; the line at `(o, i)` has length `lens[o * inner + i]` (`outer`
/// is however many blocks of `size * inner` elements the data holds).
#[derive(Debug)]
pub(super) struct ScatteredLines<'a, C> {
    pub(super) size: usize,
    pub(super) inner: usize,
    /// Elements to reverse per line, clamped; 0 when nothing moves.
    pub(super) lens: &'a [C],
}

thread_local! {
    /// The buffer [`ScatteredLines::lines`] stages its lines in, one per
    /// thread, kept from one run to the next: up to [`LINES_MAX_BYTES`],
    /// too large for a thread's stack. Without AVX2's gathers,
    /// [`ScatteredLines::gather`] stages the tiles of long axes in it
    /// too. [`ScatteredLines::strips`] keeps
    /// its stages in it too (about 180 KiB): on the calling thread, which
    /// runs one thread's share of every run, they are no longer zeroed on
    /// every run (a worker thread starts with an empty buffer).
    pub(super) static LINES: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A cache line's bytes: the columns of [`ScatteredLines::gather`]'s
/// tiles come in whole lines, and going down the tile, its rows lie an odd
/// number of lines apart.
pub(super) const LINE: usize = 64;

impl<C: Count> ScatteredLines<'_, C> {
    /// Moves `data` into `out`, which has its type and shape and is not
    /// strings: as lines in registers ([`ScatteredLines::transposed`])
    /// where they take the plan, else in strips
    /// ([`ScatteredLines::strips`]) or as lines staged in a buffer
    /// ([`ScatteredLines::lines`]) where they do, else through the shifter
    /// ([`ScatteredLines::shift`]) where it does, else by the gathers
    /// ([`ScatteredLines::gather`]). Elements are `width` bytes each
    /// (`None`: the data's own); `op` names the op in errors.
    pub(super) fn play(
        &self,
        op: &'static str,
        data: &Tensor,
        out: &mut Tensor,
        options: &ExecOptions,
        width: Option<usize>,
    ) -> Result<(), KernelError> {
        self.play_with(ReverseCopier::detect(), op, data, out, options, width)
    }

    /// [`ScatteredLines::play`] with the loops of `copier`.
    fn play_with(
        &self,
        copier: ReverseCopier,
        op: &'static str,
        data: &Tensor,
        out: &mut Tensor,
        options: &ExecOptions,
        width: Option<usize>,
    ) -> Result<(), KernelError> {
        let ty = data.element_type();
        let internal = KernelError::Internal {
            op,
            what: "the output holds no bytes, or a line left the data or the output",
        };
        let src = data.bytes().ok_or(KernelError::UnsupportedType { op, ty })?;
        let dst = out.bytes_mut().ok_or_else(|| internal.clone())?;
        // Of these loops the strips and the vector gathers stream their
        // stores.
        let stream = dst.len() >= SCATTERED_STREAM_MIN_BYTES;
        macro_rules! each_chunk {
            ($n:literal, $t:ty) => {
                parallel::for_each_costly_chunk(options, dst, $n, scattered_cost($n), |at, part| {
                    if self.takes_transposed(copier, $n) {
                        return self.transposed::<$n>(copier, src, at, part);
                    }
                    if self.takes_strips(copier, $n) {
                        return self.strips(copier, stream, $n, src, at, part);
                    }
                    if self.takes_lines(copier, $n) {
                        return self.lines::<$n>(copier, src, at, part);
                    }
                    match self.shift_row(copier, $n) {
                        Some(row) => self.shift_any(copier, row, $n, src, at, part),
                        None => self.gather::<$t>(copier, stream, src, at, part),
                    }
                })
            };
        }
        let done = match width.or(ty.byte_width()) {
            Some(1) => each_chunk!(1, u8),
            Some(2) => each_chunk!(2, u16),
            Some(4) => each_chunk!(4, u32),
            Some(8) => each_chunk!(8, u64),
            _ => return Err(KernelError::UnsupportedType { op, ty }),
        };
        done.ok_or(internal)
    }
}

/// Moves `data` into `out` (of its type and shape, checked by the caller)
/// as ReverseSubsequences moves data seen as `[outer, size, inner]` whose
/// line `(o, i)` has the length `lens[o * inner + i]`, each at most `size`:
/// through the kernels for lengths that change every few lines
/// ([`ScatteredLines::play`]), which take any lengths, with elements of
/// `width` bytes (the data's own, or 2, 4 or 8 bytes of them that move
/// together). For ReverseSequence, whose lengths are lines' lengths too,
/// where its own runs would be a few elements each; `op` names the op in
/// errors.
pub(super) fn play_lines<C: Count>(
    op: &'static str,
    data: &Tensor,
    out: &mut Tensor,
    options: &ExecOptions,
    (outer, size, inner): (usize, usize, usize),
    lens: &[C],
    width: usize,
) -> Result<(), KernelError> {
    let elements = outer.checked_mul(size).and_then(|n| n.checked_mul(inner));
    let fits = inner > 1
        && data.element_type() != ElementType::String
        && outer.checked_mul(inner) == Some(lens.len())
        && elements.and_then(|n| n.checked_mul(width)) == data.bytes().map(<[u8]>::len);
    if !fits {
        return Err(KernelError::Internal { op, what: "the lines do not match the data" });
    }
    ScatteredLines { size, inner, lens }.play(op, data, out, options, Some(width))
}
