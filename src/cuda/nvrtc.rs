//! NVRTC, loaded at run time: CUDA C++ → PTX. Without the library the
//! crate still builds and runs; compiling then says what is missing.

use cudarc::nvrtc::{compile_ptx_with_opts, CompileOptions};

/// The oldest virtual architecture NVRTC 13 compiles for (Turing); the
/// generated code needs Volta or later (`__nanosleep`, independent threads).
pub const DEFAULT_ARCH: &str = "compute_75";

/// Whether `libnvrtc` can be loaded (it is found through the loader's
/// search path, e.g. `LD_LIBRARY_PATH`).
pub fn available() -> bool {
    // SAFETY: only tries to dlopen the library by its candidate names.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// Compiles CUDA C++ to PTX for `arch` (e.g. `compute_90`).
pub fn compile(source: &str, name: &str, arch: &str) -> Result<String, String> {
    compile_with(source, name, arch, &[])
}

/// Compiles with extra NVRTC options (include paths for toolkit headers).
pub fn compile_with(
    source: &str,
    name: &str,
    arch: &str,
    extra: &[String],
) -> Result<String, String> {
    if !available() {
        return Err(
            "NVRTC (libnvrtc.so) was not found: install the CUDA toolkit or \
             `pip install nvidia-cuda-nvrtc` and put its lib directory on LD_LIBRARY_PATH"
                .into(),
        );
    }
    let opts = CompileOptions {
        name: Some(name.to_string()),
        options: [format!("--gpu-architecture={arch}"), "-std=c++17".into()]
            .into_iter()
            .chain(extra.iter().cloned())
            .collect(),
        ..Default::default()
    };
    compile_ptx_with_opts(source, opts)
        .map(|ptx| ptx.to_src())
        .map_err(|e| match e {
            cudarc::nvrtc::CompileError::CompileError { log, .. } => {
                format!(
                    "NVRTC rejected the generated code:\n{}",
                    log.to_string_lossy()
                )
            }
            other => format!("NVRTC failed: {other:?}"),
        })
}
