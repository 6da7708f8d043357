//! ReverseSubsequences on one strip of columns, one register wide, by
//! byte-wise selects between rows, at 16, 32 or 64 bytes.

use super::{Plain, Simd, Stores, Width};
use crate::kernels::copy::SubsequenceStrip;

/// A register width and the byte-wise selects the strips need at it. The
/// 16- and 32-byte widths ([`Width`]) keep a select's mask in a register
/// of the same width; AVX-512's in a mask register of a bit a byte.
///
/// # Safety
/// A value of an implementing type must exist only when the running CPU
/// has every instruction its methods use, and the features [`Simd::run`]
/// enables: the methods' `unsafe` blocks rely on that.
pub(in crate::kernels::copy) unsafe trait Selects: Simd {
    /// Which bytes a select takes from its far register.
    type Mask: Copy;

    /// `v` in every byte.
    fn splat(self, v: u8) -> Self::Reg;

    /// The bytes of `far` where `mask` marks them, else those of `near`.
    fn select(self, near: Self::Reg, far: Self::Reg, mask: Self::Mask) -> Self::Reg;

    /// Marks the bytes where `a & b` equals `b`.
    fn has_bits(self, a: Self::Reg, b: Self::Reg) -> Self::Mask;

    /// Marks the bytes of `v` that are 0.
    fn is_zero(self, v: Self::Reg) -> Self::Mask;

    /// Each byte of `a` less the one of `b`, 0 where that would be
    /// negative.
    fn sub_saturating(self, a: Self::Reg, b: Self::Reg) -> Self::Reg;

    /// The smaller of each pair of bytes, as unsigned numbers.
    fn min(self, a: Self::Reg, b: Self::Reg) -> Self::Reg;

    /// Whether `mask` marks any byte.
    fn any(self, mask: Self::Mask) -> bool;
}

// SAFETY: each method is the `Width` one, whose token proves the same
// instructions.
unsafe impl<W: Width> Selects for W {
    type Mask = W::Reg;

    #[inline(always)]
    fn splat(self, v: u8) -> W::Reg {
        Width::splat(self, v)
    }

    #[inline(always)]
    fn select(self, near: W::Reg, far: W::Reg, mask: W::Reg) -> W::Reg {
        Width::select(self, near, far, mask)
    }

    #[inline(always)]
    fn has_bits(self, a: W::Reg, b: W::Reg) -> W::Reg {
        Width::has_bits(self, a, b)
    }

    #[inline(always)]
    fn is_zero(self, v: W::Reg) -> W::Reg {
        Width::is_zero(self, v)
    }

    #[inline(always)]
    fn sub_saturating(self, a: W::Reg, b: W::Reg) -> W::Reg {
        Width::sub_saturating(self, a, b)
    }

    #[inline(always)]
    fn min(self, a: W::Reg, b: W::Reg) -> W::Reg {
        Width::min(self, a, b)
    }

    #[inline(always)]
    fn any(self, mask: W::Reg) -> bool {
        Width::any(self, mask)
    }
}

/// Writes output rows `k0..=k1` of `strip` (see [`SubsequenceStrip`]) into
/// `out`, row `k` at `(k - k0) * out_stride`, using `buffer` (at least
/// `(size + 7) * W::BYTES` bytes) as scratch. Returns `false`, having
/// written nothing, when the arguments do not fit.
///
/// With `R[j]` the input's row `size - 1 - j`, output row `k` is `R[k +
/// s]` in a column whose length (capped at `size`) is `len > k` (`s =
/// size - len`), and the input's row `k` elsewhere. Shifting by `s` is shifting by each of its
/// bits, in any order, each a select between a row and the row `2^b`
/// further. The bits of 8 and up each make one pass over the buffer (the
/// first reads the input). The three low bits are a tree of three selects
/// per output row, over eight rows of the buffer, which slides down the
/// axis with its middle values kept in registers, fused with the final
/// choice between the shifted row and the input's own. A select with
/// beyond the axis on its far side keeps garbage, which lands only where
/// `k >= len` and is never kept.
///
/// With [`Streaming`](super::Streaming) stores, `out` and `out_stride`
/// must be multiples of `W::BYTES`, or nothing is written: each output
/// row is then sent to memory without being read first, and at 64 bytes
/// it is a whole cache line.
pub(in crate::kernels::copy) fn subsequence_strip<W: Selects, S: Stores>(
    isa: W,
    stores: S,
    strip: &SubsequenceStrip<'_>,
    out: &mut [u8],
    out_stride: usize,
    buffer: &mut [u8],
) -> bool {
    let bytes = W::BYTES;
    let aligned = super::aligned(out.as_ptr(), bytes) && out_stride.is_multiple_of(bytes);
    if !strip.fits(bytes, out.len(), out_stride)
        || (strip.size + 7) * bytes > buffer.len()
        || (S::STREAMING && !aligned)
    {
        return false;
    }
    let SubsequenceStrip { input, stride, size, lens, rows: (k0, k1) } = *strip;
    let Some(lens) = lens.get(..bytes) else {
        return false;
    };
    // At most 255 (`fits`), so a byte holds it.
    let axis = size as u8;
    // Eight lengths at a time: whether any column moves.
    let moves = lens.chunks(8).any(|eight| eight.iter().fold(0, |any, &len| any | len) != 0);
    isa.run(
        #[inline(always)]
        move || {
            // SAFETY: every pointer below stays inside its slice, by the
            // checks above: input row `r < size` spans `r * stride ..
            // r * stride + bytes`, below `input.len()`; output row `k`
            // (`k0 <= k <= k1`) spans `(k - k0) * out_stride` and `bytes`
            // more, below `out.len()`; buffer row `j` is read for `j <
            // size + 7` and written for `j < size`, each `bytes` long,
            // inside `(size + 7) * bytes <= buffer.len()`; `lens` is `bytes`
            // long, read by one load. Streaming stores: `out` starts on a
            // multiple of `bytes` and `out_stride` is one (above), so each
            // row starts on one too, and `S` promises the fence. The token
            // proves the instructions.
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
                // Each byte's length, capped at the axis, and its shift
                // `s = size - len`, 0 where the length is 0.
                let lens = isa.min(isa.load(lens.as_ptr()), isa.splat(axis));
                let idle = isa.is_zero(lens);
                let shifts = isa.select(isa.sub_saturating(isa.splat(axis), lens), isa.splat(0), idle);
                if !moves {
                    for k in k0..=k1 {
                        isa.store(stores, out.add((k - k0) * out_stride), row_in!(k));
                    }
                    return;
                }
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
                    let mask = bit!(b);
                    if step >= size || !isa.any(mask) {
                        continue;
                    }
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
                let mut left = isa.sub_saturating(lens, isa.splat(k0 as u8));
                let one = isa.splat(1);
                let (mut x1, mut x2) = (x!(k0 + 1), x!(k0 + 2));
                let mut y0 = isa.select(x!(k0), x2, m1);
                for k in k0..=k1 {
                    let x3 = x!(k + 3);
                    let y1 = isa.select(x1, x3, m1);
                    let shifted = isa.select(y0, y1, m0);
                    let v = isa.select(shifted, row_in!(k), isa.is_zero(left));
                    isa.store(stores, out.add((k - k0) * out_stride), v);
                    left = isa.sub_saturating(left, one);
                    (x1, x2, y0) = (x2, x3, y1);
                }
            }
        },
    );
    true
}
