//! A global allocator that counts: the bytes the process holds at once and their peak,
//! and, per thread, the allocations made and the bytes they asked for.
//!
//! A bench binary that wants it declares it:
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOCATOR: common::counting::Counting = common::counting::Counting;
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting.
pub struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// This thread's allocations (`alloc`, `alloc_zeroed` and `realloc` calls) and the
    /// bytes they asked for (a `realloc` counts what it grew by).
    static THREAD: Cell<Allocations> = const { Cell::new(Allocations { count: 0, bytes: 0 }) };
}

/// Allocations made and bytes asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Allocations {
    pub count: u64,
    pub bytes: u64,
}

impl std::ops::Sub for Allocations {
    type Output = Allocations;
    fn sub(self, earlier: Allocations) -> Allocations {
        Allocations {
            count: self.count - earlier.count,
            bytes: self.bytes - earlier.bytes,
        }
    }
}

fn allocated(bytes: usize) {
    grew(bytes);
    counted(bytes);
}

fn grew(bytes: usize) {
    let now = CURRENT.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

fn counted(bytes: usize) {
    // `try_with`: a thread that is ending may free and allocate after its locals are gone.
    let _ = THREAD.try_with(|thread| {
        let mut counts = thread.get();
        counts.count += 1;
        counts.bytes += bytes as u64;
        thread.set(counts);
    });
}

fn freed(bytes: usize) {
    CURRENT.fetch_sub(bytes, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; only counters are updated, and
// they allocate nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            allocated(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            allocated(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        freed(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                freed(layout.size() - new_size);
            }
            counted(new_size.saturating_sub(layout.size()));
        }
        new
    }
}

/// The bytes allocated now, across the process.
pub fn current() -> usize {
    CURRENT.load(Ordering::Relaxed)
}

/// The most bytes allocated at once since the last [`reset_peak`].
pub fn peak() -> usize {
    PEAK.load(Ordering::Relaxed)
}

/// Starts measuring a peak: it becomes the current value, which is returned.
pub fn reset_peak() -> usize {
    let now = current();
    PEAK.store(now, Ordering::Relaxed);
    now
}

/// The allocations this thread has made so far.
pub fn thread_allocations() -> Allocations {
    THREAD.with(Cell::get)
}
