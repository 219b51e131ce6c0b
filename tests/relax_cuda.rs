//! `relax` and `repair` on harnesses whose accesses live in imported CUDA
//! (`//! cuda: FILE.cu`): HeteroSync's real sources (read in place from
//! `shared/heterosync`, never copied into the repository) relaxed, the
//! relaxed copies written to a temporary folder and re-verified by
//! `verify`, the maximality claim checked by weakening each claimed point
//! of the written copy one step by hand, the book's table checked against
//! the recorded results and those against fresh runs, and `repair`
//! finding the fence `grid_sync_broken.cu` drops (and no fix for its
//! deadlock). Without libclang or the sources these tests are reported as
//! ignored (failed under CI=true): see `common::needs`.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The HeteroSync harnesses relaxed here (the others take minutes: the
/// book's table has their recorded rows, checked against the record).
const FAST: [&str; 4] = [
    "heterosync_spin_mutex",
    "heterosync_ebo_mutex",
    "heterosync_fa_mutex",
    "heterosync_atomic_tree_barrier",
];

/// The recorded `relax --format json` of every HeteroSync harness.
const RECORD: &str = "book/src/results/relax-cuda.jsonl";
const OPEN: &str = "<!-- cuda-relax-table: results/relax-cuda.jsonl -->";
const CLOSE: &str = "<!-- /cuda-relax-table -->";

fn main() -> std::process::ExitCode {
    let CudaGates {
        shared,
        no_libclang,
        with_sources,
    } = cuda_gates();
    let dir = shared.unwrap_or_default();
    let d = dir.clone();
    run_trials(vec![
        needs(
            "heterosync_harnesses_relax_reverify_and_are_maximal",
            with_sources.clone(),
            move || heterosync_harnesses_relax_reverify_and_are_maximal(&d),
        ),
        needs(
            "repair_fixes_the_sleep_mutex_hand_over_in_heterosyncs_cuda",
            with_sources.clone(),
            {
                let d = dir.clone();
                move || repair_fixes_the_sleep_mutex_hand_over_in_heterosyncs_cuda(&d)
            },
        ),
        needs(
            "the_book_table_is_the_record",
            None,
            the_book_table_is_the_record,
        ),
        needs(
            "repair_finds_the_fence_grid_sync_broken_drops",
            no_libclang.clone(),
            repair_finds_the_fence_grid_sync_broken_drops,
        ),
        needs(
            "libcupp_orders_cuda_fences_and_atomics_are_relaxed",
            no_libclang.clone(),
            libcupp_orders_cuda_fences_and_atomics_are_relaxed,
        ),
        needs(
            "a_harness_written_elsewhere_finds_its_cuda",
            no_libclang.clone(),
            a_harness_written_elsewhere_finds_its_cuda,
        ),
        needs(
            "relax_of_a_harness_whose_cuda_is_missing_is_located",
            no_libclang,
            relax_of_a_harness_whose_cuda_is_missing_is_located,
        ),
    ])
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gsync-relax-cuda-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_str(&stdout(out)).unwrap_or_else(|e| panic!("{e}: {}", stdout(out)))
}

/// The counts a table row and a record share, from a `relax` JSON.
fn row_of(d: &serde_json::Value) -> Vec<String> {
    let c = &d["counts"];
    let result = match (d["maximal"].as_bool(), d["status"]["status"].as_str()) {
        (Some(true), Some("done")) => "maximal",
        _ => "local",
    };
    vec![
        d["spec"].as_str().unwrap().to_string(),
        d["points"].to_string(),
        c["fences_removed"].to_string(),
        c["fences_changed"].to_string(),
        c["scopes_narrowed"].to_string(),
        result.to_string(),
    ]
}

fn record() -> Vec<serde_json::Value> {
    std::fs::read_to_string(repo().join(RECORD))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every row of the book's table is its harness's record (the seconds
/// aside, which are the record's too), and every harness has a row.
fn the_book_table_is_the_record() {
    let page = std::fs::read_to_string(repo().join("book/src/relax.md")).unwrap();
    let start = page.find(OPEN).expect("the table's opening marker") + OPEN.len();
    let end = page[start..].find(CLOSE).expect("the closing marker") + start;
    let rows: Vec<Vec<String>> = page[start..end]
        .lines()
        .filter(|l| l.starts_with("| heterosync"))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect();
    let recorded = record();
    assert_eq!(rows.len(), recorded.len(), "one row per recorded harness");
    for d in &recorded {
        let want = row_of(d);
        let row = rows
            .iter()
            .find(|r| r[0] == want[0])
            .unwrap_or_else(|| panic!("no row for {}", want[0]));
        assert_eq!(&row[..want.len()], &want[..], "the row of {}", want[0]);
        let seconds = format!("{:.1}", d["seconds"].as_f64().unwrap());
        assert_eq!(row.last().unwrap(), &seconds, "{}'s seconds", want[0]);
    }
    // Every harness a ptx check expects to verify (the others are
    // repair's), as scripts/relax-cuda-table.sh chooses them.
    let mut harnesses: Vec<String> = std::fs::read_dir(repo().join("harnesses/heterosync"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "gsync"))
        .filter(|p| {
            std::fs::read_to_string(p).unwrap().lines().any(|l| {
                l.starts_with("//! expect")
                    && !l.contains("memory-model sc")
                    && l.contains(": verified")
            })
        })
        .map(|p| p.file_stem().unwrap().to_str().unwrap().to_string())
        .collect();
    harnesses.sort();
    let mut names: Vec<&str> = recorded
        .iter()
        .map(|d| d["spec"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names, harnesses,
        "every HeteroSync harness with a ptx `verified` recorded"
    );
}

fn heterosync_harnesses_relax_reverify_and_are_maximal(shared: &Path) {
    let dir = scratch();
    let recorded = record();
    for name in FAST {
        let started = std::time::Instant::now();
        let harness = format!("harnesses/heterosync/{name}.gsync");
        let out = dir.join(format!("{name}_relaxed.gsync"));
        let o = gsync(
            Some(shared),
            &[
                "relax",
                &harness,
                "-q",
                "--format",
                "json",
                "-o",
                out.to_str().unwrap(),
            ],
        );
        assert_eq!(code(&o), 0, "{name}: {}{}", stdout(&o), stderr(&o));
        let d = json(&o);
        assert_eq!(d["maximal"], true, "{name}: {d}");
        // The fresh run is what the book's table records.
        let want = recorded.iter().find(|r| r["spec"] == name).unwrap();
        assert_eq!(row_of(&d), row_of(want), "{name}: fresh run vs {RECORD}");
        // The relaxed copy of the third-party file is beside the output,
        // and the written harness reads it.
        let changed: Vec<&serde_json::Value> = d["cuda"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["changed"] == true)
            .collect();
        assert!(
            !changed.is_empty(),
            "{name}: nothing relaxed in the CUDA: {d}"
        );
        let written = std::fs::read_to_string(&out).unwrap();
        for f in &changed {
            let file = Path::new(f["path"].as_str().unwrap()).file_name().unwrap();
            let copy = format!("{name}_relaxed.{}", file.to_str().unwrap());
            assert!(dir.join(&copy).is_file(), "{name}: no {copy}");
            assert!(
                written.contains(&format!("//! cuda: {copy}\n")),
                "{written}"
            );
        }
        let v = gsync(Some(shared), &["verify", out.to_str().unwrap()]);
        assert_eq!(code(&v), 0, "{name} relaxed:\n{}", stdout(&v));
        let weakened = each_step_further_fails(Some(shared), &d, &out);
        println!(
            "{name}: relaxed, re-verified, {weakened} further steps refused by hand, {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
}

/// What a point's text is in a CUDA file: a fence call, a fence `asm`
/// statement, an atomic function's name, or a libcu++ order's.
fn tokens(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        let len = if rest.starts_with("__threadfence") {
            rest.find(')').map(|i| i + 1)
        } else if rest.starts_with("asm volatile(\"fence.") {
            rest.find(");").map(|i| i + 1)
        } else if rest.starts_with("memory_order_") {
            rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))
        } else if rest.starts_with("atomic")
            && rest[6..].starts_with(|c: char| c.is_ascii_uppercase())
            && !text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_')
        {
            rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))
        } else {
            None
        };
        match len {
            Some(n) => {
                out.push((at, at + n));
                at += n;
            }
            None => at += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    out
}

fn offset_of(text: &str, line: u64, column: u64) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line as usize - 1)
        .map(str::len)
        .sum();
    start + column as usize - 1
}

/// Each refused step of the result (a CUDA point one step weaker), made
/// by hand in the written copy: `verify` must fail on every one. The
/// points are found in the copy by their order among the fence and atomic
/// texts of the original (removed fences are gone from the copy).
/// Returns how many were checked.
fn each_step_further_fails(shared: Option<&Path>, d: &serde_json::Value, out: &Path) -> usize {
    let dir = out.parent().unwrap();
    let stem = out.file_stem().unwrap().to_str().unwrap();
    let mut checked = 0;
    for f in d["cuda"].as_array().unwrap() {
        let path = f["path"].as_str().unwrap();
        let name = Path::new(path).file_name().unwrap().to_str().unwrap();
        let copy_path = dir.join(format!("{stem}.{name}"));
        let (Ok(original), Ok(copy)) = (
            std::fs::read_to_string(path),
            std::fs::read_to_string(&copy_path),
        ) else {
            continue;
        };
        let at = |v: &serde_json::Value| {
            offset_of(
                &original,
                v["line"].as_u64().unwrap(),
                v["column"].as_u64().unwrap(),
            )
        };
        let removed: Vec<usize> = d["changes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["file"] == path && c["to"] == "no fence")
            .map(at)
            .collect();
        let was = tokens(&original);
        let now = tokens(&copy);
        let kept: Vec<usize> = was
            .iter()
            .filter(|(s, _)| !removed.contains(s))
            .map(|t| t.0)
            .collect();
        assert_eq!(
            kept.len(),
            now.len(),
            "{name}: the copy's fences and atomics"
        );
        for r in d["refusals"].as_array().unwrap() {
            if r["file"] != path {
                continue;
            }
            let k = kept
                .iter()
                .position(|&s| s == at(r))
                .expect("a point's text");
            let (s, e) = now[k];
            let step = r["step"].as_str().unwrap();
            let variant = match step {
                "no fence" => {
                    let semi = e + copy[e..].find(';').unwrap() + 1;
                    format!("{}{}", &copy[..s], &copy[semi..])
                }
                _ if copy[s..].starts_with("atomic") => {
                    format!(
                        "{}{}{}",
                        &copy[..s],
                        step.trim_end_matches("()"),
                        &copy[e..]
                    )
                }
                _ => format!("{}{step}{}", &copy[..s], &copy[e..]),
            };
            assert_ne!(variant, copy, "{name}: step {step}");
            std::fs::write(&copy_path, &variant).unwrap();
            let v = gsync(shared, &["verify", out.to_str().unwrap()]);
            assert_eq!(
                code(&v),
                1,
                "{name}:{}:{} one step further ({step}) still meets every expectation:\n{}",
                r["line"],
                r["column"],
                stdout(&v)
            );
            checked += 1;
        }
        std::fs::write(&copy_path, &copy).unwrap();
    }
    assert!(checked > 0, "no refused step checked: {d}");
    checked
}

/// Our own message passing written too strong in CUDA (tests/cuda/
/// relax_mp.cu): a seq_cst store, a system fence, a device-scope add on a
/// block's own word, a seq_cst count; relax leaves what publishing needs.
fn libcupp_orders_cuda_fences_and_atomics_are_relaxed() {
    let out = scratch().join("mp_relaxed.gsync");
    let harness = "tests/cuda/relax_mp.gsync";
    let o = gsync(
        None,
        &[
            "relax",
            harness,
            "-q",
            "--format",
            "json",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let d = json(&o);
    assert_eq!(d["maximal"], true, "{d}");
    let c = &d["counts"];
    assert_eq!(c["fences_removed"], 1, "{c}");
    assert_eq!(c["orders"], 2, "{c}");
    assert_eq!(c["scopes_narrowed"], 1, "{c}");
    let copy = std::fs::read_to_string(out.with_file_name("mp_relaxed.relax_mp.cu")).unwrap();
    let ours = std::fs::read_to_string(repo().join("tests/cuda/relax_mp.cu")).unwrap();
    assert!(
        copy.contains("f.store(1, cuda::memory_order_release)"),
        "{copy}"
    );
    assert!(
        copy.contains("f.load(cuda::memory_order_acquire)"),
        "{copy}"
    );
    assert!(
        copy.contains("c.fetch_add(1, cuda::memory_order_relaxed)"),
        "{copy}"
    );
    assert!(copy.contains("atomicAdd_block(counters"), "{copy}");
    // The function the harness never calls is not searched.
    let unused = |t: &str| t[t.find("void unused").unwrap()..].to_string();
    assert_eq!(unused(&copy), unused(&ours));
    assert_eq!(code(&gsync(None, &["verify", out.to_str().unwrap()])), 0);
    assert_eq!(each_step_further_fails(None, &d, &out), 2);
}

/// HeteroSync's sleep mutex hands the lock over with an `atomicExch`
/// before its `__threadfence()` (a race under ptx, the harness's
/// finding): repair inserts a fence before the hand-over, in the `.cu`.
fn repair_fixes_the_sleep_mutex_hand_over_in_heterosyncs_cuda(shared: &Path) {
    let out = scratch().join("sleep_fixed.gsync");
    let harness = "harnesses/heterosync/heterosync_sleep_mutex.gsync";
    let o = gsync(
        Some(shared),
        &["repair", harness, "-q", "-o", out.to_str().unwrap()],
    );
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let report = stdout(&o);
    assert!(report.contains("violated heterogeneous_race"), "{report}");
    let helps: Vec<&str> = report
        .lines()
        .filter(|l| l.starts_with("help: insert `"))
        .collect();
    assert!(!helps.is_empty(), "{report}");
    assert!(
        helps.iter().all(|h| h.contains("cudaLocksMutexSleep.cu:")),
        "{report}"
    );
    let fixed =
        std::fs::read_to_string(out.with_file_name("sleep_fixed.cudaLocksMutexSleep.cu")).unwrap();
    // The fence goes before the `atomicExch` that hands the lock over.
    let hand_over = fixed
        .find("atomicExch((int *)ringBuffer + nextBufferLoc, 1)")
        .unwrap();
    let before = &fixed[..hand_over];
    let last_line = before.trim_end().rsplit('\n').next().unwrap();
    assert!(last_line.contains("fence"), "{last_line}");
    for blocks in ["2", "3"] {
        let c = gsync(
            Some(shared),
            &["check", out.to_str().unwrap(), "--blocks", blocks],
        );
        assert_eq!(code(&c), 0, "--blocks {blocks}: {}", stdout(&c));
    }
}

fn repair_finds_the_fence_grid_sync_broken_drops() {
    let dir = scratch();
    let out = dir.join("grid_sync_fixed.gsync");
    let harness = "harnesses/cuda/grid_sync_broken.gsync";
    let o = gsync(
        None,
        &[
            "repair",
            harness,
            "--param",
            "drop_fence=1",
            "-q",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let report = stdout(&o);
    assert!(report.contains("violated heterogeneous_race"), "{report}");
    let helps: Vec<&str> = report.lines().filter(|l| l.starts_with("help: ")).collect();
    assert!(!helps.is_empty(), "{report}");
    assert!(
        helps.iter().all(|h| h.contains("grid_sync_broken.cu:")),
        "the fix is in the CUDA: {report}"
    );
    assert!(report.contains("minimal:"), "{report}");
    // The fixed copy is written beside the fixed harness, not over ours.
    let copy = dir.join("grid_sync_fixed.grid_sync_broken.cu");
    assert!(copy.is_file());
    let ours = std::fs::read_to_string(repo().join("harnesses/cuda/grid_sync_broken.cu")).unwrap();
    assert_ne!(std::fs::read_to_string(&copy).unwrap(), ours);
    for blocks in ["2", "3"] {
        let c = gsync(
            None,
            &[
                "check",
                out.to_str().unwrap(),
                "--param",
                "drop_fence=1",
                "--blocks",
                blocks,
            ],
        );
        assert_eq!(code(&c), 0, "--blocks {blocks}: {}", stdout(&c));
    }
    // A deadlock by design: no ordering change helps.
    let o = gsync(None, &["repair", harness, "--param", "drop_flip=1", "-q"]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let report = stdout(&o);
    assert!(report.contains("repair: no fix:"), "{report}");
    assert!(!report.contains("help:"), "{report}");
}

fn relax_of_a_harness_whose_cuda_is_missing_is_located() {
    let text = std::fs::read_to_string(repo().join("harnesses/cuda/grid_sync_broken.gsync"))
        .unwrap()
        .replace("//! cuda: grid_sync_broken.cu", "//! cuda: no_such_file.cu");
    let path = write_temp_spec("missing_cuda", &text);
    let o = gsync(None, &["relax", path.to_str().unwrap(), "-q"]);
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    let line = text
        .lines()
        .position(|l| l.contains("no_such_file"))
        .unwrap()
        + 1;
    assert!(
        stderr(&o).contains(&format!("{}:{line}:", path.display())),
        "{}",
        stderr(&o)
    );
}

/// A harness written to another folder reads its CUDA from there: the
/// changed file's copy by its name, an unchanged one by absolute path.
fn a_harness_written_elsewhere_finds_its_cuda() {
    let harness = "tests/cuda/relax_mp.gsync";
    let cuda = repo()
        .join("tests/cuda/relax_mp.cu")
        .canonicalize()
        .unwrap();
    // (arguments, the `cuda:` line the written harness must have)
    let cases = [
        (vec![], "//! cuda: elsewhere.relax_mp.cu".to_string()),
        // Stopped before any step: nothing changed, nothing copied.
        (
            vec!["--max-seconds", "0.001"],
            format!("//! cuda: {}", cuda.display()),
        ),
    ];
    for (extra, line) in cases {
        let out = scratch().join("elsewhere.gsync");
        let _ = std::fs::remove_file(out.with_file_name("elsewhere.relax_mp.cu"));
        let mut args = vec!["relax", harness, "-q", "-o", out.to_str().unwrap()];
        args.extend(extra);
        let o = gsync(None, &args);
        assert!(matches!(code(&o), 0 | 3), "{}{}", stdout(&o), stderr(&o));
        let written = std::fs::read_to_string(&out).unwrap();
        assert!(written.contains(&format!("{line}\n")), "{line}: {written}");
        let v = gsync(None, &["verify", out.to_str().unwrap()]);
        assert_eq!(code(&v), 0, "{}{}", stdout(&v), stderr(&v));
    }
}
