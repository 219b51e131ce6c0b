//! `gsync-check check FILE.cu --kernel NAME`: CUDA kernels of our own
//! (`tests/kernels/`) checked as launched, through clang-19 and opt-19
//! with CUDA's headers from the PyPI wheels, each with its verdict and the
//! `.cu` line its counterexample cites; and HeteroSync's kernels
//! (`shared/heterosync`). Without clang-19, opt-19 or the header wheels
//! (or, for HeteroSync, `shared/`) the tests are reported as ignored, and
//! fail under CI=true: see `common::needs`.

mod common;

use common::*;
use gsync_check::llvm::toolchain::Toolchain;
use serde_json::Value;

/// One check and what it must find.
struct Case {
    file: &'static str,
    kernel: &'static str,
    args: &'static [&'static str],
    verdict: &'static str,
    /// The first violation's kind and the `.cu` line it is located at.
    violation: Option<(&'static str, u32)>,
    /// Text the first violation's message must contain (a cited line).
    cites: Option<&'static str>,
}

const fn case(
    file: &'static str,
    kernel: &'static str,
    args: &'static [&'static str],
    verdict: &'static str,
    violation: Option<(&'static str, u32)>,
    cites: Option<&'static str>,
) -> Case {
    Case {
        file,
        kernel,
        args,
        verdict,
        violation,
        cites,
    }
}

/// A kernel that verifies at the default launch.
const fn verified(file: &'static str, kernel: &'static str) -> Case {
    case(file, kernel, &[], "verified", None, None)
}

fn cases() -> Vec<Case> {
    vec![
        // atomicCAS/atomicExch with __threadfence() around the critical
        // section: mutual exclusion holds, the data accesses are ordered.
        case(
            "spin_lock.cu",
            "spin_lock",
            &["--arg", "iters=1"],
            "verified",
            None,
            None,
        ),
        case(
            "spin_lock.cu",
            "spin_lock",
            &["--arg", "iters=2", "--grid", "3"],
            "verified",
            None,
            None,
        ),
        // Without the fences the relaxed atomics order nothing: the next
        // holder's read of data[0] races with the last holder's write.
        case(
            "spin_lock.cu",
            "spin_lock_no_fence",
            &["--arg", "iters=1"],
            "violated",
            Some(("heterogeneous_race", 26)),
            Some("`data[0] = data[0] + 1;` (line 26:5)"),
        ),
        case(
            "grid_barrier.cu",
            "grid_barrier",
            &[],
            "verified",
            None,
            None,
        ),
        // The barrier without its fences: the neighbour's value, written
        // before the arrival, is read after it without ordering.
        case(
            "grid_barrier.cu",
            "grid_barrier_no_fence",
            &[],
            "violated",
            Some(("heterogeneous_race", 24)),
            Some("`value[blockIdx.x] = blockIdx.x + 1;` (line 20:3)"),
        ),
        case("last_block.cu", "last_block", &[], "verified", None, None),
        case(
            "last_block.cu",
            "last_block",
            &["--grid", "3"],
            "verified",
            None,
            None,
        ),
        // The reader's side of threadFenceReduction without a fence.
        case(
            "last_block.cu",
            "last_block_reader_unfenced",
            &[],
            "violated",
            Some(("heterogeneous_race", 34)),
            Some("`partial[blockIdx.x] = blockIdx.x + 1;` (line 28:3)"),
        ),
        // Thread 1 leaves (line 10, the kernel's end) while thread 0 waits
        // at the conditional __syncthreads() of line 7.
        case(
            "divergent_barrier.cu",
            "divergent_barrier",
            &["--grid", "1", "--block", "2"],
            "violated",
            Some(("barrier_divergence", 10)),
            Some("waits at line 7 `__syncthreads();`"),
        ),
        case(
            "device_assert.cu",
            "device_assert",
            &["--arg", "limit=5"],
            "violated",
            Some(("assertion", 7)),
            Some("device assertion `v < limit` failed"),
        ),
        case(
            "device_assert.cu",
            "device_assert",
            &["--arg", "limit=11"],
            "verified",
            None,
            None,
        ),
        // A block's tree reduction in shared memory, 4 threads of one warp:
        // the __syncthreads() ending each step orders the partners' slots.
        case(
            "block_sum.cu",
            "block_sum",
            &["--grid", "1", "--block", "4"],
            "verified",
            None,
            None,
        ),
        // Without it, thread 0 reads thread 1's slot while thread 1 adds into it.
        case(
            "block_sum.cu",
            "block_sum_unsynchronized",
            &["--grid", "1", "--block", "4"],
            "violated",
            Some(("data_race", 29)),
            Some("`s[threadIdx.x] += s[threadIdx.x + stride];` (line 29:7)"),
        ),
        // Inline PTX: st.release.gpu / ld.acquire.gpu order the data.
        verified("ptx_message_passing.cu", "message_passing"),
        // With .relaxed the flag orders nothing: the data read races.
        case(
            "ptx_message_passing.cu",
            "message_passing_relaxed",
            &[],
            "violated",
            Some(("heterogeneous_race", 34)),
            Some("`data[0] = 42;` (line 29:5)"),
        ),
        // fence.acq_rel.gpu around relaxed 64-bit flag accesses.
        verified("ptx_message_passing.cu", "message_passing_fenced"),
        // ld.global.cv is a weak load (a cache operator is a hint): the
        // poll races with the release store.
        case(
            "ptx_message_passing.cu",
            "message_passing_cv",
            &[],
            "violated",
            Some(("heterogeneous_race", 78)),
            Some("`asm volatile(\"st.release.gpu.global.u32 [%0], %1;\""),
        ),
        // libcu++'s cuda::atomic_ref: inline PTX behind an `__isLocal`
        // test that is false for a kernel's buffer.
        verified("atomic_ref.cu", "atomic_ref_mp"),
        case(
            "atomic_ref.cu",
            "atomic_ref_mp_relaxed",
            &[],
            "violated",
            Some(("heterogeneous_race", 17)),
            Some("`data[0] = 42;` (line 12:5)"),
        ),
        verified("atomic_ref.cu", "atomic_ref_ticket"),
        // Two phis that read each other (the swap problem): the copies on
        // the loop's back edge go through temporaries.
        case(
            "swap.cu",
            "swap",
            &["--arg", "n=3", "--grid", "1"],
            "verified",
            None,
            None,
        ),
        case(
            "swap.cu",
            "swap",
            &["--arg", "n=4", "--grid", "1"],
            "verified",
            None,
            None,
        ),
        // Floats added at run time under a lock: the last thread finds the
        // IEEE single-precision sum of 0.1f and 0.2f (their bits).
        case(
            "float_sum.cu",
            "float_sum",
            FLOAT_INPUTS,
            "verified",
            None,
            None,
        ),
        // Without the lock one addition is lost (sc: the sum is wrong).
        case(
            "float_sum.cu",
            "float_sum_racy",
            &[
                "--arg",
                "in[0]=1036831949",
                "--arg",
                "in[1]=1045220557",
                "--memory-model",
                "sc",
            ],
            "violated",
            Some(("assertion", 20)),
            None,
        ),
        // a * a + c with a = 1 + 2^-12, c = -(1 + 2^-11): contracted (clang's
        // `contract`) it is one fma and keeps 2^-24; `__fmul_rn` is never
        // contracted and the two roundings give 0. Each kernel traps on the
        // other value.
        case(
            "float_sum.cu",
            "fused_multiply_add",
            FMA_INPUTS,
            "verified",
            None,
            None,
        ),
        case(
            "float_sum.cu",
            "separate_multiply_add",
            FMA_INPUTS,
            "verified",
            None,
            None,
        ),
    ]
}

/// 0.1f and 0.2f, as their bits.
const FLOAT_INPUTS: &[&str] = &["--arg", "in[0]=1036831949", "--arg", "in[1]=1045220557"];

/// 1 + 2^-12 and -(1 + 2^-11), as their bits, one thread.
const FMA_INPUTS: &[&str] = &[
    "--grid",
    "1",
    "--block",
    "1",
    "--arg",
    "in[0]=1065355264",
    "--arg",
    "in[1]=-1082126336",
];

fn check_case(c: &Case) {
    let file = format!("tests/kernels/{}", c.file);
    let mut args = vec!["check", &file, "--kernel", c.kernel, "--format", "json"];
    args.extend_from_slice(c.args);
    let out = run(&args);
    let what = format!("{} {}", c.kernel, c.args.join(" "));
    let report: Value = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("{what}: no JSON report ({e}): {}", stderr(&out)));
    assert_eq!(report["verdict"], c.verdict, "{what}: {report:#}");
    let expected_code = if c.verdict == "verified" { 0 } else { 1 };
    assert_eq!(code(&out), expected_code, "{what}");
    let first = &report["violations"][0];
    match c.violation {
        None => assert!(first.is_null(), "{what}: {first:#}"),
        Some((kind, line)) => {
            assert_eq!(first["kind"], kind, "{what}: {first:#}");
            assert_eq!(first["location"]["line"], line, "{what}: {first:#}");
        }
    }
    if let Some(text) = c.cites {
        let message = first["message"].as_str().unwrap_or_default();
        assert!(message.contains(text), "{what}: `{text}` not in {message}");
    }
}

/// Refusals and usage errors: exit 2, located at the user's line.
fn refusals() {
    let out = run(&[
        "check",
        "tests/kernels/refused.cu",
        "--kernel",
        "float_math",
    ]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("refused.cu:4:"), "{err}");
    assert!(err.contains("`__nv_fast_expf`"), "{err}");
    let out = run(&["check", "tests/kernels/refused.cu", "--kernel", "needs_arg"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--arg n=VALUE"), "{}", stderr(&out));
    assert!(stderr(&out).contains("refused.cu:7:"), "{}", stderr(&out));
    // Inline PTX outside the model: named in PTX's words, at its line.
    let out = run(&[
        "check",
        "tests/kernels/ptx_message_passing.cu",
        "--kernel",
        "message_passing_nc",
    ]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("ptx_message_passing.cu:87:"), "{err}");
    assert!(
        err.contains("inline PTX `ld.global.nc.u32`: `.nc`"),
        "{err}"
    );
    let out = run(&["check", "tests/kernels/refused.cu", "--kernel", "nope"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("float_math, needs_arg"),
        "{}",
        stderr(&out)
    );
    let out = run(&[
        "check",
        "tests/kernels/refused.cu",
        "--kernel",
        "needs_arg",
        "--arg",
        "m=1",
    ]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("no parameter `m`"),
        "{}",
        stderr(&out)
    );
    let out = run(&[
        "check",
        "tests/kernels/refused.cu",
        "--kernel",
        "needs_arg",
        "--arg",
        "n=1",
        "--arg",
        "out[9]=1",
    ]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("`out` has 4 elements"),
        "{}",
        stderr(&out)
    );
}

/// HeteroSync's mutex kernels (`shared/heterosync/cuda/syncPrims/uvm`),
/// at 2 blocks × 1 thread, ITERATIONS=1, NUM_LDST=1: `storage` gets 32
/// floats (accessData writes word 16 from word 0; a float is copied as
/// its bits), `gpuLockData`'s pointer fields a zero-initialised buffer
/// each (`gpuLockData->mutexBufferHeads`...); element values are given as
/// `--arg NAME[i]=V` (the host's initialisation). Each verdict, and why it
/// is right, beside it. Kernels left out and why:
/// - the tree barriers' verdicts are in
///   `harnesses/heterosync/heterosync_kernels.cu` (with why they race at
///   one thread per block); the semaphores' Uniq forms, which race as
///   kernelSpinLockSemaphore does;
/// - kernelFetchAndAddMutexUniq and kernelEBOMutexUniq race as
///   kernelSpinLockMutexUniq does (block-scope fences), and
///   kernelSleepingMutexUniq deadlocks as kernelSleepingMutex does
///   with zero-initialised buffers.
struct Hetero {
    kernel: &'static str,
    args: Vec<&'static str>,
    verdict: &'static str,
    violation: Option<(&'static str, u32)>,
}

fn hetero_cases() -> Vec<Hetero> {
    const MUTEX: &[&str] = &["--arg", "mutex=0", "--arg", "NUM_SM=1"];
    vec![
        // The spin lock: the master thread takes the lock with atomicCAS
        // then __threadfence(), releases with __threadfence() then
        // atomicExch; __syncthreads() spreads `done` through the block.
        // The fences order the critical section's plain accesses.
        Hetero {
            kernel: "kernelSpinLockMutex",
            args: MUTEX.to_vec(),
            verdict: "verified",
            violation: None,
        },
        // The ticket lock (atomicInc on the tail, spinning on the head,
        // fenced on both sides): verified the same way.
        Hetero {
            kernel: "kernelFetchAndAddMutex",
            args: MUTEX.to_vec(),
            verdict: "verified",
            violation: None,
        },
        // Exponential backoff around atomicCAS; the pointer starts NULL
        // and is set by the master thread only, which is the only one that
        // dereferences it.
        Hetero {
            kernel: "kernelEBOMutex",
            args: MUTEX.to_vec(),
            verdict: "verified",
            violation: None,
        },
        // The "Uniq" locks are per SM and fenced with __threadfence_block:
        // with NUM_SM=1 both blocks take the same lock, and a block-scope
        // fence orders nothing for another block (PTX's cta scope is one
        // block, not one SM): the critical sections' accesses race (main.cu
        // line 70, accessData's copy).
        Hetero {
            kernel: "kernelSpinLockMutexUniq",
            args: MUTEX.to_vec(),
            verdict: "violated",
            violation: Some(("heterogeneous_race", 70)),
        },
        // The sleeping (ring-buffer) mutex waits for its slot to hold 1,
        // which the host's cudaLocksInit writes; with every buffer at zero
        // (and gpuLockData->maxBufferSize reading 0) no slot ever turns: a
        // deadlock of this launch's initial state, not of the algorithm.
        Hetero {
            kernel: "kernelSleepingMutex",
            args: MUTEX.to_vec(),
            verdict: "violated",
            violation: Some(("deadlock", 56)),
        },
        // The same with the host's initial values (cudaLocksInit:
        // maxBufferSize = 2 blocks, the first slot 1, the others -1): the
        // lock is handed over by atomicExch(next slot, 1) *before* the
        // releasing block's __threadfence() (cudaLocksMutexSleep.cu, a102
        // then a105), so the next holder's copy in accessData (main.cu
        // line 70) races with the last holder's: the bug the harness
        // `heterosync_sleep_mutex` found (book: "A bug found in the CUDA"),
        // found here in the kernel as launched. Under sc it verifies.
        Hetero {
            kernel: "kernelSleepingMutex",
            args: SLEEP_INIT.to_vec(),
            verdict: "violated",
            violation: Some(("heterogeneous_race", 70)),
        },
        Hetero {
            kernel: "kernelSleepingMutex",
            args: [SLEEP_INIT, &["--memory-model", "sc"]].concat(),
            verdict: "verified",
            violation: None,
        },
        // The semaphores (their readers add floats at run time): each block
        // reads the semaphore's maximum from word 0 (`(0 * 4)`, line 543),
        // which is the current count the lock's holder decrements with a
        // plain store (cudaLocksSemaphoreSpin.cu line 118). That read
        // takes no lock: a block that starts late races with a holder and
        // may read a count already decremented, whatever the buffers'
        // initial values.
        Hetero {
            kernel: "kernelSpinLockSemaphore",
            args: SEMAPHORE.to_vec(),
            verdict: "violated",
            violation: Some(("heterogeneous_race", 543)),
        },
        Hetero {
            kernel: "kernelEBOSemaphore",
            args: SEMAPHORE.to_vec(),
            verdict: "violated",
            violation: Some(("heterogeneous_race", 696)),
        },
    ]
}

const SEMAPHORE: &[&str] = &[
    "--arg",
    "sem=0",
    "--arg",
    "numStorageLocs=32",
    "--arg",
    "NUM_SM=1",
];

const SLEEP_INIT: &[&str] = &[
    "--arg",
    "mutex=0",
    "--arg",
    "NUM_SM=1",
    "--arg",
    "gpuLockData[0]=2",
    "--arg",
    "gpuLockData->mutexBuffers[0]=1",
    "--arg",
    "gpuLockData->mutexBuffers[1]=-1",
    "--arg",
    "gpuLockData->mutexBuffers[2]=-1",
    "--arg",
    "gpuLockData->mutexBuffers[3]=-1",
];

fn hetero_case(main_cu: &std::path::Path, c: &Hetero) {
    let file = main_cu.display().to_string();
    let mut args = vec![
        "check",
        &file,
        "--kernel",
        c.kernel,
        "--format",
        "json",
        "--arg",
        "ITERATIONS=1",
        "--arg",
        "NUM_LDST=1",
        "--arg",
        "storage=32",
    ];
    args.extend_from_slice(&c.args);
    let out = run(&args);
    let report: Value = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("{}: no JSON report ({e}): {}", c.kernel, stderr(&out)));
    assert_eq!(report["verdict"], c.verdict, "{}: {report:#}", c.kernel);
    let first = &report["violations"][0];
    match c.violation {
        None => assert!(first.is_null(), "{}: {first:#}", c.kernel),
        Some((kind, line)) => {
            assert_eq!(first["kind"], kind, "{}: {first:#}", c.kernel);
            let at = first["location"]["line"].as_u64();
            assert_eq!(at, Some(u64::from(line)), "{}: {first:#}", c.kernel);
        }
    }
}

/// `--arg gpuLockData->mutexBufferHeads=N` sizes a struct argument's
/// pointer field: mutex 3 of 2 SMs is word 6, past the default 4 words.
fn hetero_field_length(main_cu: &std::path::Path) {
    let file = main_cu.display().to_string();
    let base = [
        "check",
        &file,
        "--kernel",
        "kernelSpinLockMutex",
        "--arg",
        "ITERATIONS=1",
        "--arg",
        "NUM_LDST=1",
        "--arg",
        "storage=32",
        "--arg",
        "mutex=3",
        "--arg",
        "NUM_SM=2",
    ];
    let out = run(&base);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("out of bounds for `gpuLockData->mutexBufferHeads` of length 4"),
        "{}",
        stdout(&out)
    );
    let mut sized = base.to_vec();
    sized.extend(["--arg", "gpuLockData->mutexBufferHeads=8"]);
    let out = run(&sized);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("gpuLockData->mutexBufferHeads=8"));
    let mut wrong = base.to_vec();
    wrong.extend(["--arg", "gpuLockData->heads=8"]);
    let out = run(&wrong);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("no such pointer field"),
        "{}",
        stderr(&out)
    );
}

/// A `.cu` file's `//!` header states its kernels' expectations: `verify`
/// checks each, and what a kernel's header cannot hold is refused where
/// Warp shuffles give CUDA's values (butterfly, shift, broadcast, a
/// lane outside the mask), as the file's header states.
fn warp_shuffles() {
    let out = run(&["verify", "tests/kernels/warp_shuffle.cu"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{text}{}", stderr(&out));
    assert!(text.contains("verify: 6 passed, 0 failed"), "{text}");
}

/// it is written.
fn kernel_headers() {
    let out = run(&["verify", "tests/kernels/message_passing.cu"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{text}{}", stderr(&out));
    assert!(text.contains("verify: 3 passed, 0 failed"), "{text}");
    // A wrong expectation fails (exit 1) on its line.
    let dir = std::env::temp_dir().join(format!("gsync-kernel-headers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = std::fs::read_to_string(repo().join("tests/kernels/message_passing.cu")).unwrap();
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let wrong = write(
        "wrong.cu",
        source.replacen(
            "--block 1: violated heterogeneous_race",
            "--block 1: verified",
            1,
        ),
    );
    let out = run(&["verify", &wrong]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(stdout(&out).contains("FAIL"), "{}", stdout(&out));
    // An expectation without --kernel, and a spec harness's key, are errors.
    let no_kernel = write(
        "no_kernel.cu",
        format!("//! expect --grid 2: verified\n{source}"),
    );
    let out = run(&["verify", &no_kernel]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(stdout(&out).contains("--kernel NAME"), "{}", stdout(&out));
    let harness_key = write("harness_key.cu", format!("//! cuda: other.cu\n{source}"));
    let out = run(&["check", &harness_key, "--kernel", "message_passing"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("harness_key.cu:1:"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("spec harness's key"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(&dir).ok();
}

fn main() -> std::process::ExitCode {
    let toolchain = Toolchain::find();
    let missing = toolchain.as_ref().err().map(|e| e.to_string());
    let mut trials = Vec::new();
    for c in cases() {
        let name = format!("kernel::{}::{}", c.kernel, c.args.join("_"));
        trials.push(needs(&name, missing.clone(), move || check_case(&c)));
    }
    trials.push(needs(
        "refusals_are_located_in_the_users_file",
        missing.clone(),
        refusals,
    ));
    trials.push(needs(
        "a_cu_header_states_kernel_expectations",
        missing.clone(),
        kernel_headers,
    ));
    trials.push(needs(
        "warp_shuffles_give_cudas_values",
        missing.clone(),
        warp_shuffles,
    ));
    let shared = shared_dir().map(|d| d.join("heterosync/cuda/syncPrims/uvm/main.cu"));
    let hetero_missing = missing.clone().or_else(|| match &shared {
        Some(f) if f.is_file() => None,
        Some(f) => Some(format!("no {}", f.display())),
        None => {
            Some("no shared/ folder beside or above the repository (set GSYNC_SHARED to it)".into())
        }
    });
    let main_cu = shared.unwrap_or_default();
    for c in hetero_cases() {
        let f = main_cu.clone();
        trials.push(needs(
            &format!("heterosync::{}::{}", c.kernel, c.args.len()),
            hetero_missing.clone(),
            move || hetero_case(&f, &c),
        ));
    }
    trials.push(needs(
        "heterosync::a_struct_fields_buffer_is_sized_by_arg",
        hetero_missing,
        move || hetero_field_length(&main_cu),
    ));
    run_trials(trials)
}
