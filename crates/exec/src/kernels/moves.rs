//! The one description of a data-movement output, and the player that
//! moves it.
//!
//! An op that copies elements of its inputs into its output (Gather,
//! Slice, Concat, Broadcast, and the layout ops after them) describes the
//! output once, as [`Moves`]:
//!
//! - the output is `outer` units of `unit` elements each, written in
//!   order; threads and cache-sized blocks split it between units;
//! - each unit is made of [`Piece`]s, one per input stretch that lands in
//!   it (one for most ops, one per input for Concat);
//! - a piece is a nest of loops ([`Dim`]s, outermost first). Each loop
//!   moves its source by a [`Step`], a stride in elements (0 repeats an
//!   element, a negative one walks backwards) or a table of offsets (the
//!   indices of a Gather, with [`ZERO`] where an element reads nothing),
//!   and moves its destination by a stride of its own. The innermost loop
//!   writes consecutive output elements.
//!
//! The player works on raw bytes, with a routine specialised for each
//! element width (1, 2, 4 and 8 bytes), so one routine serves every
//! whole-byte type. The two innermost loops are played together, so that
//! the work per short row is the copy itself: rows up to 64 bytes move as
//! fixed-size copies, longer ones through the copy writer of the run
//! plans (one copy each, streamed past the cache in outputs of 16 MiB and
//! more), repeated elements as fills, reversed rows through the SIMD
//! reversing copy, and strided or indexed rows element by element.
//! An output of many short units (up to 64 bytes) plays a block of units
//! at a time instead, each 16-byte lane of the block shuffled from a few
//! 16-byte windows of the inputs, the pattern worked out once from the
//! first block (`shuffles`). Strings and the packed sub-byte types follow
//! the same description one element at a time.
//!
//! [`Moves::check`] proves, once per description and input shapes, that
//! every read and write lies inside its tensor; playing then only slices
//! what the check covered.

use std::ops::Range;

use ovir_tensor::packed::{code_at, is_packed, set_code};
use ovir_tensor::{ElementType, Tensor};
use smallvec::SmallVec;

use super::copy::{ReverseCopier, RunWriter};
use super::run_plan::STREAM_MIN_BYTES;
use super::{parallel, ExecOptions, KernelError};

mod shuffles;

/// A table entry that reads nothing: the element, or the block below it,
/// is zero (an empty string).
pub(crate) const ZERO: isize = isize::MIN;

/// How a loop moves its source from one index to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// By this many elements: 1 in order, 0 repeating an element, −1 back
    /// to front.
    Stride(isize),
    /// Index `i` reads at the offset the moves' table holds at `at + i`
    /// ([`ZERO`] for none).
    Table { at: usize },
}

/// One loop of a piece: `count` indices, its source moved by `src` and its
/// destination by `dst` elements per index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Dim {
    pub(crate) count: usize,
    pub(crate) src: Step,
    pub(crate) dst: usize,
}

impl Dim {
    /// A loop of `count` indices over the source with stride `src`,
    /// writing consecutive blocks of `dst` elements.
    pub(crate) const fn strided(count: usize, src: isize, dst: usize) -> Dim {
        Dim { count, src: Step::Stride(src), dst }
    }
}

/// What one input puts into every unit of the output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Piece {
    /// The input it reads.
    pub(crate) input: usize,
    /// The source element read when every index is 0 (before tables).
    pub(crate) src: isize,
    /// The first output element it writes in a unit.
    pub(crate) dst: usize,
    /// How its source moves from one unit to the next.
    pub(crate) outer: Step,
    /// Its loops within a unit, outermost first; the last one writes
    /// consecutive elements (`dst == 1`).
    pub(crate) dims: SmallVec<[Dim; 4]>,
}

/// An output described as copies of its inputs: see the module docs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Moves {
    outer: usize,
    unit: usize,
    pieces: SmallVec<[Piece; 2]>,
    tables: Vec<isize>,
}

/// An output that is one strided or indexed view of an input of one
/// shape, worked out once: what Slice and Broadcast run, and the layout
/// ops after them.
#[derive(Clone, Debug)]
pub(crate) struct View {
    op: &'static str,
    data_shape: Vec<usize>,
    shape: Vec<usize>,
    moves: Moves,
    /// Whether some pieces read a fill value, a second input of one
    /// element ([`View::run_filled`]).
    filled: bool,
}

impl View {
    /// The output of shape `shape` that walks data of shape `data_shape`
    /// by `axes` from element `src` (see [`Moves::dense`]), checked to stay
    /// inside both.
    pub(crate) fn new(
        op: &'static str,
        data_shape: &[usize],
        shape: Vec<usize>,
        src: isize,
        axes: &[(usize, Step)],
    ) -> Result<View, KernelError> {
        let mut moves = Moves::default();
        if shape.contains(&0) {
            moves.dense(0, &[(0, Step::Stride(0))]);
        } else {
            moves.dense(src, axes);
        }
        View::from_moves(op, data_shape, shape, moves)
    }

    /// A view described by `moves`, reading one input of shape
    /// `data_shape` into an output of shape `shape`, checked to stay inside
    /// both.
    pub(crate) fn from_moves(
        op: &'static str,
        data_shape: &[usize],
        shape: Vec<usize>,
        moves: Moves,
    ) -> Result<View, KernelError> {
        let count = |s: &[usize]| {
            ovir_tensor::element_count(s)
                .ok_or(KernelError::Internal { op, what: "an element count overflows" })
        };
        moves.check(op, &[count(data_shape)?], count(&shape)?)?;
        Ok(View { op, data_shape: data_shape.to_vec(), shape, moves, filled: false })
    }

    /// [`View::from_moves`] for moves whose pieces may also read a fill
    /// value, a second input of one element (see [`Moves::runs`]); played
    /// with [`View::run_filled`].
    pub(crate) fn from_filled_moves(
        op: &'static str,
        data_shape: &[usize],
        shape: Vec<usize>,
        moves: Moves,
    ) -> Result<View, KernelError> {
        let count = |s: &[usize]| {
            ovir_tensor::element_count(s)
                .ok_or(KernelError::Internal { op, what: "an element count overflows" })
        };
        moves.check(op, &[count(data_shape)?, 1], count(&shape)?)?;
        Ok(View { op, data_shape: data_shape.to_vec(), shape, moves, filled: true })
    }

    /// The data shape this view was worked out for.
    pub(crate) fn data_shape(&self) -> &[usize] {
        &self.data_shape
    }

    /// The output shape.
    pub(crate) fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Copies the view of `data`, which must have [`View::data_shape`],
    /// into `out`, on several threads when it is large; allocates nothing.
    pub(crate) fn run(
        &self,
        data: &Tensor,
        out: &mut Tensor,
        options: &ExecOptions,
    ) -> Result<(), KernelError> {
        if self.filled {
            return Err(KernelError::Internal {
                op: self.op,
                what: "a view that fills was given no fill value",
            });
        }
        self.play(&[data], out, options)
    }

    /// [`View::run`] for a view made by [`View::from_filled_moves`]: the
    /// new elements take the one element of `fill`, of the data's type.
    pub(crate) fn run_filled(
        &self,
        data: &Tensor,
        fill: &Tensor,
        out: &mut Tensor,
        options: &ExecOptions,
    ) -> Result<(), KernelError> {
        if fill.len() != 1 || fill.element_type() != data.element_type() {
            return Err(KernelError::Internal {
                op: self.op,
                what: "the fill value is not one element of the data's type",
            });
        }
        self.play(&[data, fill], out, options)
    }

    fn play(&self, inputs: &[&Tensor], out: &mut Tensor, options: &ExecOptions) -> Result<(), KernelError> {
        let op = self.op;
        let data = inputs.first().ok_or(KernelError::Internal { op, what: "a view was given no data" })?;
        if data.shape() != self.data_shape.as_slice() {
            return Err(KernelError::Internal {
                op,
                what: "the data's shape is not the one the view was made for",
            });
        }
        super::checks::check_output(op, data.element_type(), &self.shape, out)?;
        self.moves.play(op, inputs, out, options)
    }
}

/// The view a kernel worked out for the last data shape and parameters
/// (`K`, `()` when the parameters are attributes), kept in the kernel's
/// scratch so that a run on the same ones works nothing out and
/// allocates nothing.
#[derive(Clone, Debug)]
pub(crate) struct KeptView<K> {
    last: Option<(K, View)>,
}

impl<K> Default for KeptView<K> {
    fn default() -> Self {
        KeptView { last: None }
    }
}

impl<K: PartialEq> KeptView<K> {
    /// The view kept for `key` and data of shape `data_shape`, made by
    /// `make` (and kept) when the last one was for others.
    pub(crate) fn get(
        &mut self,
        key: K,
        data_shape: &[usize],
        make: impl FnOnce() -> Result<View, KernelError>,
    ) -> Result<&View, KernelError> {
        let kept = self.last.as_ref().is_some_and(|(k, view)| *k == key && view.data_shape() == data_shape);
        if !kept {
            self.last = None;
            self.last = Some((key, make()?));
        }
        match &self.last {
            Some((_, view)) => Ok(view),
            None => Err(KernelError::Internal { op: "moves", what: "a kept view was not kept" }),
        }
    }
}

/// Bytes of output a block of units aims at: the pieces of one block are
/// played one after the other, so a Concat writes each output line while
/// it is still in the first-level cache.
const BLOCK_BYTES: usize = 16 << 10;

/// The buffer an output that streams is walked into, units at a time,
/// before its lines stream out: the largest unit walked this way. Pad's
/// image planes are 64 KiB.
const STAGE_BYTES: usize = 64 << 10;

impl Moves {
    /// An output of `outer` units of `unit` elements, with no pieces yet.
    pub(crate) fn new(outer: usize, unit: usize) -> Moves {
        Moves { outer, unit, pieces: SmallVec::new(), tables: Vec::new() }
    }

    /// The output of one input walked by `axes` (outermost first, each
    /// a count and a step), written in order from source element `src`:
    /// the description of every op whose output is one strided (or
    /// indexed) view of its data. The loops merge where they can, and the
    /// outermost becomes the units. Tables added before stay.
    pub(crate) fn dense(&mut self, src: isize, axes: &[(usize, Step)]) {
        let mut dims: SmallVec<[Dim; 4]> = SmallVec::new();
        let mut dst = 1usize;
        for &(count, step) in axes.iter().rev() {
            dims.push(Dim { count, src: step, dst });
            dst = dst.saturating_mul(count);
        }
        dims.reverse();
        let mut dims = merge(&dims);
        // A row that reads every `k`-th element (2 to 4) of a stretch whose
        // other lanes a loop further out reads (SpaceToDepth's columns):
        // that loop moves in next to the row, inside the units, so that the
        // player reads the stretch once for its `k` rows rather than once
        // per row.
        if let Some((last, between)) = dims.split_last().and_then(|(l, rest)| Some((*l, rest.get(1..)?))) {
            if let Step::Stride(k @ 2..=4) = last.src {
                let lanes = |d: &Dim| d.src == Step::Stride(1) && d.count as isize == k;
                if let Some(i) = between.iter().rposition(lanes) {
                    let d = dims.remove(i + 1);
                    dims.insert(dims.len() - 1, d);
                }
            }
        }
        // A few rows that read one stretch of interleaved lanes stay in
        // one unit, for the player to read the stretch once.
        let lanes = match dims.as_slice() {
            [rows, inner] => {
                rows.src == Step::Stride(1)
                    && (2..=4).contains(&rows.count)
                    && inner.src == Step::Stride(rows.count as isize)
            }
            _ => false,
        };
        let (outer, step) = match dims.first() {
            Some(d) if (dims.len() > 1 && !lanes) || d.count == 0 => (d.count, d.src),
            _ => (1, Step::Stride(0)),
        };
        if (dims.len() > 1 && !lanes) || outer == 0 {
            dims.remove(0);
        }
        // Every element of a unit is one index of each loop left (in
        // whatever order they now run).
        let unit = dims.iter().fold(1usize, |n, d| n.saturating_mul(d.count));
        self.outer = outer;
        self.unit = unit;
        self.pieces.clear();
        self.pieces.push(Piece { input: 0, src, dst: 0, outer: step, dims });
    }

    /// Empties the description for another output, keeping its memory.
    pub(crate) fn reset(&mut self, outer: usize, unit: usize) {
        self.outer = outer;
        self.unit = unit;
        self.pieces.clear();
        self.tables.clear();
    }

    /// The output's number of elements, `None` when it overflows.
    pub(crate) fn len(&self) -> Option<usize> {
        self.outer.checked_mul(self.unit)
    }

    /// Adds a table of source offsets for `op` and returns the step that
    /// reads it, with an offset to add to the source of the piece that
    /// uses it. A table that is an arithmetic progression becomes a stride
    /// from its first value, which plays as a run, a fill or a reversal.
    pub(crate) fn table(
        &mut self,
        op: &'static str,
        offsets: impl IntoIterator<Item = isize>,
    ) -> Result<(Step, isize), KernelError> {
        let at = self.tables.len();
        let offsets = offsets.into_iter();
        super::error::try_reserve(&mut self.tables, offsets.size_hint().0, op, "indices")?;
        self.tables.extend(offsets);
        Ok(self.step_of(at))
    }

    /// The table pushed at `at`, as a stride and a shift when it is one.
    fn step_of(&mut self, at: usize) -> (Step, isize) {
        let t = self.tables.get(at..).unwrap_or_default();
        let stride = match t {
            [a, b, ..] if *a != ZERO && *b != ZERO => b.checked_sub(*a),
            [a] if *a != ZERO => Some(0),
            _ => None,
        };
        if let (Some(stride), Some(&first)) = (stride, t.first()) {
            let affine = t.iter().enumerate().all(|(i, &v)| {
                v != ZERO && (i as isize).checked_mul(stride).and_then(|d| first.checked_add(d)) == Some(v)
            });
            if affine {
                self.tables.truncate(at);
                return (Step::Stride(stride), first);
            }
        }
        (Step::Table { at }, 0)
    }

    /// Adds a piece. Its loops are simplified first: loops of one index
    /// go, and neighbours that walk one block (both source and
    /// destination) merge into one loop.
    pub(crate) fn push(&mut self, mut piece: Piece) {
        piece.dims = merge(&piece.dims);
        self.pieces.push(piece);
    }

    /// Offset `i` of a step, `None` for a [`ZERO`] entry or one outside
    /// the table.
    fn offset(&self, step: Step, i: usize) -> Option<isize> {
        match step {
            Step::Stride(s) => (i as isize).checked_mul(s),
            Step::Table { at } => self.tables.get(at.checked_add(i)?).copied().filter(|&v| v != ZERO),
        }
    }

    /// The lowest and highest offset a step reaches over `count` indices,
    /// `None` when it reaches none (every entry [`ZERO`], or no index).
    fn reach(&self, step: Step, count: usize) -> Result<Option<(isize, isize)>, ()> {
        if count == 0 {
            return Ok(None);
        }
        match step {
            Step::Stride(s) => {
                let last = isize::try_from(count - 1).map_err(drop)?.checked_mul(s).ok_or(())?;
                Ok(Some((last.min(0), last.max(0))))
            }
            Step::Table { at } => {
                let t = self.tables.get(at..at.checked_add(count).ok_or(())?).ok_or(())?;
                let live = t.iter().copied().filter(|&v| v != ZERO);
                Ok(live.clone().min().zip(live.max()))
            }
        }
    }

    /// Checks that every read of every piece lies inside its input (whose
    /// element counts `inputs` gives) and every write inside its unit, and
    /// that the units make an output of `len` elements. A description
    /// that passes plays without leaving any tensor.
    pub(crate) fn check(&self, op: &'static str, inputs: &[usize], len: usize) -> Result<(), KernelError> {
        let internal = |what| KernelError::Internal { op, what };
        if self.len() != Some(len) {
            return Err(internal("the moves do not make an output of the expected size"));
        }
        if len == 0 {
            return Ok(());
        }
        for piece in &self.pieces {
            let input =
                *inputs.get(piece.input).ok_or(internal("a piece reads an input that is not there"))?;
            let (mut low, mut high) = (piece.src, piece.src);
            let mut empty = false;
            let mut dst_last = piece.dst;
            let loops = std::iter::once(Dim { count: self.outer, src: piece.outer, dst: 0 })
                .chain(piece.dims.iter().copied());
            for d in loops {
                match self.reach(d.src, d.count).map_err(|()| internal("a step overflows"))? {
                    Some((l, h)) => {
                        low = low.checked_add(l).ok_or(internal("a step overflows"))?;
                        high = high.checked_add(h).ok_or(internal("a step overflows"))?;
                    }
                    None => empty = true,
                }
                if d.count == 0 {
                    empty = true;
                }
                let span = (d.count.saturating_sub(1)).checked_mul(d.dst);
                dst_last = span.and_then(|s| dst_last.checked_add(s)).ok_or(internal("a write overflows"))?;
            }
            if piece.dims.last().is_some_and(|d| d.dst != 1) {
                return Err(internal("a piece's innermost loop does not write consecutive elements"));
            }
            if !empty && (low < 0 || usize::try_from(high).map_or(true, |h| h >= input)) {
                return Err(internal("a piece reads outside its input"));
            }
            if !empty && dst_last >= self.unit {
                return Err(internal("a piece writes outside its unit"));
            }
        }
        Ok(())
    }

    /// Plays the moves from `inputs` into `out`, which has their element
    /// type and the described number of elements, once [`Moves::check`]
    /// has passed for inputs of these sizes. Outputs large enough are
    /// split across threads between units.
    pub(crate) fn play(
        &self,
        op: &'static str,
        inputs: &[&Tensor],
        out: &mut Tensor,
        options: &ExecOptions,
    ) -> Result<(), KernelError> {
        let ty = out.element_type();
        let internal = KernelError::Internal { op, what: "a move left its input or the output" };
        if self.len() != Some(out.len()) || inputs.iter().any(|t| t.element_type() != ty) {
            return Err(internal);
        }
        if out.is_empty() {
            return Ok(());
        }
        if ty == ElementType::String {
            let mut sources: SmallVec<[&[String]; 4]> = SmallVec::new();
            for t in inputs {
                sources.push(t.strings().ok_or_else(|| internal.clone())?);
            }
            let dst = out.strings_mut().ok_or_else(|| internal.clone())?;
            return self
                .each_element(0..self.outer, |at, from| {
                    let d = dst.get_mut(at)?;
                    match from {
                        Some((k, i)) => d.clone_from(sources.get(k)?.get(i)?),
                        None => d.clear(),
                    }
                    Some(())
                })
                .ok_or(internal);
        }
        let mut sources: SmallVec<[&[u8]; 4]> = SmallVec::new();
        for t in inputs {
            sources.push(t.bytes().ok_or(KernelError::UnsupportedType { op, ty })?);
        }
        let dst = out.bytes_mut().ok_or_else(|| internal.clone())?;
        if is_packed(ty) {
            return self
                .each_element(0..self.outer, |at, from| {
                    let code = match from {
                        Some((k, i)) => code_at(sources.get(k)?, ty, i)?,
                        None => 0,
                    };
                    set_code(dst, ty, at, code)
                })
                .ok_or(internal);
        }
        let copier = ReverseCopier::detect();
        let done = match ty.byte_width() {
            Some(1) => self.play_units::<1>(options, &sources, dst, copier),
            Some(2) => self.play_units::<2>(options, &sources, dst, copier),
            Some(4) => self.play_units::<4>(options, &sources, dst, copier),
            Some(8) => self.play_units::<8>(options, &sources, dst, copier),
            _ => return Err(KernelError::UnsupportedType { op, ty }),
        };
        done.ok_or(internal)
    }

    /// Plays every unit into `dst`, on several threads when it is large,
    /// for elements of `N` bytes. Short units that repeat one pattern
    /// play as blocks of shuffles ([`shuffles`]), and what is left at the
    /// ends as the walk.
    fn play_units<const N: usize>(
        &self,
        options: &ExecOptions,
        sources: &[&[u8]],
        dst: &mut [u8],
        copier: ReverseCopier,
    ) -> Option<()> {
        let unit_bytes = self.unit.checked_mul(N)?;
        let stream = dst.len() >= STREAM_MIN_BYTES;
        // Inputs too short for a window are read from padded copies.
        let mut padded = [[0u8; shuffles::PADDED]; shuffles::MAX_INPUTS];
        let mut read: SmallVec<[&[u8]; 4]> = SmallVec::new();
        for (p, s) in padded.iter_mut().zip(sources) {
            if let Some(head) = p.get_mut(..s.len()) {
                head.copy_from_slice(s);
            }
        }
        for (p, s) in padded.iter().zip(sources) {
            read.push(if s.len() < shuffles::PADDED { p } else { s });
        }
        let lens: SmallVec<[usize; 4]> = read.iter().map(|s| s.len()).collect();
        let tiled = self.tiled(N);
        let zipped = self.zipped(N);
        let blocks = if sources.len() > shuffles::MAX_INPUTS || tiled.is_some() || zipped.is_some() {
            None
        } else {
            shuffles::UnitShuffles::new(self, N, &lens)
        };
        // Outputs that stream, walked with no pattern, whose rows include
        // short ones (Pad's edges) are walked into a buffer in the cache a
        // few units at a time, which then streams whole lines: the writer
        // streams only rows of `STREAM_MIN_RUN` bytes and more in order or
        // reversed, so every line a shorter row touches is read in to be
        // written. Outputs of long rows alone (and long fills, which read
        // nothing) are written as they are walked, without the buffer's
        // second pass: through it a broadcast column took 1.5 times as
        // long, and a Pad of an image 0.78 times.
        let short_rows = self.pieces.iter().any(|p| {
            p.dims.last().is_none_or(|d| {
                !matches!(d.src, Step::Stride(-1..=1))
                    || d.count.saturating_mul(N) < super::copy::STREAM_MIN_RUN
            })
        });
        let staged = stream && short_rows && blocks.is_none() && unit_bytes <= STAGE_BYTES;
        parallel::for_each_chunk(options, dst, unit_bytes, |first, part| {
            let units = part.len() / unit_bytes;
            if let Some(bytes) = zipped {
                let [a, b] = [sources.first()?, sources.get(1)?];
                let (from, n) = (first.checked_mul(bytes)?, units.checked_mul(bytes)?);
                let srcs = [a.get(from..)?.get(..n)?, b.get(from..)?.get(..n)?];
                return copier.zip_runs(srcs, bytes, part);
            }
            if let Some(cols) = tiled {
                return self.tile_units::<N>(sources.first()?, part, first, units, cols, copier);
            }
            if staged {
                let mut stage = [0u8; STAGE_BYTES];
                let per = (STAGE_BYTES / unit_bytes.max(1)).max(1);
                return RunWriter::with(part, copier, stream, |out| {
                    let mut u = 0;
                    while u < units {
                        let n = per.min(units - u);
                        let buffer = stage.get_mut(..n.checked_mul(unit_bytes)?)?;
                        RunWriter::with(buffer, copier, false, |w| {
                            self.walk_units::<N>(sources, w, first + u, 0..n)
                        })?;
                        out.forward(u.checked_mul(unit_bytes)?, buffer)?;
                        u += n;
                    }
                    Some(())
                });
            }
            RunWriter::with(part, copier, stream, |out| {
                let Some(blocks) = &blocks else {
                    return self.walk_units::<N>(sources, out, first, 0..units);
                };
                // The blocks that fit in this part and read inside the
                // inputs; the units before and after them are walked.
                let (lo, hi) = blocks.starts();
                let g = blocks.units();
                // Blocks start 16-byte aligned where one of the next `g`
                // units allows, so that they may stream.
                let start = lo.max(first);
                let part_at = out.dst().as_ptr() as usize;
                let address = |u: usize| part_at.wrapping_add((u - first).wrapping_mul(unit_bytes));
                let start = (start..start + g).find(|&u| address(u) % 16 == 0).unwrap_or(start);
                let n = match (hi.checked_sub(start), (first + units).checked_sub(start)) {
                    (Some(span), Some(room)) => (span / g + 1).min(room / g),
                    _ => 0,
                };
                if n == 0 {
                    return self.walk_units::<N>(sources, out, first, 0..units);
                }
                let (a, b) = (start - first, start - first + n * g);
                self.walk_units::<N>(sources, out, first, 0..a)?;
                blocks.play(&read, start, n, out.dst().get_mut(a.checked_mul(unit_bytes)?..)?, stream)?;
                self.walk_units::<N>(sources, out, first, b..units)
            })
        })
    }

    /// Walks units `range` of a part of the output that starts at unit
    /// `first`, into `out`, which holds that part: a block of units at a
    /// time, each piece over the whole block before the next.
    fn walk_units<const N: usize>(
        &self,
        sources: &[&[u8]],
        out: &mut RunWriter<'_, '_>,
        first: usize,
        range: Range<usize>,
    ) -> Option<()> {
        let per_block = (BLOCK_BYTES / self.unit.checked_mul(N)?.max(1)).max(1);
        let mut done = range.start;
        while done < range.end {
            let n = per_block.min(range.end - done);
            for piece in &self.pieces {
                let src = sources.get(piece.input)?;
                let (outer, base) = self.outer_loop(piece, first + done, n)?;
                let mut player = Player::<N> { moves: self, src, out: &mut *out };
                let dims: SmallVec<[Dim; 8]> =
                    std::iter::once(outer).chain(piece.dims.iter().copied()).collect();
                player.walk(&dims, base, done.checked_mul(self.unit)?.checked_add(piece.dst)?)?;
            }
            done += n;
        }
        Some(())
    }

    /// Whether the output moves its source's innermost axis away from its
    /// own, as a Transpose that moves the innermost axis does: one strided
    /// piece whose innermost loop reads elements a cache line or more
    /// apart, and a loop further out (the units' loop among them) that
    /// reads consecutive ones, each of [`TILE_MIN`] indices or more. Gives
    /// that loop's place in the nest of the units' loop and the piece's
    /// loops, for [`Moves::tile_units`]. Walked an element at a time, each
    /// element of such an output would cost a line of its own.
    fn tiled(&self, n: usize) -> Option<usize> {
        let [piece] = self.pieces.as_slice() else { return None };
        let strided = |d: &Dim| matches!(d.src, Step::Stride(_));
        if !matches!(piece.outer, Step::Stride(_)) || !piece.dims.iter().all(strided) {
            return None;
        }
        let (last, rest) = piece.dims.split_last()?;
        let apart = match last.src {
            Step::Stride(s) => usize::try_from(s).ok()?.checked_mul(n)?,
            Step::Table { .. } => return None,
        };
        if apart < 64 || last.count < TILE_MIN {
            return None;
        }
        let outer = Dim { count: self.outer, src: piece.outer, dst: self.unit };
        let consecutive = |d: &Dim| d.src == Step::Stride(1) && d.count >= TILE_MIN;
        match rest.iter().rposition(consecutive) {
            Some(i) => Some(i + 1),
            None => consecutive(&outer).then_some(0),
        }
    }

    /// Whether every unit is a run of 4, 8 or 16 bytes of input 0 and then
    /// the same of input 1, each input read in order from its start (a
    /// Concat of two equal inputs along the innermost axis, such as pairs
    /// side by side): the run's length in bytes, for
    /// [`ReverseCopier::zip_runs`], which moves blocks of them in
    /// registers where the walk moves a run at a time (a Concat of pairs of
    /// `f32` took 2.2 times a memcpy that way).
    fn zipped(&self, n: usize) -> Option<usize> {
        let [a, b] = self.pieces.as_slice() else { return None };
        let run = match a.dims.as_slice() {
            [d] if d.src == Step::Stride(1) && d.dst == 1 => d.count,
            _ => return None,
        };
        let same = b.dims.as_slice() == a.dims.as_slice();
        let counted = isize::try_from(run).ok().map(Step::Stride);
        let ordered = (a.input, a.src, a.dst, b.input, b.src, b.dst) == (0, 0, 0, 1, 0, run);
        let bytes = run.checked_mul(n)?;
        (same
            && ordered
            && Some(a.outer) == counted
            && Some(b.outer) == counted
            && self.unit == 2 * run
            && matches!(bytes, 4 | 8 | 16))
        .then_some(bytes)
    }

    /// Plays units `first..first + units` of an output [`Moves::tiled`]
    /// found, into `dst`, which holds them: for every index of the loops
    /// outside the loop `cols` names, a line's worth of that loop's indices
    /// at a time, every index of the loops between it and the innermost
    /// one, each a tile of those two loops transposed in registers
    /// ([`ReverseCopier::transpose`]). Each tile reads whole source lines
    /// and writes its output rows a line at a time between them.
    fn tile_units<const N: usize>(
        &self,
        src: &[u8],
        dst: &mut [u8],
        first: usize,
        units: usize,
        cols: usize,
        copier: ReverseCopier,
    ) -> Option<()> {
        let piece = self.pieces.first()?;
        let (outer, base) = self.outer_loop(piece, first, units)?;
        let nest: SmallVec<[Dim; 8]> = std::iter::once(outer).chain(piece.dims.iter().copied()).collect();
        let (last, rest) = nest.split_last()?;
        let (head, tail) = rest.split_at_checked(cols)?;
        let (across, middle) = tail.split_first()?;
        let Step::Stride(stride) = last.src else { return None };
        let src_pitch = usize::try_from(stride).ok()?.checked_mul(N)?;
        let dst_pitch = across.dst.checked_mul(N)?;
        // Columns a tile: all of them when the tile is shorter than a
        // block of lines (each call's work is then too small to pay for
        // itself), one line's worth when the output rows lie 64 KiB or
        // more apart (as many rows in flight share a set of the second-level
        // cache), else four lines' worth, whose source lines the hardware
        // fetches ahead.
        let per_tile = if last.count < 64 / N {
            usize::MAX
        } else if dst_pitch >= 64 << 10 {
            64 / N
        } else {
            256 / N
        };
        each_index(head, base, piece.dst, &mut |base, at| {
            let mut c0 = 0;
            while c0 < across.count {
                let n = per_tile.min(across.count - c0);
                let from = base.checked_add(isize::try_from(c0).ok()?)?;
                let to = at.checked_add(c0.checked_mul(across.dst)?)?;
                each_index(middle, from, to, &mut |b, a| {
                    let from = usize::try_from(b).ok()?.checked_mul(N)?;
                    let to = a.checked_mul(N)?;
                    copier.transpose::<N>(
                        src.get(from..)?,
                        src_pitch,
                        dst.get_mut(to..)?,
                        dst_pitch,
                        last.count,
                        n,
                    )
                })?;
                c0 += n;
            }
            Some(())
        })
    }

    /// The loop over units `first..first + n` of `piece`, as a loop of
    /// the block that holds them, and the source offset it starts from.
    fn outer_loop(&self, piece: &Piece, first: usize, n: usize) -> Option<(Dim, isize)> {
        let dim = |src| Dim { count: n, src, dst: self.unit };
        match piece.outer {
            Step::Stride(s) => {
                let base = piece.src.checked_add((first as isize).checked_mul(s)?)?;
                Some((dim(Step::Stride(s)), base))
            }
            Step::Table { at } => Some((dim(Step::Table { at: at.checked_add(first)? }), piece.src)),
        }
    }

    /// Calls `visit(output element, Some((input, element)))` for every
    /// element of units `units`, or `None` as the source of an element
    /// that reads nothing: the slow, general form for strings and packed
    /// types.
    fn each_element(
        &self,
        units: Range<usize>,
        mut visit: impl FnMut(usize, Option<(usize, usize)>) -> Option<()>,
    ) -> Option<()> {
        for u in units {
            for piece in &self.pieces {
                let (_, base) = self.outer_loop(piece, u, 1)?;
                let base = match piece.outer {
                    Step::Stride(_) => Some(base),
                    Step::Table { .. } => self.offset(piece.outer, u).and_then(|o| base.checked_add(o)),
                };
                let at = u.checked_mul(self.unit)?.checked_add(piece.dst)?;
                self.each_in(&piece.dims, base, at, piece.input, &mut visit)?;
            }
        }
        Some(())
    }

    /// [`Moves::each_element`] over the loops `dims` from source `base`
    /// (`None`: reading nothing) and output element `at`.
    fn each_in(
        &self,
        dims: &[Dim],
        base: Option<isize>,
        at: usize,
        input: usize,
        visit: &mut impl FnMut(usize, Option<(usize, usize)>) -> Option<()>,
    ) -> Option<()> {
        let Some((d, rest)) = dims.split_first() else {
            let from = base.map(|b| usize::try_from(b).ok().map(|i| (input, i))).transpose_none()?;
            return visit(at, from);
        };
        for i in 0..d.count {
            let src = base.and_then(|b| self.offset(d.src, i).and_then(|o| b.checked_add(o)));
            self.each_in(rest, src, at.checked_add(i.checked_mul(d.dst)?)?, input, visit)?;
        }
        Some(())
    }
}

/// One stretch of an output axis, for [`Moves::runs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Run {
    /// `count` indices that read the data axis from index `start`, moving
    /// `step` indices per index (0 repeats one, −1 walks back).
    Data { count: usize, start: isize, step: isize },
    /// `count` indices that hold the fill value, the one element of the
    /// moves' second input.
    Fill { count: usize },
}

impl Run {
    /// The indices it covers.
    pub(crate) fn count(self) -> usize {
        match self {
            Run::Data { count, .. } | Run::Fill { count } => count,
        }
    }
}

/// The runs of one output axis, on the stack for up to three (what Pad
/// needs: before, inside and after the data).
pub(crate) type AxisRuns = SmallVec<[Run; 3]>;

/// How many pieces [`Moves::runs`] makes at most, one per box of the
/// output. Past that, the output is one indexed piece, played element by
/// element: only ranks beyond twelve get there.
const MAX_BOXES: usize = 1 << 12;

impl Moves {
    /// The output whose axis `a` is the stretches `axes[a]` of data of
    /// shape `data`: what Roll (two stretches of an axis, swapped), Pad
    /// (a fill, the data, a fill, or reflected stretches) and the like
    /// describe. The output is a grid of boxes, one per choice of a
    /// stretch on every axis, and each box is one piece: a strided walk
    /// of the data, or a fill from the second input. Leading axes that
    /// copy the data whole become the units. `fill_is_zero` says the
    /// fill value is zero, which lets an output of too many boxes fall
    /// back to tables with [`ZERO`] entries; otherwise such an output is
    /// refused.
    pub(crate) fn runs(
        &mut self,
        op: &'static str,
        data: &[usize],
        axes: &[AxisRuns],
        fill_is_zero: bool,
    ) -> Result<(), KernelError> {
        let internal = |what| KernelError::Internal { op, what };
        if axes.len() != data.len() {
            return Err(internal("the runs do not fit the data's rank"));
        }
        let rank = data.len();
        let out: SmallVec<[usize; 8]> =
            axes.iter().map(|runs| runs.iter().map(|r| r.count()).sum()).collect();
        let strides = |dims: &[usize]| -> Option<SmallVec<[isize; 8]>> {
            let mut strides: SmallVec<[isize; 8]> = smallvec::smallvec![0; dims.len()];
            let mut stride = 1isize;
            for (s, &d) in strides.iter_mut().zip(dims).rev() {
                *s = stride;
                stride = stride.checked_mul(isize::try_from(d).ok()?)?;
            }
            Some(strides)
        };
        let overflow = internal("an offset overflows");
        let src_strides = strides(data).ok_or(overflow.clone())?;
        let dst_strides = strides(&out).ok_or(overflow.clone())?;
        if out.contains(&0) || rank == 0 {
            // No element, or the one element of a scalar.
            self.dense(0, &[(usize::from(rank == 0), Step::Stride(0))]);
            return Ok(());
        }
        // Leading axes copied whole, in order, are the units; at least
        // one axis stays inside them.
        let whole = |(runs, &d): (&AxisRuns, &usize)| matches!(runs.as_slice(), [Run::Data { count, start: 0, step: 1 }] if *count == d);
        let lead = axes.iter().zip(data).take(rank - 1).take_while(|&a| whole(a)).count();
        let outer: usize = out[..lead].iter().product();
        let unit: usize = out[lead..].iter().product();
        let inner_src = if lead == 0 { 0 } else { src_strides[lead - 1] };
        let boxes = axes[lead..].iter().try_fold(1usize, |n, runs| n.checked_mul(runs.len()));
        self.reset(outer, unit);
        if boxes.is_some_and(|n| n <= MAX_BOXES) {
            self.boxes(op, lead, inner_src, axes, &src_strides, &dst_strides)
        } else if fill_is_zero {
            self.indexed(op, lead, inner_src, axes, &src_strides, &out)
        } else {
            Err(KernelError::Unsupported {
                op,
                what: "a fill value other than zero on more than twelve axes with several stretches",
            })
        }
    }

    /// [`Moves::runs`] as one piece per box.
    fn boxes(
        &mut self,
        op: &'static str,
        lead: usize,
        inner_src: isize,
        axes: &[AxisRuns],
        src_strides: &[isize],
        dst_strides: &[isize],
    ) -> Result<(), KernelError> {
        let overflow = KernelError::Internal { op, what: "an offset overflows" };
        let inner = &axes[lead..];
        // One index per axis into its runs, counted like an odometer.
        let mut pick: SmallVec<[usize; 8]> = smallvec::smallvec![0; inner.len()];
        loop {
            let mut piece =
                Piece { input: 0, src: 0, dst: 0, outer: Step::Stride(inner_src), dims: SmallVec::new() };
            let mut fill = false;
            let mut empty = false;
            for (a, (runs, &k)) in inner.iter().zip(&pick).enumerate() {
                let (src_stride, dst_stride) = (src_strides[lead + a], dst_strides[lead + a]);
                let before: usize = runs[..k].iter().map(|r| r.count()).sum();
                let at = isize::try_from(before).ok().and_then(|b| b.checked_mul(dst_stride));
                let at = at.and_then(|at| usize::try_from(at).ok()).ok_or(overflow.clone())?;
                piece.dst = piece.dst.checked_add(at).ok_or(overflow.clone())?;
                let dst = usize::try_from(dst_stride).map_err(|_| overflow.clone())?;
                let dim = match runs[k] {
                    Run::Data { count, start, step } => {
                        let from = start.checked_mul(src_stride).ok_or(overflow.clone())?;
                        piece.src = piece.src.checked_add(from).ok_or(overflow.clone())?;
                        Dim::strided(count, step.checked_mul(src_stride).ok_or(overflow.clone())?, dst)
                    }
                    Run::Fill { count } => {
                        fill = true;
                        Dim::strided(count, 0, dst)
                    }
                };
                empty |= dim.count == 0;
                piece.dims.push(dim);
            }
            if fill {
                piece.input = 1;
                piece.src = 0;
                piece.outer = Step::Stride(0);
                for d in &mut piece.dims {
                    d.src = Step::Stride(0);
                }
            }
            if !empty {
                self.push(piece);
            }
            // The next box.
            let mut a = inner.len();
            loop {
                if a == 0 {
                    return Ok(());
                }
                a -= 1;
                pick[a] += 1;
                if pick[a] < inner[a].len() {
                    break;
                }
                pick[a] = 0;
            }
        }
    }

    /// [`Moves::runs`] as one piece that reads every axis from a table,
    /// [`ZERO`] for the fill.
    fn indexed(
        &mut self,
        op: &'static str,
        lead: usize,
        inner_src: isize,
        axes: &[AxisRuns],
        src_strides: &[isize],
        out: &[usize],
    ) -> Result<(), KernelError> {
        let overflow = KernelError::Internal { op, what: "an offset overflows" };
        let mut dims: SmallVec<[Dim; 4]> = SmallVec::new();
        let mut dst = 1usize;
        for (a, runs) in axes.iter().enumerate().skip(lead).rev() {
            let stride = src_strides[a];
            let at = self.tables.len();
            super::error::try_reserve(&mut self.tables, out[a], op, "an axis's offsets")?;
            for &run in runs {
                match run {
                    Run::Data { count, start, step } => {
                        for i in 0..count {
                            let index = (i as isize).checked_mul(step).and_then(|d| start.checked_add(d));
                            let offset = index.and_then(|x| x.checked_mul(stride)).ok_or(overflow.clone())?;
                            self.tables.push(offset);
                        }
                    }
                    Run::Fill { count } => self.tables.extend(std::iter::repeat_n(ZERO, count)),
                }
            }
            dims.push(Dim { count: out[a], src: Step::Table { at }, dst });
            dst = dst.checked_mul(out[a]).ok_or(overflow.clone())?;
        }
        dims.reverse();
        self.pieces.push(Piece { input: 0, src: 0, dst: 0, outer: Step::Stride(inner_src), dims });
        Ok(())
    }
}

/// `Option<Option<T>>` from an option of a conversion that must succeed
/// when present.
trait TransposeNone<T> {
    fn transpose_none(self) -> Option<Option<T>>;
}

impl<T> TransposeNone<T> for Option<Option<T>> {
    fn transpose_none(self) -> Option<Option<T>> {
        match self {
            None => Some(None),
            Some(Some(v)) => Some(Some(v)),
            Some(None) => None,
        }
    }
}

/// The fewest indices of each of the two loops [`Moves::tiled`] looks for:
/// a block of registers' worth.
const TILE_MIN: usize = 8;

/// Calls `f(source, output)` for every index of the strided loops `dims`
/// from source element `base` and output element `at`, the last loop
/// fastest.
fn each_index(
    dims: &[Dim],
    base: isize,
    at: usize,
    f: &mut impl FnMut(isize, usize) -> Option<()>,
) -> Option<()> {
    let Some((d, rest)) = dims.split_first() else {
        return f(base, at);
    };
    let Step::Stride(stride) = d.src else { return None };
    for i in 0..d.count {
        let src = base.checked_add(stride.checked_mul(isize::try_from(i).ok()?)?)?;
        each_index(rest, src, at.checked_add(i.checked_mul(d.dst)?)?, f)?;
    }
    Some(())
}

/// Strided loops with `count == 1` dropped and neighbours merged where the outer
/// one moves both sides by exactly the inner one's extent.
fn merge(dims: &[Dim]) -> SmallVec<[Dim; 4]> {
    let mut out: SmallVec<[Dim; 4]> = SmallVec::new();
    for &d in dims {
        // One index of a stride reads at offset 0; one of a table may not.
        if d.count == 1 && dims.len() > 1 && matches!(d.src, Step::Stride(_)) {
            continue;
        }
        out.push(d);
    }
    // The innermost loop writes consecutive elements, even when it was
    // a loop of one index that went.
    if out.last().is_none_or(|d| d.dst != 1) {
        if let Some(&last) = dims.last() {
            out.push(Dim { count: 1, dst: 1, ..last });
        }
    }
    let mut k = out.len();
    while k >= 2 {
        let (a, b) = (out[k - 2], out[k - 1]);
        let joined = match (a.src, b.src) {
            (Step::Stride(sa), Step::Stride(sb)) => {
                let extent = isize::try_from(b.count).ok().and_then(|c| c.checked_mul(sb));
                extent == Some(sa) && b.count.checked_mul(b.dst) == Some(a.dst)
            }
            _ => false,
        };
        if joined {
            if let Some(count) = a.count.checked_mul(b.count) {
                out[k - 2] = Dim { count, src: b.src, dst: b.dst };
                out.remove(k - 1);
            }
        }
        k -= 1;
    }
    out
}

/// How many rows ahead [`Player::each_row`] asks for the source of rows a
/// table picks.
const PICK_AHEAD: usize = 16;

/// The most bytes of a picked row asked for ahead: longer rows are read in
/// order, which the hardware prefetcher follows.
const PICK_AHEAD_BYTES: usize = 512;

/// Plays pieces of [`Moves`] on elements of `N` bytes, into a writer
/// that streams long rows of large outputs.
struct Player<'m, 'b, 'o, 'w, const N: usize> {
    moves: &'m Moves,
    src: &'b [u8],
    out: &'b mut RunWriter<'o, 'w>,
}

impl<const N: usize> Player<'_, '_, '_, '_, N> {
    /// Walks the loops `dims` from source element `base`, writing from
    /// element `at` of `dst`.
    fn walk(&mut self, dims: &[Dim], base: isize, at: usize) -> Option<()> {
        match dims {
            [] => self.row(1, Step::Stride(1), base, at),
            [rows] if rows.dst != 1 => self.rows(rows, &Dim::strided(1, 1, 1), base, at),
            [inner] => self.rows(&Dim::strided(1, 0, 0), inner, base, at),
            [rows, inner] => self.rows(rows, inner, base, at),
            [d, rest @ ..] => {
                for i in 0..d.count {
                    let at = at.checked_add(i.checked_mul(d.dst)?)?;
                    match self.moves.offset(d.src, i) {
                        Some(o) => self.walk(rest, base.checked_add(o)?, at)?,
                        None => self.zero(rest, at)?,
                    }
                }
                Some(())
            }
        }
    }

    /// Zeroes what the loops `dims` would write from element `at`.
    fn zero(&mut self, dims: &[Dim], at: usize) -> Option<()> {
        let Some((d, rest)) = dims.split_first() else {
            self.out.dst().get_mut(at.checked_mul(N)?..)?.get_mut(..N)?.fill(0);
            return Some(());
        };
        if rest.is_empty() {
            let bytes = d.count.checked_mul(N)?;
            self.out.dst().get_mut(at.checked_mul(N)?..)?.get_mut(..bytes)?.fill(0);
            return Some(());
        }
        for i in 0..d.count {
            self.zero(rest, at.checked_add(i.checked_mul(d.dst)?)?)?;
        }
        Some(())
    }

    /// The two innermost loops: `rows.count` rows, each `inner.count`
    /// consecutive output elements.
    fn rows(&mut self, rows: &Dim, inner: &Dim, base: isize, at: usize) -> Option<()> {
        // A row of one element reads it whatever its step: a copy (a pad's
        // edge or fill of one element is then one fixed-size copy a row).
        let one = Dim { src: Step::Stride(1), ..*inner };
        let inner = if inner.count == 1 && matches!(inner.src, Step::Stride(_)) { &one } else { inner };
        if let (Step::Stride(1), Step::Stride(stride)) = (rows.src, inner.src) {
            // Rows of 2 to 4 elements written back to back, each element
            // from its own stretch (DepthToSpace's pixels): the stretches
            // read once each, in order, and their lanes interleaved.
            if let (true, Ok(stride @ 2..)) = (rows.dst == inner.count, usize::try_from(stride)) {
                match inner.count {
                    2 => return self.interleave::<2>(rows.count, stride, base, at),
                    3 => return self.interleave::<3>(rows.count, stride, base, at),
                    4 => return self.interleave::<4>(rows.count, stride, base, at),
                    _ => {}
                }
            }
            // Few columns (a channel axis moved inward): row by row each row
            // is a few elements from as many lines. Rows of many elements
            // are better read row by row, each line serving the rows after.
            let few = inner.count.checked_mul(N).is_some_and(|b| b <= 64);
            if few && !matches!(stride, -1..=1) && rows.count > 1 && rows.dst >= inner.count {
                return self.columns(rows, inner, stride, base, at);
            }
            // Rows that together read one stretch of interleaved lanes (an
            // NHWC image's pixels into NCHW planes): one pass over it.
            if usize::try_from(stride) == Ok(rows.count) && rows.dst >= inner.count {
                match rows.count {
                    2 => return self.deinterleave::<2>(inner.count, rows.dst, base, at),
                    3 => return self.deinterleave::<3>(inner.count, rows.dst, base, at),
                    4 => return self.deinterleave::<4>(inner.count, rows.dst, base, at),
                    _ => {}
                }
            }
        }
        // Rows a table picks, of a whole number of lines: one copy of
        // fixed size each, straight from the table.
        if let (Step::Table { at: t }, Step::Stride(1)) = (rows.src, inner.src) {
            match inner.count.checked_mul(N)? {
                64 => return self.picked_rows::<64>(t, rows.count, rows.dst, base, at),
                128 => return self.picked_rows::<128>(t, rows.count, rows.dst, base, at),
                256 => return self.picked_rows::<256>(t, rows.count, rows.dst, base, at),
                _ => {}
            }
        }
        if let (Step::Stride(rs), Step::Stride(1)) = (rows.src, inner.src) {
            let bytes = inner.count.checked_mul(N)?;
            return match bytes {
                1 => self.fixed_rows::<1>(rows.count, rs, rows.dst, base, at),
                2 => self.fixed_rows::<2>(rows.count, rs, rows.dst, base, at),
                3 => self.fixed_rows::<3>(rows.count, rs, rows.dst, base, at),
                4 => self.fixed_rows::<4>(rows.count, rs, rows.dst, base, at),
                5 => self.fixed_rows::<5>(rows.count, rs, rows.dst, base, at),
                6 => self.fixed_rows::<6>(rows.count, rs, rows.dst, base, at),
                7 => self.fixed_rows::<7>(rows.count, rs, rows.dst, base, at),
                8 => self.fixed_rows::<8>(rows.count, rs, rows.dst, base, at),
                10 => self.fixed_rows::<10>(rows.count, rs, rows.dst, base, at),
                12 => self.fixed_rows::<12>(rows.count, rs, rows.dst, base, at),
                14 => self.fixed_rows::<14>(rows.count, rs, rows.dst, base, at),
                16 => self.fixed_rows::<16>(rows.count, rs, rows.dst, base, at),
                20 => self.fixed_rows::<20>(rows.count, rs, rows.dst, base, at),
                28 => self.fixed_rows::<28>(rows.count, rs, rows.dst, base, at),
                40 => self.fixed_rows::<40>(rows.count, rs, rows.dst, base, at),
                56 => self.fixed_rows::<56>(rows.count, rs, rows.dst, base, at),
                24 => self.fixed_rows::<24>(rows.count, rs, rows.dst, base, at),
                32 => self.fixed_rows::<32>(rows.count, rs, rows.dst, base, at),
                48 => self.fixed_rows::<48>(rows.count, rs, rows.dst, base, at),
                64 => self.fixed_rows::<64>(rows.count, rs, rows.dst, base, at),
                _ => self.each_row(rows, inner, base, at),
            };
        }
        self.each_row(rows, inner, base, at)
    }

    /// Rows of one `B`-byte copy each, their sources `stride` elements
    /// apart: one load and one store per row.
    fn fixed_rows<const B: usize>(
        &mut self,
        count: usize,
        stride: isize,
        dst_stride: usize,
        base: isize,
        at: usize,
    ) -> Option<()> {
        let step = stride.checked_mul(N as isize)?;
        let dst_step = dst_stride.checked_mul(N)?;
        let mut from = base.checked_mul(N as isize)?;
        let mut to = at.checked_mul(N)?;
        for _ in 0..count {
            let s: &[u8; B] = self.src.get(usize::try_from(from).ok()?..)?.first_chunk()?;
            let d: &mut [u8; B] = self.out.dst().get_mut(to..)?.first_chunk_mut()?;
            *d = *s;
            from = from.wrapping_add(step);
            to = to.wrapping_add(dst_step);
        }
        Some(())
    }

    /// `count` rows of one `B`-byte copy each, `dst_stride` elements
    /// apart in the output, the source of row `r` at `base` plus entry
    /// `t + r` of the table (none: zeros). Each row starts anywhere in the
    /// source, so the source of a row some 2 KiB on (8 to [`PICK_AHEAD`]
    /// rows) is asked for before each copy, and the waits on memory
    /// overlap. On rows picked at random from 64 MiB, 16 rows ahead ran
    /// best for 64-byte rows (8: 15% slower; 32: level) and 8 for
    /// 256-byte rows (16: 5% slower; 32: 60% slower).
    fn picked_rows<const B: usize>(
        &mut self,
        t: usize,
        count: usize,
        dst_stride: usize,
        base: isize,
        at: usize,
    ) -> Option<()> {
        let table = self.moves.tables.get(t..)?.get(..count)?;
        let source = |o: isize| usize::try_from(base.checked_add(o)?).ok()?.checked_mul(N);
        let dst_step = dst_stride.checked_mul(N)?;
        let mut to = at.checked_mul(N)?;
        let distance = (2048 / B).clamp(8, PICK_AHEAD);
        for (r, &o) in table.iter().enumerate() {
            if let Some(ahead) = table.get(r + distance).filter(|&&a| a != ZERO).and_then(|&a| source(a)) {
                if let Some(src) = self.src.get(ahead..) {
                    super::copy::prefetch_lines(src, B);
                }
            }
            let d: &mut [u8; B] = self.out.dst().get_mut(to..)?.first_chunk_mut()?;
            *d = if o == ZERO { [0; B] } else { *self.src.get(source(o)?..)?.first_chunk()? };
            to = to.wrapping_add(dst_step);
        }
        Some(())
    }

    /// Rows that read consecutive source elements (`rows.src` is 1) whose
    /// own elements lie `inner.src` apart: a transpose of the two loops.
    /// Walked a column at a time over a tile of rows, each column is one
    /// contiguous read and one write every `rows.dst` elements, and a tile
    /// of output, about 32 KiB, stays in the cache while its columns fill
    /// it. Row by row, each element would be a read of its own line.
    fn columns(&mut self, rows: &Dim, inner: &Dim, stride: isize, base: isize, at: usize) -> Option<()> {
        let pitch = rows.dst.checked_mul(N)?;
        let tile = ((32 << 10) / pitch.max(1)).max(8);
        let mut r0 = 0;
        while r0 < rows.count {
            let n = tile.min(rows.count - r0);
            for j in 0..inner.count {
                let from = base.checked_add(isize::try_from(j).ok()?.checked_mul(stride)?)?;
                let from = usize::try_from(from).ok()?.checked_add(r0)?.checked_mul(N)?;
                let column = self.src.get(from..)?.get(..n.checked_mul(N)?)?;
                let to = at.checked_add(r0.checked_mul(rows.dst)?)?.checked_add(j)?.checked_mul(N)?;
                let span = (n - 1).checked_mul(pitch)?.checked_add(N)?;
                let dst = self.out.dst().get_mut(to..)?.get_mut(..span)?;
                for (d, s) in dst.chunks_mut(pitch).zip(column.as_chunks::<N>().0) {
                    *d.first_chunk_mut::<N>()? = *s;
                }
            }
            r0 += n;
        }
        Some(())
    }

    /// `K` rows of `count` elements each, `dst_stride` elements apart in
    /// the output, where row `j` reads lane `j` of `count` groups of `K`
    /// consecutive source elements from `base`: the source read once, in
    /// order, in blocks of 16 groups whose lanes go to each row as one
    /// store of fixed size (shuffles, once compiled), rather than `K`
    /// strided passes of single elements.
    fn deinterleave<const K: usize>(
        &mut self,
        count: usize,
        dst_stride: usize,
        base: isize,
        at: usize,
    ) -> Option<()> {
        let from = usize::try_from(base).ok()?.checked_mul(N)?;
        let src = self.src.get(from..)?.get(..count.checked_mul(K * N)?)?;
        let pitch = dst_stride.checked_mul(N)?;
        let first = at.checked_mul(N)?;
        let span = (K - 1).checked_mul(pitch)?.checked_add(count.checked_mul(N)?)?;
        let dst = self.out.dst().get_mut(first..)?.get_mut(..span)?;
        super::copy::deinterleave::<K, N>(src, dst, pitch)
    }

    /// `count` groups of `K` consecutive output elements from `at`, lane
    /// `j` of each group reading stretch `j`, `stride` elements after
    /// stretch `j - 1`, from source element `base`: the inverse of
    /// [`Player::deinterleave`].
    fn interleave<const K: usize>(
        &mut self,
        count: usize,
        stride: usize,
        base: isize,
        at: usize,
    ) -> Option<()> {
        let from = usize::try_from(base).ok()?.checked_mul(N)?;
        let pitch = stride.checked_mul(N)?;
        let span = (K - 1).checked_mul(pitch)?.checked_add(count.checked_mul(N)?)?;
        let src = self.src.get(from..)?.get(..span)?;
        let to = at.checked_mul(N)?;
        let dst = self.out.dst().get_mut(to..)?.get_mut(..count.checked_mul(K * N)?)?;
        super::copy::interleave::<K, N>(src, pitch, dst)
    }

    /// Rows one at a time, each by [`Player::row`]. Rows that a table
    /// picks (a gather by indices in any order) each start anywhere in
    /// the source, and each would wait on memory in turn: the source of
    /// the row [`PICK_AHEAD`] rows on is asked for first, so that those
    /// waits overlap.
    fn each_row(&mut self, rows: &Dim, inner: &Dim, base: isize, at: usize) -> Option<()> {
        let picked = matches!((rows.src, inner.src), (Step::Table { .. }, Step::Stride(1)));
        let bytes = inner.count.checked_mul(N)?;
        for r in 0..rows.count {
            if picked && r + PICK_AHEAD < rows.count {
                let ahead = self.moves.offset(rows.src, r + PICK_AHEAD).and_then(|o| base.checked_add(o));
                let from = ahead.and_then(|f| usize::try_from(f).ok()?.checked_mul(N));
                if let Some(src) = from.and_then(|f| self.src.get(f..)) {
                    super::copy::prefetch_lines(src, bytes.min(PICK_AHEAD_BYTES));
                }
            }
            let at = at.checked_add(r.checked_mul(rows.dst)?)?;
            match self.moves.offset(rows.src, r) {
                Some(o) => self.row(inner.count, inner.src, base.checked_add(o)?, at)?,
                None => self.zero(std::slice::from_ref(inner), at)?,
            }
        }
        Some(())
    }

    /// One row: `len` consecutive output elements from element `at`,
    /// reading from source element `base` by `step`.
    fn row(&mut self, len: usize, step: Step, base: isize, at: usize) -> Option<()> {
        let bytes = len.checked_mul(N)?;
        let first = usize::try_from(base).ok();
        let to = at.checked_mul(N)?;
        // Runs in order and long reversed ones go through the writer,
        // which streams long rows of a large output.
        let reversed = first.and_then(|f| f.checked_add(1)?.checked_sub(len)?.checked_mul(N));
        match step {
            Step::Stride(1) => {
                let from = first?.checked_mul(N)?;
                return self.out.forward(to, self.src.get(from..)?.get(..bytes)?);
            }
            Step::Stride(-1) if len > 8 => {
                return self.out.reversed::<N>(to, self.src.get(reversed?..)?.get(..bytes)?);
            }
            _ => {}
        }
        let dst = self.out.dst().get_mut(to..)?.get_mut(..bytes)?;
        match step {
            Step::Stride(0) => {
                let from = first?.checked_mul(N)?;
                let value: [u8; N] = *self.src.get(from..)?.first_chunk()?;
                fill(dst, value);
            }
            // Up to 8 elements: a loop costs less than a call.
            Step::Stride(-1) => {
                let src = self.src.get(reversed?..)?.get(..bytes)?;
                let (d, s) = (dst.as_chunks_mut::<N>().0, src.as_chunks::<N>().0);
                for (d, s) in d.iter_mut().zip(s.iter().rev()) {
                    *d = *s;
                }
            }
            Step::Stride(2) => {
                let from = first?.checked_mul(N)?;
                let span = len.checked_mul(2 * N)?.checked_sub(N)?;
                let src = self.src.get(from..)?.get(..span)?;
                for (d, s) in dst.as_chunks_mut::<N>().0.iter_mut().zip(src.chunks(2 * N)) {
                    *d = *s.first_chunk()?;
                }
            }
            // Forward strides: the stretch read is sliced once and walked
            // a stride at a time, with no index arithmetic per element.
            Step::Stride(s) if s > 2 => {
                let pitch = s.unsigned_abs().checked_mul(N)?;
                let from = first?.checked_mul(N)?;
                let span = len.checked_sub(1)?.checked_mul(pitch)?.checked_add(N)?;
                let src = self.src.get(from..)?.get(..span)?;
                for (d, s) in dst.as_chunks_mut::<N>().0.iter_mut().zip(src.chunks(pitch)) {
                    *d = *s.first_chunk()?;
                }
            }
            Step::Stride(s) => {
                let src = self.src;
                for (j, d) in dst.as_chunks_mut::<N>().0.iter_mut().enumerate() {
                    let i = base.checked_add((j as isize).checked_mul(s)?)?;
                    *d = *src.get(usize::try_from(i).ok()?.checked_mul(N)?..)?.first_chunk()?;
                }
            }
            Step::Table { at: t } => {
                let table = self.moves.tables.get(t..)?.get(..len)?;
                let src = self.src;
                for (d, &o) in dst.as_chunks_mut::<N>().0.iter_mut().zip(table) {
                    *d = if o == ZERO {
                        [0; N]
                    } else {
                        let i = usize::try_from(base.checked_add(o)?).ok()?;
                        *src.get(i.checked_mul(N)?..)?.first_chunk()?
                    };
                }
            }
        }
        Some(())
    }
}

/// Fills `dst`, whole `N`-byte elements, with `value`. A line of 64
/// bytes is built once and stored whole (`N` divides 64); past a few lines
/// the filled part is copied onto the rest, doubling, which hands long
/// rows to the library's copy and its widest stores. Element by element,
/// a broadcast column ran at half the speed of a memcpy of its output;
/// with 16-byte stores of the line, at 0.75 of it.
fn fill<const N: usize>(dst: &mut [u8], value: [u8; N]) {
    let mut line = [0u8; 64];
    for chunk in line.as_chunks_mut::<N>().0 {
        *chunk = value;
    }
    let seed = dst.len().min(256) / 64 * 64;
    let (lines, _) = dst.get_mut(..seed).unwrap_or_default().as_chunks_mut::<64>();
    for l in lines {
        *l = line;
    }
    let mut done = seed;
    while done > 0 && done < dst.len() {
        let (filled, rest) = dst.split_at_mut(done);
        let n = rest.len().min(filled.len());
        if let (Some(to), Some(from)) = (rest.get_mut(..n), filled.get(..n)) {
            to.copy_from_slice(from);
        }
        done += n;
    }
    let tail = dst.get_mut(done..).unwrap_or_default();
    for chunk in tail.as_chunks_mut::<N>().0 {
        *chunk = value;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32s(shape: &[usize], values: Vec<u32>) -> Tensor {
        Tensor::from_vec(shape, values).unwrap()
    }

    /// Plays `moves` on `inputs` into a fresh output of `len` elements of
    /// their type, after checking them.
    fn played(moves: &Moves, inputs: &[&Tensor], len: usize, options: &ExecOptions) -> Tensor {
        let sizes: Vec<usize> = inputs.iter().map(|t| t.len()).collect();
        moves.check("test", &sizes, len).unwrap();
        let mut out = Tensor::zeros(inputs[0].element_type(), &[len]).unwrap();
        moves.play("test", inputs, &mut out, options).unwrap();
        out
    }

    fn one_thread() -> ExecOptions {
        ExecOptions::single_thread()
    }

    #[test]
    fn strided_walks_copy_fill_reverse_and_skip() {
        // data = 0..12 as [3, 4].
        let data = u32s(&[3, 4], (0..12).collect());
        let mut moves = Moves::default();
        // data[:, ::2]
        moves.dense(0, &[(3, Step::Stride(4)), (2, Step::Stride(2))]);
        assert_eq!(played(&moves, &[&data], 6, &one_thread()).to_vec::<u32>().unwrap(), [0, 2, 4, 6, 8, 10]);
        // data[::-1, ::-1]
        moves.dense(11, &[(3, Step::Stride(-4)), (4, Step::Stride(-1))]);
        let want: Vec<u32> = (0..12).rev().collect();
        assert_eq!(played(&moves, &[&data], 12, &one_thread()).to_vec::<u32>().unwrap(), want);
        // data[:, 1:2] repeated 5 times along a new last axis.
        moves.dense(1, &[(3, Step::Stride(4)), (5, Step::Stride(0))]);
        let want = [1, 1, 1, 1, 1, 5, 5, 5, 5, 5, 9, 9, 9, 9, 9];
        assert_eq!(played(&moves, &[&data], 15, &one_thread()).to_vec::<u32>().unwrap(), want);
        // The transpose: data.T, columns read with stride 4.
        moves.dense(0, &[(4, Step::Stride(1)), (3, Step::Stride(4))]);
        let want = [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11];
        assert_eq!(played(&moves, &[&data], 12, &one_thread()).to_vec::<u32>().unwrap(), want);
    }

    #[test]
    fn tables_gather_and_zero_what_reads_nothing() {
        let data = u32s(&[2, 3], vec![10, 11, 12, 20, 21, 22]);
        let mut moves = Moves::default();
        // Columns 2, nothing, 0 of each row.
        let (step, shift) = moves.table("test", [2, ZERO, 0]).unwrap();
        assert_eq!((step, shift), (Step::Table { at: 0 }, 0));
        moves.dense(shift, &[(2, Step::Stride(3)), (3, step)]);
        assert_eq!(
            played(&moves, &[&data], 6, &one_thread()).to_vec::<u32>().unwrap(),
            [12, 0, 10, 22, 0, 20]
        );
        // Rows 1, nothing, 1: whole rows zeroed.
        moves.reset(0, 0);
        let (step, shift) = moves.table("test", [3, ZERO, 3]).unwrap();
        moves.dense(shift, &[(3, step), (3, Step::Stride(1))]);
        let want = [20, 21, 22, 0, 0, 0, 20, 21, 22];
        assert_eq!(played(&moves, &[&data], 9, &one_thread()).to_vec::<u32>().unwrap(), want);
    }

    #[test]
    fn rows_a_table_picks_copy_whole_and_zero_what_reads_nothing() {
        // Rows of 16, 32 and 64 u32s (64, 128 and 256 bytes, copied whole)
        // and of 12 (each row by the walk), picked in a scattered order,
        // every seventh picking nothing: more rows than are asked for ahead.
        for width in [16usize, 32, 64, 12] {
            let rows = 40;
            let data = u32s(&[rows, width], (0..(rows * width) as u32).collect());
            let picks: Vec<Option<usize>> =
                (0..100).map(|r| (r % 7 != 3).then_some((r * 13 + 5) % rows)).collect();
            let mut moves = Moves::default();
            let table = picks.iter().map(|p| p.map_or(ZERO, |r| (r * width) as isize));
            let (step, shift) = moves.table("test", table).unwrap();
            moves.dense(shift, &[(picks.len(), step), (width, Step::Stride(1))]);
            let want: Vec<u32> = picks
                .iter()
                .flat_map(|p| (0..width).map(move |c| p.map_or(0, |r| (r * width + c) as u32)))
                .collect();
            let got = played(&moves, &[&data], picks.len() * width, &one_thread());
            assert_eq!(got.to_vec::<u32>().unwrap(), want, "rows of {width}");
        }
    }

    #[test]
    fn tables_in_step_become_strides_from_their_first_value() {
        let mut moves = Moves::default();
        assert_eq!(moves.table("test", [5, 4, 3, 2]).unwrap(), (Step::Stride(-1), 5));
        assert_eq!(moves.table("test", [7]).unwrap(), (Step::Stride(0), 7));
        assert_eq!(moves.table("test", [1, 3, 4]).unwrap(), (Step::Table { at: 0 }, 0));
        assert_eq!(moves.tables, [1, 3, 4]);
    }

    #[test]
    fn pieces_of_several_inputs_interleave_within_each_unit() {
        // Concat of [4, 2] and [4, 1] along the last axis.
        let a = u32s(&[4, 2], (0..8).collect());
        let b = u32s(&[4, 1], (100..104).collect());
        let mut moves = Moves::new(4, 3);
        let dims = smallvec::smallvec![Dim::strided(2, 1, 1)];
        moves.push(Piece { input: 0, src: 0, dst: 0, outer: Step::Stride(2), dims });
        let dims = smallvec::smallvec![Dim::strided(1, 1, 1)];
        moves.push(Piece { input: 1, src: 0, dst: 2, outer: Step::Stride(1), dims });
        let want = [0, 1, 100, 2, 3, 101, 4, 5, 102, 6, 7, 103];
        assert_eq!(played(&moves, &[&a, &b], 12, &one_thread()).to_vec::<u32>().unwrap(), want);
    }

    #[test]
    fn every_width_strings_and_packed_codes_move_alike() {
        // Each row of [3, 4] back to front, then every other element.
        let order = [3usize, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8];
        let mut moves = Moves::default();
        moves.dense(3, &[(3, Step::Stride(4)), (4, Step::Stride(-1))]);
        for ty in [ElementType::U8, ElementType::I16, ElementType::F32, ElementType::I64, ElementType::U4] {
            let values = Tensor::from_vec(&[12], (0..12i64).collect()).unwrap();
            let data = super::super::convert(&values, ty).unwrap();
            let out = played(&moves, &[&data], 12, &one_thread());
            let got = super::super::convert(&out, ElementType::I64).unwrap().to_vec::<i64>().unwrap();
            assert_eq!(got, order.map(|i| i as i64), "{ty}");
        }
        let strings: Vec<String> = (0..12).map(|i| format!("s{i}")).collect();
        let data = Tensor::from_strings(&[12], strings.clone()).unwrap();
        let out = played(&moves, &[&data], 12, &one_thread());
        let want: Vec<String> = order.iter().map(|&i| strings[i].clone()).collect();
        assert_eq!(out.strings().unwrap(), want.as_slice());
    }

    /// The elements of data of shape `dims` in the order a Transpose by
    /// `perm` reads them, by the definition: an odometer over the output's
    /// indices.
    fn transposed_order(dims: &[usize], perm: &[usize]) -> Vec<usize> {
        let mut strides = vec![1usize; dims.len()];
        for k in (0..dims.len().saturating_sub(1)).rev() {
            strides[k] = strides[k + 1] * dims[k + 1];
        }
        let shape: Vec<usize> = perm.iter().map(|&p| dims[p]).collect();
        let mut index = vec![0usize; shape.len()];
        let mut order = Vec::new();
        for _ in 0..shape.iter().product::<usize>() {
            order.push(index.iter().zip(perm).map(|(&i, &p)| i * strides[p]).sum());
            for k in (0..shape.len()).rev() {
                index[k] += 1;
                if index[k] < shape[k] {
                    break;
                }
                index[k] = 0;
            }
        }
        order
    }

    #[test]
    fn transposes_that_move_the_innermost_axis_play_as_tiles_as_the_definition_says() {
        // Sizes off the blocks' multiples, and loops before, between and
        // after the two that are tiled.
        let cases: [(&[usize], &[usize]); 7] = [
            (&[67, 70], &[1, 0]),
            (&[16, 64], &[1, 0]),
            (&[70, 9, 65], &[2, 1, 0]),
            (&[12, 10, 80], &[1, 2, 0]),
            (&[9, 10, 3, 80], &[3, 2, 1, 0]),
            (&[5, 9, 70], &[0, 2, 1]),
            (&[2, 66, 3, 20], &[0, 3, 2, 1]),
        ];
        let many = ExecOptions { threads: 3, min_bytes_per_thread: 1 };
        for (dims, perm) in cases {
            let len: usize = dims.iter().product();
            let order = transposed_order(dims, perm);
            let mut strides = vec![1isize; dims.len()];
            for k in (0..dims.len() - 1).rev() {
                strides[k] = strides[k + 1] * dims[k + 1] as isize;
            }
            let axes: Vec<(usize, Step)> =
                perm.iter().map(|&p| (dims[p], Step::Stride(strides[p]))).collect();
            let mut moves = Moves::default();
            moves.dense(0, &axes);
            for (ty, n) in
                [(ElementType::U8, 1), (ElementType::I16, 2), (ElementType::F32, 4), (ElementType::U64, 8)]
            {
                if dims == [67, 70] || dims == [70, 9, 65] {
                    assert!(moves.tiled(n).is_some(), "{dims:?} {perm:?} of {n}-byte elements is tiled");
                }
                let bytes: Vec<u8> = (0..len * n).map(|b| (b % 251) as u8).collect();
                let data = Tensor::from_bytes(ty, &[len], &bytes).unwrap();
                let want: Vec<u8> = order.iter().flat_map(|&e| bytes[e * n..(e + 1) * n].to_vec()).collect();
                for options in [one_thread(), many] {
                    let out = played(&moves, &[&data], len, &options);
                    assert_eq!(out.bytes().unwrap(), want.as_slice(), "{dims:?} by {perm:?}, {ty}");
                }
            }
        }
    }

    #[test]
    fn columns_broadcast_into_outputs_large_enough_to_stream_keep_every_value_filled() {
        // Rows just over 8 KiB (f32) and 4 KiB (u8), so that most start
        // inside a line, each filled from an element of a column: over
        // 16 MiB, where the writer streams.
        let rows = 2048usize;
        let cols = 2051usize;
        let column = u32s(&[rows], (0..rows as u32).map(|r| r.wrapping_mul(0x9E37_79B9)).collect());
        let mut moves = Moves::default();
        moves.dense(0, &[(rows, Step::Stride(1)), (cols, Step::Stride(0))]);
        let out = played(&moves, &[&column], rows * cols, &one_thread());
        let got = out.to_vec::<u32>().unwrap();
        let want = column.to_vec::<u32>().unwrap();
        assert!(got.chunks(cols).zip(&want).all(|(row, &v)| row.iter().all(|&x| x == v)));
        let (rows, cols) = (4096usize, 4099usize);
        let column = Tensor::from_vec(&[rows], (0..rows).map(|r| (r * 7 % 251) as u8).collect()).unwrap();
        moves.dense(0, &[(rows, Step::Stride(1)), (cols, Step::Stride(0))]);
        let out = played(&moves, &[&column], rows * cols, &one_thread());
        let got = out.bytes().unwrap();
        assert!(got.chunks(cols).enumerate().all(|(r, row)| row.iter().all(|&x| x == (r * 7 % 251) as u8)));
    }

    #[test]
    fn two_inputs_side_by_side_zip_as_the_definition_says() {
        // Units of a run of each of two inputs (a Concat along the
        // innermost axis), for runs of 4, 8 and 16 bytes, which zip in
        // registers, and of other lengths, which the walk moves; group
        // counts off the blocks of 16, on one thread and three.
        let many = ExecOptions { threads: 3, min_bytes_per_thread: 1 };
        for (ty, n) in
            [(ElementType::U8, 1usize), (ElementType::I16, 2), (ElementType::F32, 4), (ElementType::U64, 8)]
        {
            for run in 1..=4usize {
                for groups in [1usize, 15, 16, 17, 100, 1000] {
                    let len = groups * run;
                    let a: Vec<u8> = (0..len * n).map(|i| (i % 251) as u8).collect();
                    let b: Vec<u8> = (0..len * n).map(|i| (i % 241) as u8 ^ 0x80).collect();
                    let (ta, tb) = (
                        Tensor::from_bytes(ty, &[len], &a).unwrap(),
                        Tensor::from_bytes(ty, &[len], &b).unwrap(),
                    );
                    let mut moves = Moves::new(groups, 2 * run);
                    for (k, at) in [(0usize, 0usize), (1, run)] {
                        let dims = smallvec::smallvec![Dim::strided(run, 1, 1)];
                        moves.push(Piece {
                            input: k,
                            src: 0,
                            dst: at,
                            outer: Step::Stride(run as isize),
                            dims,
                        });
                    }
                    if matches!(run * n, 4 | 8 | 16) {
                        assert_eq!(moves.zipped(n), Some(run * n));
                    }
                    let bytes = run * n;
                    let want: Vec<u8> = (0..groups)
                        .flat_map(|g| {
                            [&a[g * bytes..(g + 1) * bytes], &b[g * bytes..(g + 1) * bytes]].concat()
                        })
                        .collect();
                    for options in [one_thread(), many] {
                        let out = played(&moves, &[&ta, &tb], 2 * len, &options);
                        assert_eq!(
                            out.bytes().unwrap(),
                            want.as_slice(),
                            "{ty}, runs of {run}, {groups} groups"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn threads_split_units_and_write_the_same() {
        let data = u32s(&[64, 300], (0..64 * 300).collect());
        let mut moves = Moves::default();
        // Every third column of every row.
        moves.dense(0, &[(64, Step::Stride(300)), (100, Step::Stride(3))]);
        let want: Vec<u32> = (0..64).flat_map(|r| (0..100).map(move |c| r * 300 + 3 * c)).collect();
        let many = ExecOptions { threads: 3, min_bytes_per_thread: 1 };
        for options in [one_thread(), many] {
            assert_eq!(played(&moves, &[&data], 6400, &options).to_vec::<u32>().unwrap(), want);
        }
    }

    #[test]
    fn outputs_large_enough_to_stream_keep_every_value() {
        // 2048 rows of 8192 bytes from rows of 8200: 16 MiB, which streams.
        let (rows, cols, pitch) = (2048usize, 8192usize, 8200usize);
        let data =
            Tensor::from_vec(&[rows * pitch], (0..rows * pitch).map(|i| (i % 251) as u8).collect()).unwrap();
        let mut moves = Moves::default();
        let pitch_step = Step::Stride(pitch as isize);
        moves.dense(3, &[(rows, pitch_step), (cols, Step::Stride(1))]);
        let out = played(&moves, &[&data], rows * cols, &one_thread());
        let got = out.bytes().unwrap();
        assert!((0..rows * cols).all(|k| got[k] == ((k / cols * pitch + k % cols + 3) % 251) as u8));
        moves.dense(cols as isize - 1, &[(rows, pitch_step), (cols, Step::Stride(-1))]);
        let out = played(&moves, &[&data], rows * cols, &one_thread());
        let got = out.bytes().unwrap();
        assert!((0..rows * cols).all(|k| got[k] == ((k / cols * pitch + cols - 1 - k % cols) % 251) as u8));
    }

    #[test]
    fn fills_of_every_length_repeat_the_element() {
        for len in [0usize, 1, 15, 16, 17, 64, 65, 300, 4097] {
            let mut dst = vec![0u8; len * 4];
            fill::<4>(&mut dst, [1, 2, 3, 4]);
            assert!(dst.chunks(4).all(|c| c == [1, 2, 3, 4]), "{len}");
        }
    }

    #[test]
    fn checks_refuse_reads_and_writes_outside_their_tensors() {
        let mut moves = Moves::default();
        moves.dense(1, &[(3, Step::Stride(4))]);
        // Reads elements 1, 5 and 9.
        assert!(moves.check("test", &[10], 3).is_ok());
        assert!(moves.check("test", &[9], 3).is_err(), "reads element 9 of 9");
        assert!(moves.check("test", &[10], 4).is_err(), "makes 3 elements, not 4");
        moves.dense(2, &[(3, Step::Stride(-1))]);
        assert!(moves.check("test", &[9], 3).is_ok());
        moves.dense(1, &[(3, Step::Stride(-1))]);
        assert!(moves.check("test", &[9], 3).is_err(), "reads element -1");
        let mut moves = Moves::new(2, 2);
        let dims = smallvec::smallvec![Dim::strided(2, 1, 1)];
        moves.push(Piece { input: 0, src: 0, dst: 1, outer: Step::Stride(2), dims });
        assert!(moves.check("test", &[4], 4).is_err(), "writes past its unit");
        let mut moves = Moves::new(1, 3);
        let (step, shift) = moves.table("test", [0, 5, ZERO]).unwrap();
        let dims = smallvec::smallvec![Dim { count: 3, src: step, dst: 1 }];
        moves.push(Piece { input: 0, src: shift, dst: 0, outer: Step::Stride(0), dims });
        assert!(moves.check("test", &[6], 3).is_ok());
        assert!(moves.check("test", &[5], 3).is_err(), "table reads element 5 of 5");
    }

    /// The source of every output element of `axes` over data of shape
    /// `dims`, worked out index by index from the runs' definition: the
    /// flat data index, or `None` for the fill.
    fn runs_by_definition(dims: &[usize], axes: &[AxisRuns]) -> Vec<Option<usize>> {
        let maps: Vec<Vec<Option<usize>>> = axes
            .iter()
            .map(|runs| {
                runs.iter()
                    .flat_map(|&r| -> Vec<Option<usize>> {
                        match r {
                            Run::Data { count, start, step } => {
                                (0..count as isize).map(|i| Some((start + i * step) as usize)).collect()
                            }
                            Run::Fill { count } => vec![None; count],
                        }
                    })
                    .collect()
            })
            .collect();
        let shape: Vec<usize> = maps.iter().map(Vec::len).collect();
        let n: usize = shape.iter().product();
        (0..n)
            .map(|flat| {
                let mut rest = flat;
                let mut source = 0;
                let mut index = vec![0; shape.len()];
                for a in (0..shape.len()).rev() {
                    index[a] = rest % shape[a];
                    rest /= shape[a];
                }
                for (a, &i) in index.iter().enumerate() {
                    source = source * dims[a] + maps[a][i]?;
                }
                Some(source)
            })
            .collect()
    }

    fn roll(n: usize, shift: usize) -> AxisRuns {
        let mut runs = AxisRuns::new();
        runs.push(Run::Data { count: shift, start: (n - shift) as isize, step: 1 });
        runs.push(Run::Data { count: n - shift, start: 0, step: 1 });
        runs
    }

    fn whole(n: usize) -> AxisRuns {
        smallvec::smallvec![Run::Data { count: n, start: 0, step: 1 }]
    }

    /// Reflect-padding of an axis of `n` by `before` and `after`.
    fn reflect(n: usize, before: usize, after: usize) -> AxisRuns {
        smallvec::smallvec![
            Run::Data { count: before, start: before as isize, step: -1 },
            Run::Data { count: n, start: 0, step: 1 },
            Run::Data { count: after, start: n as isize - 2, step: -1 },
        ]
    }

    fn padded(n: usize, before: usize, after: usize) -> AxisRuns {
        smallvec::smallvec![
            Run::Fill { count: before },
            Run::Data { count: n, start: 0, step: 1 },
            Run::Fill { count: after },
        ]
    }

    #[test]
    fn runs_make_rolls_and_pads_of_every_width_strings_and_packed_codes() {
        let dims = [2usize, 3, 5];
        let cases: Vec<Vec<AxisRuns>> = vec![
            vec![whole(2), whole(3), roll(5, 2)],
            vec![roll(2, 1), whole(3), roll(5, 4)],
            vec![whole(2), roll(3, 1), whole(5)],
            vec![whole(2), reflect(3, 2, 1), padded(5, 1, 3)],
            vec![padded(2, 1, 0), whole(3), edge_pad(5)],
            vec![whole(2), whole(3), whole(5)],
        ];
        for axes in &cases {
            let want = runs_by_definition(&dims, axes);
            let fill = 9i64;
            let expected: Vec<i64> = want.iter().map(|s| s.map_or(fill, |i| i as i64)).collect();
            for ty in [ElementType::U8, ElementType::I16, ElementType::F32, ElementType::I64, ElementType::U4]
            {
                let values = Tensor::from_vec(&[30], (0..30i64).collect()).unwrap();
                let data = super::super::convert(&values, ty).unwrap();
                let value = super::super::convert(&Tensor::from_vec(&[1], vec![fill]).unwrap(), ty).unwrap();
                let mut moves = Moves::default();
                moves.runs("test", &dims, axes, false).unwrap();
                for options in [one_thread(), ExecOptions { threads: 2, min_bytes_per_thread: 1 }] {
                    let out = played(&moves, &[&data, &value], want.len(), &options);
                    let got = super::super::convert(&out, ElementType::I64).unwrap().to_vec::<i64>().unwrap();
                    let expected: Vec<i64> =
                        expected.iter().map(|&v| if ty == ElementType::U4 { v % 16 } else { v }).collect();
                    assert_eq!(got, expected, "{ty} {axes:?}");
                }
            }
            let strings: Vec<String> = (0..30).map(|i| format!("s{i}")).collect();
            let data = Tensor::from_strings(&[30], strings.clone()).unwrap();
            let value = Tensor::from_strings(&[1], vec!["pad".into()]).unwrap();
            let mut moves = Moves::default();
            moves.runs("test", &dims, axes, false).unwrap();
            let out = played(&moves, &[&data, &value], want.len(), &one_thread());
            let expected: Vec<String> =
                want.iter().map(|s| s.map_or("pad".into(), |i| strings[i].clone())).collect();
            assert_eq!(out.strings().unwrap(), expected.as_slice());
        }
    }

    fn edge_pad(n: usize) -> AxisRuns {
        smallvec::smallvec![
            Run::Data { count: 2, start: 0, step: 0 },
            Run::Data { count: n, start: 0, step: 1 },
            Run::Data { count: 3, start: n as isize - 1, step: 0 },
        ]
    }

    #[test]
    fn runs_of_too_many_boxes_read_tables_with_zero_for_the_fill() {
        let dims = [3usize, 4];
        let axes = vec![padded(3, 2, 1), roll(4, 3)];
        let want = runs_by_definition(&dims, &axes);
        let data = u32s(&[12], (1..13).collect());
        let mut moves = Moves::default();
        moves.reset(1, want.len());
        let strides = [4isize, 1];
        moves.indexed("test", 0, 0, &axes, &strides, &[6, 4]).unwrap();
        let out = played(&moves, &[&data], want.len(), &one_thread());
        let expected: Vec<u32> = want.iter().map(|s| s.map_or(0, |i| i as u32 + 1)).collect();
        assert_eq!(out.to_vec::<u32>().unwrap(), expected);
    }

    #[test]
    fn runs_of_no_elements_and_of_a_scalar() {
        let mut moves = Moves::default();
        moves.runs("test", &[2, 3], &[whole(2), padded(3, 0, 0)], true).unwrap();
        assert_eq!(moves.len(), Some(6));
        moves.runs("test", &[0, 3], &[whole(0), roll(3, 1)], true).unwrap();
        assert_eq!(moves.len(), Some(0));
        moves.runs("test", &[], &[], true).unwrap();
        let data = u32s(&[], vec![7]);
        assert_eq!(played(&moves, &[&data], 1, &one_thread()).to_vec::<u32>().unwrap(), [7]);
        assert!(moves.runs("test", &[2], &[], true).is_err());
    }

    /// Rows that read interleaved lanes (a few channels of pixels made
    /// planes) in one pass: every lane count, width and a tail past the
    /// blocks of 16.
    #[test]
    fn interleaved_lanes_become_rows_of_every_width() {
        for k in 2..=4usize {
            for n in [1usize, 15, 16, 17, 40, 100] {
                let mut moves = Moves::default();
                moves.dense(0, &[(k, Step::Stride(1)), (n, Step::Stride(k as isize))]);
                let want: Vec<i64> = (0..k).flat_map(|j| (0..n).map(move |i| (i * k + j) as i64)).collect();
                for ty in [ElementType::U8, ElementType::I16, ElementType::F32, ElementType::I64] {
                    let values =
                        Tensor::from_vec(&[n * k], (0..(n * k) as i64).map(|v| v % 100).collect()).unwrap();
                    let data = super::super::convert(&values, ty).unwrap();
                    let out = played(&moves, &[&data], n * k, &one_thread());
                    let got = super::super::convert(&out, ElementType::I64).unwrap().to_vec::<i64>().unwrap();
                    let want: Vec<i64> = want.iter().map(|v| v % 100).collect();
                    assert_eq!(got, want, "{k} lanes, {n} groups, {ty}");
                }
            }
        }
    }

    /// Checks `moves` against `want` (source element of each output
    /// element) on data `0..len` of every whole-byte width.
    fn check_widths(moves: &Moves, len: usize, want: &[usize], what: &str) {
        for ty in [ElementType::U8, ElementType::I16, ElementType::F32, ElementType::I64] {
            let values = Tensor::from_vec(&[len], (0..len as i64).map(|v| v % 101).collect()).unwrap();
            let data = super::super::convert(&values, ty).unwrap();
            let out = played(moves, &[&data], want.len(), &one_thread());
            let got = super::super::convert(&out, ElementType::I64).unwrap().to_vec::<i64>().unwrap();
            let want: Vec<i64> = want.iter().map(|&v| v as i64 % 101).collect();
            assert_eq!(got, want, "{what}, {ty}");
        }
    }

    #[test]
    fn stretches_interleave_into_groups_and_strided_rows_read_each_stretch_once() {
        for k in 2..=4usize {
            for m in [1usize, 15, 16, 17, 40] {
                // Two blocks of `k` stretches of `m` elements, 3 apart from
                // each other's ends, their lanes interleaved (DepthToSpace's
                // pixels): out[b, i, j] = data[b * block + j * stride + i].
                let stride = m + 3;
                let block = k * stride;
                let mut moves = Moves::default();
                moves.dense(
                    0,
                    &[
                        (2, Step::Stride(block as isize)),
                        (m, Step::Stride(1)),
                        (k, Step::Stride(stride as isize)),
                    ],
                );
                let want: Vec<usize> = (0..2)
                    .flat_map(|b| (0..m).flat_map(move |i| (0..k).map(move |j| b * block + j * stride + i)))
                    .collect();
                check_widths(&moves, 2 * block, &want, &format!("{k} stretches of {m} interleaved"));
                // Two blocks of 3 rows of `m` groups of `k`, 5 apart from
                // each other's ends, each lane of every row to its own plane
                // (SpaceToDepth's columns):
                // out[b, j, r, i] = data[b * block + r * row + i * k + j].
                let row = k * m + 5;
                let block = 3 * row;
                let mut moves = Moves::default();
                moves.dense(
                    0,
                    &[
                        (2, Step::Stride(block as isize)),
                        (k, Step::Stride(1)),
                        (3, Step::Stride(row as isize)),
                        (m, Step::Stride(k as isize)),
                    ],
                );
                let want: Vec<usize> = (0..2)
                    .flat_map(|b| {
                        (0..k).flat_map(move |j| {
                            (0..3).flat_map(move |r| (0..m).map(move |i| b * block + r * row + i * k + j))
                        })
                    })
                    .collect();
                check_widths(&moves, 2 * block, &want, &format!("{k} lanes of 3 rows of {m}"));
            }
        }
    }

    /// Rows of every length up to 64 bytes, each a fixed-size copy or the
    /// general walk, every other row of the data skipped; and rows of one
    /// element that repeat it (stride 0), which copy it.
    #[test]
    fn short_rows_of_every_length_copy_as_the_definition_says() {
        for len in 1..=64usize {
            let data =
                Tensor::from_vec(&[4 * len], (0..4 * len).map(|v| v as u8).collect::<Vec<u8>>()).unwrap();
            let mut moves = Moves::default();
            moves.dense(0, &[(2, Step::Stride(2 * len as isize)), (len, Step::Stride(1))]);
            let want: Vec<u8> = (0..len).chain(2 * len..3 * len).map(|v| v as u8).collect();
            assert_eq!(
                played(&moves, &[&data], 2 * len, &one_thread()).to_vec::<u8>().unwrap(),
                want,
                "{len}"
            );
        }
        let data = u32s(&[3], vec![7, 8, 9]);
        let mut moves = Moves::default();
        moves.dense(0, &[(3, Step::Stride(1)), (1, Step::Stride(0))]);
        assert_eq!(played(&moves, &[&data], 3, &one_thread()).to_vec::<u32>().unwrap(), [7, 8, 9]);
    }

    /// Plays `moves` on `data` (and the fill value `fill`) and checks
    /// every byte against `want`, the source element of each output
    /// element (`None`: the fill), for elements of `n` bytes.
    fn check_bytes(moves: &Moves, inputs: &[&[u8]], n: usize, want: &[Option<(usize, usize)>], what: &str) {
        let ty = match n {
            1 => ElementType::U8,
            2 => ElementType::U16,
            4 => ElementType::U32,
            _ => ElementType::U64,
        };
        let tensors: Vec<Tensor> =
            inputs.iter().map(|b| Tensor::from_bytes(ty, &[b.len() / n], b).unwrap()).collect();
        let refs: Vec<&Tensor> = tensors.iter().collect();
        let expected: Vec<u8> = want
            .iter()
            .flat_map(|w| {
                let (k, i) = w.unwrap_or((1, 0));
                inputs[k][i * n..(i + 1) * n].to_vec()
            })
            .collect();
        for options in [one_thread(), ExecOptions { threads: 2, min_bytes_per_thread: 1 }] {
            let out = played(moves, &refs, want.len(), &options);
            let got = out.bytes().unwrap();
            if let Some(at) = got.iter().zip(&expected).position(|(a, b)| a != b) {
                panic!("{what}, {n}-byte elements, {options:?}: byte {at} of {} differs", got.len());
            }
        }
    }

    /// Bytes that differ from each other, for data that shows every
    /// misplaced byte.
    fn bytes(len: usize, seed: u32) -> Vec<u8> {
        (0..len as u32).map(|i| (i.wrapping_mul(2_654_435_761).wrapping_add(seed) >> 13) as u8).collect()
    }

    /// A named view of data from a source element along some axes.
    type View3 = (&'static str, isize, Vec<(usize, Step)>);

    #[test]
    fn short_units_play_as_shuffles_as_the_definition_says() {
        // Enough rows that the output passes the shuffles' minimum, and an
        // odd number, so that blocks leave units to walk at the end.
        let rows = |width: usize, n: usize| (16 << 10) / (width * n).max(1) + 37;
        for n in [1usize, 2, 4, 8] {
            for w in 1..=12usize {
                let r = rows(w, n);
                let data = bytes(r * w * n, 7);
                let fill: Vec<u8> = (0xa0..0xa0 + n as u8).collect();
                let dims = [r, w];
                let mut cases: Vec<(String, Vec<AxisRuns>)> = Vec::new();
                for s in 1..w {
                    cases.push((format!("roll {w} by {s}"), vec![whole(r), roll(w, s)]));
                }
                cases.push((format!("pad {w} by 1, 2"), vec![whole(r), padded(w, 1, 2)]));
                cases.push((format!("edge pad {w}"), vec![whole(r), edge_pad(w)]));
                if w > 2 {
                    cases.push((format!("reflect {w}"), vec![whole(r), reflect(w, 2, 1)]));
                }
                for (what, axes) in &cases {
                    let want: Vec<Option<(usize, usize)>> =
                        runs_by_definition(&dims, axes).into_iter().map(|s| s.map(|i| (0, i))).collect();
                    let mut moves = Moves::default();
                    moves.runs("test", &dims, axes, false).unwrap();
                    check_bytes(&moves, &[&data, &fill], n, &want, what);
                }
                // Each row twice, as Tile writes it; the rows from last to
                // first; and each row reversed.
                let w_ = w as isize;
                let last = (r as isize - 1) * w_;
                let views: [View3; 3] = [
                    ("tile", 0, vec![(r, Step::Stride(w_)), (2, Step::Stride(0)), (w, Step::Stride(1))]),
                    ("rows flipped", last, vec![(r, Step::Stride(-w_)), (w, Step::Stride(1))]),
                    ("rows reversed", w_ - 1, vec![(r, Step::Stride(w_)), (w, Step::Stride(-1))]),
                ];
                for (what, src, axes) in &views {
                    let mut moves = Moves::default();
                    moves.dense(*src, axes);
                    let mut want = Vec::new();
                    moves
                        .each_element(0..moves.outer, |_, from| {
                            want.push(from);
                            Some(())
                        })
                        .unwrap();
                    let rows_first = (0..r).flat_map(|row| {
                        let copies = if *what == "tile" { 2 } else { 1 };
                        (0..copies).flat_map(move |_| (0..w).map(move |j| (row, j)))
                    });
                    let by_hand: Vec<Option<(usize, usize)>> = rows_first
                        .map(|(row, j)| match *what {
                            "tile" => Some((0, row * w + j)),
                            "rows flipped" => Some((0, (r - 1 - row) * w + j)),
                            _ => Some((0, row * w + w - 1 - j)),
                        })
                        .collect();
                    assert_eq!(want, by_hand, "{what}");
                    check_bytes(&moves, &[&data], n, &by_hand, &format!("{what} {w}"));
                }
                // Pairs of rows of two inputs side by side, as Concat.
                let other = bytes(r * 3 * n, 5);
                let mut moves = Moves::new(r, w + 3);
                moves.push(Piece {
                    input: 0,
                    src: 0,
                    dst: 0,
                    outer: Step::Stride(w_),
                    dims: smallvec::smallvec![Dim::strided(w, 1, 1)],
                });
                moves.push(Piece {
                    input: 1,
                    src: 0,
                    dst: w,
                    outer: Step::Stride(3),
                    dims: smallvec::smallvec![Dim::strided(3, 1, 1)],
                });
                let want: Vec<Option<(usize, usize)>> = (0..r)
                    .flat_map(|row| {
                        (0..w)
                            .map(move |j| Some((0, row * w + j)))
                            .chain((0..3).map(move |j| Some((1, row * 3 + j))))
                    })
                    .collect();
                check_bytes(&moves, &[&data, &other], n, &want, &format!("concat {w} and 3"));
            }
        }
    }

    #[test]
    fn short_units_stream_into_large_outputs() {
        // Rows of 6 bytes padded to 8 by their edges: 16 MiB of output,
        // written with streaming stores.
        let r = (16 << 20) / 8 + 3;
        let data = bytes(r * 6, 3);
        let dims = [r, 6];
        let axes = vec![whole(r), edge_pad(6)];
        let mut axes = axes;
        axes[1] = smallvec::smallvec![
            Run::Data { count: 1, start: 0, step: 0 },
            Run::Data { count: 6, start: 0, step: 1 },
            Run::Data { count: 1, start: 5, step: 0 },
        ];
        let want: Vec<Option<(usize, usize)>> =
            runs_by_definition(&dims, &axes).into_iter().map(|s| s.map(|i| (0, i))).collect();
        let mut moves = Moves::default();
        moves.runs("test", &dims, &axes, false).unwrap();
        check_bytes(&moves, &[&data, &[0]], 1, &want, "edge pad of 6-byte rows");
    }

    #[test]
    fn outputs_that_stream_with_short_rows_keep_every_value() {
        // Rows of 126 f32 between a fill and an edge, and a plane whose
        // first row is filled: 16 MiB and more of output, whose short rows
        // are walked into a buffer before their lines stream.
        let (r, w) = (30, 126);
        let planes = (16 << 20) / ((r + 1) * (w + 2) * 4) + 3;
        let data = bytes(planes * r * w * 4, 11);
        let fill: Vec<u8> = vec![0xa1, 0xa2, 0xa3, 0xa4];
        let dims = [planes, r, w];
        let axes = vec![
            whole(planes),
            padded(r, 1, 0),
            smallvec::smallvec![
                Run::Fill { count: 1 },
                Run::Data { count: w, start: 0, step: 1 },
                Run::Data { count: 1, start: w as isize - 1, step: 0 },
            ],
        ];
        let want: Vec<Option<(usize, usize)>> =
            runs_by_definition(&dims, &axes).into_iter().map(|s| s.map(|i| (0, i))).collect();
        assert!(want.len() * 4 >= STREAM_MIN_BYTES);
        let mut moves = Moves::default();
        moves.runs("test", &dims, &axes, false).unwrap();
        check_bytes(&moves, &[&data, &fill], 4, &want, "pad of 126-element rows");
    }
}
