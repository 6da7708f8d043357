//! Splitting a kernel's output across threads.
//!
//! Every kernel that can use threads writes its output as one flat byte
//! buffer in which each output element depends on nothing else the kernel
//! writes. So the buffer is cut into disjoint contiguous chunks with
//! `chunks_mut`, and each thread fills its own chunk: no two threads ever
//! hold the same bytes, and no `unsafe` is needed.

/// How a kernel may run: for now, how many threads it may use.
///
/// The allocating kernel functions (such as [`reverse`](super::reverse))
/// run on the calling thread; their `_into` forms take these options. Outputs
/// smaller than `threads * min_bytes_per_thread` use fewer threads, down to
/// the calling thread alone, because starting a thread costs more than it
/// saves on small copies.
///
/// On the calling thread alone, the `_into` kernels allocate no memory
/// (each given its scratch again). With more
/// threads, every call that splits its output starts scoped threads and
/// joins them before returning; starting a thread allocates (its stack and
/// bookkeeping), so only single-threaded runs are free of allocations.
///
/// ```
/// use ovir_exec::kernels::{reverse_into, ExecOptions, ReverseScratch};
/// use ovir_tensor::Tensor;
///
/// let data = Tensor::from_vec(&[2, 3], vec![0u8, 1, 2, 3, 4, 5])?;
/// let mut out = Tensor::zeros(data.element_type(), data.shape())?;
/// let options = ExecOptions { threads: 2, min_bytes_per_thread: 1 };
/// reverse_into(&data, &[false, true], &mut out, &options, &mut ReverseScratch::new())?;
/// assert_eq!(out.to_vec::<u8>()?, vec![2, 1, 0, 5, 4, 3]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExecOptions {
    /// The most threads a kernel may use, the calling thread included; 0
    /// and 1 both mean the calling thread only.
    pub threads: usize,
    /// The fewest output bytes worth giving to one thread, for a kernel
    /// that runs about as fast as a memcpy. Defaults to
    /// [`ExecOptions::DEFAULT_MIN_BYTES_PER_THREAD`]. A kernel several
    /// times slower than a memcpy (ReverseSubsequences with a length per
    /// line off the innermost axis) counts its output as that many times
    /// larger.
    pub min_bytes_per_thread: usize,
}

impl ExecOptions {
    /// Default for [`ExecOptions::min_bytes_per_thread`]: 32 MiB. The
    /// kernels only move memory, and one thread already keeps the memory
    /// bus about as busy as it gets on small machines. Measured on 2 cores,
    /// a second thread made no 32 MiB reversal or sequence reversal faster
    /// and several up to 1.8× slower (starting it, and sharing a core with
    /// whatever else runs, cost more than it saved), split 8 MiB outputs
    /// ran about 1.5× slower, and a 64 MiB output took about as long either
    /// way. So only outputs of 64 MiB and more are split, where the cost
    /// of starting a thread is small next to the copy and machines with
    /// more memory bandwidth per core gain from it.
    pub const DEFAULT_MIN_BYTES_PER_THREAD: usize = 32 << 20;

    /// Run on the calling thread only (the default).
    pub const fn single_thread() -> ExecOptions {
        ExecOptions::with_threads(1)
    }

    /// Use up to `threads` threads for large outputs.
    pub const fn with_threads(threads: usize) -> ExecOptions {
        ExecOptions { threads, min_bytes_per_thread: ExecOptions::DEFAULT_MIN_BYTES_PER_THREAD }
    }

    /// Use as many threads as the machine offers to this process
    /// ([`std::thread::available_parallelism`], or 1 when unknown).
    pub fn all_cores() -> ExecOptions {
        ExecOptions::with_threads(std::thread::available_parallelism().map_or(1, usize::from))
    }

    /// How many threads to use for an output of `bytes` bytes that takes
    /// about `cost` times as long as a memcpy of it (1 for the kernels
    /// that copy at memory speed): as many as for an output `cost` times
    /// larger.
    fn threads_for_work(&self, bytes: usize, cost: usize) -> usize {
        let worth = bytes.saturating_mul(cost.max(1)) / self.min_bytes_per_thread.max(1);
        self.threads.min(worth).max(1)
    }
}

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions::single_thread()
    }
}

/// Cuts `dst` into at most `options.threads` contiguous chunks whose
/// lengths are multiples of `width` (the output element's byte width, or
/// any unit the caller moves whole) and calls `fill(first_element, chunk)` for each,
/// on its own thread for all but the first. `None` when any call returns
/// `None` or a thread panicked.
pub(super) fn for_each_chunk<F>(options: &ExecOptions, dst: &mut [u8], width: usize, fill: F) -> Option<()>
where
    F: Fn(usize, &mut [u8]) -> Option<()> + Sync,
{
    for_each_costly_chunk(options, dst, width, 1, fill)
}

/// [`for_each_chunk`] for a kernel that takes about `cost` times as long
/// as a memcpy of its output, so that a second thread pays off on an
/// output `cost` times smaller ([`ExecOptions::min_bytes_per_thread`] is
/// about copies).
pub(super) fn for_each_costly_chunk<F>(
    options: &ExecOptions,
    dst: &mut [u8],
    width: usize,
    cost: usize,
    fill: F,
) -> Option<()>
where
    F: Fn(usize, &mut [u8]) -> Option<()> + Sync,
{
    let threads = options.threads_for_work(dst.len(), cost);
    let width = width.max(1);
    if threads <= 1 {
        return fill(0, dst);
    }
    // Chunks that start on a cache line keep two threads from writing the
    // same line; a multiple of `64 * width` bytes is one for every width.
    let align = 64 * width;
    let chunk = dst.len().div_ceil(threads).div_ceil(align) * align;
    let fill = &fill;
    std::thread::scope(|scope| {
        let mut parts = dst.chunks_mut(chunk).enumerate();
        let first = parts.next();
        let mut handles = Vec::with_capacity(threads);
        let mut ok = Some(());
        for (k, part) in parts {
            let start = k * chunk / width;
            // A thread the system refuses to start leaves its part
            // unwritten, which is reported like any other failure.
            match std::thread::Builder::new().spawn_scoped(scope, move || fill(start, part)) {
                Ok(handle) => handles.push(handle),
                Err(_) => ok = None,
            }
        }
        if let Some((_, part)) = first {
            ok = ok.and(fill(0, part));
        }
        for handle in handles {
            ok = ok.and(handle.join().ok().flatten());
        }
        ok
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_outputs_stay_on_one_thread() {
        let options = ExecOptions::with_threads(8);
        assert_eq!(options.threads_for_work(1000, 1), 1);
        assert_eq!(options.threads_for_work(32 << 20, 1), 1);
        assert_eq!(options.threads_for_work(63 << 20, 1), 1);
        assert_eq!(options.threads_for_work(96 << 20, 1), 3);
        assert_eq!(options.threads_for_work(1 << 30, 1), 8);
        let options = ExecOptions { threads: 8, min_bytes_per_thread: 2 << 20 };
        assert_eq!(options.threads_for_work(6 << 20, 1), 3);
        assert_eq!(ExecOptions { threads: 0, min_bytes_per_thread: 0 }.threads_for_work(1 << 30, 1), 1);
    }

    #[test]
    fn costly_outputs_split_as_if_larger() {
        let options = ExecOptions::with_threads(8);
        assert_eq!(options.threads_for_work(8 << 20, 1), 1);
        assert_eq!(options.threads_for_work(8 << 20, 8), 2);
        assert_eq!(options.threads_for_work(16 << 20, 8), 4);
        assert_eq!(options.threads_for_work(usize::MAX, 8), 8);
        assert_eq!(ExecOptions::single_thread().threads_for_work(1 << 30, 8), 1);
    }

    #[test]
    fn chunks_cover_the_output_once_in_whole_elements() {
        let options = ExecOptions { threads: 3, min_bytes_per_thread: 1 };
        let mut dst = vec![0u8; 8 * 1001];
        let filled = for_each_chunk(&options, &mut dst, 8, |start, part| {
            assert_eq!(part.len() % 8, 0);
            for (k, element) in part.chunks_exact_mut(8).enumerate() {
                element.copy_from_slice(&((start + k) as u64).to_le_bytes());
            }
            Some(())
        });
        assert_eq!(filled, Some(()));
        for (k, element) in dst.chunks_exact(8).enumerate() {
            assert_eq!(element, (k as u64).to_le_bytes());
        }
        assert_eq!(for_each_chunk(&options, &mut dst, 8, |start, _| (start == 0).then_some(())), None);
    }
}
