//! Every constant that picks a loop for ReverseSequence or sizes what it
//! does: what it is, then why, in a line. `docs/performance.md` ("Why the
//! ReverseSequence and ReverseSubsequences constants are what they are")
//! tells the measurements in full.

/// Time-major stretches of one length up to this many bytes go to the scattered lines, on few positions.
/// `[8, B, k]` `u8`, 16-byte stretches: 1.5–1.6 ms through the lines against 3.5–3.7 a block at a time.
pub(super) const LINES_MAX_BLOCK: usize = 64;

/// The most positions on which stretches of up to [`LINES_MAX_BLOCK`] bytes go to the lines.
/// Measured on 8 positions only (`[8, B, k]`, above); 64 positions take [`LINES_MAX_BLOCK_SHORT_AXIS`].
pub(super) const LINES_FEW_POSITIONS: usize = 8;

/// The most positions on which stretches of up to [`LINES_MAX_BLOCK_SHORT_AXIS`] bytes go to the lines.
/// Past it the lines are gathered an element at a time: `[1024, B, k]` takes [`LINES_MAX_BLOCK_LONG_AXIS`].
pub(super) const LINES_SHORT_AXIS: usize = 64;

/// Stretches up to this many bytes go to the lines on up to [`LINES_SHORT_AXIS`] positions.
/// `[64, B, k]`: 16-byte `f32` 4.5–4.6 ms as lines against 6.8–7.9; 32-byte `u8` 4.1–4.4 against 3.0–3.6.
pub(super) const LINES_MAX_BLOCK_SHORT_AXIS: usize = 16;

/// Stretches up to this many bytes go to the lines past [`LINES_SHORT_AXIS`] positions.
/// `[1024, B, k]`: 8-byte `u8` 8.3–8.7 ms as lines against 11.4–12.0; 16-byte 8.5–9.0 against 5.9–7.2.
pub(super) const LINES_MAX_BLOCK_LONG_AXIS: usize = 8;

/// Stretches up to this many bytes go to the lines where those stage 4- or 8-byte elements (`lines_win`).
/// 8 MiB `[T, B, k]`, 12 and 16 bytes on 2500 and 4096 positions: 1.9–3.2 ms against 2.6–4.4 by blocks.
pub(super) const LINES_MAX_BLOCK_STAGED: usize = 16;

/// Time-major stretches up to this many bytes go a block at a time where the lines do not take them.
/// Runs cost tens of ns each (about 13 on `rseq_tm32_u8`), more than a copy of a 32-byte block.
pub(super) const BLOCKS_MAX_STRETCH: usize = 256;

/// How far ahead, in bytes of output, `SequencePlan::blocks` asks for the blocks it will read.
/// Asking ahead halved the time (`rseq_tm32_u8` 5.53 ms without, 2.72 with).
pub(super) const BLOCKS_AHEAD_BYTES: usize = 4096;

/// The most bytes per position with which `SequencePlan::blocks` asks for whole positions ahead.
/// Past it a position ahead stays cached no more; 1 to 16 KiB along a row was slower (1.85 ms to 1.52).
pub(super) const BLOCKS_AHEAD_MAX_STEP: usize = 64 << 10;

/// The shortest time-major block of whole lines streamed into an output of `STREAM_MIN_BYTES`.
/// 32 MiB `[T, 64, k]`: 192-byte blocks 1.14–1.58× a memcpy streamed, 1.59–2.51× not; 64-byte no gain.
pub(super) const STREAMED_BLOCK_MIN: usize = 128;

/// How many times a memcpy of its output a time-major block walk takes, for the threads.
/// Not measured on its own: short blocks, each from a place of its own.
pub(super) const BLOCKS_COST: usize = 4;

/// How many times a memcpy of its output the walk of `BlockWalk::Rows` takes, for the threads.
/// 32 MiB of `[B, 8, 3]` `f32`, about 0.9× a memcpy alone: two threads 4.4–5.2 ms against 5.4–6.4.
pub(super) const ROW_BLOCKS_COST: usize = 2;

/// The longest sequence, in bytes with its blocks, that the walk of `BlockWalk::Rows` takes.
/// 8 MiB `f32`, 16-byte blocks: about 60% of the runs' time on 8 and 32 KiB, 75% on 64 KiB.
pub(super) const ROW_BLOCKS_MAX_ROW: usize = 32 << 10;

/// The shortest sequence, in bytes, whose reversed head `row_blocks` reads upwards, then the rest.
/// A 1 KiB head read downwards took twice as long; on 24- and 96-byte rows one loop took 78–82%.
pub(super) const ROW_BLOCKS_UPWARD_MIN_ROW: usize = 256;

/// The longest run, in bytes, of rows sharing a length that is played with a head per row.
/// Rows of 12 and 24 bytes: runs of 6 KiB took as long either way, shorter ones less with heads.
pub(super) const SHORT_RUN_MAX_BYTES: usize = 4096;

/// The longest sequence whose checked lengths are also kept a byte each (the narrow rows' loops).
/// 8 MiB of 24-byte `f32` rows: byte heads 1.12–1.24× a memcpy against 1.29–1.34× for 32-bit ones.
pub(super) const BYTE_HEADS_MAX_SEQ: usize = 31;
