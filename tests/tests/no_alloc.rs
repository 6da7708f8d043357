//! After the first inference of a static-shape model, an infer request
//! allocates nothing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use ovir_tests::samples_dir;

/// Counts allocations made by the thread that armed it; every other
/// thread (the test harness's included) is ignored.
struct CountingAlloc;

thread_local! {
    static ARMED: Cell<bool> = const { Cell::new(false) };
    // Per thread, so that tests running in parallel never count each
    // other's allocations.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn note_allocation() {
    if ARMED.try_with(Cell::get).unwrap_or(false) {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// wrapper only counts.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: the caller upholds `alloc`'s contract, which we forward.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_allocation();
        // SAFETY: as for `alloc`; `ptr` came from this allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// Allocations made by `f` on this thread.
fn allocations_in(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    ARMED.with(|a| a.set(true));
    f();
    ARMED.with(|a| a.set(false));
    ALLOCATIONS.with(Cell::get) - before
}

fn steady_state_allocations(case: &str) -> usize {
    let dir = samples_dir().join(case);
    let compiled = ovir::Model::read(dir.join("model.xml")).unwrap().compile().unwrap();
    let mut request = compiled.infer_request();
    for (i, t) in compiled.example_inputs().unwrap().into_iter().enumerate() {
        request.set_input(i, t).unwrap();
    }
    request.infer().unwrap();
    allocations_in(|| {
        for _ in 0..10 {
            request.infer().unwrap();
        }
    })
}

#[test]
fn reverse_with_constant_axes_allocates_nothing_after_the_first_inference() {
    assert_eq!(steady_state_allocations("reverse_index_r3_f32_axes_i64_0_2"), 0);
}

#[test]
fn reverse_sequence_allocates_nothing_after_the_first_inference() {
    assert_eq!(steady_state_allocations("rseq_runtime_lengths_i32"), 0);
}

#[test]
fn a_chain_with_intermediates_allocates_nothing_after_the_first_inference() {
    assert_eq!(steady_state_allocations("chain_reverse_rseq_reverse"), 0);
    assert_eq!(steady_state_allocations("convert_f32_to_f16"), 0);
}

#[test]
fn reverse_with_runtime_axes_allocates_nothing_after_the_first_inference() {
    // The axes are an input, so the flags are read on every run.
    assert_eq!(steady_state_allocations("reverse_runtime_axes_r3_0_m1"), 0);
}

#[test]
fn a_converted_torch_flip_allocates_nothing_after_the_first_inference() {
    // PyTorch's flip arrives as a Slice with step -1; with constant bounds
    // and a static shape the plan runs it as a Reverse.
    assert_eq!(steady_state_allocations("torch_flip_dims_0_m1"), 0);
}

#[test]
fn the_counter_sees_allocations() {
    // Guards the other tests: a counter that never counts would pass them.
    assert!(allocations_in(|| drop(std::hint::black_box(vec![1u8; 64]))) >= 1);
}
