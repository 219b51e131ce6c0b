//! gsync-check in the browser: the checker compiled to WebAssembly
//! (`wasm32-unknown-unknown`, one thread) behind a small hand-written ABI,
//! for the book's editable cells (`book/gsync-cells.js`).
//!
//! Why no wasm-bindgen: the whole interface is one JSON string in and one
//! out, plus the host's clock coming in. wasm-bindgen would need its CLI,
//! whose version must match the crate's exactly, built in CI (minutes on
//! two cores) to generate glue this small; here the glue is a few lines of
//! JavaScript and CI needs only `rustup target add wasm32-unknown-unknown`.
//!
//! The ABI, all in the module's linear memory:
//! - `gsync_alloc(len) -> ptr`: a buffer for the request, which
//!   `gsync_check` takes ownership of;
//! - `gsync_check(ptr, len) -> len`: runs a check of the request (JSON, see
//!   [`Request`]) and keeps the response (JSON, see [`Response`]);
//! - `gsync_response() -> ptr`: where that response is.
//!
//! The module imports one function, `gsync.now_ms() -> f64` (the host's
//! monotonic clock, `performance.now()`), so that `--max-seconds` works;
//! `std::time::Instant` has no clock on this target.

mod request;

pub use request::{check, Request, Response};

/// Counts the heap as the native binary does, so `--max-memory` bounds
/// what a check allocates in the module's memory.
#[global_allocator]
static HEAP: gsync_check::explore::heap::CountingAlloc = gsync_check::explore::heap::CountingAlloc;

#[cfg(target_arch = "wasm32")]
mod abi {
    use std::cell::RefCell;

    #[link(wasm_import_module = "gsync")]
    extern "C" {
        fn now_ms() -> f64;
    }

    fn host_now() -> f64 {
        // SAFETY: an import without arguments or memory access.
        unsafe { now_ms() }
    }

    thread_local! {
        static RESPONSE: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }

    #[no_mangle]
    pub extern "C" fn gsync_alloc(len: usize) -> *mut u8 {
        let mut buf = Vec::<u8>::with_capacity(len);
        let ptr = buf.as_mut_ptr();
        std::mem::forget(buf);
        ptr
    }

    /// # Safety
    /// `ptr` comes from `gsync_alloc(len)` and holds `len` bytes written
    /// by the host; it is not used after this call.
    #[no_mangle]
    pub unsafe extern "C" fn gsync_check(ptr: *mut u8, len: usize) -> usize {
        gsync_check::clock::set_source(host_now);
        // SAFETY: see the function's contract.
        let bytes = unsafe { Vec::from_raw_parts(ptr, len, len) };
        let response = match serde_json::from_slice::<super::Request>(&bytes) {
            Ok(request) => super::check(&request),
            Err(e) => super::Response::usage(&format!("bad request from the page: {e}")),
        };
        let json = serde_json::to_vec(&response).unwrap_or_default();
        let n = json.len();
        RESPONSE.with(|r| *r.borrow_mut() = json);
        n
    }

    #[no_mangle]
    pub extern "C" fn gsync_response() -> *const u8 {
        RESPONSE.with(|r| r.borrow().as_ptr())
    }
}
