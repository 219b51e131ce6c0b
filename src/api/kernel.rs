//! A CUDA kernel checked as it is launched (`gsync-check check FILE.cu
//! --kernel NAME`): clang-19 and opt-19 compile the file (`llvm::toolchain`),
//! the kernel is lowered for the launch (`llvm::lower`), and the program
//! goes through the same pipeline as a spec's, with the built-in checks:
//! deadlock, races (under `ptx`), barrier divergence and device
//! assertions.

use super::{CheckConfig, Error, Prepared, SpecSource};
use crate::diag::Diagnostic;
use crate::llvm::lower::{lower_kernel, KernelRequest, Refusal};
use crate::llvm::toolchain::{CompileOptions, Toolchain};
use crate::spec::ast::{Header, SpecFile};
use std::path::Path;

/// What to check in a `.cu` file: the kernel and its arguments
/// (`NAME=VALUE` for an integer parameter; for a pointer, `NAME=N`
/// elements of its buffer, 4 when not given).
#[derive(Clone, Debug, Default)]
pub struct KernelLaunch {
    pub kernel: String,
    pub args: Vec<(String, i64)>,
    /// `-I` folders and `-D` definitions for clang.
    pub include_dirs: Vec<std::path::PathBuf>,
    pub defines: Vec<String>,
}

/// The `//!` header of a kernel's `.cu` file (its expectations, include
/// folders and macros); empty when it has none.
pub fn cuda_header(spec: &SpecSource) -> Result<Header, Error> {
    let source = spec.source();
    crate::spec::parse_cuda_header(&source).map_err(|d| Error::Spec(Box::new(d), Box::new(source)))
}

/// Compiles `path`, lowers `launch.kernel` for `config`'s launch and
/// prepares it for [`run`](super::run).
pub fn prepare_kernel(
    path: &Path,
    launch: &KernelLaunch,
    config: &CheckConfig,
) -> Result<Prepared, Error> {
    config.validate()?;
    if !config.params.is_empty() {
        return Err(Error::Usage(
            "--param sets a spec's parameters; a kernel's arguments are given with --arg NAME=VALUE"
                .into(),
        ));
    }
    let spec = SpecSource::from_file(path)?;
    let header = cuda_header(&spec)?;
    let compile = header_compile_options(&header, path)
        .map_err(|d| Error::Spec(Box::new(d), Box::new(spec.source())))?;
    let toolchain = Toolchain::find().map_err(|e| Error::Usage(e.to_string()))?;
    // The header's folders and macros first, then the command line's.
    let options = CompileOptions {
        include_dirs: [compile.include_dirs, launch.include_dirs.clone()].concat(),
        defines: [compile.defines, launch.defines.clone()].concat(),
        ..CompileOptions::default()
    };
    let module = toolchain
        .read(path, &options)
        .map_err(|e| Error::Usage(e.to_string()))?;
    let request = KernelRequest {
        kernel: &launch.kernel,
        launch: config.launch,
        args: &launch.args,
    };
    let program = lower_kernel(&module, path, &spec.text, &toolchain.user_files(), &request)
        .map_err(|r| match r {
            Refusal::Usage(m) => Error::Usage(m),
            Refusal::Located(d, source) => Error::Spec(d, source),
        })?;
    let file = SpecFile {
        header,
        ..SpecFile::default()
    };
    let spec = SpecSource {
        name: launch.kernel.clone(),
        ..spec
    }
    .named_by_header(&file.header);
    let mut config = config.clone();
    config.resolve_simt(&file, &spec)?;
    if config.semantics.simt_mode() == crate::model::SimtMode::Lockstep {
        config.resolve_memory_model(true);
    } else {
        config.resolve_memory_model(false);
    }
    if config.semantics.memory_model() == crate::model::MemoryModel::Ptx
        && config.semantics.simt_mode() == crate::model::SimtMode::Lockstep
    {
        return Err(Error::Usage(
            "--simt lockstep is modelled under --memory-model sc only".into(),
        ));
    }
    Ok(Prepared {
        spec,
        file,
        program,
        config,
    })
}

/// The include folders and macros a kernel file's `//!` header gives
/// (`cuda-include:`, `cuda-define:`, as a harness's), resolved as a
/// harness's are; the keys that only a spec harness has are refused where
/// they are written.
fn header_compile_options(
    header: &Header,
    path: &Path,
) -> Result<crate::clang_front::Request, Diagnostic> {
    use crate::clang_front::{DEFINE_KEY, INCLUDE_KEY};
    if let Some((key, value)) = header
        .cuda
        .iter()
        .find(|(k, _)| k != DEFINE_KEY && k != INCLUDE_KEY)
    {
        return Err(Diagnostic::new(
            value.span,
            format!("`{key}:` is a spec harness's key; a kernel's `.cu` is compiled itself"),
        )
        .label("not for a kernel")
        .hint("a kernel's header takes `cuda-include:` and `cuda-define:` (and `expect` lines)"));
    }
    if let Some((name, _)) = header.liveness.first() {
        return Err(Diagnostic::new(
            name.span,
            "`liveness:` sets a spec's parameters; a kernel's arguments are in each `expect` line's --arg",
        )
        .label("not for a kernel"));
    }
    crate::clang_front::Request::from_header(header, path)
}
