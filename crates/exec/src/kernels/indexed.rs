//! What GatherElements and GatherND share: an output of units of one
//! length, each a stretch of the data from an offset its indices give.
//! The op reads its indices into the offsets (checking each against the
//! axis it picks from); the copy is one table of them for the moves
//! player.

use ovir_tensor::Tensor;

use super::moves::{Dim, Moves, Piece, View};
use super::{ExecOptions, KernelError};

/// What a gather by offsets keeps between runs: the offsets read and the
/// copy they make, so that running it again on indices of the same size
/// allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct IndexScratch {
    offsets: Vec<isize>,
    moves: Moves,
}

impl IndexScratch {
    /// An empty scratch; it allocates on first use and then keeps its
    /// memory.
    pub fn new() -> IndexScratch {
        IndexScratch::default()
    }
}

/// How a gather by offsets runs on data and indices of given shapes, which
/// a plan with static shapes works out when the model compiles.
pub(crate) trait OffsetGather {
    /// The op's name, for errors.
    const OP: &'static str;

    /// The data shape this layout was worked out for.
    fn data_shape(&self) -> &[usize];

    /// The indices shape this layout was worked out for.
    fn indices_shape(&self) -> &[usize];

    /// The output shape.
    fn shape(&self) -> &[usize];

    /// The elements of each unit: a stretch of consecutive data elements.
    fn unit(&self) -> usize;

    /// Reads `indices` into `offsets` (emptied first), the data element
    /// each unit starts from, in output order; an index out of range is
    /// an error naming it.
    fn offsets(&self, indices: &Tensor, offsets: &mut Vec<isize>) -> Result<(), KernelError>;

    /// Whether this layout was worked out for data and indices of these
    /// shapes.
    fn fits(&self, data: &Tensor, indices: &Tensor) -> bool {
        data.shape() == self.data_shape() && indices.shape() == self.indices_shape()
    }

    /// Gathers from `data` by `indices`, which must fit this layout, into
    /// `out`, on several threads when it is large.
    fn run(
        &self,
        data: &Tensor,
        indices: &Tensor,
        out: &mut Tensor,
        options: &ExecOptions,
        scratch: &mut IndexScratch,
    ) -> Result<(), KernelError> {
        if !self.fits(data, indices) {
            return Err(KernelError::Internal { op: Self::OP, what: "the inputs do not fit the layout" });
        }
        super::checks::check_output(Self::OP, data.element_type(), self.shape(), out)?;
        let IndexScratch { offsets, moves } = scratch;
        self.offsets(indices, offsets)?;
        describe(Self::OP, offsets, self.unit(), moves)?;
        moves.check(Self::OP, &[data.len()], out.len())?;
        moves.play(Self::OP, &[data], out, options)
    }

    /// The gather by constant `indices`, worked out once as a copy of the
    /// data.
    fn fixed(&self, indices: &Tensor) -> Result<View, KernelError> {
        let (mut offsets, mut moves) = (Vec::new(), Moves::default());
        self.offsets(indices, &mut offsets)?;
        describe(Self::OP, &offsets, self.unit(), &mut moves)?;
        View::from_moves(Self::OP, self.data_shape(), self.shape().to_vec(), moves)
    }
}

/// The copy of one unit of `unit` elements from each of `offsets`: one
/// piece whose units step through the table of offsets.
fn describe(op: &'static str, offsets: &[isize], unit: usize, moves: &mut Moves) -> Result<(), KernelError> {
    moves.reset(offsets.len(), unit);
    let (step, shift) = moves.table(op, offsets.iter().copied())?;
    let dims = smallvec::smallvec![Dim::strided(unit, 1, 1)];
    moves.push(Piece { input: 0, src: shift, dst: 0, outer: step, dims });
    Ok(())
}
