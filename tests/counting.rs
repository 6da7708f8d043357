//! A global allocator that counts what one thread allocates, for the tests
//! that check the run path allocates nothing once sizes repeat. A test
//! binary installs it with
//! `#[global_allocator] static GLOBAL: CountingAlloc = CountingAlloc;`.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Forwards every call to the system allocator and counts the allocations
/// made by a thread while it is inside [`measure`]; every other thread
/// (the test harness's included) is ignored.
pub struct CountingAlloc;

thread_local! {
    static ARMED: Cell<bool> = const { Cell::new(false) };
    // Per thread, so that tests running in parallel never count each
    // other's allocations.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    static BYTES: Cell<usize> = const { Cell::new(0) };
}

fn note_allocation(bytes: usize) {
    if ARMED.try_with(Cell::get).unwrap_or(false) {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        let _ = BYTES.try_with(|n| n.set(n.get() + bytes));
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// wrapper only counts.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_allocation(layout.size());
        // SAFETY: the caller upholds `alloc`'s contract, which we forward.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_allocation(layout.size());
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_allocation(new_size);
        // SAFETY: as for `alloc`; `ptr` came from this allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// The allocations `f` made on this thread, and the bytes they asked for.
/// Counts only in a binary that installed [`CountingAlloc`].
pub fn measure(f: impl FnOnce()) -> (usize, usize) {
    let before = (ALLOCATIONS.with(Cell::get), BYTES.with(Cell::get));
    ARMED.with(|a| a.set(true));
    f();
    ARMED.with(|a| a.set(false));
    (ALLOCATIONS.with(Cell::get) - before.0, BYTES.with(Cell::get) - before.1)
}

/// The allocations `f` made on this thread.
pub fn allocations_in(f: impl FnOnce()) -> usize {
    measure(f).0
}
