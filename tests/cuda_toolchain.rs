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
        needs(
            "every_64_bit_access_compiles_with_nvrtc",
            nvrtc_missing(),
            every_64_bit_access_compiles_with_nvrtc,
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

/// Every load, store and atomic of a `u64` and an `i64`, in every order,
/// as the emitter writes them (issue 20), compiles.
fn every_64_bit_access_compiles_with_nvrtc() {
    let mut body = String::new();
    for var in ["w", "z"] {
        for load in [
            "load",
            "load.relaxed",
            "load.acquire",
            "load.volatile",
            "load.acquire.cta",
        ] {
            body += &format!("    v = {load}({var});\n");
        }
        for store in [
            "store",
            "store.relaxed",
            "store.release",
            "store.volatile",
            "store.release.sys",
        ] {
            body += &format!("    {store}({var}, v + 1);\n");
        }
        for op in ["Exch", "Add", "Sub", "Or", "And", "Xor", "Max", "Min"] {
            for order in ["", ".relaxed", ".acquire", ".release", ".acq_rel", "_block"] {
                body += &format!("    v = atomic{op}{order}({var}, v);\n");
            }
        }
        for order in ["", ".acquire", ".acq_rel", "_system"] {
            body += &format!("    v = atomicCAS{order}({var}, v, 0x100000001);\n");
        }
    }
    let text = format!(
        "//! name: wide\nglobal u64 w = 0x100000000;\nglobal i64 z = -1;\n\
         harness all {{\n    i64 v = 0;\n{body}}}\n"
    );
    let dir = std::env::temp_dir().join(format!("gsync-wide-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("wide.gsync");
    std::fs::write(&path, text).unwrap();
    let spec = gsync_check::api::SpecSource::from_file(&path).unwrap();
    let gpu = gsync_check::gpu::lower_for_gpu(&spec, lowered::launch(), &[]).unwrap();
    let src = gsync_check::gpu::generate(&gpu, &lowered::options())
        .unwrap()
        .source;
    for form in [
        "gs_ld64_acquire_gpu",
        "gs_atom_acq_rel_gpu_cas_b64",
        "atomicMax_block((long long*)",
    ] {
        assert!(src.contains(form), "{form} not in the emitted CUDA");
    }
    if let Err(e) = nvrtc::compile(&src, "wide.cu", "compute_90") {
        panic!("{e}");
    }
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
