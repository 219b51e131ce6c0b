//! The CUDA driver API, loaded at run time through cudarc's `sys` layer:
//! the device, modules, host-mapped memory, launches with a watchdog.
//! Only this file talks to the driver.

use cudarc::driver::sys::{
    self, CUcontext, CUdevice, CUdevice_attribute, CUdeviceptr, CUevent, CUfunction, CUmodule,
    CUresult, CUstream,
};
use serde::{Deserialize, Serialize};
use std::ffi::{c_void, CStr, CString};
use std::time::{Duration, Instant};

/// Why the GPU cannot (or can no longer) run something.
#[derive(Debug)]
pub enum GpuError {
    /// No CUDA driver library, or no device: the plain "no GPU" case.
    NoGpu(String),
    /// NVRTC or the driver refused the program, or it cannot be launched
    /// as asked: a problem of this program, not of the GPU.
    Program(String),
    /// A driver call failed.
    Cuda(String),
    /// A launch did not finish long after every deadline: the context is
    /// unusable and nothing more can run in this process.
    Wedged(String),
}

impl std::fmt::Display for GpuError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GpuError::NoGpu(m) | GpuError::Program(m) | GpuError::Cuda(m) | GpuError::Wedged(m) => {
                f.write_str(m)
            }
        }
    }
}

fn check(r: CUresult, what: &str) -> Result<(), GpuError> {
    if r == CUresult::CUDA_SUCCESS {
        return Ok(());
    }
    let mut text: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: cuGetErrorString writes a pointer to a static string.
    let name = unsafe {
        if sys::cuGetErrorString(r, &mut text) == CUresult::CUDA_SUCCESS && !text.is_null() {
            CStr::from_ptr(text).to_string_lossy().into_owned()
        } else {
            format!("{r:?}")
        }
    };
    Err(GpuError::Cuda(format!("{what} failed: {name}")))
}

/// What a report says about the GPU it ran on.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GpuInfo {
    pub name: String,
    pub sms: u32,
    pub compute_capability: String,
    pub driver: String,
}

impl GpuInfo {
    pub fn of(gpu: &Gpu) -> GpuInfo {
        GpuInfo {
            name: gpu.name.clone(),
            sms: gpu.sms,
            compute_capability: format!(
                "{}.{}",
                gpu.compute_capability.0, gpu.compute_capability.1
            ),
            driver: gpu.driver.clone(),
        }
    }
}

/// The first GPU, with a current context.
pub struct Gpu {
    dev: CUdevice,
    ctx: CUcontext,
    pub name: String,
    pub sms: u32,
    pub compute_capability: (i32, i32),
    /// CUDA driver version as `major.minor`.
    pub driver: String,
}

impl Gpu {
    pub fn open() -> Result<Gpu, GpuError> {
        // SAFETY: tries to dlopen libcuda by its candidate names.
        if !unsafe { sys::is_culib_present() } {
            return Err(GpuError::NoGpu(
                "no CUDA driver (libcuda.so) on this machine: `run` and `bench` need an NVIDIA GPU; `emit` works without one".into(),
            ));
        }
        // SAFETY: plain driver calls with valid out-pointers.
        unsafe {
            if sys::cuInit(0) != CUresult::CUDA_SUCCESS {
                return Err(GpuError::NoGpu(
                    "the CUDA driver found no usable GPU (cuInit failed)".into(),
                ));
            }
            let mut count = 0;
            check(sys::cuDeviceGetCount(&mut count), "cuDeviceGetCount")?;
            if count == 0 {
                return Err(GpuError::NoGpu("no CUDA GPU on this machine".into()));
            }
            let mut dev = 0;
            check(sys::cuDeviceGet(&mut dev, 0), "cuDeviceGet")?;
            let mut ctx = std::ptr::null_mut();
            check(
                sys::cuDevicePrimaryCtxRetain(&mut ctx, dev),
                "cuDevicePrimaryCtxRetain",
            )?;
            check(sys::cuCtxSetCurrent(ctx), "cuCtxSetCurrent")?;
            let mut buf = [0 as std::ffi::c_char; 256];
            check(
                sys::cuDeviceGetName(buf.as_mut_ptr(), 256, dev),
                "cuDeviceGetName",
            )?;
            let name = CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned();
            let attr = |a| {
                let mut v = 0;
                check(
                    sys::cuDeviceGetAttribute(&mut v, a, dev),
                    "cuDeviceGetAttribute",
                )
                .map(|()| v)
            };
            let sms = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
            let major = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
            let minor = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
            let mut version = 0;
            check(sys::cuDriverGetVersion(&mut version), "cuDriverGetVersion")?;
            Ok(Gpu {
                dev,
                ctx,
                name,
                sms,
                compute_capability: (major, minor),
                driver: format!("{}.{}", version / 1000, (version % 1000) / 10),
            })
        }
    }

    /// The NVRTC architecture option for this GPU.
    pub fn arch(&self) -> String {
        let (a, b) = self.compute_capability;
        format!("compute_{a}{b}")
    }

    /// Loads PTX (the driver JIT-compiles it for this GPU).
    pub fn load(&self, ptx: &str) -> Result<Module, GpuError> {
        let image = CString::new(ptx).map_err(|_| GpuError::Cuda("PTX with a NUL byte".into()))?;
        let mut m = std::ptr::null_mut();
        // SAFETY: `image` is a NUL-terminated PTX string alive for the call.
        unsafe {
            check(sys::cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")?;
            check(
                sys::cuModuleLoadData(&mut m, image.as_ptr() as *const c_void),
                "loading the PTX (cuModuleLoadData)",
            )?;
        }
        Ok(Module { m })
    }

    /// Resident blocks per SM the kernel allows at `threads` per block.
    pub fn max_blocks_per_sm(&self, k: &Kernel, threads: u32) -> Result<u32, GpuError> {
        let mut n = 0;
        // SAFETY: valid function handle and out-pointer.
        unsafe {
            check(
                sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, k.f, threads as i32, 0),
                "cuOccupancyMaxActiveBlocksPerMultiprocessor",
            )?;
        }
        let _ = self.dev;
        Ok(n as u32)
    }
}

/// A kernel of a loaded module (valid while the module is).
pub struct Kernel<'m> {
    f: CUfunction,
    _module: std::marker::PhantomData<&'m Module>,
}

/// A loaded module; unloaded on drop.
pub struct Module {
    m: CUmodule,
}

impl Module {
    pub fn function(&self, name: &str) -> Result<Kernel<'_>, GpuError> {
        let c = CString::new(name).expect("kernel names have no NUL");
        let mut f = std::ptr::null_mut();
        // SAFETY: valid module and NUL-terminated name.
        unsafe {
            check(
                sys::cuModuleGetFunction(&mut f, self.m, c.as_ptr()),
                "cuModuleGetFunction",
            )?
        };
        Ok(Kernel {
            f,
            _module: std::marker::PhantomData,
        })
    }

    /// Reads `n` 32-bit words of a `__device__` variable.
    pub fn read_words(&self, name: &str, n: usize) -> Result<Vec<u32>, GpuError> {
        let c = CString::new(name).expect("variable names have no NUL");
        let mut ptr: CUdeviceptr = 0;
        let mut bytes = 0usize;
        let mut out = vec![0u32; n];
        // SAFETY: the copy is bounded by both the variable's size and `out`.
        unsafe {
            check(
                sys::cuModuleGetGlobal_v2(&mut ptr, &mut bytes, self.m, c.as_ptr()),
                "cuModuleGetGlobal",
            )?;
            let len = bytes.min(n * 4);
            check(
                sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, ptr, len),
                "cuMemcpyDtoH",
            )?;
        }
        Ok(out)
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: the module was loaded by us and is unloaded once.
        unsafe {
            let _ = sys::cuModuleUnload(self.m);
        }
    }
}

/// Pinned host memory mapped into the device's address space: the host
/// sees the device's writes while a kernel runs, and the other way round.
pub struct Mapped {
    host: *mut u32,
    pub device: CUdeviceptr,
    pub len: usize,
}

impl Mapped {
    pub fn new(len: usize) -> Result<Mapped, GpuError> {
        let mut p: *mut c_void = std::ptr::null_mut();
        let mut d: CUdeviceptr = 0;
        // SAFETY: allocation of len words, zeroed before use.
        unsafe {
            check(
                sys::cuMemHostAlloc(
                    &mut p,
                    len.max(1) * 4,
                    sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE,
                ),
                "cuMemHostAlloc (mapped)",
            )?;
            std::ptr::write_bytes(p as *mut u32, 0, len.max(1));
            check(
                sys::cuMemHostGetDevicePointer_v2(&mut d, p, 0),
                "cuMemHostGetDevicePointer",
            )?;
        }
        Ok(Mapped {
            host: p as *mut u32,
            device: d,
            len,
        })
    }

    pub fn get(&self, i: usize) -> u32 {
        assert!(i < self.len);
        // SAFETY: in bounds; volatile because the GPU writes it concurrently.
        unsafe { std::ptr::read_volatile(self.host.add(i)) }
    }

    pub fn set(&self, i: usize, v: u32) {
        assert!(i < self.len);
        // SAFETY: in bounds; volatile so the GPU sees it.
        unsafe { std::ptr::write_volatile(self.host.add(i), v) }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: allocated by cuMemHostAlloc, freed once.
        unsafe {
            let _ = sys::cuMemFreeHost(self.host as *mut c_void);
        }
    }
}

/// A stream: the litmus harness queues launches that follow each other
/// without the host waiting in between (reset, test, collect); a watched
/// launch has one of its own.
pub struct Stream {
    s: CUstream,
}

impl Stream {
    pub fn new() -> Result<Stream, GpuError> {
        let mut s: CUstream = std::ptr::null_mut();
        // SAFETY: creates a stream into a valid out-pointer.
        unsafe {
            check(
                sys::cuStreamCreate(&mut s, 1 /* CU_STREAM_NON_BLOCKING */),
                "cuStreamCreate",
            )?
        };
        Ok(Stream { s })
    }

    /// Queues `k` on `blocks` blocks of `threads`; `params` point to the
    /// kernel's arguments, which the driver copies at the call.
    pub fn launch(
        &self,
        k: &Kernel,
        blocks: u32,
        threads: u32,
        params: &mut [*mut c_void],
    ) -> Result<(), GpuError> {
        self.launch_as(k, blocks, threads, params, false)
    }

    /// [`Stream::launch`], or a cooperative launch (every block resident at
    /// once, as `grid.sync()` needs).
    fn launch_as(
        &self,
        k: &Kernel,
        blocks: u32,
        threads: u32,
        params: &mut [*mut c_void],
        cooperative: bool,
    ) -> Result<(), GpuError> {
        let (f, s, p) = (k.f, self.s, params.as_mut_ptr());
        // SAFETY: valid function and stream; the parameters outlive the call.
        let r = unsafe {
            if cooperative {
                sys::cuLaunchCooperativeKernel(f, blocks, 1, 1, threads, 1, 1, 0, s, p)
            } else {
                sys::cuLaunchKernel(
                    f,
                    blocks,
                    1,
                    1,
                    threads,
                    1,
                    1,
                    0,
                    s,
                    p,
                    std::ptr::null_mut(),
                )
            }
        };
        check(r, "launching the kernel")
    }

    /// Waits for everything queued; `Ok(false)` if it is still running
    /// after `timeout` (the stream is then left alone).
    pub fn wait(&self, timeout: Duration) -> Result<bool, GpuError> {
        let start = Instant::now();
        loop {
            // SAFETY: valid stream.
            let q = unsafe { sys::cuStreamQuery(self.s) };
            if q == CUresult::CUDA_SUCCESS {
                return Ok(true);
            }
            if q != CUresult::CUDA_ERROR_NOT_READY {
                check(q, "the kernel")?;
            }
            let waited = start.elapsed();
            if waited >= timeout {
                return Ok(false);
            }
            // Short kernels: spin a little before sleeping.
            if waited > Duration::from_millis(2) {
                std::thread::sleep(Duration::from_micros(100));
            } else {
                std::hint::spin_loop();
            }
        }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: the stream was created here; destroying it with work
        // pending lets that work finish first.
        unsafe {
            let _ = sys::cuStreamDestroy_v2(self.s);
        }
    }
}

/// A CUDA event: a point in a stream whose completion the host can see.
struct Event(CUevent);

impl Event {
    /// A new event recorded on `stream` now.
    fn recorded(stream: &Stream) -> Result<Event, GpuError> {
        let mut e: CUevent = std::ptr::null_mut();
        // SAFETY: creates an event into a valid out-pointer and records it
        // on a valid stream.
        unsafe {
            check(sys::cuEventCreate(&mut e, 0), "cuEventCreate")?;
            check(sys::cuEventRecord(e, stream.s), "cuEventRecord")?;
        }
        Ok(Event(e))
    }

    /// Whether the event completes before `deadline`.
    fn wait_until(&self, deadline: Instant) -> Result<bool, GpuError> {
        loop {
            // SAFETY: valid event.
            let q = unsafe { sys::cuEventQuery(self.0) };
            if q == CUresult::CUDA_SUCCESS {
                return Ok(true);
            }
            if q != CUresult::CUDA_ERROR_NOT_READY {
                check(q, "the kernel")?;
            }
            if Instant::now() >= deadline {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    /// Milliseconds from `self` to `later`, both completed.
    fn ms_until(&self, later: &Event) -> Result<f64, GpuError> {
        let mut ms = 0f32;
        // SAFETY: both events completed.
        unsafe {
            check(
                sys::cuEventElapsedTime_v2(&mut ms, self.0, later.0),
                "cuEventElapsedTime",
            )?
        };
        Ok(f64::from(ms))
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: created here, destroyed once.
        unsafe {
            let _ = sys::cuEventDestroy_v2(self.0);
        }
    }
}

/// How a launch ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ended {
    /// Finished by itself; kernel time from CUDA events.
    Completed { ms: f64 },
    /// Still running at the timeout; the abort flag was raised. `drained`:
    /// every thread left after that (otherwise the context is unusable and
    /// the process must exit to free the GPU).
    Hung { drained: bool },
}

/// Launches `f` on a fresh stream between two events and waits up to
/// `timeout`; then raises `abort[0]` and waits `grace` for the kernel to drain.
#[allow(clippy::too_many_arguments)]
pub fn launch_and_wait(
    k: &Kernel,
    blocks: u32,
    threads: u32,
    params: &mut [*mut c_void],
    cooperative: bool,
    abort: Option<&Mapped>,
    timeout: Duration,
    grace: Duration,
) -> Result<Ended, GpuError> {
    let stream = Stream::new()?;
    let start = Event::recorded(&stream)?;
    stream.launch_as(k, blocks, threads, params, cooperative)?;
    let stop = Event::recorded(&stream)?;
    let ended = if stop.wait_until(Instant::now() + timeout)? {
        Ended::Completed {
            ms: start.ms_until(&stop)?,
        }
    } else {
        if let Some(a) = abort {
            a.set(0, 1);
        }
        Ended::Hung {
            drained: stop.wait_until(Instant::now() + grace)?,
        }
    };
    if ended == (Ended::Hung { drained: false }) {
        // Work is still pending: the handles stay until the process exits.
        std::mem::forget((start, stop, stream));
    }
    Ok(ended)
}
