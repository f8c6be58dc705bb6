//! Stack for recursive work. Terraform evaluation recurses as deep as the
//! expressions nest, more than a default thread's stack allows. A caller
//! that runs many units on threads it built with [`LARGE_STACK`] bytes says
//! so once per thread, and units then run inline instead of each spawning a
//! thread (a 64 MiB mapping, a guard page and fresh page faults every time).

use std::cell::Cell;
use std::sync::Mutex;

/// Stack size recursive frontends need.
pub const LARGE_STACK: usize = 64 * 1024 * 1024;

thread_local! {
    static LARGE: Cell<bool> = const { Cell::new(false) };
}

/// Declare that the current thread was created with at least
/// [`LARGE_STACK`] bytes of stack (e.g. in a thread pool's start handler).
pub fn declare_large_stack() {
    LARGE.with(|l| l.set(true));
}

/// Run `f` on a stack of at least [`LARGE_STACK`] bytes: inline on a thread
/// that declared one, otherwise on a scoped thread of its own. A panic in `f`
/// reaches the caller either way.
pub fn with_large_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if LARGE.with(Cell::get) {
        return f();
    }
    // The closure moves into the thread only once it exists; if no thread
    // can be made, it is still here to run inline.
    let slot = Mutex::new(Some(f));
    let take = || slot.lock().unwrap_or_else(|e| e.into_inner()).take();
    let out = std::thread::scope(|s| {
        let spawned = std::thread::Builder::new()
            .name("fplint-large-stack".into())
            .stack_size(LARGE_STACK)
            .spawn_scoped(s, || {
                declare_large_stack();
                take().map(|f| f())
            });
        match spawned {
            Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            Err(_) => None,
        }
    });
    match out {
        Some(r) => r,
        // No thread could be made: run here and hope the stack holds.
        None => match take() {
            Some(f) => f(),
            None => std::panic::panic_any("fplint: large-stack closure vanished"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(n: u32) -> u32 {
        let pad = std::hint::black_box([0u8; 1024]);
        if n == 0 {
            u32::from(pad[0])
        } else {
            depth(n - 1) + 1
        }
    }

    #[test]
    fn deep_recursion_runs_on_a_large_stack() {
        // About 20 MiB of frames: more than a default 2 MiB/8 MiB stack.
        assert_eq!(with_large_stack(|| depth(20_000)), 20_000);
    }

    #[test]
    fn declared_threads_run_inline() {
        let here = std::thread::current().id();
        let ran_on = std::thread::Builder::new()
            .stack_size(LARGE_STACK)
            .spawn(move || {
                declare_large_stack();
                let me = std::thread::current().id();
                (me, with_large_stack(|| std::thread::current().id()))
            })
            .map(|h| h.join());
        let Ok(Ok((me, inner))) = ran_on else {
            panic!("test thread failed");
        };
        assert_eq!(me, inner);
        assert_ne!(here, inner);
    }

    #[test]
    fn panics_reach_the_caller() {
        let r = std::panic::catch_unwind(|| with_large_stack(|| panic!("boom")));
        assert!(r.is_err());
    }
}
