//! What a block shuffle (`copy::shuffle`) plays: blocks of output bytes,
//! each 16-byte lane put together from 16-byte windows of the inputs. The
//! shuffle's portable loop and its SSSE3 one (`x86::shuffle`) both read it.

/// One 16-byte read of an input and where its bytes go in a lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::kernels) struct Window {
    /// The input it reads.
    pub(in crate::kernels) input: usize,
    /// Its first byte in the input, for the first block.
    pub(in crate::kernels) at: usize,
    /// Byte `b` of the lane takes byte `mask[b]` of the window; a mask of
    /// [`NONE`] leaves the byte to another window (or zero).
    pub(in crate::kernels) mask: [u8; 16],
    /// Whether it is the lane's last window: the lane is then stored, and
    /// the next window starts the block's next lane.
    pub(in crate::kernels) last: bool,
}

/// A mask entry that takes nothing from its window.
pub(in crate::kernels) const NONE: u8 = 0x80;

/// What [`shuffle_blocks`](super::shuffle_blocks) plays: blocks of
/// `bytes` bytes (a multiple of 16), each lane of a block the OR of its
/// windows' shuffled bytes, and each input read `advance` bytes further on
/// from one block to the next.
#[derive(Clone, Copy, Debug)]
pub(in crate::kernels) struct Blocks<'a> {
    /// The windows of every lane, lane after lane.
    pub(in crate::kernels) windows: &'a [Window],
    /// Bytes per block.
    pub(in crate::kernels) bytes: usize,
    /// Per input, how far its windows move from one block to the next.
    pub(in crate::kernels) advance: &'a [isize],
    /// Per input, how far its windows lie from their `at` in the first
    /// block played.
    pub(in crate::kernels) shift: &'a [isize],
}
