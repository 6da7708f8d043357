//! The x86_64 tokens, their registers, loads and stores, and the
//! streaming stores' fence.

use std::arch::x86_64::{
    __m128i, __m256i, __m512i, _mm256_loadu_si256, _mm256_storeu_si256, _mm256_stream_si256,
    _mm512_loadu_si512, _mm512_storeu_si512, _mm512_stream_si512, _mm_loadu_si128, _mm_sfence,
    _mm_storeu_si128, _mm_stream_si128,
};
use std::marker::PhantomData;

// Every x86_64 target enables SSE and SSE2 for all code: `Sse2` needs no
// check, and the fence's `unsafe` block rests on this.
const _: () = assert!(cfg!(target_feature = "sse2"));

/// Proof of SSE2, which every x86_64 CPU has: 16-byte registers.
#[derive(Clone, Copy, Debug)]
pub(in crate::kernels) struct Sse2 {
    _proof: (),
}

impl Sse2 {
    /// The token: the target enables SSE2 for all code (asserted above).
    pub(in crate::kernels) fn new() -> Sse2 {
        Sse2 { _proof: () }
    }
}

/// Proof that the running CPU has SSSE3 (and so SSE2): only
/// [`Ssse3::detect`] makes one.
#[derive(Clone, Copy, Debug)]
pub(in crate::kernels) struct Ssse3 {
    _proof: (),
}

impl Ssse3 {
    /// The token, when the running CPU has SSSE3.
    pub(in crate::kernels) fn detect() -> Option<Ssse3> {
        std::arch::is_x86_feature_detected!("ssse3").then_some(Ssse3 { _proof: () })
    }
}

/// Proof that the running CPU has AVX2, F16C and SSSE3: only
/// [`Avx2::detect`] makes one. It carries the [`Ssse3`] token it was
/// checked with, for 16-byte blocks, and the AVX-512 tokens the CPU also
/// has: [`Vbmi`] and [`Avx512`].
#[derive(Clone, Copy, Debug)]
pub(in crate::kernels) struct Avx2 {
    ssse3: Ssse3,
    vbmi: Option<Vbmi>,
    avx512: Option<Avx512>,
}

impl Avx2 {
    /// The token, when the running CPU has AVX2, F16C and SSSE3 (every CPU
    /// with AVX2 has the other two).
    pub(in crate::kernels) fn detect() -> Option<Avx2> {
        let ssse3 = Ssse3::detect()?;
        let avx2 = std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("f16c");
        avx2.then(|| Avx2 { ssse3, vbmi: Vbmi::detect(), avx512: Avx512::detect() })
    }

    /// The SSSE3 token this one was checked with.
    #[inline(always)]
    pub(in crate::kernels) fn ssse3(self) -> Ssse3 {
        self.ssse3
    }

    /// The AVX-512 VBMI token the CPU gave with this one, if any.
    #[inline(always)]
    pub(in crate::kernels) fn vbmi(self) -> Option<Vbmi> {
        self.vbmi
    }

    /// The AVX-512 F and BW token the CPU gave with this one, if any.
    #[inline(always)]
    pub(in crate::kernels) fn avx512(self) -> Option<Avx512> {
        self.avx512
    }

    /// The same token without AVX-512 (VBMI or BW), so that tests can check
    /// the AVX2 loops on machines that have it.
    #[cfg(test)]
    pub(in crate::kernels) fn without_avx512(self) -> Avx2 {
        Avx2 { vbmi: None, avx512: None, ..self }
    }
}

/// Proof that the running CPU has AVX-512 F and BW: only
/// [`Avx512::detect`] makes one.
#[derive(Clone, Copy, Debug)]
pub(in crate::kernels) struct Avx512 {
    _proof: (),
}

impl Avx512 {
    /// The token, when the running CPU has AVX-512 F and BW.
    pub(in crate::kernels) fn detect() -> Option<Avx512> {
        let has =
            std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512bw");
        has.then_some(Avx512 { _proof: () })
    }
}

/// Proof that the running CPU has AVX-512 VBMI and VL (for `vpermb` on
/// 32-byte registers): only [`Vbmi::detect`] makes one.
#[derive(Clone, Copy, Debug)]
pub(in crate::kernels) struct Vbmi {
    _proof: (),
}

impl Vbmi {
    /// The token, when the running CPU has AVX-512 VBMI and VL.
    pub(in crate::kernels) fn detect() -> Option<Vbmi> {
        let has = std::arch::is_x86_feature_detected!("avx512vbmi")
            && std::arch::is_x86_feature_detected!("avx512vl");
        has.then_some(Vbmi { _proof: () })
    }
}

/// A token's register width, how its routines are compiled, and its
/// loads and stores. The users' traits of operations (copy's `Width` and
/// `Selects`, Convert's `Lanes`) build on it.
///
/// # Safety
/// A value of an implementing type must exist only when the running CPU
/// has every instruction its methods use and the features [`Simd::run`]
/// enables: the methods' `unsafe` blocks, and those of every trait built
/// on this one, rely on that.
pub(in crate::kernels) unsafe trait Simd: Copy {
    /// A register.
    type Reg: Copy;
    /// Bytes in a register: 16, 32 or 64.
    const BYTES: usize;

    /// Runs `f` in a function compiled with this token's features enabled.
    /// The routines pass `#[inline(always)]` closures and helpers, so
    /// their whole body is compiled there, with every intrinsic inlined.
    fn run<R>(self, f: impl FnOnce() -> R) -> R;

    /// The register at `p`.
    ///
    /// # Safety
    /// `p` must be valid for reading `BYTES` bytes (any alignment).
    unsafe fn load(self, p: *const u8) -> Self::Reg;

    /// Stores `v` at `p`, streaming when `S` says so.
    ///
    /// # Safety
    /// `p` must be valid for writing `BYTES` bytes, and aligned to `BYTES`
    /// when `S` streams.
    unsafe fn store<S: Stores>(self, stores: S, p: *mut u8, v: Self::Reg);
}

/// The 16-byte loads and stores, which SSE2 has.
macro_rules! bytes16 {
    () => {
        type Reg = __m128i;
        const BYTES: usize = 16;

        #[inline(always)]
        unsafe fn load(self, p: *const u8) -> __m128i {
            // SAFETY: the caller guarantees 16 readable bytes; the load
            // takes any address; SSE2 is there on every x86_64 CPU.
            unsafe { _mm_loadu_si128(p.cast::<__m128i>()) }
        }

        #[inline(always)]
        unsafe fn store<S: Stores>(self, _: S, p: *mut u8, v: __m128i) {
            if S::STREAMING {
                // SAFETY: the caller guarantees a valid destination,
                // 16-byte aligned as the streaming store needs; the
                // `Streaming` witness `S` promises the fence; SSE2.
                unsafe { _mm_stream_si128(p.cast::<__m128i>(), v) }
            } else {
                // SAFETY: the caller guarantees a valid destination; this
                // store takes any address; SSE2.
                unsafe { _mm_storeu_si128(p.cast::<__m128i>(), v) }
            }
        }
    };
}

/// The 32-byte loads and stores, which AVX has.
macro_rules! bytes32 {
    () => {
        type Reg = __m256i;
        const BYTES: usize = 32;

        #[inline(always)]
        unsafe fn load(self, p: *const u8) -> __m256i {
            // SAFETY: the caller guarantees 32 readable bytes; the load
            // takes any address; the token proves AVX (AVX2 and AVX-512 VL
            // include it).
            unsafe { _mm256_loadu_si256(p.cast::<__m256i>()) }
        }

        #[inline(always)]
        unsafe fn store<S: Stores>(self, _: S, p: *mut u8, v: __m256i) {
            if S::STREAMING {
                // SAFETY: the caller guarantees a valid destination,
                // 32-byte aligned as the streaming store needs; the
                // `Streaming` witness `S` promises the fence; the token
                // proves AVX.
                unsafe { _mm256_stream_si256(p.cast::<__m256i>(), v) }
            } else {
                // SAFETY: the caller guarantees a valid destination; this
                // store takes any address; the token proves AVX.
                unsafe { _mm256_storeu_si256(p.cast::<__m256i>(), v) }
            }
        }
    };
}

/// [`Simd::run`] for a token whose features are `$features`.
macro_rules! run_with {
    ($features:literal) => {
        #[inline(always)]
        fn run<R>(self, f: impl FnOnce() -> R) -> R {
            #[target_feature(enable = $features)]
            fn enabled<R>(f: impl FnOnce() -> R) -> R {
                f()
            }
            // SAFETY: `Simd`'s contract: a token exists only when the CPU
            // has `$features`, as each impl's comment says.
            unsafe { enabled(f) }
        }
    };
}

// SAFETY: SSE2 is enabled for all x86_64 code (asserted above), and `run`
// enables nothing more.
unsafe impl Simd for Sse2 {
    bytes16!();

    #[inline(always)]
    fn run<R>(self, f: impl FnOnce() -> R) -> R {
        f()
    }
}

// SAFETY: an `Ssse3` is only made by `detect`, after the CPU reported
// SSSE3, and `run` enables SSSE3 alone.
unsafe impl Simd for Ssse3 {
    bytes16!();

    run_with!("ssse3");
}

// SAFETY: an `Avx2` is only made by `detect`, after the CPU reported AVX2,
// F16C and SSSE3, and `run` enables AVX2 and F16C (which include SSSE3).
unsafe impl Simd for Avx2 {
    bytes32!();

    run_with!("avx2,f16c");
}

// SAFETY: a `Vbmi` is only made by `detect`, after the CPU reported
// AVX-512 VBMI and VL, and `run` enables those two (which include AVX).
unsafe impl Simd for Vbmi {
    bytes32!();

    run_with!("avx512vbmi,avx512vl");
}

// SAFETY: an `Avx512` is only made by `detect`, after the CPU reported
// AVX-512 F and BW, and `run` enables those two alone (which include AVX2
// and below).
unsafe impl Simd for Avx512 {
    type Reg = __m512i;
    const BYTES: usize = 64;

    run_with!("avx512f,avx512bw");

    #[inline(always)]
    unsafe fn load(self, p: *const u8) -> __m512i {
        // SAFETY: the caller guarantees 64 readable bytes; the load takes
        // any address; the token proves AVX-512 F.
        unsafe { _mm512_loadu_si512(p.cast()) }
    }

    #[inline(always)]
    unsafe fn store<S: Stores>(self, _: S, p: *mut u8, v: __m512i) {
        if S::STREAMING {
            // SAFETY: the caller guarantees a valid destination, 64-byte
            // aligned as the streaming store needs; the `Streaming` witness
            // `S` promises the fence; the token proves AVX-512 F.
            unsafe { _mm512_stream_si512(p.cast(), v) }
        } else {
            // SAFETY: the caller guarantees a valid destination; this store
            // takes any address; the token proves AVX-512 F.
            unsafe { _mm512_storeu_si512(p.cast(), v) }
        }
    }
}

/// How a routine stores: [`Plain`] or [`Streaming`].
///
/// # Safety
/// A type whose `STREAMING` is `true` must be a witness that the streaming
/// stores made with it are fenced, as [`Streaming`] is: the routines make
/// them on its word alone.
pub(in crate::kernels) unsafe trait Stores: Copy {
    /// Whether the stores are streaming (non-temporal) ones.
    const STREAMING: bool;
}

/// Ordinary stores, through the cache.
#[derive(Clone, Copy, Debug)]
pub(in crate::kernels) struct Plain;

// SAFETY: it promises nothing: its stores are ordinary ones.
unsafe impl Stores for Plain {
    const STREAMING: bool = false;
}

/// Streaming (non-temporal) stores, which send whole lines to memory
/// without reading them into the cache first.
///
/// They are weakly ordered: until an `sfence` on the thread that made
/// them, neither another thread nor an ordinary access is guaranteed to see
/// them in order, so reading or writing the memory before the fence is a
/// data race. This value is the promise that the fence comes: see
/// [`Streaming::new`] and [`streaming`]. It cannot leave its thread, as the
/// fence only orders that thread's stores, and its lifetime `'w` ties it
/// to the call that fences: the witness [`streaming`] lends cannot outlive
/// the closure it is lent to.
#[derive(Clone, Copy, Debug)]
pub(in crate::kernels) struct Streaming<'w> {
    _one_thread: PhantomData<*const ()>,
    /// Invariant in `'w`, so that no longer or shorter lifetime stands in.
    _fenced_by: PhantomData<fn(&'w ()) -> &'w ()>,
}

// SAFETY: a `Streaming` is made only by `Streaming::new`, whose caller
// promises the fence.
unsafe impl Stores for Streaming<'_> {
    const STREAMING: bool = true;
}

impl Streaming<'_> {
    /// A witness that streaming stores may be made.
    ///
    /// # Safety
    /// The caller must call [`Streaming::fence`] after the last store made
    /// with this witness, before any memory those stores wrote is read or
    /// written in any other way, and also when it unwinds.
    pub(in crate::kernels) unsafe fn new() -> Self {
        Streaming { _one_thread: PhantomData, _fenced_by: PhantomData }
    }

    /// Orders every streaming store made so far on this thread before
    /// everything that follows.
    pub(in crate::kernels) fn fence(self) {
        // SAFETY: `sfence` belongs to SSE, which every x86_64 CPU has.
        unsafe { _mm_sfence() };
    }
}

/// Lends `write` a [`Streaming`] witness and returns what it returns,
/// fencing the streaming stores on this thread after `write` returns or
/// unwinds, so whoever touches the memory they wrote next sees them all.
///
/// The witness's lifetime is one `write` must accept whatever it is, so
/// neither what `write` returns nor anything it writes to outside can hold
/// it. A destructor would not do for the fence: safe code may forget a
/// value, and then its destructor never runs. Here the fence follows the
/// call whatever happens in it.
pub(in crate::kernels) fn streaming<R>(write: impl for<'w> FnOnce(Streaming<'w>) -> R) -> R {
    // SAFETY: the fence below runs on this thread whichever way `write`
    // ends, because an unwinding `write` is caught, fenced after, and
    // resumed; the witness is `!Send`, so every store made with it is on
    // this thread, and it cannot outlive `write` (above). The stores go
    // only where the code that makes them may write: memory `write` holds
    // borrowed until it returns, so nothing else reads or writes it before
    // the fence.
    let witness = unsafe { Streaming::new() };
    let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| write(witness)));
    witness.fence();
    done.unwrap_or_else(|unwinding| std::panic::resume_unwind(unwinding))
}
