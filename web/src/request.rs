//! One check from the page: the cell's source, the memory model of its
//! switch and its options (a subset of `gsync-check check`'s, written the
//! same way), answered with what the command would print.

use clap::Parser;
use gsync_check::api::args::CheckOptions;
use gsync_check::api::{self, CheckConfig, Error, SpecSource};
use gsync_check::format::{svg, text};
use serde::{Deserialize, Serialize};

/// What the page asks.
#[derive(Deserialize)]
pub struct Request {
    /// The spec's text.
    pub source: String,
    /// The file name it is checked as (the native command's `FILE`): a
    /// spec without a `//! name:` line is named by its stem.
    pub file: String,
    /// `sc` or `ptx` (`--memory-model`).
    pub memory_model: String,
    /// Further options, as on the command line (`--blocks 3 --param iters=2`).
    #[serde(default)]
    pub options: String,
}

/// What `gsync-check check FILE --memory-model M OPTIONS --svg F` would
/// give: its exit code, standard output and error, and the SVG file.
#[derive(Serialize, Default)]
pub struct Response {
    pub exit: i32,
    pub stdout: String,
    pub stderr: String,
    /// The first counterexample as a sequence diagram (none when verified).
    pub svg: Option<String>,
}

impl Response {
    /// A usage error (exit 2), as the command prints it.
    pub fn usage(message: &str) -> Response {
        Response::error(&Error::Usage(message.to_string()))
    }

    fn error(e: &Error) -> Response {
        Response {
            exit: 2,
            stderr: e.render(false),
            ..Response::default()
        }
    }
}

/// Checks the request's spec, never panicking on bad input.
pub fn check(request: &Request) -> Response {
    let config = match config_from(&request.memory_model, &request.options) {
        Ok(c) => c,
        Err(m) => return Response::usage(&m),
    };
    let spec = SpecSource {
        name: stem(&request.file).to_string(),
        origin: request.file.clone(),
        text: request.source.clone(),
    };
    match api::check_spec(&spec, &config) {
        Ok(mut report) => {
            report.stats.measured = None;
            let svg = report
                .violations
                .first()
                .map(|v| svg::render_svg(&report.spec, &report.config, v));
            Response {
                exit: report.verdict.exit_code(),
                stdout: text::render_report(&report, false),
                stderr: String::new(),
                svg,
            }
        }
        Err(e) => Response::error(&e),
    }
}

fn stem(file: &str) -> &str {
    let base = file.rsplit('/').next().unwrap_or(file);
    base.strip_suffix(".gsync").unwrap_or(base)
}

/// The browser's bounds where the options set none: a wasm32 module has at
/// most 4 GiB of memory, so a run stops cleanly before it.
const BROWSER_MAX_MEMORY_MB: u64 = 2048;

/// A cell's options: those of `gsync-check check`, parsed by the same
/// definition (`api::args`), so a cell and the command agree on every
/// option, its default and its error.
#[derive(Parser)]
#[command(name = "gsync-check check", no_binary_name = true)]
struct CellOptions {
    #[command(flatten)]
    options: CheckOptions,
}

/// The configuration of `--memory-model MODEL OPTIONS`.
fn config_from(memory_model: &str, options: &str) -> Result<CheckConfig, String> {
    let words = ["--memory-model", memory_model]
        .into_iter()
        .chain(options.split_whitespace());
    let cell = CellOptions::try_parse_from(words).map_err(|e| {
        let text = e.to_string();
        let first = text.lines().next().unwrap_or_default();
        first.strip_prefix("error: ").unwrap_or(first).to_string()
    })?;
    let mut config = cell.options.config(None);
    // A page's module runs on one thread, with no terminal to draw on;
    // neither changes what a check finds.
    config.search.threads = 1;
    config.search.progress = false;
    if cell.options.max_memory.is_none() {
        config.limits.max_memory_mb = Some(BROWSER_MAX_MEMORY_MB);
    }
    Ok(config)
}
