//! The LLVM IR reader (`gsync_check::llvm`) on real CUDA C++: every case
//! of `shared/cuda-corpus` that clang-19 compiles (the spike's list), and
//! HeteroSync's `main.cu`, go through clang-19 and opt-19 with CUDA's
//! headers from the PyPI wheels, are parsed, and must show the kernels and
//! synchronisation operations they have, each located in a user's file.
//! The drivers (`tests/llvm/drivers`) and stubs (`tests/llvm/stubs`) are
//! ours; the corpus is read where it is, never copied. Without clang-19,
//! opt-19, the header wheels or `shared/`, the tests are reported as
//! ignored (failed under CI=true): see `common::needs`.

mod common;

use common::*;
use gsync_check::ir::ptx;
use gsync_check::llvm::debug::UserFiles;
use gsync_check::llvm::ir::Module;
use gsync_check::llvm::sync::{sync_ops, SyncKind, SyncOp};
use gsync_check::llvm::toolchain::{CompileOptions, Toolchain, ToolchainError};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A path: under `shared/`, or under `tests/llvm/`.
#[derive(Clone, Copy)]
enum At {
    Shared(&'static str),
    Ours(&'static str),
}

/// What a case's kernels hold (over the kernels and the functions they
/// call that the inliner left).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    kernels: usize,
    atomicrmw: usize,
    cmpxchg: usize,
    volatile_loads: usize,
    volatile_stores: usize,
    membar: usize,
    barrier0: usize,
    /// Other `llvm.nvvm.*` calls (vote, shfl, activemask, isspacep, atomic.load.inc...).
    other_nvvm: usize,
    asm: usize,
}

struct Case {
    name: &'static str,
    tu: At,
    includes: &'static [At],
    defines: &'static [&'static str],
    expect: Counts,
    /// Operations whose own location chain stays in CUDA's headers (in a
    /// function the inliner left), located by their call site instead.
    via_call_site: usize,
}

const fn counts(
    kernels: usize,
    [atomicrmw, cmpxchg, volatile_loads, volatile_stores]: [usize; 4],
    [membar, barrier0, other_nvvm, asm]: [usize; 4],
) -> Counts {
    Counts {
        kernels,
        atomicrmw,
        cmpxchg,
        volatile_loads,
        volatile_stores,
        membar,
        barrier0,
        other_nvvm,
        asm,
    }
}

const CORPUS: &str = "cuda-corpus";

fn cases() -> Vec<Case> {
    use At::*;
    vec![
        Case {
            name: "broker-queue",
            tu: Ours("drivers/broker-queue.cu"),
            includes: &[Ours("stubs")],
            defines: &[],
            expect: counts(1, [6, 0, 2, 2], [4, 0, 0, 0]),
            via_call_site: 0,
        },
        Case {
            name: "cusync-tile-semaphore",
            tu: Shared("cuda-corpus/cusync-tile-semaphore/src/src/examples/sync-overhead/sync-overhead.cu"),
            includes: &[Shared("cuda-corpus/cusync-tile-semaphore/src/src/include")],
            defines: &[],
            expect: counts(2, [0, 0, 2, 1], [0, 2, 0, 0]),
            via_call_site: 0,
        },
        Case {
            name: "desul-lock-array",
            tu: Ours("drivers/desul-lock-array.cu"),
            includes: &[
                Shared("cuda-corpus/desul-lock-array/src/atomics/include"),
                Ours("stubs/desul"),
            ],
            defines: &[],
            expect: counts(1, [2, 0, 0, 0], [2, 0, 3, 0]),
            via_call_site: 0,
        },
        Case {
            name: "flashinfer-allreduce-barriers",
            tu: Ours("drivers/flashinfer-allreduce-barriers.cu"),
            includes: &[
                Shared("cuda-corpus/flashinfer-allreduce-barriers/src/include"),
                Ours("stubs/flashinfer/comm"),
            ],
            // Without it cooperative_groups hides cluster_group from clang.
            defines: &["_CG_CLUSTER_INTRINSICS_AVAILABLE"],
            expect: counts(2, [0, 0, 0, 0], [0, 5, 0, 8]),
            via_call_site: 0,
        },
        Case {
            name: "gpusorting-onesweep-lookback",
            tu: Shared("cuda-corpus/gpusorting-onesweep-lookback/src/GPUSortingCUDA/Sort/OneSweep.cu"),
            includes: &[Shared("cuda-corpus/gpusorting-onesweep-lookback/src/GPUSortingCUDA")],
            defines: &[],
            expect: counts(4, [32, 0, 4, 0], [0, 22, 25, 26]),
            via_call_site: 0,
        },
        Case {
            name: "gpusorting-onesweep-lookback~emulated",
            tu: Shared(
                "cuda-corpus/gpusorting-onesweep-lookback/src/GPUSortingCUDA/Sort/EmulatedDeadlocking.cu",
            ),
            includes: &[Shared("cuda-corpus/gpusorting-onesweep-lookback/src/GPUSortingCUDA")],
            defines: &[],
            expect: counts(3, [31, 2, 3, 0], [1, 16, 19, 18]),
            via_call_site: 0,
        },
        Case {
            name: "libcudacxx-barrier",
            tu: Ours("drivers/libcudacxx-barrier.cu"),
            includes: &[],
            defines: &[],
            expect: counts(2, [0, 0, 1, 1], [0, 1, 14, 31]),
            // libcu++'s noinline `__cuda_fetch_local_bop_add` (its atomics
            // on local memory): a volatile load and store in cuda_local.h.
            via_call_site: 2,
        },
        Case {
            name: "libcudacxx-semaphore-latch",
            tu: Ours("drivers/libcudacxx-semaphore-latch.cu"),
            includes: &[],
            defines: &[],
            expect: counts(2, [0, 0, 1, 1], [0, 0, 18, 49]),
            via_call_site: 2,
        },
        Case {
            name: "nccl-lsa-barrier",
            tu: Ours("drivers/nccl-lsa-barrier.cu"),
            includes: &[
                Shared("cuda-corpus/nccl-lsa-barrier/src/src/include"),
                Ours("stubs/nccl-lsa"),
            ],
            defines: &[],
            expect: counts(1, [0, 0, 0, 0], [0, 5, 6, 11]),
            via_call_site: 0,
        },
        Case {
            name: "vllm-custom-allreduce~norestrict",
            tu: Ours("drivers/vllm-custom-allreduce.cu"),
            includes: &[Shared("cuda-corpus/vllm-custom-allreduce/src")],
            // clang refuses the implicit copy of a struct holding
            // `const void* __restrict__ ptrs[8]` in host code.
            defines: &["__restrict__="],
            expect: counts(2, [0, 0, 4, 8], [1, 5, 0, 0]),
            via_call_site: 0,
        },
        Case {
            name: "heterosync-uvm",
            tu: Shared("heterosync/cuda/syncPrims/uvm/main.cu"),
            includes: &[Shared("heterosync/cuda/syncPrims/uvm")],
            defines: &[],
            expect: counts(16, [27, 30, 24, 22], [100, 188, 24, 0]),
            via_call_site: 0,
        },
    ]
}

fn main() -> std::process::ExitCode {
    let shared = shared_dir();
    let no_shared = match &shared {
        Some(d) if d.join(CORPUS).is_dir() && d.join("heterosync").is_dir() => None,
        Some(d) => Some(format!(
            "no cuda-corpus/ and heterosync/ in {}",
            d.display()
        )),
        None => {
            Some("no shared/ folder beside or above the repository (set GSYNC_SHARED to it)".into())
        }
    };
    let toolchain = Toolchain::find();
    let missing = match &toolchain {
        Err(e) => Some(e.to_string()),
        Ok(_) => no_shared,
    };
    let shared = shared.unwrap_or_default();
    let mut trials = Vec::new();
    for case in cases() {
        let (tc, sh) = (toolchain.clone().ok(), shared.clone());
        trials.push(needs(
            &format!("corpus::{}", case.name),
            missing.clone(),
            move || corpus_case(&tc.expect("gated"), &sh, &case),
        ));
    }
    let (tc, sh) = (toolchain.clone().ok(), shared.clone());
    trials.push(needs(
        "real_ir_truncated_or_mutated_is_refused_never_panics",
        missing.clone(),
        move || real_ir_truncated_or_mutated(&tc.expect("gated"), &sh),
    ));
    let tc = toolchain.clone().ok();
    trials.push(needs(
        "a_compile_error_is_located_in_the_users_file",
        toolchain.as_ref().err().map(|e| e.to_string()),
        move || a_compile_error_is_located(&tc.expect("gated")),
    ));
    run_trials(trials)
}

fn path(shared: &Path, at: At) -> PathBuf {
    match at {
        At::Shared(p) => shared.join(p),
        At::Ours(p) => repo().join("tests/llvm").join(p),
    }
}

fn options(shared: &Path, case: &Case) -> CompileOptions {
    let mut include_dirs = vec![shared.to_path_buf()];
    include_dirs.extend(case.includes.iter().map(|&i| path(shared, i)));
    CompileOptions {
        include_dirs,
        defines: case.defines.iter().map(|d| d.to_string()).collect(),
        ..CompileOptions::default()
    }
}

fn tally(m: &Module, ops: &[SyncOp]) -> Counts {
    let mut c = Counts {
        kernels: m.kernel_functions().count(),
        ..Counts::default()
    };
    for op in ops {
        match &op.kind {
            SyncKind::AtomicRmw { .. } => c.atomicrmw += 1,
            SyncKind::CmpXchg { .. } => c.cmpxchg += 1,
            SyncKind::Load { volatile: true, .. } => c.volatile_loads += 1,
            SyncKind::Store { volatile: true, .. } => c.volatile_stores += 1,
            SyncKind::Load { .. } | SyncKind::Store { .. } | SyncKind::Fence(_) => {}
            SyncKind::Intrinsic(n) if n.starts_with("llvm.nvvm.membar") => c.membar += 1,
            SyncKind::Intrinsic(n) if n == "llvm.nvvm.barrier0" => c.barrier0 += 1,
            SyncKind::Intrinsic(_) => c.other_nvvm += 1,
            SyncKind::Asm(_) => c.asm += 1,
        }
    }
    c
}

fn corpus_case(tc: &Toolchain, shared: &Path, case: &Case) {
    let tu = path(shared, case.tu);
    let t = Instant::now();
    let compiled = tc
        .compile(&tu, &options(shared, case))
        .unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let t_parse = Instant::now();
    let m = gsync_check::llvm::parse(&compiled.ll)
        .unwrap_or_else(|e| panic!("{}: the IR is refused: {e}", case.name));
    let parse_time = t_parse.elapsed();
    let files: UserFiles = tc.user_files();
    assert!(
        !m.kernels.is_empty(),
        "{}: no kernel in !nvvm.annotations",
        case.name
    );
    let mut all = Vec::new();
    for k in &m.kernels {
        all.extend(sync_ops(&m, k, &files).unwrap_or_else(|| panic!("{k} is not defined")));
    }
    // Each operation once (two kernels may call one function the inliner left).
    all.sort_by_key(|o| o.ir_line);
    all.dedup_by_key(|o| o.ir_line);
    let got = tally(&m, &all);
    println!(
        "{}: {} kernels, {} instructions, {} sync ops; clang {:.2} s, opt {:.2} s, parse {:.1} ms ({} KiB of IR); total {:.2} s",
        case.name,
        got.kernels,
        m.instruction_count(),
        all.len(),
        compiled.clang_time.as_secs_f64(),
        compiled.opt_time.as_secs_f64(),
        parse_time.as_secs_f64() * 1e3,
        compiled.ll.len() / 1024,
        t.elapsed().as_secs_f64()
    );
    assert_eq!(
        got, case.expect,
        "{}: the sync operations changed",
        case.name
    );
    // Inline PTX: every instruction of every template is read by the PTX
    // parser, or refused by name; the only refusals the corpus's kernels
    // meet at this level are mbarrier objects (cuda::barrier).
    for o in &all {
        if let SyncKind::Asm(template) = &o.kind {
            for ins in ptx::instructions(template) {
                if let Err(why) = ptx::parse(&ins) {
                    assert!(why.contains("mbarrier"), "{}: {why}", case.name);
                }
            }
        }
    }
    // Every operation resolves, through its inlinedAt chain, to a line of
    // a user's file: the corpus, a driver, the TU; never a CUDA or clang
    // header alone. The exceptions are operations in functions the inliner
    // left whose whole chain is in a header: they are located at the call.
    let via_call_site = all
        .iter()
        .filter(|o| o.location.user.is_none() && o.call_site.is_some())
        .count();
    assert_eq!(
        via_call_site, case.via_call_site,
        "{}: operations located only by their call site",
        case.name
    );
    let unlocated: Vec<String> = all
        .iter()
        .filter(|o| o.user_location().is_none())
        .map(|o| {
            format!(
                "  .ll line {} in {}: {} (chain: {:?})",
                o.ir_line,
                o.function,
                o.kind.label(),
                o.location.chain
            )
        })
        .collect();
    assert!(
        unlocated.is_empty(),
        "{}: sync operations without a user location:\n{}",
        case.name,
        unlocated.join("\n")
    );
    for o in &all {
        let user = o.user_location().expect("checked");
        assert!(files.is_user(&user.file) && user.line > 0);
        assert!(
            !user.file.starts_with(&tc.cuda),
            "{}: {user} is in the CUDA tree",
            case.name
        );
    }
}

/// A real module, truncated at many points and mutated byte by byte: each
/// text is parsed or refused with an error, never a panic.
fn real_ir_truncated_or_mutated(tc: &Toolchain, shared: &Path) {
    let cases = cases();
    let case = cases.iter().find(|c| c.name == "broker-queue").unwrap();
    let ll = tc
        .compile(&path(shared, case.tu), &options(shared, case))
        .unwrap()
        .ll;
    let bytes = ll.as_bytes();
    let mut refused = 0;
    let step = (bytes.len() / 400).max(1);
    for cut in (0..bytes.len()).step_by(step) {
        if gsync_check::llvm::parse(&String::from_utf8_lossy(&bytes[..cut])).is_err() {
            refused += 1;
        }
    }
    assert!(refused > 100, "only {refused} truncations refused");
    let mut seed = 0x2545f4914f6cdd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let alphabet = b"%@!#$\"(){}[]<>,=*:;. xi0123456789-";
    for _ in 0..300 {
        let mut b = bytes.to_vec();
        for _ in 0..1 + next() % 3 {
            let at = (next() % b.len() as u64) as usize;
            let c = alphabet[(next() % alphabet.len() as u64) as usize];
            match next() % 3 {
                0 => b[at] = c,
                1 => {
                    b.remove(at);
                }
                _ => b.insert(at, c),
            }
        }
        let _ = gsync_check::llvm::parse(&String::from_utf8_lossy(&b));
    }
}

/// clang's error in the user's file comes back located there.
fn a_compile_error_is_located(tc: &Toolchain) {
    let dir = std::env::temp_dir().join(format!("gsync-llvm-reader-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tu = dir.join("broken.cu");
    std::fs::write(
        &tu,
        "#include <cuda_runtime.h>\n__global__ void k(int *p) {\n  *p = undeclared_thing;\n}\n",
    )
    .unwrap();
    let e = tc.compile(&tu, &CompileOptions::default()).unwrap_err();
    let ToolchainError::Compile { diagnostics, .. } = &e else {
        panic!("not a compile error: {e}")
    };
    let d = &diagnostics[0];
    assert_eq!(
        (d.file.as_path(), d.line, d.column),
        (tu.as_path(), 3, 8),
        "{e}"
    );
    assert!(d.message.contains("undeclared_thing"), "{e}");
    assert_eq!(d.user_location(&tc.user_files()).0, tu);
    assert_eq!(e.exit_code(), 2);
    let missing = tc.compile(&dir.join("absent.cu"), &CompileOptions::default());
    assert!(matches!(missing, Err(ToolchainError::NoSuchFile(_))));
    std::fs::remove_dir_all(dir).unwrap();
}
