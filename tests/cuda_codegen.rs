//! The CUDA backend without a GPU: every built-in spec either lowers to
//! CUDA C++ or is refused with a located reason, and the generated code of
//! every spec that lowers compiles to PTX with NVRTC (`cuda_toolchain.rs`).

mod common;
#[path = "common/lowered.rs"]
mod lowered;

use common::*;
use gsync_check::api::SpecSource;
use gsync_check::cuda::EmitOptions;
use gsync_check::gpu;
use lowered::*;

#[test]
fn every_spec_lowers_or_is_refused_for_a_reason() {
    let lowered = lowered_specs();
    assert!(lowered.len() >= 20, "only {} specs lowered", lowered.len());
    for (name, src) in &lowered {
        assert!(
            src.contains(&format!("from the spec `{name}`")),
            "{name}: header"
        );
        assert!(
            src.contains("model-checked: (test)"),
            "{name}: verdict line"
        );
        assert!(src.contains(" gsync_kernel(volatile unsigned int* abort_flag,"));
    }
}

#[test]
fn lowering_follows_the_spec_operations() {
    let src = |name: &str| {
        let spec = SpecSource::builtin(name).unwrap();
        let gpu = gpu::lower_for_gpu(&spec, launch(), &params_for(&spec)).unwrap();
        gpu::generate(&gpu, &options()).unwrap().source
    };
    let spin = src("spin_lock");
    assert!(spin.contains("atomicExch(&lock, 1)"), "{spin}");
    assert!(spin.contains("__threadfence();"));
    assert!(
        spin.contains("SPIN_BACK(L"),
        "spin loops poll the abort flag"
    );
    assert!(spin.contains("gs_critical_enter("));
    let backoff = src("heterosync_semaphore_backoff");
    assert!(backoff.contains("gs_backoff(th);"));
    // u8 ticket: the atomicAdd wraps at 256 as in the model.
    let ticket = src("ticket_mutex");
    assert!(
        ticket.contains("gs_atomic_narrow<unsigned char>("),
        "{ticket}"
    );
    // Shared memory and block-scope atomics.
    let shared = src("shared_spin_lock");
    assert!(shared.contains("__shared__ "), "{shared}");
    // harness all keeps __syncthreads(); under harness master the others wait.
    assert!(src("ccg_grid_barrier").contains("    __syncthreads();"));
    assert!(src("heterosync_tree_barrier").contains("if (threadIdx.x == 0) { // harness master"));
    // Ordered atomics and stores are one PTX instruction each, no fences.
    let ra = src("sense_reversing_barrier_hier_ra");
    assert!(
        ra.contains("= gs_atom_acq_rel_gpu_inc_u32(&perSMBarr["),
        "{ra}"
    );
    assert!(ra.contains("gs_atom_acq_rel_gpu_add_s32(&global_barrier, "));
    assert!(ra.contains("gs_st_release_gpu(&smSense["));
    let body = &ra[ra.find("bool srb_barrier(").unwrap()..];
    assert!(!body.contains("gs_fence_acq_rel_gpu();"), "{body}");
}

#[test]
fn each_spec_procedure_is_one_device_function_called_where_the_spec_calls_it() {
    let spec = SpecSource::builtin("sense_reversing_barrier_fast").unwrap();
    let gpu = gpu::lower_for_gpu(&spec, launch(), &params_for(&spec)).unwrap();
    let src = gpu::generate(&gpu, &options()).unwrap().source;
    // global_arrival() is called twice (with and without the local level),
    // defined once, before srb_barrier() that calls it.
    let def = |f: &str| format!("__device__ __forceinline__ bool {f}(GsThread& th)");
    let arrival = src.find(&def("global_arrival")).expect(&src);
    let barrier = src.find(&def("srb_barrier")).expect(&src);
    assert!(arrival < barrier, "{src}");
    assert_eq!(src.matches(&def("global_arrival")).count(), 1);
    assert_eq!(
        src.matches("GS_CALL(global_arrival(th));").count(),
        2,
        "{src}"
    );
    assert_eq!(src.matches("GS_CALL(srb_barrier(th));").count(), 1, "{src}");
    // Each function keeps its spin loop's abort polling; the spec's `local`s
    // are fields of the thread state every procedure gets.
    let body = &src[barrier..src[barrier..].find("\n}\n").unwrap() + barrier];
    assert!(body.contains("SPIN_BACK(L"), "{body}");
    assert!(body.contains("th.s = "), "{body}");
    assert!(src.contains("struct GsThread : GsRuntime {\n    unsigned int my_sm;"));
    // Parameters by value, a result through a pointer, names as in the spec.
    let spec = SpecSource::builtin("validation_atomic_lock").unwrap();
    let gpu = gpu::lower_for_gpu(&spec, launch(), &[]).unwrap();
    let src = gpu::generate(&gpu, &options()).unwrap().source;
    assert!(
        src.contains("bool unlock(GsThread& th, unsigned int i)\n"),
        "{src}"
    );
    assert!(
        src.contains("bool expected(GsThread& th, unsigned int t, unsigned int* gs_result)"),
        "{src}"
    );
    assert!(src.contains("*gs_result = result;"));
    assert!(src.contains("GS_CALL(lock(th, tid));"), "{src}");
}

#[test]
fn lock_bits_and_kernel_boundaries_are_refused_with_located_messages() {
    let text = "//! name: lockbits\nglobal u32 x = 0;\nharness master {\n    bool got = false;\n    u32 v = 0;\n    got = ldslk(x, v);\n    stsul(x, 1);\n}\n";
    let spec = SpecSource {
        name: "lockbits".into(),
        origin: "lockbits.gsync".into(),
        text: text.into(),
    };
    let gpu = gpu::lower_for_gpu(&spec, launch(), &[]).unwrap();
    let err = gpu::generate(&gpu, &EmitOptions::default()).expect_err("refused");
    let msg = err.render(false);
    assert!(
        msg.contains("lock-bit operations (ldslk/stsul) have no CUDA equivalent"),
        "{msg}"
    );
    assert!(msg.contains("lockbits.gsync:6:"), "{msg}");

    let out = run(&["emit", "two_kernel_barrier"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("__kernel_boundary()"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn emit_writes_a_file_naming_the_spec_and_its_verdict() {
    let dir = std::env::temp_dir().join(format!("gsync-emit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("srb.cu");
    let out = run(&[
        "emit",
        "sense_reversing_barrier_fast",
        "--blocks-per-sm",
        "8",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let src = std::fs::read_to_string(&file).unwrap();
    assert!(src.contains("from the spec `sense_reversing_barrier_fast`"));
    assert!(src.contains("model-checked: verified for --blocks 2 --threads-per-block 1"));
    // The verified configuration is the default one: the ptx memory model.
    assert!(src.contains("memory model ptx"));
    assert!(src.contains("a launch of 1056 blocks x 128 threads"));
    assert!(src.contains("blocks_per_sm = 8;"));
    let out = run(&["emit", "no_such_spec"]);
    assert_eq!(code(&out), 2);
}

/// A list of contention levels is for `run`; `emit` writes one launch,
/// and `run` refuses a fixed `--blocks` with a list, and an unknown
/// `--compare` spec, before it looks for a GPU.
#[test]
fn a_contention_list_and_compare_are_checked_before_the_gpu_is_opened() {
    let out = run(&["emit", "spin_lock", "--blocks-per-sm", "1,2"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("`emit` writes one launch"),
        "{}",
        stderr(&out)
    );
    let out = run(&[
        "run",
        "spin_lock",
        "--blocks",
        "3",
        "--blocks-per-sm",
        "1,2",
    ]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--blocks fixes the launch"),
        "{}",
        stderr(&out)
    );
    let out = run(&["run", "spin_lock", "--compare", "no_such_spec.gsync"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("no built-in spec named `no_such_spec.gsync`"),
        "{}",
        stderr(&out)
    );
    let out = run(&["run", "spin_lock", "--blocks-per-sm", "0,2"]);
    assert_eq!(code(&out), 2);
}
