//! The CUDA tests that depend on the machine: the generated code of every
//! spec that lowers compiles to PTX with NVRTC (from the PyPI wheel
//! `nvidia-cuda-nvrtc`; `.ci/run` installs it: under CI=true a missing
//! NVRTC fails), and without a GPU `run` and `bench` say so (ignored on a
//! machine with one). See `common::needs`.

mod common;
#[path = "common/lowered.rs"]
mod lowered;

use common::*;
use gsync_check::cuda::nvrtc;
use lowered::lowered_specs;

fn main() -> std::process::ExitCode {
    let no_nvrtc = nvrtc_missing();
    let has_gpu = gsync_check::cuda::device::Gpu::open()
        .is_ok()
        .then(|| "this machine has a GPU".to_string());
    run_trials(vec![
        needs(
            "generated_cuda_compiles_to_ptx_with_nvrtc",
            no_nvrtc,
            generated_cuda_compiles_to_ptx_with_nvrtc,
        ),
        only_where(
            "without_a_gpu_run_and_bench_say_so_and_exit_2",
            has_gpu,
            without_a_gpu_run_and_bench_say_so_and_exit_2,
        ),
    ])
}

fn generated_cuda_compiles_to_ptx_with_nvrtc() {
    let mut failures = Vec::new();
    for (name, src) in lowered_specs() {
        match nvrtc::compile(&src, &format!("{name}.cu"), "compute_90") {
            Ok(ptx) => assert!(
                ptx.contains(".entry gsync_kernel"),
                "{name}: no kernel in PTX"
            ),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

fn without_a_gpu_run_and_bench_say_so_and_exit_2() {
    for args in [&["run", "spin_lock"][..], &["bench"][..]] {
        let out = run(args);
        assert_eq!(code(&out), 2, "{args:?}");
        assert!(
            stderr(&out).contains("need an NVIDIA GPU"),
            "{}",
            stderr(&out)
        );
    }
    // A bad spec name is a usage error before any GPU is looked for.
    assert_eq!(code(&run(&["run", "no_such_spec"])), 2);
}
