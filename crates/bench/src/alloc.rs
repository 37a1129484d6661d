//! A global allocator that counts allocations per thread, to check that
//! computing a delay never touches the heap.
//!
//! Install it in a bench or test binary:
//! ```
//! #[global_allocator]
//! static ALLOC: bench::alloc::CountingAllocator = bench::alloc::CountingAllocator;
//!
//! fn main() {
//!     let (v, allocations) = bench::alloc::count_allocations(|| vec![1u8; 4]);
//!     assert_eq!((v.len(), allocations), (4, 1));
//! }
//! ```
//! The counter is per thread rather than one global atomic: `cargo test` runs
//! tests on parallel threads, and a global count would charge one test with
//! another's allocations.

#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    // `const` and without `Drop`: no lazy initialisation and no destructor,
    // so reading it from inside the allocator can neither allocate nor fail.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with` rather than `with`: never panic inside the allocator.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

/// [`System`], counting every `alloc`, `alloc_zeroed` and `realloc` made by
/// the current thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingAllocator;

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged; counting touches only a thread-local integer.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as ours, forwarded as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as ours, forwarded as is.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as ours, forwarded as is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours, forwarded as is.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Allocations made so far by the current thread. Always 0 when
/// [`CountingAllocator`] is not the global allocator.
pub fn allocations() -> u64 {
    ALLOCATIONS.try_with(Cell::get).unwrap_or(0)
}

/// Runs `f` and returns its result with the allocations it made on this thread.
pub fn count_allocations<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let before = allocations();
    let value = f();
    (value, allocations() - before)
}
