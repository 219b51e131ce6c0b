//! clang-19 and opt-19 as child processes, and the CUDA header tree they
//! read. The headers come from the PyPI wheels nvidia-cuda-runtime,
//! nvidia-cuda-crt and nvidia-cuda-cccl (installed with `pip install
//! --target`, as `.ci/run` does); this module assembles the folder layout
//! clang's `--cuda-path` expects out of symbolic links to them, and writes
//! two empty shim headers, in a cache folder of its own. NVIDIA's headers
//! are read where pip put them, never copied.
//!
//! Environment: `GSYNC_CLANG`, `GSYNC_OPT` (the tools; else `clang++-19`
//! and `opt-19` on `PATH`, or `/usr/lib/llvm-19/bin`), `GSYNC_CUDA_PATH` (a
//! ready CUDA folder with `include/cuda_runtime.h`, used as it is), else
//! `GSYNC_CUDA_HEADERS_DIR`, `GSYNC_CUDA_CRT_DIR`, `GSYNC_CUDA_CCCL_DIR`
//! (the wheels' `--target` folders; default `~/.cache/gsync-cuda-headers`,
//! `~/.cache/gsync-cuda-crt`, `~/.cache/gsync-cuda-cccl`), and
//! `GSYNC_LLVM_CACHE` (the folder this module owns; default
//! `~/.cache/gsync-llvm`).

use super::debug::{normalize, UserFiles};
use super::ir::Module;
use super::lexer::ParseError;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The pass pipeline after clang: inline everything, promote allocas to
/// SSA, light clean-up; no loop passes (loops stay as written).
pub const OPT_PASSES: &str =
    "always-inline,cgscc(inline),function(sroa,early-cse,simplifycfg,instcombine<no-verify-fixpoint>),globaldce";

/// The shim headers: CUDA 13 removed the first, cuRAND is not installed.
const SHIMS: &[&str] = &["texture_fetch_functions.h", "curand_mtgp32_kernel.h"];

/// What to install, for the error messages.
const INSTALL_LLVM: &str = "apt-get install clang-19 llvm-19";
const INSTALL_HEADERS: &str = "python3 -m pip install --no-deps --target ~/.cache/gsync-cuda-headers nvidia-cuda-runtime==13.5.37; the same with --target ~/.cache/gsync-cuda-crt nvidia-cuda-crt==13.5.37 and --target ~/.cache/gsync-cuda-cccl nvidia-cuda-cccl==13.3.5.0.6 (as .ci/run does), or set GSYNC_CUDA_PATH to a CUDA toolkit";

/// Why a CUDA file could not be turned into a module. Every variant is a
/// usage or input error: exit code 2.
#[derive(Clone, Debug)]
pub enum ToolchainError {
    /// A tool or the headers are not installed.
    Missing { what: String, install: String },
    /// The translation unit does not exist.
    NoSuchFile(PathBuf),
    /// clang refused the code: its errors, located.
    Compile {
        tu: PathBuf,
        diagnostics: Vec<Diagnostic>,
        stderr: String,
    },
    /// A tool ran past its time limit and was killed.
    Timeout { tool: String, limit: Duration },
    /// A tool failed otherwise (opt, or clang without a located error).
    Failed { tool: String, stderr: String },
    /// The IR clang and opt wrote is outside what the reader supports.
    Parse { tu: PathBuf, error: ParseError },
    /// Reading or writing a file failed.
    Io(String),
}

impl ToolchainError {
    /// The process exit code this error means: always 2 (usage or input).
    pub fn exit_code(&self) -> i32 {
        2
    }
}

impl fmt::Display for ToolchainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolchainError::Missing { what, install } => {
                write!(f, "{what} was not found (install: {install})")
            }
            ToolchainError::NoSuchFile(p) => write!(f, "{}: no such file", p.display()),
            ToolchainError::Compile {
                tu, diagnostics, ..
            } => {
                write!(f, "clang could not compile {}", tu.display())?;
                for d in diagnostics.iter().take(10) {
                    write!(f, "\n{d}")?;
                }
                if diagnostics.len() > 10 {
                    write!(f, "\n({} more errors)", diagnostics.len() - 10)?;
                }
                Ok(())
            }
            ToolchainError::Timeout { tool, limit } => {
                write!(
                    f,
                    "{tool} ran longer than {} s and was stopped",
                    limit.as_secs_f64()
                )
            }
            ToolchainError::Failed { tool, stderr } => {
                write!(f, "{tool} failed: {}", stderr.trim_end())
            }
            ToolchainError::Parse { tu, error } => write!(
                f,
                "the LLVM IR of {} is outside what the reader supports: {error}",
                tu.display()
            ),
            ToolchainError::Io(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ToolchainError {}

/// One error clang reported: where, and the files that included it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file, as clang printed it, made absolute.
    pub file: PathBuf,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// `error` or `fatal error`.
    pub severity: String,
    /// The message.
    pub message: String,
    /// `In file included from F:L`, innermost first.
    pub included_from: Vec<(PathBuf, u32)>,
}

impl Diagnostic {
    /// Where to point a user: the diagnostic itself if it is in a user's
    /// file, else the innermost user's file that includes it.
    pub fn user_location(&self, files: &UserFiles) -> (PathBuf, u32, u32) {
        if files.is_user(&self.file) {
            return (self.file.clone(), self.line, self.column);
        }
        self.included_from
            .iter()
            .find(|(f, _)| files.is_user(f))
            .map_or((self.file.clone(), self.line, self.column), |(f, l)| {
                (f.clone(), *l, 0)
            })
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}: {}",
            self.file.display(),
            self.line,
            self.column,
            self.severity,
            self.message
        )
    }
}

/// Reads clang's stderr: its `error` and `fatal error` lines, each with
/// the include chain printed before it. Relative paths are taken from `cwd`.
pub fn parse_diagnostics(stderr: &str, cwd: &Path) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut includes = Vec::new();
    for line in stderr.lines() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed
            .strip_prefix("In file included from ")
            .or_else(|| trimmed.strip_prefix("from "))
        {
            if let Some((file, l)) = file_line(rest.trim_end_matches([':', ','])) {
                includes.push((absolute(cwd, file), l));
            }
            continue;
        }
        let Some((loc, rest)) = split_location(line) else {
            continue;
        };
        let (file, l, c) = loc;
        for sev in ["fatal error", "error"] {
            if let Some(msg) = rest.strip_prefix(sev).and_then(|r| r.strip_prefix(": ")) {
                out.push(Diagnostic {
                    file: absolute(cwd, file),
                    line: l,
                    column: c,
                    severity: sev.to_string(),
                    message: msg.to_string(),
                    included_from: std::mem::take(&mut includes),
                });
                break;
            }
        }
        includes.clear();
    }
    out
}

fn absolute(cwd: &Path, file: &str) -> PathBuf {
    normalize(&cwd.join(file))
}

/// `FILE:LINE`.
fn file_line(s: &str) -> Option<(&str, u32)> {
    let (f, l) = s.rsplit_once(':')?;
    Some((f, l.parse().ok()?))
}

/// `FILE:LINE:COL: REST`.
fn split_location(line: &str) -> Option<((&str, u32, u32), &str)> {
    let mut search = 0;
    while let Some(i) = line[search..].find(": ") {
        let at = search + i;
        let head = &line[..at];
        if let Some((fl, c)) = head.rsplit_once(':') {
            if let (Some((f, l)), Ok(c)) = (file_line(fl), c.parse::<u32>()) {
                if !f.is_empty() {
                    return Some(((f, l, c), &line[at + 2..]));
                }
            }
        }
        search = at + 2;
    }
    None
}

/// Where the tools and headers are.
#[derive(Clone, Debug)]
pub struct Toolchain {
    /// `clang++-19`.
    pub clang: PathBuf,
    /// `opt-19`.
    pub opt: PathBuf,
    /// The folder given to `--cuda-path` (`include/`, an empty `bin/`).
    pub cuda: PathBuf,
    /// The folder of the two shim headers (`-isystem`).
    pub shim: PathBuf,
    /// The folders whose files are not the user's (see `user_files`).
    pub system_roots: Vec<PathBuf>,
}

/// What to compile besides the translation unit.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// `-I` folders.
    pub include_dirs: Vec<PathBuf>,
    /// `-D` definitions (`NAME` or `NAME=VALUE`).
    pub defines: Vec<String>,
    /// The time limit of each tool.
    pub timeout: Duration,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            include_dirs: Vec::new(),
            defines: Vec::new(),
            timeout: Duration::from_secs(120),
        }
    }
}

/// A compiled translation unit: the IR after opt, and the tools' times.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The textual LLVM IR.
    pub ll: String,
    /// clang's wall time.
    pub clang_time: Duration,
    /// opt's wall time.
    pub opt_time: Duration,
}

impl Toolchain {
    /// Finds clang, opt and the CUDA headers, and prepares the CUDA folder
    /// and the shims in the cache; says what to install if one is missing.
    pub fn find() -> Result<Toolchain, ToolchainError> {
        let clang = find_tool("GSYNC_CLANG", "clang++-19", "clang++", "clang-19")?;
        let opt = find_tool("GSYNC_OPT", "opt-19", "opt", "opt-19 (package llvm-19)")?;
        let cache = cache_dir()?;
        let shim = cache.join("shim");
        write_shims(&shim)?;
        let mut system_roots = vec![
            shim.clone(),
            PathBuf::from("/usr/include"),
            PathBuf::from("/usr/local/include"),
            PathBuf::from("/usr/lib/gcc"),
        ];
        // clang's own headers: its installation prefix (/usr/lib/llvm-19).
        if let Ok(real) = std::fs::canonicalize(&clang) {
            if let Some(prefix) = real.parent().and_then(Path::parent) {
                system_roots.push(prefix.to_path_buf());
            }
        }
        let cuda = match std::env::var_os("GSYNC_CUDA_PATH") {
            Some(p) => {
                let p = PathBuf::from(p);
                if !p.join("include/cuda_runtime.h").is_file() {
                    return Err(ToolchainError::Missing {
                        what: format!(
                            "GSYNC_CUDA_PATH={} has no include/cuda_runtime.h; CUDA's headers",
                            p.display()
                        ),
                        install: INSTALL_HEADERS.into(),
                    });
                }
                p
            }
            None => {
                let includes = wheel_includes()?;
                system_roots.extend(includes.iter().cloned());
                cuda_tree(&cache, &includes)?
            }
        };
        system_roots.push(cuda.clone());
        Ok(Toolchain {
            clang,
            opt,
            cuda,
            shim,
            system_roots,
        })
    }

    /// The user's files: everything under none of the system roots.
    pub fn user_files(&self) -> UserFiles {
        UserFiles::new(self.system_roots.iter().cloned())
    }

    /// clang's arguments for `tu`, writing `out`.
    pub fn clang_args(&self, tu: &Path, opts: &CompileOptions, out: &Path) -> Vec<String> {
        let mut a: Vec<String> = ["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        a.push(format!("--cuda-path={}", self.cuda.display()));
        for s in [
            "-nocudalib",
            "-Wno-unknown-cuda-version",
            "-std=c++17",
            "-isystem",
        ] {
            a.push(s.into());
        }
        a.push(self.shim.display().to_string());
        // clang 19 does not know CUDA 13.5: without the SDK version it falls
        // back to the old launch API; clang's wrapper needs the macro defined.
        for s in [
            "-D_NV_RSQRT_SPECIFIER=",
            "-Xclang",
            "-target-sdk-version=12.5",
            "-g",
            "-emit-llvm",
            "-S",
            "-O1",
            "-Xclang",
            "-disable-llvm-passes",
        ] {
            a.push(s.into());
        }
        for i in &opts.include_dirs {
            a.push(format!("-I{}", i.display()));
        }
        for d in &opts.defines {
            a.push(format!("-D{d}"));
        }
        a.push(tu.display().to_string());
        a.push("-o".into());
        a.push(out.display().to_string());
        a
    }

    /// Compiles `tu` with clang, then runs the opt pipeline; the IR text.
    pub fn compile(&self, tu: &Path, opts: &CompileOptions) -> Result<Compiled, ToolchainError> {
        if !tu.is_file() {
            return Err(ToolchainError::NoSuchFile(tu.to_path_buf()));
        }
        let scratch = Scratch::new()?;
        let raw = scratch.0.join("raw.ll");
        let ssa = scratch.0.join("ssa.ll");
        let t0 = Instant::now();
        let (ok, stderr) = run(
            &self.clang,
            &self.clang_args(tu, opts, &raw),
            &scratch.0.join("clang.err"),
            opts.timeout,
            "clang",
        )?;
        let clang_time = t0.elapsed();
        if !ok {
            let cwd = std::env::current_dir().map_err(|e| ToolchainError::Io(e.to_string()))?;
            let diagnostics = parse_diagnostics(&stderr, &cwd);
            if diagnostics.is_empty() {
                return Err(ToolchainError::Failed {
                    tool: "clang".into(),
                    stderr,
                });
            }
            return Err(ToolchainError::Compile {
                tu: tu.to_path_buf(),
                diagnostics,
                stderr,
            });
        }
        let t1 = Instant::now();
        let args: Vec<String> = vec![
            "-S".into(),
            format!("-passes={OPT_PASSES}"),
            "-inline-threshold=100000".into(),
            raw.display().to_string(),
            "-o".into(),
            ssa.display().to_string(),
        ];
        let (ok, stderr) = run(
            &self.opt,
            &args,
            &scratch.0.join("opt.err"),
            opts.timeout,
            "opt",
        )?;
        let opt_time = t1.elapsed();
        if !ok {
            return Err(ToolchainError::Failed {
                tool: "opt".into(),
                stderr,
            });
        }
        let ll = std::fs::read_to_string(&ssa)
            .map_err(|e| ToolchainError::Io(format!("{}: {e}", ssa.display())))?;
        Ok(Compiled {
            ll,
            clang_time,
            opt_time,
        })
    }

    /// Compiles and parses `tu`.
    pub fn read(&self, tu: &Path, opts: &CompileOptions) -> Result<Module, ToolchainError> {
        let ll = self.compile_once(tu, opts)?;
        super::parse(&ll).map_err(|error| ToolchainError::Parse {
            tu: tu.to_path_buf(),
            error,
        })
    }

    /// The IR of `tu`, compiled once per process for the same file (as
    /// last modified) and options: `verify` checks each expectation of a
    /// kernel's file in turn, and clang and opt took 4-5 s of each.
    fn compile_once(&self, tu: &Path, opts: &CompileOptions) -> Result<String, ToolchainError> {
        type Key = (
            PathBuf,
            Option<std::time::SystemTime>,
            Vec<PathBuf>,
            Vec<String>,
        );
        static DONE: Mutex<Vec<(Key, String)>> = Mutex::new(Vec::new());
        let modified = std::fs::metadata(tu).and_then(|m| m.modified()).ok();
        let key: Key = (
            tu.to_path_buf(),
            modified,
            opts.include_dirs.clone(),
            opts.defines.clone(),
        );
        let cached = |done: &Vec<(Key, String)>| {
            done.iter()
                .find(|(k, _)| *k == key)
                .map(|(_, ll)| ll.clone())
        };
        if let Some(ll) = DONE.lock().ok().and_then(|d| cached(&d)) {
            return Ok(ll);
        }
        let ll = self.compile(tu, opts)?.ll;
        if let Ok(mut done) = DONE.lock() {
            done.push((key, ll.clone()));
        }
        Ok(ll)
    }
}

/// A scratch folder, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Self, ToolchainError> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "gsync-llvm-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir)
            .map_err(|e| ToolchainError::Io(format!("{}: {e}", dir.display())))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `tool ARGS` with stderr into `err_file`, killed after `limit`.
/// Returns whether it succeeded, and its stderr.
fn run(
    tool: &Path,
    args: &[String],
    err_file: &Path,
    limit: Duration,
    name: &str,
) -> Result<(bool, String), ToolchainError> {
    let io = |e: std::io::Error| ToolchainError::Io(format!("{}: {e}", tool.display()));
    let err = std::fs::File::create(err_file).map_err(io)?;
    let mut child = Command::new(tool)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .map_err(io)?;
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(io)? {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(ToolchainError::Timeout {
                tool: name.into(),
                limit,
            });
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stderr = std::fs::read(err_file).map_err(io)?;
    Ok((
        status.success(),
        String::from_utf8_lossy(&stderr).into_owned(),
    ))
}

/// The tool `$var`, else `name` on PATH, else `/usr/lib/llvm-19/bin/base`.
fn find_tool(var: &str, name: &str, base: &str, package: &str) -> Result<PathBuf, ToolchainError> {
    if let Some(p) = std::env::var_os(var) {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Ok(p);
        }
        return Err(ToolchainError::Missing {
            what: format!("{var}={} (no such file)", p.display()),
            install: INSTALL_LLVM.into(),
        });
    }
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join(name));
    on_path
        .chain(std::iter::once(
            Path::new("/usr/lib/llvm-19/bin").join(base),
        ))
        .find(|p| p.is_file())
        .ok_or_else(|| ToolchainError::Missing {
            what: format!("{package} (or {var})"),
            install: INSTALL_LLVM.into(),
        })
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").map(PathBuf::from)
}

/// The folder this module owns.
fn cache_dir() -> Result<PathBuf, ToolchainError> {
    let dir = std::env::var_os("GSYNC_LLVM_CACHE")
        .map(PathBuf::from)
        .or_else(|| home().map(|h| h.join(".cache/gsync-llvm")))
        .ok_or_else(|| {
            ToolchainError::Io("neither GSYNC_LLVM_CACHE nor HOME is set".to_string())
        })?;
    std::fs::create_dir_all(&dir)
        .map_err(|e| ToolchainError::Io(format!("{}: {e}", dir.display())))?;
    Ok(dir)
}

/// Writes the empty shim headers (once).
fn write_shims(dir: &Path) -> Result<(), ToolchainError> {
    let io = |e: std::io::Error| ToolchainError::Io(format!("{}: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(io)?;
    for name in SHIMS {
        let path = dir.join(name);
        if !path.is_file() {
            let text = format!(
                "// gsync-check: empty stand-in for {name}, which clang's CUDA wrapper includes\n// and the CUDA 13 header wheels do not have.\n#pragma once\n"
            );
            let tmp = dir.join(format!("{name}.{}", std::process::id()));
            std::fs::write(&tmp, text).map_err(io)?;
            std::fs::rename(&tmp, &path).map_err(io)?;
        }
    }
    Ok(())
}

/// The `include` folders of the three wheels, in the order their entries
/// are linked (runtime, crt, cccl, cccl's `include/cccl`).
fn wheel_includes() -> Result<Vec<PathBuf>, ToolchainError> {
    let wheels = [
        (
            "GSYNC_CUDA_HEADERS_DIR",
            "gsync-cuda-headers",
            "cuda_runtime.h",
            "nvidia-cuda-runtime",
        ),
        (
            "GSYNC_CUDA_CRT_DIR",
            "gsync-cuda-crt",
            "crt/host_config.h",
            "nvidia-cuda-crt",
        ),
        (
            "GSYNC_CUDA_CCCL_DIR",
            "gsync-cuda-cccl",
            "cccl/cuda/std/atomic",
            "nvidia-cuda-cccl",
        ),
    ];
    let mut out = Vec::new();
    for (var, default, probe, package) in wheels {
        let root = std::env::var_os(var)
            .map(PathBuf::from)
            .or_else(|| home().map(|h| h.join(".cache").join(default)));
        let include = root.as_ref().and_then(|r| {
            let nvidia = std::fs::read_dir(r.join("nvidia")).ok()?;
            let mut dirs: Vec<PathBuf> = nvidia
                .flatten()
                .map(|e| e.path().join("include"))
                .filter(|i| i.join(probe).is_file())
                .collect();
            dirs.sort();
            dirs.pop()
        });
        match include {
            Some(i) => {
                if package == "nvidia-cuda-cccl" {
                    out.push(i.clone());
                    out.push(i.join("cccl"));
                } else {
                    out.push(i);
                }
            }
            None => {
                return Err(ToolchainError::Missing {
                    what: format!(
                        "CUDA's headers from the {package} wheel (looked in {}/nvidia/*/include; set {var})",
                        root.map_or("$HOME/.cache".into(), |r| r.display().to_string())
                    ),
                    install: INSTALL_HEADERS.into(),
                })
            }
        }
    }
    Ok(out)
}

/// The `--cuda-path` folder for `includes`: `include/` holding a link to
/// each entry of each folder (the first of a name wins) and an empty
/// `bin/`, made once per set of folders and renamed into place whole.
fn cuda_tree(cache: &Path, includes: &[PathBuf]) -> Result<PathBuf, ToolchainError> {
    let key = includes
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join("\n");
    let dir = cache.join(format!("cuda-{:016x}", fnv(key.as_bytes())));
    if dir.join("include/cuda_runtime.h").exists() && dir.join("bin").is_dir() {
        return Ok(dir);
    }
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let tmp = cache.join(format!(
        ".tmp-cuda-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let io = |e: std::io::Error| ToolchainError::Io(format!("{}: {e}", tmp.display()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(tmp.join("bin")).map_err(io)?;
    std::fs::create_dir_all(tmp.join("include")).map_err(io)?;
    for inc in includes {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(inc)
            .map_err(io)?
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for e in entries {
            let Some(name) = e.file_name() else { continue };
            let link = tmp.join("include").join(name);
            if link.symlink_metadata().is_err() {
                symlink(&e, &link).map_err(io)?;
            }
        }
    }
    match std::fs::rename(&tmp, &dir) {
        Ok(()) => Ok(dir),
        // Another process made it first.
        Err(_) if dir.join("include/cuda_runtime.h").exists() => {
            let _ = std::fs::remove_dir_all(&tmp);
            Ok(dir)
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            Err(ToolchainError::Io(format!("{}: {e}", dir.display())))
        }
    }
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(not(unix))]
fn symlink(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::Error::other(
        "the CUDA folder is made of symbolic links: set GSYNC_CUDA_PATH to a CUDA toolkit instead",
    ))
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_are_located_with_their_include_chain() {
        let stderr = "\
In file included from k.cu:3:
In file included from /opt/cuda/include/a.h:10,
                 from lib/b.cuh:7:
/opt/cuda/include/c.h:5:12: error: unknown type name 'foo'
    5 | foo x;
      | ^
k.cu:9:1: warning: unused
k.cu:12:3: fatal error: 'x.h' file not found
1 error generated.
";
        let d = parse_diagnostics(stderr, Path::new("/home/u/p"));
        assert_eq!(d.len(), 2);
        assert_eq!(
            d[0].to_string(),
            "/opt/cuda/include/c.h:5:12: error: unknown type name 'foo'"
        );
        assert_eq!(
            d[0].included_from,
            vec![
                (PathBuf::from("/home/u/p/k.cu"), 3),
                (PathBuf::from("/opt/cuda/include/a.h"), 10),
                (PathBuf::from("/home/u/p/lib/b.cuh"), 7),
            ]
        );
        assert!(d[1].included_from.is_empty());
        assert_eq!(d[1].severity, "fatal error");
        let files = UserFiles::new([PathBuf::from("/opt/cuda")]);
        // An error in a system header points at the user's line including it
        // (the first user file of the chain, innermost first as clang prints it).
        assert_eq!(
            d[0].user_location(&files),
            (PathBuf::from("/home/u/p/k.cu"), 3, 0)
        );
        assert_eq!(
            d[1].user_location(&files),
            (PathBuf::from("/home/u/p/k.cu"), 12, 3)
        );
    }

    #[test]
    fn errors_say_what_to_install() {
        let e = ToolchainError::Missing {
            what: "clang++-19".into(),
            install: INSTALL_LLVM.into(),
        };
        assert!(e.to_string().contains("apt-get install clang-19 llvm-19"));
        assert_eq!(e.exit_code(), 2);
        assert!(INSTALL_HEADERS.contains("nvidia-cuda-crt"));
    }

    #[test]
    fn the_cuda_tree_links_each_name_once() {
        let base = std::env::temp_dir().join(format!("gsync-llvm-tree-{}", std::process::id()));
        let (a, b) = (base.join("a"), base.join("b"));
        std::fs::create_dir_all(a.join("crt")).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(a.join("cuda_runtime.h"), "").unwrap();
        std::fs::write(b.join("cuda_runtime.h"), "// shadowed").unwrap();
        std::fs::write(b.join("other.h"), "").unwrap();
        let cache = base.join("cache");
        std::fs::create_dir_all(&cache).unwrap();
        let dir = cuda_tree(&cache, &[a.clone(), b.clone()]).unwrap();
        assert!(dir.join("bin").is_dir());
        assert_eq!(
            std::fs::read_link(dir.join("include/cuda_runtime.h")).unwrap(),
            a.join("cuda_runtime.h")
        );
        assert!(dir.join("include/crt").is_dir());
        assert!(dir.join("include/other.h").is_file());
        // Made once: the second call finds it.
        assert_eq!(cuda_tree(&cache, &[a, b]).unwrap(), dir);
        write_shims(&cache.join("shim")).unwrap();
        assert!(cache.join("shim/texture_fetch_functions.h").is_file());
        std::fs::remove_dir_all(base).unwrap();
    }
}
