//! The CUDA front end: HeteroSync's real sources (read from
//! `shared/heterosync`) against their harnesses' expected verdicts, the
//! subset's constructs against C++'s meaning, located refusals of what is
//! outside the subset, the timing abstraction, and CUDA lines in
//! counterexamples. Without libclang or the sources these tests are
//! reported as ignored (failed under CI=true): see `common::needs`.

mod common;

use common::*;
use gsync_check::cuda::nvrtc;
use std::path::Path;
use std::process::Command;

fn main() -> std::process::ExitCode {
    let CudaGates {
        shared,
        no_libclang,
        with_sources,
    } = cuda_gates();
    type Test = fn(&Path);
    let mut trials = vec![
        needs(
            "cuda_grid_sync_meets_its_expectations",
            no_libclang.clone().or(cuda_include().err()),
            cuda_grid_sync_meets_its_expectations,
        ),
        needs(
            "every_harness_emits_cuda_that_nvrtc_compiles",
            with_sources_and_headers(&no_libclang, &shared).or(nvrtc_missing()),
            every_harness_emits_cuda_that_nvrtc_compiles,
        ),
        needs(
            "an_unset_path_variable_is_a_located_error",
            no_libclang.clone(),
            an_unset_path_variable_is_a_located_error,
        ),
        needs(
            "an_include_folder_is_expanded_and_must_exist",
            no_libclang.clone(),
            an_include_folder_is_expanded_and_must_exist,
        ),
    ];
    let tests: [(&str, Test, bool); 6] = [
        (
            "every_heterosync_harness_meets_its_expectations",
            every_heterosync_harness_meets_its_expectations,
            true,
        ),
        (
            "the_subset_computes_what_cuda_cpp_says",
            the_subset_computes_what_cuda_cpp_says,
            false,
        ),
        (
            "constructs_outside_the_subset_are_located_errors",
            constructs_outside_the_subset_are_located_errors,
            false,
        ),
        (
            "a_seq_cst_atomic_ref_is_mapped_as_ptxs_abi_says",
            a_seq_cst_atomic_ref_is_mapped_as_ptxs_abi_says,
            false,
        ),
        (
            "abstracting_back_off_keeps_the_verdicts_and_saves_states",
            abstracting_back_off_keeps_the_verdicts_and_saves_states,
            true,
        ),
        (
            "counterexamples_show_the_cuda_lines",
            counterexamples_show_the_cuda_lines,
            true,
        ),
    ];
    let dir = shared.unwrap_or_default();
    trials.extend(tests.into_iter().map(|(name, test, sources)| {
        let missing = if sources {
            // `harnesses/heterosync` also holds the kernels checked as
            // launched, which clang-19 and opt-19 compile.
            with_sources.clone().or_else(|| {
                gsync_check::llvm::toolchain::Toolchain::find()
                    .err()
                    .map(|e| e.to_string())
            })
        } else {
            no_libclang.clone()
        };
        let dir = dir.clone();
        needs(name, missing, move || test(&dir))
    }));
    run_trials(trials)
}

/// The CUDA headers wheel's `include` folder (`nvidia-cuda-runtime` from
/// PyPI, installed by .ci/run under ~/.cache/gsync-cuda-headers; or
/// `GSYNC_CUDA_INCLUDE`), or why it is missing.
fn cuda_include() -> Result<std::path::PathBuf, String> {
    let header = "cooperative_groups/details/sync.h";
    if let Some(d) = std::env::var_os("GSYNC_CUDA_INCLUDE") {
        let d = std::path::PathBuf::from(d);
        return match d.join(header).is_file() {
            true => Ok(d),
            false => Err(format!(
                "GSYNC_CUDA_INCLUDE has no {header}: {}",
                d.display()
            )),
        };
    }
    let cache = std::env::var_os("GSYNC_CUDA_HEADERS_DIR")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/gsync-cuda-headers"))
        })
        .unwrap_or_default();
    std::fs::read_dir(cache.join("nvidia"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("include"))
        .find(|d| d.join(header).is_file())
        .ok_or_else(|| format!("the CUDA headers wheel is not installed under {} (pip install --target it with nvidia-cuda-runtime, as .ci/run does, or set GSYNC_CUDA_INCLUDE)", cache.display()))
}

/// CUDA's own grid.sync() (the cooperative groups header, read where the
/// wheel installed it) meets the expectations in its harness's header.
fn cuda_grid_sync_meets_its_expectations() {
    let include = cuda_include().expect("checked by the gate");
    let out = Command::new(env!("CARGO_BIN_EXE_gsync-check"))
        .args(["verify", "harnesses/cuda"])
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .env("GSYNC_CUDA_INCLUDE", &include)
        .output()
        .expect("run gsync-check");
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{text}{}", stderr(&out));
    assert!(!text.contains("FAIL"), "{text}");
    for name in [
        "cuda_grid_sync",
        "cuda_grid_sync_split",
        "cuda_grid_sync_pre_volta",
    ] {
        for blocks in ["[default]", "[--blocks 3]", "[--blocks 4]"] {
            assert!(text.contains(&format!("PASS {name} {blocks}")), "{text}");
        }
    }
    // The harness can fail: on our own barrier with its first fence
    // dropped, the counterexample is the race on the data, with block 1's
    // relaxed addition (line 28 of grid_sync_broken.cu) unordered after its store.
    assert!(
        text.contains("PASS cuda_grid_sync_broken [--param drop_fence=1]: expected violated heterogeneous_race"),
        "{text}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_gsync-check"))
        .args([
            "check",
            "harnesses/cuda/grid_sync_broken.gsync",
            "--param",
            "drop_fence=1",
        ])
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .output()
        .expect("run gsync-check");
    let text = stdout(&out);
    assert_eq!(code(&out), 1, "{text}");
    assert!(text.contains("heterogeneous race on `data`"), "{text}");
    assert!(
        text.contains("a28: atomicAdd((unsigned int *)word,"),
        "{text}"
    );
}

/// What the tests over every harness (HeteroSync's and CUDA's) lack, if anything.
fn with_sources_and_headers(
    no_libclang: &Option<String>,
    shared: &Option<std::path::PathBuf>,
) -> Option<String> {
    let sources = match shared {
        Some(d) if d.join("heterosync").is_dir() => None,
        _ => Some("no HeteroSync sources (set GSYNC_SHARED to the folder that has them)".into()),
    };
    no_libclang.clone().or(sources).or(cuda_include().err())
}

/// Every harness, CUDA imports included, lowers to CUDA C++ for a GPU
/// launch (as `run` does before it launches) and NVRTC compiles it to PTX
/// with the kernel in it; `emit` on one writes the file with the verdict
/// of its model pre-check in the header. `run FILE.gsync` on a GPU needs
/// nothing more than this and a device.
fn every_harness_emits_cuda_that_nvrtc_compiles() {
    let shared = shared_dir().expect("checked by the gate");
    let include = cuda_include().expect("checked by the gate");
    // The harnesses find HeteroSync and the CUDA headers through these
    // (set before any other thread of this process could read them).
    std::env::set_var("GSYNC_SHARED", &shared);
    std::env::set_var("GSYNC_CUDA_INCLUDE", &include);
    let request = gsync_check::gpu::LaunchRequest {
        blocks_per_sm: 2,
        blocks: None,
        threads_per_block: 64,
        iters: None,
        params: vec![],
    };
    let options = gsync_check::cuda::EmitOptions {
        verified: vec!["model-checked: (test)".into()],
        ..Default::default()
    };
    let mut compiled = Vec::new();
    for folder in ["harnesses/heterosync", "harnesses/cuda"] {
        for entry in std::fs::read_dir(repo().join(folder)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "gsync") {
                continue; // grid_sync_broken.cu, the CUDA a harness imports
            }
            let spec = gsync_check::api::SpecSource::from_file(&path).unwrap();
            let planned = request
                .plan(&spec, 4)
                .unwrap_or_else(|e| panic!("{}: {e:?}", spec.name));
            let src = gsync_check::gpu::generate(&planned.gpu, &options)
                .unwrap_or_else(|e| panic!("{}: {e:?}", spec.name))
                .source;
            // grid.sync() as compiled for sm_70 and (cuda-arch: sm_60) before Volta.
            if spec.name.ends_with("grid_sync") {
                assert!(
                    src.contains("gs_atom_release_gpu_add_u32(&arrived["),
                    "{src}"
                );
                assert!(src.contains("gs_ld_acquire_gpu(&arrived["), "{src}");
            }
            if spec.name.ends_with("grid_sync_pre_volta") {
                // The statement before the relaxed addition is the fence.
                let code: Vec<&str> = src
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.starts_with("//"))
                    .collect();
                let add = code
                    .iter()
                    .position(|l| l.contains("= atomicAdd(&arrived["))
                    .expect(&src);
                assert_eq!(code[add - 1], "__threadfence();", "{src}");
                assert!(src.contains("gs_ld_volatile(&arrived["), "{src}");
                assert!(
                    !src.contains("gs_atom_release_gpu_add_u32(&arrived["),
                    "{src}"
                );
            }
            let ptx = nvrtc::compile(&src, &format!("{}.cu", spec.name), nvrtc::DEFAULT_ARCH)
                .unwrap_or_else(|e| panic!("{}: {e}", spec.name));
            assert!(
                ptx.contains(".entry gsync_kernel"),
                "{}: no kernel",
                spec.name
            );
            compiled.push(spec.name);
        }
    }
    assert!(compiled.len() >= 17, "only {compiled:?}");
    // The command: the file names the harness and its pre-check's verdict.
    let cu = std::env::temp_dir().join(format!("gsync-emit-{}.cu", std::process::id()));
    let out = gsync(
        Some(&shared),
        &[
            "emit",
            "harnesses/heterosync/heterosync_spin_mutex.gsync",
            "--sms",
            "4",
            "-o",
            cu.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let src = std::fs::read_to_string(&cu).unwrap();
    std::fs::remove_file(&cu).unwrap();
    assert!(
        src.contains("from the spec `heterosync_spin_mutex`"),
        "{src}"
    );
    assert!(
        src.contains("model-checked: verified for --blocks 2 --threads-per-block 2"),
        "{src}"
    );
    assert!(
        src.contains("cudaMutexSpinLock(GsThread& th"),
        "the CUDA function keeps its name"
    );
    // Each step quotes its line of the CUDA file, not the harness's line of that number.
    let quoted = src
        .lines()
        .find(|l| l.contains("// cudaLocksMutexSpin.cu:") && l.contains("atomicCAS"))
        .unwrap_or_else(|| panic!("no quoted atomicCAS line: {src}"));
    let line: usize = quoted.split(':').nth(1).unwrap().trim().parse().unwrap();
    let file = shared.join("heterosync/cuda/syncPrims/uvm/cudaLocksMutexSpin.cu");
    let text = std::fs::read_to_string(file).unwrap();
    assert!(
        text.lines().nth(line - 1).unwrap().contains("atomicCAS"),
        "{quoted}"
    );
}

/// A `${VAR}` in a `cuda:` path that is not set is an error at that line.
fn an_unset_path_variable_is_a_located_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_gsync-check"))
        .args(["check", "harnesses/cuda/grid_sync.gsync"])
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .env_remove("GSYNC_CUDA_INCLUDE")
        .output()
        .expect("run gsync-check");
    let err = stderr(&out);
    assert_eq!(code(&out), 2, "{err}");
    assert!(
        err.contains("`${GSYNC_CUDA_INCLUDE}`, which is not set"),
        "{err}"
    );
    assert!(err.contains("grid_sync.gsync:5:"), "{err}");
}

/// `cuda-include:` expands `${VAR}` as `cuda:` does, and a folder that is
/// not there is an error at its header line, not a silent `-I`.
fn an_include_folder_is_expanded_and_must_exist() {
    let dir = std::env::temp_dir().join(format!("gsync-include-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("inc")).unwrap();
    std::fs::write(dir.join("inc/answer.h"), "#define ANSWER 7\n").unwrap();
    std::fs::write(
        dir.join("probe.cu"),
        "#include \"answer.h\"\n__device__ unsigned answer() { return ANSWER; }\n",
    )
    .unwrap();
    let harness = |include: &str| {
        format!(
            "//! name: include_probe\n//! cuda: probe.cu\n//! cuda-include: {include}\nharness all {{\n    assert(answer() == 7);\n}}\n"
        )
    };
    let run = |include: &str| {
        let file = dir.join("probe.gsync");
        std::fs::write(&file, harness(include)).unwrap();
        Command::new(env!("CARGO_BIN_EXE_gsync-check"))
            .args(["check", file.to_str().unwrap(), "--blocks", "1"])
            .env("NO_COLOR", "1")
            .env("GSYNC_TEST_INCLUDE_ROOT", &dir)
            .output()
            .expect("run gsync-check")
    };
    let found = run("${GSYNC_TEST_INCLUDE_ROOT}/inc");
    assert_eq!(code(&found), 0, "{}{}", stdout(&found), stderr(&found));
    let missing = run("${GSYNC_TEST_INCLUDE_ROOT}/no-such-folder");
    let err = stderr(&missing);
    assert_eq!(code(&missing), 2, "{err}");
    assert!(err.contains("cannot find the include folder"), "{err}");
    assert!(err.contains("probe.gsync:3:"), "{err}");
    let unset = run("${GSYNC_NO_SUCH_VARIABLE}/inc");
    assert_eq!(code(&unset), 2);
    assert!(
        stderr(&unset).contains("`${GSYNC_NO_SUCH_VARIABLE}`, which is not set"),
        "{}",
        stderr(&unset)
    );
    std::fs::remove_dir_all(&dir).ok();
}

fn every_heterosync_harness_meets_its_expectations(shared: &Path) {
    let out = gsync(Some(shared), &["verify", "harnesses/heterosync"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{text}{}", stderr(&out));
    assert!(!text.contains("FAIL"), "{text}");
    // Every HeteroSync harness took part.
    for name in [
        "heterosync_spin_mutex",
        "heterosync_ebo_mutex",
        "heterosync_fa_mutex",
        "heterosync_sleep_mutex",
        "heterosync_spin_semaphore",
        "heterosync_ebo_semaphore",
        "heterosync_atomic_tree_barrier",
        "heterosync_lf_tree_barrier",
        "heterosync_seqlock",
        "heterosync_ref_counter",
        "heterosync_split_counter",
        "heterosync_flags",
        "heterosync_kernels",
    ] {
        assert!(
            text.contains(&format!("PASS {name} ")),
            "{name} missing:\n{text}"
        );
    }
}

fn the_subset_computes_what_cuda_cpp_says(_: &Path) {
    let out = run(&["check", "tests/cuda/constructs.gsync", "--blocks", "1"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    // The same harness with one wrong expectation fails on that line.
    let text = std::fs::read_to_string(repo().join("tests/cuda/constructs.gsync")).unwrap();
    let wrong = text.replace("sum_do(3) == 4", "sum_do(3) == 6");
    let dir = std::env::temp_dir().join(format!("gsync-cu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        repo().join("tests/cuda/constructs.cu"),
        dir.join("constructs.cu"),
    )
    .unwrap();
    std::fs::write(dir.join("wrong.gsync"), wrong).unwrap();
    let out = run(&[
        "check",
        dir.join("wrong.gsync").to_str().unwrap(),
        "--blocks",
        "1",
    ]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("assertion `sum_do(3) == 6` failed"),
        "{}",
        stdout(&out)
    );
}

/// `cuda::atomic_ref`'s default order, `seq_cst`, as NVIDIA's PTX ABI
/// for C++ atomics maps it (`fence.sc; ld.acquire`, `fence.sc;
/// st.relaxed`): message passing through a seq_cst flag is race-free
/// under ptx, and the same with a relaxed load is a race.
fn a_seq_cst_atomic_ref_is_mapped_as_ptxs_abi_says(_: &Path) {
    let out = run(&["verify", "tests/cuda/seq_cst_mp.gsync"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let dir = std::env::temp_dir().join(format!("gsync-cu-sc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cuda = std::fs::read_to_string(repo().join("tests/cuda/seq_cst_mp.cu")).unwrap();
    let relaxed = cuda.replace("f.load()", "f.load(cuda::memory_order_relaxed)");
    assert_ne!(relaxed, cuda);
    std::fs::write(dir.join("seq_cst_mp.cu"), relaxed).unwrap();
    std::fs::copy(
        repo().join("tests/cuda/seq_cst_mp.gsync"),
        dir.join("seq_cst_mp.gsync"),
    )
    .unwrap();
    let harness = dir.join("seq_cst_mp.gsync");
    let out = run(&["check", harness.to_str().unwrap(), "--memory-model", "ptx"]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("race on `data`"), "{}", stdout(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Checks a harness calling `f(buf)` in a one-function CUDA file.
fn check_snippet(name: &str, cuda: &str) -> std::process::Output {
    let dir = std::env::temp_dir().join(format!("gsync-cu-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.cu")), cuda).unwrap();
    let harness =
        format!("//! cuda: {name}.cu\nglobal u32 buf[4] = 0;\nharness all {{ f(buf); }}\n");
    std::fs::write(dir.join(format!("{name}.gsync")), harness).unwrap();
    run(&[
        "check",
        dir.join(format!("{name}.gsync")).to_str().unwrap(),
        "--blocks",
        "1",
    ])
}

fn constructs_outside_the_subset_are_located_errors(_: &Path) {
    let cases = [
        ("switch", "__device__ void f(unsigned *p) {\n  switch (*p) { default: break; }\n}\n", "`switch`", 2),
        ("goto", "__device__ void f(unsigned *p) {\n  goto end;\nend:\n  *p = 1;\n}\n", "`goto`", 2),
        ("float_arith", "__device__ void f(float *p) {\n  float x = 1.5f;\n  *p = x * 2.0f;\n}\n", "floating-point arithmetic", 3),
        ("float_step", "__device__ void f(float *p) {\n  (*p)++;\n}\n", "floating-point arithmetic", 2),
        ("float_conv", "__device__ void f(unsigned *p) {\n  *p = (unsigned)(*(float *)p);\n}\n", "converting `f32` to `u32`", 2),
        ("double", "__device__ void f(float *p) {\n  *p = *p < 0.5;\n}\n", "a `double` constant", 2),
        ("member", "struct S { int a; };\n__device__ void f(unsigned *p) {\n  S s; *p = s.a;\n}\n", "member access", 3),
        ("ptx", "__device__ void f(unsigned *p) {\n  asm volatile(\"ld.global.nc.u32 %0, [%1];\" : \"=r\"(*p) : \"l\"(p));\n}\n", "`.nc`", 2),
        ("undefined", "__device__ void g();\n__device__ void f(unsigned *p) {\n  g();\n}\n", "without a definition", 3),
        ("compile", "__device__ void f(unsigned *p) {\n  *p = undeclared;\n}\n", "does not compile", 2),
        ("barsync", "__device__ void f(unsigned *p) {\n  __barrier_sync(1);\n}\n", "`__barrier_sync` of a barrier other than 0", 2),
        ("target", "#include <nv/target>\n__device__ void f(unsigned *p) {\n  NV_IF_TARGET(NV_IS_EXACTLY_SM_80, *p = 1;);\n}\n", "does not compile", 3),
        ("shfl", "__device__ void f(unsigned *p) {\n  *p = __shfl_sync(0xffffffffu, *p, 0);\n}\n", "__shfl_sync", 2),
    ];
    for (name, cuda, construct, line) in cases {
        let out = check_snippet(name, cuda);
        let err = stderr(&out);
        assert_eq!(code(&out), 2, "{name}: {err}");
        assert!(err.contains(construct), "{name}: {err}");
        assert!(
            err.contains(&format!("{name}.cu:{line}:")),
            "{name}: no location in {err}"
        );
    }
}

fn states(shared: &Path, args: &[&str]) -> (String, u64) {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let out = gsync(Some(shared), &all);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{args:?}: {}", stderr(&out)));
    (
        json["verdict"].as_str().unwrap().to_string(),
        json["stats"]["states"].as_u64().unwrap(),
    )
}

fn abstracting_back_off_keeps_the_verdicts_and_saves_states(shared: &Path) {
    let timed = "harnesses/heterosync/heterosync_ebo_mutex_timed.gsync";
    let text = std::fs::read_to_string(repo().join(timed)).unwrap();
    // The same harness and MAX_BACKOFF with the abstraction on (written
    // elsewhere, so the CUDA paths become absolute).
    let shared = std::fs::canonicalize(shared).unwrap();
    let abstracted = text
        .replace("//! cuda-timing: model\n", "")
        .replace("../../../shared", shared.to_str().unwrap());
    assert_ne!(abstracted, text);
    let dir = std::env::temp_dir().join(format!("gsync-cu-{}-timing", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("abstracted_ebo_mutex.gsync");
    std::fs::write(&path, abstracted).unwrap();
    let p = path.to_str().unwrap();
    for launch in [vec![], vec!["--blocks", "3", "--memory-model", "sc"]] {
        let mut a = vec!["check", p];
        a.extend(&launch);
        let mut m = vec!["check", timed];
        m.extend(&launch);
        let (va, sa) = states(&shared, &a);
        let (vm, sm) = states(&shared, &m);
        assert_eq!(va, vm, "{launch:?}");
        assert!(sa < sm, "{launch:?}: abstracted {sa} states, modelled {sm}");
    }
}

fn counterexamples_show_the_cuda_lines(shared: &Path) {
    let out = gsync(
        Some(shared),
        &["check", "harnesses/heterosync/heterosync_sleep_mutex.gsync"],
    );
    let text = stdout(&out);
    assert_eq!(code(&out), 1);
    assert!(text.contains("aN in cudaLocksMutexSleep.cu"), "{text}");
    // The release that comes before its fence: line 102 of the source.
    assert!(
        text.contains("a102: atomicExch((int *)ringBuffer +"),
        "{text}"
    );
    let json = gsync(
        Some(shared),
        &[
            "check",
            "harnesses/heterosync/heterosync_sleep_mutex.gsync",
            "--format",
            "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let steps = v["violations"][0]["trace"]["steps"].as_array().unwrap();
    assert!(steps
        .iter()
        .any(|s| s["span"]["file"] == "cudaLocksMutexSleep.cu" && s["span"]["line"] == 102));
    // The flags benchmark's verdicts are out-of-bounds reads of the float
    // array at the comparison of line 129: after more rounds than it has
    // floats, and (4 blocks of 2 threads) in a block's first round.
    let flags = "harnesses/heterosync/heterosync_flags.gsync";
    for args in [
        &["check", flags][..],
        &[
            "check",
            flags,
            "--param",
            "STOP=1",
            "--blocks",
            "4",
            "--threads-per-block",
            "2",
            "--memory-model",
            "sc",
        ],
    ] {
        let text = stdout(&gsync(Some(shared), args));
        assert!(text.contains("is out of bounds for `randArr`"), "{text}");
        assert!(text.contains("a129: randArr[randTBLoc]"), "{text}");
    }
}
