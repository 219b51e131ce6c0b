//! Command-line arguments.

use crate::api;
pub use crate::api::args::{
    at_least_1, param_value, parse_param, positive_seconds, worker_threads, CheckOptions,
};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// The options of a check as `check` and the family commands take them:
/// the library's [`CheckOptions`](api::args::CheckOptions) (shared with the
/// book's cells) and, where built in, those of a distributed run.
#[derive(Args, Debug, Clone, Default)]
pub struct CheckArgs {
    #[command(flatten)]
    pub options: CheckOptions,

    #[cfg(feature = "dist")]
    #[command(flatten)]
    pub dist: super::dist_args::DistArgs,
}

impl std::ops::Deref for CheckArgs {
    type Target = CheckOptions;

    fn deref(&self) -> &CheckOptions {
        &self.options
    }
}

/// How a check reports (the top level and `check`).
#[derive(Args, Debug, Clone, Default)]
pub struct OutputArgs {
    /// Output format: text, json or sarif (SARIF 2.1.0, for code-scanning annotations)
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = check_format)]
    pub format: Format,

    /// Write each counterexample as JSON into this directory (for `replay`)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Draw the first counterexample as an SVG sequence diagram into FILE (one spec only)
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,

    /// Print states/s, memory and the reductions used, with how many states the ample sets reduced (and include timings in JSON; not with SARIF)
    #[arg(long)]
    pub stats: bool,

    /// After a violation, search for a checked fix (`repair`'s search: the least change of orders, scopes or fences under which this check verifies) and show it as help lines and a diff (SARIF: a `fixes` object), or say that no ordering change cures it; bounded by --max-seconds for the whole run
    #[arg(long)]
    pub suggest_fix: bool,

    /// Colour: auto (on a terminal), always, never
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// How `verify` reports.
#[derive(Args, Debug, Clone, Default)]
pub struct VerifyOutputArgs {
    /// Output format
    #[arg(long, value_enum, default_value_t = VerifyFormat::Text)]
    pub format: VerifyFormat,

    /// Write the counterexample of each expectation that found a violation into this directory, as SPEC.lineN.json (N: the expect line)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Print states/s and memory per expectation (and include timings in JSON; not with SARIF or JUnit)
    #[arg(long)]
    pub stats: bool,

    /// Colour: auto (on a terminal), always, never
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// Bounds on each expectation `verify` checks: an expectation's own
/// limit applies where it is tighter (these are caps, for CI).
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct VerifyLimits {
    /// Each expectation stops with verdict inconclusive (and fails) after this many states, at least 1
    #[arg(long, value_name = "N", value_parser = at_least_1::<u64>, allow_negative_numbers = true)]
    pub max_states: Option<u64>,

    /// Each expectation stops with verdict inconclusive (and fails) after this many seconds, a positive number
    #[arg(long, value_name = "S", value_parser = positive_seconds, allow_negative_numbers = true)]
    pub max_seconds: Option<f64>,

    /// Each expectation stops with verdict inconclusive (and fails) before the process holds this many MiB, at least 1
    #[arg(long, value_name = "MIB", value_parser = at_least_1::<u64>, allow_negative_numbers = true)]
    pub max_memory: Option<u64>,
}

impl VerifyLimits {
    /// `limits` capped by these.
    pub fn cap(&self, limits: &mut crate::explore::Limits) {
        fn tighter<T: PartialOrd + Copy>(a: Option<T>, b: Option<T>) -> Option<T> {
            match (a, b) {
                (Some(x), Some(y)) => Some(if y < x { y } else { x }),
                (x, y) => x.or(y),
            }
        }
        limits.max_states = tighter(limits.max_states, self.max_states);
        limits.max_seconds = tighter(limits.max_seconds, self.max_seconds);
        limits.max_memory_mb = tighter(limits.max_memory_mb, self.max_memory);
    }
}

/// How `replay` reports.
#[derive(Args, Debug, Clone, Default)]
pub struct ReplayOutputArgs {
    /// Output format
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub format: TextOrJson,

    /// Draw the counterexample as an SVG sequence diagram into FILE
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,

    /// Colour: auto (on a terminal), always, never
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// The reports of a check.
#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Text,
    Json,
    /// SARIF 2.1.0, for code-scanning annotations
    Sarif,
}

/// The reports of `verify`: a check's, and JUnit's test cases.
#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VerifyFormat {
    #[default]
    Text,
    Json,
    /// SARIF 2.1.0, for code-scanning annotations
    Sarif,
    /// JUnit XML, one test case per expectation
    Junit,
}

/// Commands that report as text or JSON only (`replay`, `litmus`, `run`).
#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TextOrJson {
    #[default]
    Text,
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

/// A check's `--format`; JUnit, offered by `verify`, is pointed there.
fn check_format(s: &str) -> Result<Format, String> {
    if s == "junit" {
        return Err(
            "JUnit reports expectations as test cases: use it with `gsync-check verify PATH`"
                .into(),
        );
    }
    Format::from_str(s, false).map_err(|_| format!("expected text, json or sarif, found `{s}`"))
}

/// A family's name: barrier, mutex, semaphore.
pub fn family_name(s: &str) -> Result<String, String> {
    if api::FAMILIES.contains(&s) {
        Ok(s.to_string())
    } else {
        Err(format!(
            "unknown family `{s}` (known: {})",
            api::FAMILIES.join(", ")
        ))
    }
}

/// Lines FROM to TO of a text, 1-based and inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineRange {
    pub from: usize,
    pub to: usize,
}

/// Parses `FROM-TO` (or a single line `N`) into a [`LineRange`].
pub fn line_range(s: &str) -> Result<LineRange, String> {
    let (a, b) = s.split_once('-').unwrap_or((s, s));
    let from: usize = at_least_1(a)?;
    let to: usize = at_least_1(b)?;
    if to < from {
        return Err(format!(
            "`{s}` ends before it starts: write FROM-TO with FROM <= TO"
        ));
    }
    Ok(LineRange { from, to })
}

/// A CUDA kernel to check as it is launched (`check FILE.cu --kernel NAME`),
/// or several launched together (`--launch`).
#[derive(Args, Debug, Clone, Default)]
#[command(group = clap::ArgGroup::new("launched").args(["kernel", "launch"]))]
pub struct KernelArgs {
    /// Check this `__global__` function of a `.cu` file as launched with --grid/--blocks and --block/--threads-per-block (1-D), with built-in checks: deadlock, races (ptx), barrier divergence, device assert
    #[arg(long, value_name = "NAME", conflicts_with = "launch")]
    pub kernel: Option<String>,

    /// Kernels launched together (repeat it, once per kernel), as CUDA writes a launch: 'producer<<<2, 32>>>(flag, data, 1)' (1-D grid and block; the same block size for all). Their blocks all run at once, as on streams of their own with room for every block (unless --resident limits it: then blocks start in launch order). An argument is an integer, or a host variable: a buffer for a pointer parameter (every launch that passes the name shares it; --arg NAME=N its length), a value for an integer one (--arg NAME=V). No spaces inside it in an `//! expect` line
    #[arg(long, value_name = "KERNEL<<<G,B>>>(ARGS)", value_parser = clap::value_parser!(crate::api::LaunchCall), conflicts_with_all = ["blocks", "threads_per_block"])]
    pub launch: Vec<crate::api::LaunchCall>,

    /// A kernel argument (repeatable): NAME=VALUE for an integer parameter (each one needs a value); NAME=N for a pointer parameter, the number of elements of its zero-initialised buffer [default: 4]. With --launch, NAME is a host variable the launches pass
    #[arg(long = "arg", value_name = "NAME=VALUE", value_parser = kernel_arg, requires = "launched", allow_negative_numbers = true)]
    pub args: Vec<(String, i64)>,

    /// With --kernel or --launch: an include folder for clang (repeatable)
    #[arg(
        short = 'I',
        long = "cuda-include",
        value_name = "DIR",
        requires = "launched"
    )]
    pub include_dirs: Vec<PathBuf>,

    /// With --kernel or --launch: a preprocessor definition for clang, NAME or NAME=VALUE (repeatable)
    #[arg(
        short = 'D',
        long = "cuda-define",
        value_name = "DEF",
        requires = "launched"
    )]
    pub defines: Vec<String>,
}

impl KernelArgs {
    /// The kernels to check and how, when --kernel or --launch names them.
    pub fn launch(&self) -> Option<crate::api::KernelLaunch> {
        let launches = match &self.kernel {
            Some(k) => crate::api::Launches::Kernel(k.clone()),
            None if !self.launch.is_empty() => crate::api::Launches::Calls(self.launch.clone()),
            None => return None,
        };
        Some(crate::api::KernelLaunch {
            launches,
            args: self.args.clone(),
            include_dirs: self.include_dirs.clone(),
            defines: self.defines.clone(),
        })
    }
}

/// `NAME=VALUE` with any integer VALUE (a kernel's integers may be negative).
fn kernel_arg(s: &str) -> Result<(String, i64), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE, found `{s}`"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("missing parameter name in `{s}`"));
    }
    let value = value.trim();
    let v = api::args::int_literal(value).ok_or_else(|| format!("`{value}` is not an integer"))?;
    Ok((name.to_string(), v))
}
