//! Every case of `shared/cuda-corpus` (synchronization code from public
//! CUDA projects, read where it lies, never copied), checked as far as the
//! LLVM route takes it today: a harness under `harnesses/corpus` whose
//! `//! expect` lines `verify` checks, the exact construct that stops
//! the case, located, or the violation of one kernel alone where the case
//! needs several at once, which `book/src/cuda.md` ("The CUDA corpus, case by
//! case") lists. When the front end learns a construct, the probe of the
//! case it unblocks fails here: move the case to a harness with
//! expectations and update the book's table. Without clang-19, opt-19,
//! the header wheels or `shared/`, the tests are reported as ignored
//! (failed under CI=true): see `common::needs`.

mod common;

use common::*;
use gsync_check::llvm::toolchain::Toolchain;
use std::path::Path;

/// What a corpus case gives today.
enum Outcome {
    /// A harness of ours whose expectations `verify` checks.
    Harness(&'static str),
    /// Every construct is lowered, but the search does not end within
    /// the `--max-seconds` among the case's arguments (exit 3).
    TooLarge,
    /// `check` stops with exit 2 at `at` (a `file:line` suffix), saying `says`.
    Refused {
        at: &'static str,
        says: &'static str,
    },
}

struct Case {
    name: &'static str,
    /// The file `check` compiles: under `shared/` (`@/...`) or ours.
    file: &'static str,
    args: &'static [&'static str],
    outcome: Outcome,
}

fn cases() -> Vec<Case> {
    use Outcome::*;
    vec![
        Case {
            name: "desul-lock-array",
            file: "harnesses/corpus/desul_lock_array.cu",
            args: &[],
            outcome: Harness("harnesses/corpus/desul_lock_array.cu"),
        },
        Case {
            name: "broker-queue",
            file: "harnesses/corpus/broker_queue.cu",
            args: &[],
            outcome: Harness("harnesses/corpus/broker_queue.cu"),
        },
        // Producer and consumer kernels launched together (--launch),
        // synchronized by CuStage's per-tile semaphores.
        Case {
            name: "cusync-tile-semaphore",
            file: "harnesses/corpus/cusync_tile_semaphore.cu",
            args: &[],
            outcome: Harness("harnesses/corpus/cusync_tile_semaphore.cu"),
        },
        // The bare volatile-flag example's producer and consumer (whose
        // float add is lowered), launched together.
        Case {
            name: "cusync-tile-semaphore",
            file: "harnesses/corpus/cusync_sync_overhead.cu",
            args: &[],
            outcome: Harness("harnesses/corpus/cusync_sync_overhead.cu"),
        },
        // Both barriers of the case, two GPUs as two blocks, their peers'
        // buffers reached through host-set arrays of pointers.
        Case {
            name: "flashinfer-allreduce-barriers",
            file: "harnesses/corpus/flashinfer_allreduce_barriers.cu",
            args: &[],
            outcome: Harness("harnesses/corpus/flashinfer_allreduce_barriers.cu"),
        },
        // Every construct is lowered (local key arrays, bit counts, warp
        // shuffles); its state is too large to search even at 2 blocks of
        // one thread.
        Case {
            name: "gpusorting-onesweep-lookback",
            file: "@/cuda-corpus/gpusorting-onesweep-lookback/src/GPUSortingCUDA/Sort/OneSweep.cu",
            args: &[
                "--kernel",
                "DigitBinningPassKeysOnly",
                "--arg",
                "size=8",
                "--arg",
                "radixShift=0",
                "-I",
                "@/cuda-corpus/gpusorting-onesweep-lookback/src/GPUSortingCUDA",
                "--max-seconds",
                "10",
            ],
            outcome: TooLarge,
        },
        // The device-scope barrier is checked; the block-scope one keeps
        // its state in a byte array read as 64-bit words (then mbarrier).
        Case {
            name: "libcudacxx-barrier",
            file: "harnesses/corpus/libcudacxx_barrier.cu",
            args: &[],
            outcome: Harness("harnesses/corpus/libcudacxx_barrier.cu"),
        },
        Case {
            name: "libcudacxx-barrier",
            file: "tests/llvm/drivers/libcudacxx-barrier.cu",
            args: &[
                "--kernel",
                "block_barrier_kernel",
                "--grid",
                "1",
                "--block",
                "2",
                "-I",
                "@/cuda-corpus/libcudacxx-barrier/src/libcudacxx/include",
            ],
            outcome: Refused {
                at: "barrier.h:168",
                says: "accessed as 8-bit and 64-bit elements",
            },
        },
        Case {
            name: "libcudacxx-semaphore-latch",
            file: "harnesses/corpus/libcudacxx_semaphore_latch.cu",
            args: &[],
            outcome: Harness("harnesses/corpus/libcudacxx_semaphore_latch.cu"),
        },
        // The team is computed by a function of NCCL's device runtime the
        // corpus does not carry.
        Case {
            name: "nccl-lsa-barrier",
            file: "tests/llvm/drivers/nccl-lsa-barrier.cu",
            args: &[
                "--kernel",
                "lsa_barrier_kernel",
                "-I",
                "@/cuda-corpus/nccl-lsa-barrier/src/src/include",
                "-I",
                "tests/llvm/stubs/nccl-lsa",
                "-I",
                "@",
            ],
            outcome: Refused {
                at: "nccl-lsa-barrier.cu:7",
                says: "a call to `_Z11ncclTeamLsaRK11ncclDevComm`",
            },
        },
        // Its barriers and its two all-reduce kernels for float, two GPUs
        // as two blocks.
        Case {
            name: "vllm-custom-allreduce",
            file: "harnesses/corpus/vllm_custom_allreduce.cu",
            args: &[],
            outcome: Harness("harnesses/corpus/vllm_custom_allreduce.cu"),
        },
        Case {
            name: "stdgpu-mutex-deque",
            file: "harnesses/corpus/stdgpu_mutex_deque.cu",
            args: &[],
            outcome: Harness("harnesses/corpus/stdgpu_mutex_deque.cu"),
        },
        Case {
            name: "warpcore-cg-insert",
            file: "harnesses/corpus/warpcore_cg_insert.cu",
            args: &[],
            outcome: Harness("harnesses/corpus/warpcore_cg_insert.cu"),
        },
        Case {
            name: "nccl-ll-protocol",
            file: "@/cuda-corpus/nccl-ll-protocol/src/src/device/primitives.h",
            args: &[
                "--kernel",
                "k",
                "-I",
                "@/cuda-corpus/nccl-ll-protocol/src/src/include",
                "-I",
                "@/cuda-corpus/nccl-ll-protocol/src/src/device",
            ],
            outcome: Refused {
                at: "primitives.h:12",
                says: "'reduce_kernel.h' file not found",
            },
        },
        Case {
            name: "ginkgo-syncfree-scheduler",
            file: "harnesses/corpus/ginkgo_syncfree_scheduler.cu",
            args: &[],
            outcome: Harness("harnesses/corpus/ginkgo_syncfree_scheduler.cu"),
        },
        // clang refuses one construct of SlabHash that nvcc accepts.
        Case {
            name: "slabhash-warp-insert",
            file: "@/cuda-corpus/slabhash-warp-insert/src/src/slab_hash.cuh",
            args: &[
                "--kernel",
                "k",
                "-I",
                "@/cuda-corpus/slabhash-warp-insert/src/src",
                "-I",
                "@/cuda-corpus/slabhash-warp-insert/src/SlabAlloc/src",
            ],
            outcome: Refused {
                at: "cmap_implementation.cuh:113",
                says: "default arguments cannot be added to an out-of-line definition",
            },
        },
    ]
}

/// `@` stands for the shared folder.
fn expand(arg: &str, shared: &Path) -> String {
    match arg.strip_prefix('@') {
        Some(rest) => format!("{}{rest}", shared.display()),
        None => arg.to_string(),
    }
}

fn check_case(case: &Case, shared: &Path) {
    if let Outcome::Harness(path) = case.outcome {
        let out = run_shared(shared, &["verify", path]);
        let text = stdout(&out);
        assert_eq!(code(&out), 0, "{}: {text}{}", case.name, stderr(&out));
        assert!(!text.contains("FAIL"), "{text}");
        return;
    }
    let mut args = vec!["check".to_string(), expand(case.file, shared)];
    args.extend(case.args.iter().map(|a| expand(a, shared)));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run_shared(shared, &args);
    let err = stderr(&out);
    if let Outcome::TooLarge = case.outcome {
        assert_eq!(code(&out), 3, "{}: {}{err}", case.name, stdout(&out));
        assert!(stdout(&out).contains("INCONCLUSIVE"), "{}", stdout(&out));
        return;
    }
    let Outcome::Refused { at, says } = case.outcome else {
        unreachable!("harnesses returned above")
    };
    assert_eq!(code(&out), 2, "{}: {}{err}", case.name, stdout(&out));
    assert!(err.contains(says), "{}: `{says}` not in {err}", case.name);
    assert!(
        err.contains(&format!("{at}:")),
        "{}: not located at {at}: {err}",
        case.name
    );
}

fn run_shared(shared: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_gsync-check"))
        .args(args)
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .env("GSYNC_SHARED", shared)
        .output()
        .expect("run gsync-check")
}

/// Every case of the corpus folder has a probe here.
fn every_case_is_listed(shared: &Path) {
    let mut on_disk: Vec<String> = std::fs::read_dir(shared.join("cuda-corpus"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = cases().iter().map(|c| c.name.to_string()).collect();
    listed.sort();
    // A case may have a harness for one part and a probe for another.
    listed.dedup();
    assert_eq!(on_disk, listed);
}

fn main() -> std::process::ExitCode {
    let shared = shared_dir();
    let missing = Toolchain::find()
        .err()
        .map(|e| e.to_string())
        .or_else(|| match &shared {
            Some(d) if d.join("cuda-corpus").is_dir() => None,
            Some(d) => Some(format!("no cuda-corpus/ in {}", d.display())),
            None => Some(
                "no shared/ folder beside or above the repository (set GSYNC_SHARED to it)".into(),
            ),
        });
    let shared = shared.unwrap_or_default();
    let mut trials = Vec::new();
    for case in cases() {
        let sh = shared.clone();
        // A case may have several harnesses: each trial names its own.
        let kind = match case.outcome {
            Outcome::Harness(path) => format!("checked::{}", stem(Path::new(path))),
            Outcome::TooLarge => "too_large".into(),
            Outcome::Refused { .. } => "refused".into(),
        };
        trials.push(needs(
            &format!("corpus::{}::{kind}", case.name),
            missing.clone(),
            move || check_case(&case, &sh),
        ));
    }
    trials.push(needs("every_corpus_case_has_a_probe", missing, move || {
        every_case_is_listed(&shared)
    }));
    run_trials(trials)
}
