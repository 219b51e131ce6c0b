//! A CUDA kernel checked as it is launched (`gsync-check check FILE.cu
//! --kernel NAME`): clang-19 and opt-19 compile the file (`llvm::toolchain`),
//! the kernel is lowered for the launch (`llvm::lower`), and the program
//! goes through the same pipeline as a spec's, with the built-in checks:
//! deadlock, races (under `ptx`), barrier divergence and device
//! assertions.

use super::{CheckConfig, Error, Prepared, SpecSource};
use crate::diag::Diagnostic;
use crate::ir::Launch;
use crate::llvm::lower::{lower_kernels, KernelRequest, Refusal};
use crate::llvm::toolchain::{CompileOptions, Toolchain};
use crate::spec::ast::{Header, SpecFile};
use std::path::Path;

/// What to check in a `.cu` file: the kernels launched and their
/// arguments (`NAME=VALUE` for an integer; for a pointer, `NAME=N`
/// elements of its buffer, 4 when not given).
#[derive(Clone, Debug, Default)]
pub struct KernelLaunch {
    pub launches: Launches,
    /// `--kernel`: keyed by the kernel's parameter names; `--launch`: by
    /// the host variables the calls pass.
    pub args: Vec<(String, i64)>,
    /// `-I` folders and `-D` definitions for clang.
    pub include_dirs: Vec<std::path::PathBuf>,
    pub defines: Vec<String>,
}

/// Which kernels a check launches.
#[derive(Clone, Debug)]
pub enum Launches {
    /// `--kernel NAME`: one kernel, launched as the configuration's grid
    /// and block say.
    Kernel(String),
    /// `--launch 'K<<<G, B>>>(ARGS)'`, repeated: kernels launched
    /// together, as on streams of their own with every block resident.
    Calls(Vec<LaunchCall>),
}

impl Default for Launches {
    fn default() -> Launches {
        Launches::Kernel(String::new())
    }
}

impl Launches {
    /// The check's name: the kernel's, or the launched kernels' joined by
    /// `+`.
    pub fn name(&self) -> String {
        match self {
            Launches::Kernel(k) => k.clone(),
            Launches::Calls(calls) => {
                let names: Vec<&str> = calls.iter().map(|c| c.kernel.as_str()).collect();
                names.join("+")
            }
        }
    }
}

pub use crate::ir::CallArg;

/// One launch as a CUDA program writes it: `producer<<<2, 32>>>(flag,
/// data, 1)` (1-D grid and block; each argument an integer literal or a
/// host variable's name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchCall {
    pub kernel: String,
    pub grid: u32,
    pub block: u32,
    pub args: Vec<CallArg>,
}

impl std::str::FromStr for LaunchCall {
    type Err = String;

    fn from_str(s: &str) -> Result<LaunchCall, String> {
        let shape = "write KERNEL<<<GRID, BLOCK>>>(ARG, ...), as `producer<<<2,32>>>(flag,data,1)`";
        let (kernel, rest) = s
            .split_once("<<<")
            .ok_or_else(|| format!("no `<<<` in `{s}`: {shape}"))?;
        let kernel = kernel.trim();
        if !is_identifier(kernel) {
            return Err(format!("`{kernel}` is not a kernel's name: {shape}"));
        }
        let (config, rest) = rest
            .split_once(">>>")
            .ok_or_else(|| format!("no `>>>` in `{s}`: {shape}"))?;
        let dims: Vec<&str> = config.split(',').map(str::trim).collect();
        let [grid, block] = dims.as_slice() else {
            return Err(format!(
                "`<<<{config}>>>`: give the grid and the block size, two numbers (1-D launches; no shared-memory size or stream)"
            ));
        };
        let size = |what: &str, v: &str| match v.parse::<u32>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(format!(
                "`{v}` as the {what}: a number of at least 1 (1-D launches)"
            )),
        };
        let (grid, block) = (size("grid", grid)?, size("block size", block)?);
        let inner = rest
            .trim()
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(')'))
            .ok_or_else(|| {
                format!("the arguments after `>>>` in `{s}` go in parentheses: {shape}")
            })?;
        let args = if inner.trim().is_empty() {
            Vec::new()
        } else {
            inner.split(',').map(call_arg).collect::<Result<_, _>>()?
        };
        Ok(LaunchCall {
            kernel: kernel.to_string(),
            grid,
            block,
            args,
        })
    }
}

/// An argument of a launch: an integer literal (decimal or 0x hex) or a
/// host variable's name.
fn call_arg(text: &str) -> Result<CallArg, String> {
    let t = text.trim();
    match super::args::int_literal(t) {
        Some(n) => Ok(CallArg::Int(n)),
        None if is_identifier(t) => Ok(CallArg::Name(t.to_string())),
        None => Err(format!(
            "`{t}` as a launch argument: an integer or a host variable's name"
        )),
    }
}

fn is_identifier(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The variable an `--arg` sets or sizes: `data` of `data=4`,
/// `data[2]=1` and `data->field=8`.
fn arg_base(name: &str) -> &str {
    let end = name.find(['[', '-']).unwrap_or(name.len());
    name[..end].trim()
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
    let mut config = config.clone();
    // `--kernel`: one request with the configuration's launch;
    // `--launch`: one per call, each with its own grid and block.
    let per_call;
    let requests: Vec<KernelRequest> = match &launch.launches {
        Launches::Kernel(kernel) => vec![KernelRequest {
            kernel,
            launch: config.launch,
            args: &launch.args,
            call: None,
        }],
        Launches::Calls(calls) => {
            per_call = args_by_launch(calls, &launch.args);
            calls
                .iter()
                .zip(&per_call)
                .map(|(c, args)| KernelRequest {
                    kernel: &c.kernel,
                    launch: Launch {
                        blocks: c.grid,
                        threads_per_block: c.block,
                        ..config.launch
                    },
                    args,
                    call: Some(&c.args),
                })
                .collect()
        }
    };
    let program = lower_kernels(
        &module,
        path,
        &spec.text,
        &toolchain.user_files(),
        &requests,
    )
    .map_err(|r| match r {
        Refusal::Usage(m) => Error::Usage(m),
        Refusal::Located(d, source) => Error::Spec(d, source),
    })?;
    // Kernels launched together: one launch of all their blocks.
    config.launch = program.launch;
    config.validate()?;
    let file = SpecFile {
        header,
        ..SpecFile::default()
    };
    let spec = SpecSource {
        name: launch.launches.name(),
        ..spec
    }
    .named_by_header(&file.header);
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

/// Each launch's `--arg`s: those of the host variables its call passes,
/// and those of names no call passes (a `__device__` pointer variable's
/// length, a `__device__` variable's initial value), which every launch
/// gets.
fn args_by_launch(calls: &[LaunchCall], args: &[(String, i64)]) -> Vec<Vec<(String, i64)>> {
    let passes = |c: &LaunchCall, name: &str| c.args.contains(&CallArg::Name(name.to_string()));
    calls
        .iter()
        .map(|c| {
            args.iter()
                .filter(|(n, _)| {
                    let base = arg_base(n);
                    passes(c, base) || !calls.iter().any(|other| passes(other, base))
                })
                .cloned()
                .collect()
        })
        .collect()
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
