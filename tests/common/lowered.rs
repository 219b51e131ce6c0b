//! Built-in specs lowered to CUDA C++ for a GPU-like launch, shared by the
//! codegen tests and the NVRTC test.

use gsync_check::api::{self, Error, SpecSource};
use gsync_check::cuda::EmitOptions;
use gsync_check::gpu;
use gsync_check::ir::{Launch, Op};

/// A launch unlike the checker's: many threads, several blocks per "SM".
pub fn launch() -> Launch {
    Launch {
        blocks: 8,
        threads_per_block: 64,
        warp_size: 32,
    }
}

pub fn params_for(spec: &SpecSource) -> Vec<(String, i64)> {
    let declared = api::declared_params(&api::parse(spec).unwrap());
    let mut p = Vec::new();
    if declared.iter().any(|d| d == "blocks_per_sm") {
        p.push(("blocks_per_sm".to_string(), 4));
    }
    if declared.iter().any(|d| d == "iters") {
        p.push(("iters".to_string(), 3));
    }
    p
}

pub fn options() -> EmitOptions {
    EmitOptions {
        cs_len: 4,
        renumber: Some((2, 4)),
        verified: vec!["model-checked: (test)".into()],
        ..EmitOptions::default()
    }
}

/// Whether the spec uses something with no single-kernel CUDA lowering.
pub fn has_no_lowering(spec: &SpecSource) -> bool {
    let gpu = gpu::lower_for_gpu(spec, launch(), &params_for(spec)).unwrap();
    gpu.program.code.iter().any(|i| {
        matches!(
            i.op,
            Op::KernelBoundary | Op::LockBitTry { .. } | Op::LockBitRelease { .. }
        )
    })
}

/// (spec, CUDA source) for every built-in spec with a GPU lowering.
pub fn lowered_specs() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for spec in api::builtins() {
        let gpu = gpu::lower_for_gpu(&spec, launch(), &params_for(&spec)).unwrap();
        match gpu::generate(&gpu, &options()) {
            Ok(e) => {
                assert!(
                    !has_no_lowering(&spec),
                    "{} should have been refused",
                    spec.name
                );
                out.push((spec.name.clone(), e.source));
            }
            Err(Error::Spec(d, _)) => {
                assert!(
                    has_no_lowering(&spec),
                    "{} refused: {}",
                    spec.name,
                    d.message
                );
            }
            Err(e) => panic!("{}: {e}", spec.name),
        }
    }
    out
}
