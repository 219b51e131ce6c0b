//! The monotonic clock the limits and timings read: `std::time::Instant`,
//! except on `wasm32-unknown-unknown`, where std has no clock (its
//! `Instant::now` panics there). That target reads whatever clock the host
//! installs with [`set_source`] (the book's cells pass the browser's
//! `performance.now()`); until one is installed, time stands still, so a
//! deadline never passes and only the state and memory limits end a run.

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub(crate) use std::time::Instant;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub use host::{set_source, Instant};

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod host {
    use std::sync::OnceLock;
    use std::time::Duration;

    static SOURCE: OnceLock<fn() -> f64> = OnceLock::new();

    /// Installs the host's clock: milliseconds since any fixed origin,
    /// never decreasing. The first call wins.
    pub fn set_source(now_ms: fn() -> f64) {
        let _ = SOURCE.set(now_ms);
    }

    /// A point in time, in milliseconds of the host's clock.
    #[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
    pub struct Instant(f64);

    impl Instant {
        pub fn now() -> Instant {
            Instant(SOURCE.get().map_or(0.0, |f| f()))
        }

        pub fn duration_since(&self, earlier: Instant) -> Duration {
            Duration::from_secs_f64(((self.0 - earlier.0) / 1000.0).max(0.0))
        }

        pub fn elapsed(&self) -> Duration {
            Instant::now().duration_since(*self)
        }

        pub fn checked_add(&self, d: Duration) -> Option<Instant> {
            let t = self.0 + d.as_secs_f64() * 1000.0;
            t.is_finite().then_some(Instant(t))
        }
    }
}
