//! A CUDA kernel checked as it is launched (`gsync-check check FILE.cu
//! --kernel NAME`): clang-19 and opt-19 compile the file (`llvm::toolchain`),
//! the kernel is lowered for the launch (`llvm::lower`), and the program
//! goes through the same pipeline as a spec's, with the built-in checks:
//! deadlock, races (under `ptx`), barrier divergence and device
//! assertions.

use super::{CheckConfig, Error, Prepared, SpecSource};
use crate::llvm::lower::{lower_kernel, KernelRequest, Refusal};
use crate::llvm::toolchain::{CompileOptions, Toolchain};
use crate::spec::ast::SpecFile;
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
    let toolchain = Toolchain::find().map_err(|e| Error::Usage(e.to_string()))?;
    let options = CompileOptions {
        include_dirs: launch.include_dirs.clone(),
        defines: launch.defines.clone(),
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
    let file = SpecFile::default();
    let spec = SpecSource {
        name: launch.kernel.clone(),
        ..spec
    };
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
