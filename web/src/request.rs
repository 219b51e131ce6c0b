//! One check from the page: the cell's source, the memory model of its
//! switch and its options (a subset of `gsync-check check`'s, written the
//! same way), answered with what the command would print.

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

/// The configuration of `--memory-model MODEL OPTIONS`.
fn config_from(memory_model: &str, options: &str) -> Result<CheckConfig, String> {
    let mut config = CheckConfig {
        memory_model: Some(parse("--memory-model", memory_model)?),
        max_memory_mb: Some(BROWSER_MAX_MEMORY_MB),
        ..CheckConfig::default()
    };
    let mut words = options.split_whitespace();
    while let Some(flag) = words.next() {
        if flag == "--no-races" {
            config.races = false;
            continue;
        }
        let value = words
            .next()
            .ok_or_else(|| format!("{flag} needs a value"))?;
        set(&mut config, flag, value)?;
    }
    Ok(config)
}

/// Sets one option that takes a value; unknown options are refused.
fn set(config: &mut CheckConfig, flag: &str, value: &str) -> Result<(), String> {
    let launch = &mut config.launch;
    match flag {
        "--blocks" => launch.blocks = parse(flag, value)?,
        "--threads-per-block" => launch.threads_per_block = parse(flag, value)?,
        "--warp-size" => launch.warp_size = parse(flag, value)?,
        "--iters" | "--size" => config
            .params
            .push((flag[2..].to_string(), parse(flag, value)?)),
        "--param" => {
            let (name, v) = value
                .split_once('=')
                .ok_or_else(|| format!("--param: expected NAME=VALUE, got `{value}`"))?;
            config.params.push((name.to_string(), parse(flag, v)?));
        }
        "--scheduler" => config.scheduler = parse(flag, value)?,
        "--simt" => config.simt = Some(parse(flag, value)?),
        "--branch-order" => config.branch_order = Some(parse(flag, value)?),
        "--lock-bits" => config.lock_bits = Some(parse(flag, value)?),
        "--resident" => config.resident = Some(parse(flag, value)?),
        "--max-states" => config.max_states = Some(parse(flag, value)?),
        "--max-seconds" => config.max_seconds = Some(parse(flag, value)?),
        "--max-memory" => config.max_memory_mb = Some(parse(flag, value)?),
        _ => {
            return Err(format!(
                "`{flag}` is not an option a cell takes (see the book's getting-started chapter)"
            ))
        }
    }
    Ok(())
}

fn parse<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String>
where
    T::Err: std::fmt::Display,
{
    value.parse().map_err(|e| format!("{flag}: `{value}`: {e}"))
}
