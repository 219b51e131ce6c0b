//! The GPU litmus harness without a GPU: every corpus test the model
//! supports becomes a CUDA program that NVRTC compiles (and, where a
//! `ptxas` is at hand, that assembles for sm_90: the inline PTX is only
//! checked there); the committed H100 histograms are judged again against
//! the model's outcomes of today, and must give the committed verdicts.

mod common;

use common::*;
use gsync_check::cuda::nvrtc;
use gsync_check::litmus::gpu::compare::judge;
use gsync_check::litmus::gpu::corpus::{prepare_all, CorpusOptions, GpuLitmusReport, Status};
use gsync_check::litmus::gpu::run::RunOptions;
use gsync_check::litmus::gpu::stress::environments;
use gsync_check::litmus::LitmusConfig;
use std::path::Path;

fn main() -> std::process::ExitCode {
    let corpus = litmus_corpus();
    let no_corpus = corpus.as_ref().err().cloned();
    let dir = corpus.unwrap_or_default();
    let (a, b) = (dir.clone(), dir);
    run_trials(vec![
        needs(
            "every_supported_corpus_test_compiles_for_the_gpu",
            no_corpus.clone().or_else(nvrtc_missing),
            move || every_supported_corpus_test_compiles_for_the_gpu(&a),
        ),
        needs(
            "recorded_h100_verdicts_follow_from_their_histograms",
            None,
            recorded_h100_verdicts_follow_from_their_histograms,
        ),
        needs(
            "recorded_h100_outcomes_are_still_allowed_by_the_model",
            no_corpus,
            move || recorded_h100_outcomes_are_still_allowed_by_the_model(&b),
        ),
    ])
}

fn options(liveness: Option<&Path>) -> CorpusOptions<'_> {
    CorpusOptions {
        config: LitmusConfig::default(),
        expect: None,
        liveness,
        environments: environments(),
        run: RunOptions::default(),
    }
}

/// `GSYNC_PTXAS`, or `ptxas` on the path, if it runs.
fn ptxas() -> Option<String> {
    let p = std::env::var("GSYNC_PTXAS").unwrap_or_else(|_| "ptxas".into());
    std::process::Command::new(&p)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| p)
}

fn every_supported_corpus_test_compiles_for_the_gpu(corpus: &Path) {
    let live = corpus.join("expected-liveness.csv");
    let prepared = prepare_all(corpus, &options(Some(&live))).unwrap();
    let ready: Vec<_> = prepared.iter().filter_map(|p| p.as_ref().ok()).collect();
    // Every test the model supports with whole-CTA barriers (110 with an
    // expectation, and MICRO24-Fig4b-correct) has a program; those with
    // named barriers are the harness's to refuse.
    assert_eq!(ready.len(), 111, "{}", ready.len());
    for p in prepared.iter().filter_map(|p| p.as_ref().err()) {
        assert_eq!(p.status, Status::Unsupported);
        let reason = p.reason.as_deref().unwrap_or("");
        assert!(
            reason.starts_with("model") || reason.contains("only whole-CTA barriers"),
            "{}: {:?}",
            p.path,
            p.reason
        );
    }
    let asm = ptxas();
    let dir = std::env::temp_dir().join(format!("gsync-litmus-ptx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = vec![];
    for p in &ready {
        let name = p.result.path.replace('/', "__");
        match nvrtc::compile(&p.kernel.source, &format!("{name}.cu"), "compute_90") {
            Ok(ptx) => {
                for k in ["litmus_init", "litmus_test", "litmus_collect"] {
                    assert!(ptx.contains(&format!(".entry {k}")), "{name}: no {k}");
                }
                if let Some(asm) = &asm {
                    let file = dir.join(format!("{name}.ptx"));
                    std::fs::write(&file, &ptx).unwrap();
                    let out = std::process::Command::new(asm)
                        .args(["-arch=sm_90", "-o", "/dev/null"])
                        .arg(&file)
                        .output()
                        .unwrap();
                    if !out.status.success() {
                        failures.push(format!(
                            "{name}: ptxas: {}",
                            String::from_utf8_lossy(&out.stderr)
                        ));
                    }
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The committed H100 run.
fn recorded_h100_report() -> GpuLitmusReport {
    let path = repo().join("book/src/results/h100-2026-11-25/litmus-gpu.json");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Every verdict of the committed H100 run is what the comparison gives
/// for its histograms and the model's outcomes recorded with it, and no
/// outcome the model forbids was seen.
fn recorded_h100_verdicts_follow_from_their_histograms() {
    let report = recorded_h100_report();
    assert_eq!(
        report.exit_code(),
        0,
        "the H100 showed what the model forbids"
    );
    let run: Vec<_> = report
        .tests
        .iter()
        .filter(|t| t.verdict.is_some())
        .collect();
    assert_eq!(run.len(), 111);
    for t in run {
        let v = t.verdict.as_ref().unwrap();
        assert_eq!(
            &judge(&t.model_allowed, t.model_terminates, &t.runs),
            v,
            "{}",
            t.path
        );
    }
}

/// The model of today still allows every outcome the H100 showed (so a
/// change of the model that forbids one fails here), and gives the
/// outcome sets recorded with the run.
fn recorded_h100_outcomes_are_still_allowed_by_the_model(corpus: &Path) {
    for t in recorded_h100_report()
        .tests
        .iter()
        .filter(|t| t.verdict.is_some())
    {
        let text = std::fs::read_to_string(corpus.join(&t.path)).unwrap();
        let source = gsync_check::diag::Source::new(t.path.clone(), text);
        let live = t.model_terminates.is_some();
        let p = gsync_check::litmus::gpu::corpus::prepare(
            &source,
            &t.path,
            &LitmusConfig::default(),
            live,
        )
        .unwrap_or_else(|r| panic!("{}: {:?}", t.path, r.reason));
        assert_eq!(
            p.result.model_allowed, t.model_allowed,
            "{}: the model's outcomes changed",
            t.path
        );
        let again = judge(&p.result.model_allowed, p.result.model_terminates, &t.runs);
        assert!(
            !again.forbidden(),
            "{}: today's model forbids what the H100 showed: {again:?}",
            t.path
        );
    }
}
