//! A file or a directory of litmus tests on the GPU: each test is placed on
//! one GPU, checked by the model (its allowed outcomes, and for liveness
//! tests whether every fair execution terminates), turned into a CUDA
//! program, run, and judged.

use super::super::parse::Litmus;
use super::super::{
    ask_parsed, litmus_files, parse_source, read_expectations, LitmusConfig, Question,
};
use super::compare::{judge, EnvRun, Verdict};
use super::emit::{emit, LitmusKernel};
use super::layout::{on_one_gpu, Roles};
use super::run::{run_test, RunOptions};
use super::stress::Environment;
use crate::cuda::device::{Gpu, GpuError, GpuInfo};
use crate::diag::Source;
use crate::model::MemoryModel;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// A test ready to run: on one GPU, with the model's answer and its program.
pub struct Prepared {
    pub test: Litmus,
    pub roles: Roles,
    pub kernel: LitmusKernel,
    pub result: TestResult,
}

/// One test's line of the report.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TestResult {
    pub path: String,
    pub name: String,
    /// `exists`, `~exists` or `forall`, and the condition as written.
    pub quantifier: String,
    pub condition: String,
    /// `P0@cta 0 | P1@cta 1` after placing on one GPU.
    pub placement: String,
    /// Some thread was on another GPU in the test (this run has one GPU:
    /// it ran in a CTA of its own, and the model checked that placement).
    pub moved_to_one_gpu: bool,
    /// From `--expect`: whether PTX says the condition holds.
    pub expected: Option<bool>,
    /// The model's final outcomes (over the condition's terms).
    pub model_allowed: Vec<String>,
    pub model_holds: Option<bool>,
    /// Liveness tests: whether the model says every fair execution ends.
    pub model_terminates: Option<bool>,
    pub runs: Vec<EnvRun>,
    pub verdict: Option<Verdict>,
    pub status: Status,
    pub reason: Option<String>,
}

/// Where a test got to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Run (or ready to run), and the GPU did nothing the model forbids.
    Ok,
    /// The GPU did what the model forbids.
    Forbidden,
    /// The model or the harness cannot express the test.
    #[default]
    Unsupported,
    /// The GPU run failed.
    Error,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Forbidden => "forbidden",
            Status::Unsupported => "unsupported",
            Status::Error => "error",
        }
    }
}

/// The whole run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GpuLitmusReport {
    pub gpu: Option<GpuInfo>,
    pub memory_model: MemoryModel,
    pub options: RunOptions,
    pub environments: Vec<EnvironmentRecord>,
    pub tests: Vec<TestResult>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EnvironmentRecord {
    pub name: String,
    pub description: String,
}

impl GpuLitmusReport {
    /// 0: nothing forbidden seen; 1: some test showed an outcome (or a
    /// hang) the model forbids.
    pub fn exit_code(&self) -> i32 {
        i32::from(self.tests.iter().any(|t| t.status == Status::Forbidden))
    }
}

fn placement(test: &Litmus) -> String {
    test.threads
        .iter()
        .map(|t| format!("P{}@cta {}", t.id, t.cta))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Parses, places, model-checks and emits one test. A test the model or
/// the harness cannot express comes back as a result with its reason.
pub fn prepare(
    source: &Source,
    rel: &str,
    config: &LitmusConfig,
    liveness: bool,
) -> Result<Prepared, Box<TestResult>> {
    let mut result = TestResult {
        path: rel.to_string(),
        status: Status::Unsupported,
        ..TestResult::default()
    };
    let mut test = match parse_source(source) {
        Ok(t) => t,
        Err(f) => {
            result.reason = Some(f.reason());
            return Err(Box::new(result));
        }
    };
    result.moved_to_one_gpu = on_one_gpu(&mut test);
    result.name = test.name.clone();
    result.quantifier = test.quantifier.keyword().into();
    result.condition = source
        .text
        .get(test.condition_span.start as usize..test.condition_span.end as usize)
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    result.placement = placement(&test);
    match ask_parsed(test.clone(), source, config, Question::Condition) {
        Ok(c) => {
            result.model_allowed = c.outcomes;
            result.model_holds = Some(c.holds);
        }
        Err(f) => {
            result.reason = Some(format!("model: {}", f.reason()));
            return Err(Box::new(result));
        }
    }
    if liveness {
        match ask_parsed(test.clone(), source, config, Question::FAIR_TERMINATION) {
            Ok(c) => result.model_terminates = Some(c.holds),
            Err(f) => {
                result.reason = Some(format!("model (termination): {}", f.reason()));
                return Err(Box::new(result));
            }
        }
    }
    let roles = Roles::of(&test);
    let kernel = match emit(&test, &roles, &source.text) {
        Ok(k) => k,
        Err(u) => {
            let (line, _) = source.line_col(u.span.start);
            result.reason = Some(format!("harness: {} (line {line})", u.reason));
            return Err(Box::new(result));
        }
    };
    result.status = Status::Ok;
    Ok(Prepared {
        test,
        roles,
        kernel,
        result,
    })
}

/// What to run and against what.
pub struct CorpusOptions<'a> {
    pub config: LitmusConfig,
    /// `path,0|1`: whether PTX says each test's condition holds (shown).
    pub expect: Option<&'a Path>,
    /// `path,0|1` of liveness tests: their spin loops are also checked for
    /// termination by the model.
    pub liveness: Option<&'a Path>,
    pub environments: Vec<Environment>,
    pub run: RunOptions,
}

fn expectations(path: Option<&Path>) -> Result<BTreeMap<String, bool>, String> {
    Ok(match path {
        Some(p) => read_expectations(p)?.into_iter().collect(),
        None => BTreeMap::new(),
    })
}

/// The tests under `path` (a file, or every `.litmus` file under a
/// directory), with the paths the report shows.
pub fn test_files(path: &Path) -> Vec<(std::path::PathBuf, String)> {
    if path.is_dir() {
        let mut files = vec![];
        litmus_files(path, path, &mut files);
        files
            .into_iter()
            .map(|rel| (path.join(&rel), rel))
            .collect()
    } else {
        vec![(path.to_path_buf(), path.display().to_string())]
    }
}

/// Prepares every test under `path` (no GPU needed).
pub fn prepare_all(
    path: &Path,
    o: &CorpusOptions,
) -> Result<Vec<Result<Prepared, Box<TestResult>>>, String> {
    let expect = expectations(o.expect)?;
    let live = expectations(o.liveness)?;
    let mut out = vec![];
    for (file, rel) in test_files(path) {
        let text = std::fs::read_to_string(&file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let source = Source::new(file.display().to_string(), text);
        let key = |m: &BTreeMap<String, bool>| {
            m.iter()
                .find(|(p, _)| rel == **p || rel.ends_with(&format!("/{p}")))
                .map(|(_, v)| *v)
        };
        let mut p = prepare(&source, &rel, &o.config, key(&live).is_some());
        match &mut p {
            Ok(p) => p.result.expected = key(&expect),
            Err(r) => r.expected = key(&expect),
        }
        out.push(p);
    }
    Ok(out)
}

/// Runs one prepared test on `gpu` and judges it; with the message of the
/// launch that wedged the GPU, if one did.
fn run_one(gpu: &Gpu, p: Prepared, o: &CorpusOptions) -> (TestResult, Option<String>) {
    let mut r = p.result;
    match run_test(gpu, &p.test, &p.roles, &p.kernel, &o.environments, &o.run) {
        Ok(runs) => {
            let v = judge(&r.model_allowed, r.model_terminates, &runs);
            r.status = if v.forbidden() {
                Status::Forbidden
            } else {
                Status::Ok
            };
            r.runs = runs;
            r.verdict = Some(v);
            (r, None)
        }
        Err(e) => {
            r.status = Status::Error;
            r.reason = Some(e.to_string());
            let wedged = match e {
                GpuError::Wedged(m) => Some(m),
                _ => None,
            };
            (r, wedged)
        }
    }
}

/// Runs every prepared test on `gpu`; `progress` sees each result. Stops
/// (the rest marked as not run) if a launch wedges the GPU.
pub fn run_all(
    gpu: &Gpu,
    prepared: Vec<Result<Prepared, Box<TestResult>>>,
    o: &CorpusOptions,
    mut progress: impl FnMut(&TestResult),
) -> GpuLitmusReport {
    let mut tests = vec![];
    let mut wedged: Option<String> = None;
    for p in prepared {
        let mut r = match p {
            Err(r) => *r,
            Ok(p) if wedged.is_some() => TestResult {
                status: Status::Error,
                reason: wedged.clone(),
                ..p.result
            },
            Ok(p) => {
                let (r, wedge) = run_one(gpu, p, o);
                wedged = wedge.map(|m| format!("not run: an earlier test wedged the GPU ({m})"));
                r
            }
        };
        if r.status == Status::Unsupported && r.reason.is_none() {
            r.reason = Some("unsupported".into());
        }
        progress(&r);
        tests.push(r);
    }
    GpuLitmusReport {
        gpu: Some(GpuInfo::of(gpu)),
        memory_model: o.config.memory_model,
        options: o.run.clone(),
        environments: o
            .environments
            .iter()
            .map(|e| EnvironmentRecord {
                name: e.name.into(),
                description: e.description.into(),
            })
            .collect(),
        tests,
    }
}
