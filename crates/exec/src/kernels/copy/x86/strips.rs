//! ReverseSubsequences on one strip of columns, one register wide, by
//! byte-wise selects between rows, at either register width.

use super::{Plain, Width};
use crate::kernels::copy::SubsequenceStrip;

/// Writes output rows `k0..=k1` of `strip` (see [`SubsequenceStrip`]) into
/// `out`, row `k` at `(k - k0) * out_stride`, using `buffer` (at least
/// `(size + 7) * W::BYTES` bytes) as scratch. Returns `false`, having
/// written nothing, when the arguments do not fit.
///
/// With `R[j]` the input's row `size - 1 - j`, output row `k` is `R[k +
/// s]` in a column whose length is `len > k` (`s = size - len`), and the
/// input's row `k` elsewhere. Shifting by `s` is shifting by each of its
/// bits, in any order, each a select between a row and the row `2^b`
/// further. The bits of 8 and up each make one pass over the buffer (the
/// first reads the input). The three low bits are a tree of three selects
/// per output row, over eight rows of the buffer, which slides down the
/// axis with its middle values kept in registers, fused with the final
/// choice between the shifted row and the input's own. A select with
/// beyond the axis on its far side keeps garbage, which lands only where
/// `k >= len` and is never kept.
pub(in crate::kernels::copy) fn subsequence_strip<W: Width>(
    isa: W,
    strip: &SubsequenceStrip<'_>,
    out: &mut [u8],
    out_stride: usize,
    buffer: &mut [u8],
) -> bool {
    let bytes = W::BYTES;
    if !strip.fits(bytes, out.len(), out_stride) || (strip.size + 7) * bytes > buffer.len() {
        return false;
    }
    let SubsequenceStrip { input, stride, size, shifts, lens, rows: (k0, k1) } = *strip;
    let (Some(shifts), Some(lens)) = (shifts.get(..bytes), lens.get(..bytes)) else {
        return false;
    };
    let needed = shifts.iter().fold(0, |any, &s| any | s);
    let moves = lens.iter().any(|&len| len != 0);
    isa.run(
        #[inline(always)]
        || {
            // SAFETY: every pointer below stays inside its slice, by the
            // checks above: input row `r < size` spans `r * stride ..
            // r * stride + bytes`, below `input.len()`; output row `k`
            // (`k0 <= k <= k1`) spans `(k - k0) * out_stride` and `bytes`
            // more, below `out.len()`; buffer row `j` is read for `j <
            // size + 7` and written for `j < size`, each `bytes` long,
            // inside `(size + 7) * bytes <= buffer.len()`; `shifts` and
            // `lens` are `bytes` long. The token proves the instructions.
            // Macros rather than closures: a closure may be compiled on
            // its own, without the token's instructions.
            unsafe {
                let input = input.as_ptr();
                let buf = buffer.as_mut_ptr();
                let out = out.as_mut_ptr();
                macro_rules! row_in {
                    ($r:expr) => {
                        isa.load(input.add($r * stride))
                    };
                }
                macro_rules! row {
                    ($j:expr) => {
                        isa.load(buf.add($j * bytes))
                    };
                }
                if !moves {
                    for k in k0..=k1 {
                        isa.store(Plain, out.add((k - k0) * out_stride), row_in!(k));
                    }
                    return;
                }
                let shifts = isa.load(shifts.as_ptr());
                macro_rules! bit {
                    ($b:expr) => {
                        isa.has_bits(shifts, isa.splat(1 << $b))
                    };
                }
                // The high bits, a pass each; the first pass reads `R`
                // from the input.
                let mut filled = false;
                for b in 3..8 {
                    let step = 1usize << b;
                    if needed >> b & 1 == 0 || step >= size {
                        continue;
                    }
                    let mask = bit!(b);
                    if filled {
                        for j in 0..size - step {
                            isa.store(Plain, buf.add(j * bytes), isa.select(row!(j), row!(j + step), mask));
                        }
                    } else {
                        for j in 0..size - step {
                            let v = isa.select(row_in!(size - 1 - j), row_in!(size - 1 - j - step), mask);
                            isa.store(Plain, buf.add(j * bytes), v);
                        }
                        for j in size - step..size {
                            isa.store(Plain, buf.add(j * bytes), row_in!(size - 1 - j));
                        }
                        filled = true;
                    }
                }
                if !filled {
                    for j in 0..size {
                        isa.store(Plain, buf.add(j * bytes), row_in!(size - 1 - j));
                    }
                }
                // The low bits: `x(i)` is row `i` after the bit of 4, `y`
                // after the bit of 2 as well.
                let (m0, m1, m2) = (bit!(0), bit!(1), bit!(2));
                macro_rules! x {
                    ($i:expr) => {{
                        let i: usize = $i;
                        isa.select(row!(i), row!(i + 4), m2)
                    }};
                }
                let mut left = isa.sub_saturating(isa.load(lens.as_ptr()), isa.splat(k0 as u8));
                let one = isa.splat(1);
                let (mut x1, mut x2) = (x!(k0 + 1), x!(k0 + 2));
                let mut y0 = isa.select(x!(k0), x2, m1);
                for k in k0..=k1 {
                    let x3 = x!(k + 3);
                    let y1 = isa.select(x1, x3, m1);
                    let shifted = isa.select(y0, y1, m0);
                    let v = isa.select(shifted, row_in!(k), isa.is_zero(left));
                    isa.store(Plain, out.add((k - k0) * out_stride), v);
                    left = isa.sub_saturating(left, one);
                    (x1, x2, y0) = (x2, x3, y1);
                }
            }
        },
    );
    true
}
