//! The tuning constant of ReverseSubsequences' own planning: what it is,
//! then why, in a line. The strategies for scattered lines keep theirs in
//! `kernels::scattered_lines::tuning`; `docs/performance.md` ("Why the
//! ReverseSequence and ReverseSubsequences constants are what they are")
//! tells the measurements in full.

/// The fewest lines per stretch of one length, on average, that are played as runs, not scattered lines.
/// Not measured against its neighbours: a run costs tens of cycles to list and play, an element a few.
pub(super) const MIN_PLAYED_STRETCH: usize = 16;
