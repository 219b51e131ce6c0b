//! The CUDA front end: a harness in the spec language names CUDA files in
//! its header (`//! cuda: path.cu`); their device functions, read as
//! written by libclang, become spec procedures the harness calls, so every
//! check applies to the CUDA itself and counterexamples show its lines.
//!
//! Pipeline: [`parse`] (libclang's tree → the subset's typed tree, refusing
//! what is outside the subset with a located error), [`timing`] (back-off
//! that only passes time), [`lower`] (typed tree → spec procedures; with
//! [`builtins`] and [`ptx`] for CUDA's built-ins and inline PTX), and
//! [`harness`] (the harness's calls pointed at those procedures). The spec
//! lowering then does the rest.

pub(crate) mod ast;
mod builtins;
mod harness;
pub(crate) mod libclang;
mod lower;
mod parse;
mod ptx;
pub(crate) mod sites;
mod timing;

use crate::diag::{Diagnostic, Source};
use crate::spec::ast::{Header, Item, Span, SpecFile};
use std::path::{Path, PathBuf};

/// The header keys of a CUDA harness.
pub(crate) const CUDA_KEY: &str = "cuda";
pub(crate) const DEFINE_KEY: &str = "cuda-define";
pub(crate) const INCLUDE_KEY: &str = "cuda-include";
pub(crate) const TIMING_KEY: &str = "cuda-timing";
pub(crate) const ARCH_KEY: &str = "cuda-arch";

/// The architectures `cuda-arch:` may name (`<nv/target>`'s queries know them).
const ARCHES: [u32; 6] = [35, 50, 60, 70, 80, 90];

/// Whether a parsed spec imports CUDA.
pub(crate) fn imports_cuda(file: &SpecFile) -> bool {
    file.header.cuda.iter().any(|(k, _)| k == CUDA_KEY)
}

/// What the harness asks of the CUDA: files, macros, include directories.
#[derive(Clone, Debug, Default)]
pub(crate) struct Request {
    /// CUDA files, in include order, with the span of the header line
    /// naming each (or the spec's start for files given on the command line).
    pub files: Vec<(PathBuf, Span)>,
    pub defines: Vec<String>,
    pub include_dirs: Vec<PathBuf>,
    /// Abstract back-off that only passes time (default on).
    pub abstract_timing: bool,
    /// The device architecture compiled for (`sm_70` unless `cuda-arch:`
    /// says otherwise): it picks `__CUDA_ARCH__` and `<nv/target>`'s branches.
    pub arch: u32,
}

impl Request {
    /// Reads the CUDA keys of `header` (of the harness, or kernel file, at `origin`).
    pub(crate) fn from_header(header: &Header, origin: &Path) -> Result<Request, Diagnostic> {
        let dir = origin.parent().unwrap_or(Path::new("."));
        let mut r = Request {
            abstract_timing: true,
            arch: 70,
            ..Request::default()
        };
        for (key, v) in &header.cuda {
            let (value, span) = (v.text.as_str(), v.span);
            match key.as_str() {
                CUDA_KEY => {
                    let value = &expand_path(value, span)?;
                    let path = resolve(dir, value).ok_or_else(|| {
                        Diagnostic::new(span, format!("cannot read the CUDA file {}", dir.join(value).display()))
                            .label("not found")
                            .hint("the path is relative to the harness's folder; a path through a folder named `shared` is also looked up under $GSYNC_SHARED")
                    })?;
                    r.files.push((path, span));
                }
                DEFINE_KEY => r
                    .defines
                    .extend(value.split_whitespace().map(str::to_string)),
                INCLUDE_KEY => {
                    let value = &expand_path(value, span)?;
                    let d = resolve(dir, value).filter(|d| d.is_dir()).ok_or_else(|| {
                        Diagnostic::new(span, format!("cannot find the include folder {}", dir.join(value).display()))
                            .label("not a folder")
                            .hint("the path is relative to the harness's folder; a path through a folder named `shared` is also looked up under $GSYNC_SHARED")
                    })?;
                    r.include_dirs.push(d);
                }
                ARCH_KEY => {
                    r.arch = value
                        .strip_prefix("sm_")
                        .and_then(|n| n.parse().ok())
                        .filter(|n| ARCHES.contains(n))
                        .ok_or_else(|| {
                            Diagnostic::new(span, format!("`{ARCH_KEY}` is one of sm_35, sm_50, sm_60, sm_70, sm_80, sm_90, not `{value}`"))
                                .label("unknown architecture")
                        })?;
                }
                _ => {
                    r.abstract_timing = match value {
                        "abstract" => true,
                        "model" => false,
                        _ => {
                            return Err(Diagnostic::new(
                                span,
                                format!("`{TIMING_KEY}` is `abstract` or `model`, not `{value}`"),
                            )
                            .label("unknown setting"))
                        }
                    }
                }
            }
        }
        Ok(r)
    }
}

/// A `cuda:` or `cuda-include:` path with its `${VAR}`s expanded; an unset
/// variable is an error at the header line.
fn expand_path(value: &str, span: Span) -> Result<String, Diagnostic> {
    expand_env(value).map_err(|var| {
        Diagnostic::new(span, format!("the CUDA path names `${{{var}}}`, which is not set"))
            .label("unset variable")
            .hint(format!("set {var} to the folder it stands for (for the CUDA headers wheel, its `include` folder; .ci/run installs it)"))
    })
}

/// A header path with each `${VAR}` replaced by the environment variable's
/// value (for files outside the project, such as the CUDA headers wheel's);
/// an unset (or empty) variable is returned as the error.
fn expand_env(value: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = value;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let Some(len) = rest[at + 2..].find('}') else {
            break;
        };
        let var = &rest[at + 2..at + 2 + len];
        match std::env::var(var) {
            Ok(v) if !v.is_empty() => out.push_str(&v),
            _ => return Err(var.to_string()),
        }
        rest = &rest[at + 3 + len..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A `cuda:` path: relative to the harness's folder; a path through a
/// folder named `shared` (the project's third-party inputs) is also
/// looked up under `GSYNC_SHARED`, where a machine keeps them elsewhere.
fn resolve(dir: &Path, value: &str) -> Option<PathBuf> {
    let direct = dir.join(value);
    if direct.exists() {
        return std::fs::canonicalize(&direct).ok();
    }
    let shared = std::env::var_os("GSYNC_SHARED")?;
    let parts: Vec<&str> = value.split('/').collect();
    let at = parts.iter().position(|p| *p == "shared")?;
    let under = PathBuf::from(shared).join(parts[at + 1..].join("/"));
    under
        .exists()
        .then(|| std::fs::canonicalize(&under).ok())
        .flatten()
}

/// The built-in headers (`stddef.h`, ...) of a libclang named by
/// `LIBCLANG_PATH`, where they lie beside it (`clang/VERSION/include`):
/// libclang looks for them under the path it was installed at, so a copy
/// moved elsewhere finds none without this.
fn resource_dir_beside_libclang() -> Option<PathBuf> {
    let lib = PathBuf::from(std::env::var_os("LIBCLANG_PATH")?);
    std::fs::read_dir(lib.join("clang"))
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|d| d.join("include/stddef.h").is_file())
}

/// The compiler arguments for the device side of the CUDA.
fn clang_args(r: &Request) -> Vec<String> {
    let mut args: Vec<String> = [
        "-x",
        "cuda",
        "--cuda-device-only",
        "-nocudainc",
        "-nocudalib",
        "-std=c++17",
        "-include",
        parse::PRELUDE_PATH,
        "-isystem",
        parse::TARGET_DIR,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(format!("--cuda-gpu-arch=sm_{}", r.arch));
    if let Some(dir) = resource_dir_beside_libclang() {
        args.push(format!("-resource-dir={}", dir.display()));
    }
    for d in &r.defines {
        args.push(format!("-D{d}"));
    }
    let mut dirs: Vec<PathBuf> = r
        .files
        .iter()
        .filter_map(|(p, _)| p.parent().map(Path::to_path_buf))
        .collect();
    dirs.extend(r.include_dirs.iter().cloned());
    dirs.dedup();
    for d in dirs {
        args.push(format!("-I{}", d.display()));
    }
    args
}

/// Parses the CUDA the harness names, adds its device functions (those the
/// harness calls, directly or not) to `file` as procedures, and returns the
/// combined source (the harness, then the CUDA files) every span points into.
/// A file named in `overlay` is read from there instead of the disk.
pub(crate) fn attach(
    file: &mut SpecFile,
    source: &mut Source,
    request: &Request,
    overlay: &[(PathBuf, String)],
) -> Result<(), Diagnostic> {
    attach_program(file, source, request, overlay).map(|_| ())
}

/// What [`attach`] read: the typed tree, and the device functions it
/// lowered (those the harness reaches).
pub(crate) struct Attached {
    pub program: ast::CProgram,
    pub lowered: Vec<String>,
}

/// [`attach`], keeping what it read.
pub(crate) fn attach_program(
    file: &mut SpecFile,
    source: &mut Source,
    request: &Request,
    overlay: &[(PathBuf, String)],
) -> Result<Attached, Diagnostic> {
    let main: String = request
        .files
        .iter()
        .map(|(p, _)| format!("#include \"{}\"\n", p.display()))
        .collect();
    let first_line = request.files.first().map_or(Span::default(), |(_, s)| *s);
    let mut unsaved = vec![
        (parse::PRELUDE_PATH.to_string(), parse::PRELUDE.to_string()),
        (parse::TARGET_PATH.to_string(), parse::TARGET.to_string()),
    ];
    unsaved.extend(
        overlay
            .iter()
            .map(|(p, t)| (p.display().to_string(), t.clone())),
    );
    let unit = libclang::Unit::parse((parse::MAIN_PATH, &main), &clang_args(request), &unsaved)
        .map_err(|e| Diagnostic::new(first_line, e).label("CUDA front end"))?;
    let mut files = parse::Files::new(source, overlay);
    if let Some(p) = unit.problems().into_iter().find(|p| p.error) {
        let span = match &p.at {
            Some(at) if at.file != parse::MAIN_PATH => {
                let o = files.offset(at);
                Span::new(o as usize, o as usize + 1)
            }
            _ => first_line,
        };
        return Err(Diagnostic::new(span, format!("the CUDA does not compile: {}", p.message))
            .label("clang")
            .hint("the CUDA is compiled for the device (sm_70) with gsync-check's stand-in for the CUDA headers; `cuda-define:` and `cuda-include:` header lines set macros and include folders"));
    }
    let program = parse::program(&unit, &mut files);
    drop(unit);
    let timing = timing::Timing::analyse(&program, request.abstract_timing);
    let mut lowering = lower::Lowering::new(&program, file, timing);
    lowering.declare_globals()?;
    harness::rewrite_calls(file, &mut lowering)?;
    lowering.finish()?;
    let lowered = lowering.lowered_functions();
    let harness_at = file
        .items
        .iter()
        .position(|i| matches!(i, Item::Harness(_)))
        .unwrap_or(file.items.len());
    let generated = std::mem::take(&mut lowering.items);
    file.items.splice(harness_at..harness_at, generated);
    Ok(Attached { program, lowered })
}
