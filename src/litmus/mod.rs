//! The litmus front end: herd PTX litmus tests ([`parse`]) translated into
//! the IR ([`translate`](mod@translate), reading instructions through
//! [`decode`]), explored under a memory model, their final condition
//! evaluated over every reachable final state, and compared with expected
//! results (`expected-safety.csv`). [`gpu`] runs the same tests on a GPU.
//!
//! Uses the IR, the model, the explorer and the checker (for liveness); the
//! CLI calls it, never the other way round.

pub(crate) mod barriers;
pub(crate) mod decode;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod parse;
pub mod translate;

use crate::diag::Span;
use crate::diag::{Diagnostic, Source};
use crate::explore::{explore, LimitKind, Options, Outcome};
use crate::ir::from_raw;
use crate::ir::Type;
use crate::model::{MemoryModel, Model, ModelOptions, Scheduler};
use crate::report::ViolationReport;
use crate::spec::input::read_text;
use decode::Unsupported;
use parse::{Cond, Litmus, Quantifier, Term};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use translate::{translate, Translated};

/// How to run litmus tests.
#[derive(Clone, Debug)]
pub struct LitmusConfig {
    pub memory_model: MemoryModel,
    pub max_states: u64,
    pub max_seconds: Option<f64>,
}

impl Default for LitmusConfig {
    fn default() -> LitmusConfig {
        LitmusConfig {
            memory_model: MemoryModel::Ptx,
            max_states: 2_000_000,
            max_seconds: Some(60.0),
        }
    }
}

/// The outcome of one test under the model.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    pub name: String,
    pub quantifier: Quantifier,
    /// Whether the final condition holds (as herd means it: an `exists`
    /// state is reachable, a `~exists` one is not, `forall` holds in every
    /// final state).
    pub holds: bool,
    /// Distinct final outcomes over the condition's terms, rendered.
    pub outcomes: Vec<String>,
    pub states: usize,
    /// [`Question::Termination`]: an execution that does not end (a
    /// deadlock, or a lasso: the steps to a cycle, then the cycle).
    pub violation: Option<ViolationReport>,
    /// Threads per block of the launch the test became (how the
    /// violation's trace names threads).
    pub threads_per_block: u32,
}

/// Why a test was not answered.
#[derive(Clone, Debug)]
pub enum Failure {
    /// The file does not parse.
    Parse(Box<Diagnostic>, Box<Source>),
    /// The translation (or the exploration) cannot express it.
    Unsupported(Unsupported, Box<Source>),
    Io(String),
}

impl Failure {
    /// The test as a whole cannot be answered, for `reason`.
    fn whole(source: &Source, reason: String) -> Failure {
        let span = Span::new(0, source.text.len().min(1));
        Failure::Unsupported(Unsupported { reason, span }, Box::new(source.clone()))
    }

    /// The exploration stopped at a limit after `states` states.
    fn stopped(source: &Source, kind: LimitKind, states: impl std::fmt::Display) -> Failure {
        Failure::whole(
            source,
            match kind {
                LimitKind::Interrupted => format!("exploration interrupted ({states} states)"),
                LimitKind::Walks => format!("exploration stopped ({states} states)"),
                // In the option's own words: `--max-states`.
                _ => format!(
                    "exploration stopped by {} ({states} states)",
                    crate::report::Limit::from(kind)
                ),
            },
        )
    }

    /// One line for tables.
    pub fn reason(&self) -> String {
        match self {
            Failure::Parse(d, s) => format!("parse error at {}: {}", d.location(s), d.message),
            Failure::Unsupported(u, s) => {
                let (line, _) = s.line_col(u.span.start);
                format!("{} (line {line}: `{}`)", u.reason, s.snippet(u.span).trim())
            }
            Failure::Io(m) => m.clone(),
        }
    }

    /// The full located message.
    pub fn render(&self, color: bool) -> String {
        match self {
            Failure::Parse(d, s) => d.render(s, color),
            Failure::Unsupported(u, s) => {
                Diagnostic::new(u.span, format!("unsupported: {}", u.reason))
                    .label("cannot be expressed in the IR yet")
                    .render(s, color)
            }
            Failure::Io(m) => format!("error: {m}\n"),
        }
    }
}

/// Parses a litmus file's text.
pub fn parse_source(source: &Source) -> Result<Litmus, Failure> {
    parse::parse(&source.text).map_err(|d| Failure::Parse(Box::new(d), Box::new(source.clone())))
}

/// Whether the final condition `c` holds for the final values of its terms.
pub fn eval(c: &Cond, values: &BTreeMap<Term, i64>) -> bool {
    let term = |t: &Term| match t {
        Term::Int(v) => *v,
        _ => values[t],
    };
    match c {
        Cond::True => true,
        Cond::False => false,
        Cond::Not(c) => !eval(c, values),
        Cond::And(a, b) => eval(a, values) && eval(b, values),
        Cond::Or(a, b) => eval(a, values) || eval(b, values),
        Cond::Cmp { eq, lhs, rhs } => (term(lhs) == term(rhs)) == *eq,
    }
}

fn render_term(t: &Term) -> String {
    match t {
        Term::Int(v) => v.to_string(),
        Term::Reg(th, r) => format!("P{th}:{r}"),
        Term::Mem(m) => m.clone(),
    }
}

/// One final outcome as the reports show it (`P1:r1=0; x=2`, terms in
/// order): the key under which the model's outcomes and a GPU run's
/// histogram are compared.
pub fn render_outcome(values: &BTreeMap<Term, i64>) -> String {
    let shown: Vec<String> = values
        .iter()
        .map(|(t, v)| format!("{}={v}", render_term(t)))
        .collect();
    shown.join("; ")
}

/// The semantics a test runs under. Litmus tests race on purpose (their
/// question is which values loads read), so races are not reported; an
/// exited thread no longer counts at `bar.sync` (PTX), so leaving before a
/// barrier is not barrier divergence. The OBE progress models need to
/// know which threads have run.
fn model_options(config: &LitmusConfig, question: Question) -> ModelOptions {
    ModelOptions {
        memory_model: config.memory_model,
        races: false,
        barrier_divergence: false,
        track_started: matches!(question, Question::Termination(s) if s.needs_started()),
        ..ModelOptions::default()
    }
}

/// The explorer's bounds for one test (`keep_edges` for the liveness check).
fn explore_options(config: &LitmusConfig, keep_edges: bool) -> Options {
    Options {
        max_states: Some(config.max_states),
        deadline: crate::explore::deadline_in(config.max_seconds),
        max_memory_bytes: Some(2 * 1024 * 1024 * 1024),
        keep_edges,
        ..Options::default()
    }
}

/// What a run asks of each test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Question {
    /// Does the final condition hold, as herd means it?
    Condition,
    /// Liveness (`--liveness`): does every execution terminate when
    /// threads are scheduled as the scheduler promises (the PTX progress
    /// expectations assume `fair`, weak fairness)? The answer is reported
    /// as a `forall` test: `holds` means every admitted execution ends, so
    /// a model that says so while PTX has a spinning execution is
    /// `unsound`.
    Termination(Scheduler),
}

impl Question {
    /// Liveness under weak fairness: what Dat3M's liveness expectations
    /// (`expected-liveness.csv`) assume.
    pub const FAIR_TERMINATION: Question =
        Question::Termination(Scheduler::uniform(crate::model::Progress::Fair));
}

/// Parses `source` and answers `question` about it under `config`.
pub fn ask(source: &Source, config: &LitmusConfig, question: Question) -> Result<Checked, Failure> {
    ask_parsed(parse_source(source)?, source, config, question)
}

/// Answers `question` about a parsed test (possibly rewritten, e.g. placed
/// on one GPU) whose text is `source`.
pub fn ask_parsed(
    test: Litmus,
    source: &Source,
    config: &LitmusConfig,
    question: Question,
) -> Result<Checked, Failure> {
    let tr =
        translate(&test, source).map_err(|u| Failure::Unsupported(u, Box::new(source.clone())))?;
    let model = Model::new(&tr.program, model_options(config, question));
    match question {
        Question::Condition => condition(test, &tr, &model, source, config),
        Question::Termination(scheduler) => termination(test, &model, source, config, scheduler),
    }
}

/// [`ask`] of the file at `path`.
pub fn ask_file(
    path: &Path,
    config: &LitmusConfig,
    question: Question,
) -> Result<Checked, Failure> {
    let text = read_text(path).map_err(Failure::Io)?;
    ask(
        &Source::new(path.display().to_string(), text),
        config,
        question,
    )
}

/// Checks one litmus source's final condition under `config`.
pub fn check_source(source: &Source, config: &LitmusConfig) -> Result<Checked, Failure> {
    ask(source, config, Question::Condition)
}

/// Checks one file's final condition.
pub fn check_file(path: &Path, config: &LitmusConfig) -> Result<Checked, Failure> {
    ask_file(path, config, Question::Condition)
}

/// The final outcomes of every execution, and whether the condition holds.
fn condition(
    test: Litmus,
    tr: &Translated,
    model: &Model,
    source: &Source,
    config: &LitmusConfig,
) -> Result<Checked, Failure> {
    let ex = explore(model, &explore_options(config, false));
    match ex.outcome() {
        // Stuck states are searched past: no early deadlock is asked for.
        Outcome::Complete | Outcome::Stuck { .. } => {}
        Outcome::Limit(kind) => return Err(Failure::stopped(source, *kind, ex.num_states())),
        Outcome::Fault { fault, .. } => {
            return Err(Failure::whole(
                source,
                format!(
                    "the model reported `{}`: {}",
                    fault.kind.name(),
                    fault.message
                ),
            ))
        }
    }
    let mut outcomes = BTreeSet::new();
    let (mut any, mut all) = (false, true);
    for id in ex.final_states().iter_ones() {
        let s = ex.state(id);
        let values: BTreeMap<Term, i64> = tr
            .terms
            .iter()
            .map(|(t, v)| {
                let w = model.threads.layout.mem(&tr.program, *v, 0, 0);
                (t.clone(), from_raw(Type::I32, u64::from(s[w])))
            })
            .collect();
        let ok = eval(&test.condition, &values);
        any |= ok;
        all &= ok;
        outcomes.insert(render_outcome(&values));
    }
    let holds = match test.quantifier {
        Quantifier::Exists => any,
        Quantifier::NotExists => !any,
        Quantifier::Forall => all,
    };
    Ok(Checked {
        name: test.name,
        quantifier: test.quantifier,
        holds,
        outcomes: outcomes.into_iter().collect(),
        states: ex.num_states(),
        violation: None,
        threads_per_block: model.threads.layout.threads_per_block as u32,
    })
}

/// [`Question::Termination`]: the executions `scheduler` admits that do
/// not end (under `deadlock`, the deadlocks only).
fn termination(
    test: Litmus,
    model: &Model,
    source: &Source,
    config: &LitmusConfig,
    scheduler: Scheduler,
) -> Result<Checked, Failure> {
    let options = explore_options(config, true);
    let settings = crate::check::Settings {
        scheduler,
        reductions: crate::reduce::Reductions::NONE,
        limits: options,
    };
    let result = crate::check::check(model, &settings);
    if let Some(kind) = result.limit {
        return Err(Failure::stopped(source, kind, result.stats.states));
    }
    let hangs: Vec<String> = result
        .findings
        .iter()
        .map(|f| format!("{}: {}", f.kind.name(), f.message))
        .collect();
    Ok(Checked {
        name: test.name,
        quantifier: Quantifier::Forall,
        holds: hangs.is_empty(),
        outcomes: hangs,
        states: result.stats.states as usize,
        violation: result
            .findings
            .first()
            .map(|f| crate::trace::violation_report(model, f)),
        threads_per_block: model.threads.layout.threads_per_block as u32,
    })
}

/// How the model's answer relates to the expected one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Agreement {
    Same,
    /// The model forbids an outcome that PTX allows.
    Unsound,
    /// The model allows an outcome that PTX forbids.
    OverApproximate,
    Unsupported,
}

impl Agreement {
    pub fn name(self) -> &'static str {
        match self {
            Agreement::Same => "same",
            Agreement::Unsound => "unsound",
            Agreement::OverApproximate => "over-approximate",
            Agreement::Unsupported => "unsupported",
        }
    }
}

/// Compares the model's answer with PTX's for a test with quantifier `q`.
pub fn agreement(q: Quantifier, model: bool, expected: bool) -> Agreement {
    if model == expected {
        return Agreement::Same;
    }
    // `exists` holding means an outcome is reachable; for `~exists` and
    // `forall`, holding means some outcome is unreachable.
    let model_allows_more = match q {
        Quantifier::Exists => model,
        Quantifier::NotExists | Quantifier::Forall => !model,
    };
    if model_allows_more {
        Agreement::OverApproximate
    } else {
        Agreement::Unsound
    }
}

/// One line of a directory run.
#[derive(Clone, Debug, Serialize)]
pub struct TestRow {
    pub path: String,
    pub name: Option<String>,
    pub quantifier: Option<&'static str>,
    /// The model's answer: does the final condition hold?
    pub model: Option<bool>,
    pub expected: Option<bool>,
    pub agreement: Agreement,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub states: Option<usize>,
}

impl TestRow {
    /// The row of the test at `rel`, expected to hold or not, with the
    /// model's answer or why there is none.
    fn of(rel: &str, expected: bool, result: Result<Checked, Failure>) -> TestRow {
        let row = TestRow {
            path: rel.to_string(),
            name: None,
            quantifier: None,
            model: None,
            expected: Some(expected),
            agreement: Agreement::Unsupported,
            reason: None,
            states: None,
        };
        match result {
            Ok(c) => TestRow {
                agreement: agreement(c.quantifier, c.holds, expected),
                name: Some(c.name),
                quantifier: Some(c.quantifier.keyword()),
                model: Some(c.holds),
                states: Some(c.states),
                ..row
            },
            Err(f) => TestRow {
                reason: Some(f.reason()),
                ..row
            },
        }
    }
}

/// The figures of a directory run.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Summary {
    pub tests: usize,
    pub supported: usize,
    pub agree: usize,
    pub unsound: usize,
    pub over_approximate: usize,
    pub unsupported: usize,
}

impl Summary {
    /// Counts one test.
    fn count(&mut self, row: &TestRow) {
        self.tests += 1;
        match row.agreement {
            Agreement::Unsupported => self.unsupported += 1,
            Agreement::Same => self.agree += 1,
            Agreement::Unsound => self.unsound += 1,
            Agreement::OverApproximate => self.over_approximate += 1,
        }
        if row.agreement != Agreement::Unsupported {
            self.supported += 1;
        }
    }

    /// `litmus: T tests, S supported, A agree, U unsound`
    pub fn line(&self) -> String {
        format!(
            "litmus: {} tests, {} supported, {} agree, {} unsound",
            self.tests, self.supported, self.agree, self.unsound
        )
    }
}

/// The result of running a directory against an expectation file.
#[derive(Clone, Debug, Serialize)]
pub struct DirReport {
    pub memory_model: MemoryModel,
    pub expect: String,
    /// The tests were asked whether they terminate (`--liveness`), not
    /// their final condition; 1 in the file means "terminates".
    pub liveness: bool,
    /// Under `--liveness`: the scheduler termination was judged under.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<Scheduler>,
    pub rows: Vec<TestRow>,
    /// Litmus files under the directory that the expectation file does not name.
    pub without_expectation: Vec<String>,
    pub summary: Summary,
}

/// Reads `path,0|1` lines.
pub fn read_expectations(path: &Path) -> Result<Vec<(String, bool)>, String> {
    let text = read_text(path)?;
    let mut out = vec![];
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parsed = line.rsplit_once(',').and_then(|(p, v)| match v.trim() {
            "1" => Some((p.trim().to_string(), true)),
            "0" => Some((p.trim().to_string(), false)),
            _ => None,
        });
        match parsed {
            Some(e) => out.push(e),
            None => {
                return Err(format!(
                    "{}:{}: expected `path,0` or `path,1`, found `{line}`",
                    path.display(),
                    n + 1
                ))
            }
        }
    }
    Ok(out)
}

pub(crate) fn litmus_files(dir: &Path, base: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            litmus_files(&p, base, out);
        } else if p.extension().is_some_and(|e| e == "litmus") {
            if let Ok(rel) = p.strip_prefix(base) {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
}

/// Runs every test the expectation file names (paths relative to `dir`),
/// asking each `question`: its final condition, or (`--liveness`) whether
/// it terminates, which a liveness file's 1 means.
pub fn run_dir(
    dir: &Path,
    expect: &Path,
    config: &LitmusConfig,
    question: Question,
) -> Result<DirReport, String> {
    let expectations = read_expectations(expect)?;
    let mut rows = vec![];
    let mut summary = Summary::default();
    for (rel, expected) in &expectations {
        let row = TestRow::of(rel, *expected, ask_file(&dir.join(rel), config, question));
        summary.count(&row);
        rows.push(row);
    }
    let mut files = vec![];
    litmus_files(dir, dir, &mut files);
    let named: BTreeSet<&str> = expectations.iter().map(|(p, _)| p.as_str()).collect();
    let without_expectation = files
        .into_iter()
        .filter(|f| !named.contains(f.as_str()))
        .collect();
    let scheduler = match question {
        Question::Condition => None,
        Question::Termination(s) => Some(s),
    };
    Ok(DirReport {
        memory_model: config.memory_model,
        expect: expect.display().to_string(),
        liveness: scheduler.is_some(),
        scheduler,
        rows,
        without_expectation,
        summary,
    })
}

/// The width of a table's first column, whose header is `test`.
pub(crate) fn column_width(lengths: impl Iterator<Item = usize>) -> usize {
    lengths.max().unwrap_or(4).max(4)
}

fn yes_no(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "holds",
        Some(false) => "fails",
        None => "-",
    }
}

/// A termination answer: every execution ends, or some hangs.
fn ends_hangs(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "ends",
        Some(false) => "hangs",
        None => "-",
    }
}

/// The text table of a directory run; the summary line is the last line.
pub fn render_dir(report: &DirReport) -> String {
    let width = column_width(report.rows.iter().map(|r| r.path.len()));
    let (answer, cond): (fn(Option<bool>) -> &'static str, &str) = match report.liveness {
        true => (ends_hangs, "scheduler"),
        false => (yes_no, "cond"),
    };
    let scheduler = report.scheduler.map(|s| s.to_string()).unwrap_or_default();
    let mut out = format!(
        "{:width$}  {:8}  {:6}  {:8}  agreement\n",
        "test", "model", "expect", cond,
    );
    for r in &report.rows {
        let asked = match report.liveness {
            true => scheduler.as_str(),
            false => r.quantifier.unwrap_or("-"),
        };
        out.push_str(&format!(
            "{:width$}  {:8}  {:6}  {:8}  {}",
            r.path,
            answer(r.model),
            answer(r.expected),
            asked,
            r.agreement.name()
        ));
        if let Some(reason) = &r.reason {
            out.push_str(&format!(": {reason}"));
        }
        out.push('\n');
    }
    match report.without_expectation.as_slice() {
        [] => {}
        few if few.len() <= 5 => {
            for f in few {
                out.push_str(&format!(
                    "note: {f} has no line in {}; not run\n",
                    report.expect
                ));
            }
        }
        many => out.push_str(&format!(
            "note: {} litmus files under the directory have no line in {} (first: {}); not run\n",
            many.len(),
            report.expect,
            many[0]
        )),
    }
    let scheduler = report
        .scheduler
        .map(|s| format!(", scheduler {s}"))
        .unwrap_or_default();
    out.push_str(&format!(
        "memory model {}{scheduler}: {} over-approximate, {} unsupported\n",
        report.memory_model.name(),
        report.summary.over_approximate,
        report.summary.unsupported
    ));
    out.push_str(&report.summary.line());
    out.push('\n');
    out
}

/// The text report of a single test.
pub fn render_checked(c: &Checked, expected: Option<bool>) -> String {
    let mut out = format!("test {}: {} states\n", c.name, c.states);
    out.push_str(&format!("final outcomes ({}):\n", c.outcomes.len()));
    for o in &c.outcomes {
        out.push_str(&format!("  {o}\n"));
    }
    out.push_str(&format!(
        "condition ({}): {}\n",
        c.quantifier.keyword(),
        yes_no(Some(c.holds))
    ));
    push_expected(&mut out, c, expected, yes_no);
    out
}

/// The text report of a single test asked whether it terminates under
/// `scheduler`: the answer, and for a hang what it found (the lasso itself
/// is the caller's to print).
pub fn render_termination(c: &Checked, scheduler: Scheduler, expected: Option<bool>) -> String {
    let mut out = format!("test {}: {} states\n", c.name, c.states);
    let answer = match c.holds {
        true => "every execution ends",
        false => "some execution does not end",
    };
    out.push_str(&format!("termination (scheduler {scheduler}): {answer}\n"));
    push_expected(&mut out, c, expected, ends_hangs);
    out
}

/// The `expected:` line of a text report: the expectation in `word`s and
/// whether the result agrees.
fn push_expected(
    out: &mut String,
    c: &Checked,
    expected: Option<bool>,
    word: fn(Option<bool>) -> &'static str,
) {
    if let Some(e) = expected {
        out.push_str(&format!(
            "expected: {}; {}\n",
            word(Some(e)),
            agreement(c.quantifier, c.holds, e).name()
        ));
    }
}
