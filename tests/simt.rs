//! SIMT warps and the lock unit through the real binary: the options and
//! their errors, what the reports say about SIMD deadlocks, alias
//! deadlocks and divergent barriers, the active mask in traces, and warp
//! collectives on small specs written here.

mod common;

use common::*;

fn check(path: &std::path::Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["check", path.to_str().unwrap()];
    all.extend(args);
    run(&all)
}

/// Runs the binary with `args`, one block of `threads` threads, then `rest`.
fn in_one_block(args: &[&str], threads: &str, rest: &[&str]) -> std::process::Output {
    run(&[
        args,
        &["--blocks", "1", "--threads-per-block", threads],
        rest,
    ]
    .concat())
}

fn json_of(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("no JSON: {}{}", stdout(out), stderr(out)))
}

#[test]
fn bad_simt_options_exit_2_with_a_clear_message() {
    for (args, fragment) in [
        (
            vec!["shared_spin_lock", "--simt", "simd"],
            "unknown SIMT mode `simd`",
        ),
        (
            vec![
                "shared_spin_lock",
                "--simt",
                "lockstep",
                "--branch-order",
                "left",
            ],
            "unknown branch order `left`",
        ),
        (
            vec![
                "shared_spin_lock",
                "--branch-order",
                "else-first",
                "--simt",
                "its",
            ],
            "--branch-order only applies to --simt lockstep",
        ),
        (
            vec!["lockbit_alias_self", "--lock-bits", "0"],
            "'--lock-bits <N>': must be at least 1",
        ),
        (
            vec![
                "shared_spin_lock",
                "--simt",
                "lockstep",
                "--warp-size",
                "64",
            ],
            "at most 32 threads",
        ),
        (
            vec![
                "shared_spin_lock",
                "--simt",
                "lockstep",
                "--memory-model",
                "ptx",
            ],
            "--simt lockstep is modelled under --memory-model sc only",
        ),
    ] {
        assert_usage_error(&args, fragment);
    }
}

#[test]
fn a_lock_bit_outside_shared_memory_is_a_located_spec_error() {
    let path = write_temp_spec(
        "global_lock_bit",
        "global u32 x = 0;\nharness master {\n    u32 v = 0;\n    ldslk(x, v);\n}\n",
    );
    let out = check(&path, &[]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("global_lock_bit.gsync:4:5"), "{err}");
    assert!(err.contains("only for shared memory"), "{err}");
}

#[test]
fn a_bad_simt_header_line_is_a_located_error() {
    let path = write_temp_spec("bad_header", "//! simt: volta\nharness master { }\n");
    let out = check(&path, &[]);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(err.contains("`simt:` header line"), "{err}");
    assert!(err.contains("bad_header.gsync:1:11"), "{err}");
}

#[test]
fn simd_deadlock_report_names_warp_lanes_reconvergence_and_resource() {
    let out = in_one_block(&["shared_spin_lock"], "2", &["--simt", "lockstep"]);
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    assert!(text.contains("simd_deadlock"), "{text}");
    for fragment in [
        "warp 0 of block 0",
        "lane 1 spins at line",
        "waiting on mutex@b0",
        "lane 0 of the same warp is masked off",
        "reconvergence point line",
        // The active mask of each step: both lanes ran the first CAS, only
        // the loser repeats it.
        "[lanes 0,1] atomicCAS(mutex, 0,",
        "[lanes 1] atomicCAS(mutex, 0, 1)",
    ] {
        assert!(text.contains(fragment), "`{fragment}` not in\n{text}");
    }
}

#[test]
fn the_branch_order_is_recorded_in_the_report() {
    let out = in_one_block(
        &["tinylock_producer_consumer"],
        "2",
        &["--branch-order", "else-first", "--format", "json"],
    );
    let json = json_of(&out);
    assert_eq!(
        json["config"]["simt"], "lockstep",
        "the spec header names lockstep"
    );
    assert_eq!(json["config"]["branch_order"], "else-first");
    assert_eq!(json["violations"][0]["kind"], "simd_deadlock");
    let then_first = in_one_block(&["tinylock_producer_consumer"], "2", &["--format", "json"]);
    assert_eq!(json_of(&then_first)["verdict"], "verified");
}

#[test]
fn alias_deadlock_report_names_both_addresses_and_the_bit() {
    let out = in_one_block(&["lockbit_alias_barrier"], "2", &["--warp-size", "1"]);
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    for fragment in [
        "alias_deadlock",
        "lock bit 0@b0",
        "A[1024]@b0 (word address 1024)",
        "aliased address A[0]@b0",
        "waits at `__syncthreads()`",
        "with 1024 lock bits",
    ] {
        assert!(text.contains(fragment), "`{fragment}` not in\n{text}");
    }
    let more_bits = in_one_block(
        &["lockbit_alias_barrier"],
        "2",
        &[
            "--warp-size",
            "1",
            "--lock-bits",
            "2048",
            "--format",
            "json",
        ],
    );
    let json = json_of(&more_bits);
    assert_eq!(json["verdict"], "verified");
    assert_eq!(json["config"]["lock_bits"], 2048);
}

#[test]
fn barrier_divergence_report_names_the_branch_that_split_the_block() {
    for simt in ["its", "lockstep"] {
        let out = in_one_block(&["syncthreads_divergent"], "2", &["--simt", simt]);
        assert_eq!(code(&out), 1, "{simt}");
        let text = stdout(&out);
        assert!(text.contains("barrier_divergence"), "{simt}: {text}");
        let split = text
            .split("split at the branch at line ")
            .nth(1)
            .unwrap_or_else(|| panic!("{simt}: no branch named in {text}"));
        assert!(split.contains("`tid < half`"), "{simt}: {text}");
    }
}

#[test]
fn one_thread_blocks_show_no_mask_and_its_is_the_default() {
    // The default SIMT mode is its: naming it changes nothing, and with one
    // thread per block traces carry no active mask.
    let plain = run(&[
        "tree_barrier_single",
        "--param",
        "iters=1",
        "--format",
        "json",
    ]);
    let its = run(&[
        "tree_barrier_single",
        "--param",
        "iters=1",
        "--simt",
        "its",
        "--format",
        "json",
    ]);
    assert_eq!(plain.stdout, its.stdout);
    assert!(!stdout(&plain).contains("active_mask"));
    assert!(stdout(&plain).contains("\"simt\": \"its\""));
}

const VOTES: &str = "shared u32 seen[threads_per_block] = 0;
harness all {
    u32 ballot = __ballot_sync(0xFFFFFFFF, laneId != 1);
    bool any = __any_sync(0xFFFFFFFF, laneId == 1);
    bool every = __all_sync(0xFFFFFFFF, laneId < warp_size);
    assert(ballot == 5, \"ballot of lanes 0 and 2 of a 3-lane warp\");
    assert(any, \"lane 1 votes yes\");
    assert(every, \"every lane votes yes\");
    seen[threadIdx] = 1;
    __syncwarp();
    assert(seen[0] + seen[1] + seen[2] == 3, \"__syncwarp waits for every lane\");
}
";

#[test]
fn votes_and_syncwarp_agree_under_both_modes() {
    let path = write_temp_spec("votes", VOTES);
    for simt in ["its", "lockstep"] {
        let out = in_one_block(
            &["check", path.to_str().unwrap()],
            "3",
            &["--simt", simt, "--format", "json"],
        );
        let json = json_of(&out);
        assert_eq!(json["verdict"], "verified", "{simt}: {json}");
    }
    // Without the __syncwarp the last assertion can fail under its; under
    // ptx (the default) the unordered accesses to `seen` are a data race.
    let racy = write_temp_spec("votes_racy", &VOTES.replace("__syncwarp();", ""));
    for (model, kind) in [("sc", "assertion"), ("ptx", "data_race")] {
        let out = in_one_block(
            &["check", racy.to_str().unwrap()],
            "3",
            &["--memory-model", model, "--format", "json"],
        );
        assert_eq!(json_of(&out)["violations"][0]["kind"], kind, "{model}");
    }
}

/// Two tiles of 2 lanes in one warp (cooperative groups' masks, warpcore's
/// `group.any`): each lane's vote counts only the lanes its mask names,
/// also in lockstep, where the whole warp votes at once.
const TILE_VOTES: &str = "harness all {
    u32 mask = 3 << (laneId - laneId % 2);
    u32 ballot = __ballot_sync(mask, laneId == 2);
    bool any = __any_sync(mask, laneId == 2);
    bool every = __all_sync(mask, laneId < 2);
    if (laneId < 2) {
        assert(ballot == 0 && !any && every, \"tile 0 sees only its own lanes\");
    } else {
        assert(ballot == 4 && any && !every, \"tile 1 sees only its own lanes\");
    }
}
";

#[test]
fn tiles_of_one_warp_vote_apart() {
    let path = write_temp_spec("tile_votes", TILE_VOTES);
    for simt in ["its", "lockstep"] {
        let out = in_one_block(
            &["check", path.to_str().unwrap()],
            "4",
            &["--simt", simt, "--memory-model", "sc", "--format", "json"],
        );
        let json = json_of(&out);
        assert_eq!(json["verdict"], "verified", "{simt}: {json}");
    }
}

/// `__activemask()` gives every lane that executes it together the same
/// mask, so a ballot over it meets every lane it names. Under ITS a lane
/// that gets there while another is still in a branch runs it alone: both
/// outcomes are explored, and the ballot holds in each (desul's lock loop
/// relies on exactly this). Lockstep reconverges after the branch.
const ACTIVEMASK: &str = "shared u32 alone = 0;
shared u32 first = 0;
harness all {
    if (laneId == 0) {
        first = 1;
    }
    u32 mask = __activemask();
    u32 voted = __ballot_sync(mask, 1);
    assert(voted == mask, \"the ballot over the active mask meets every lane it names\");
    if (mask != 3) {
        alone = 1;
    }
}
";

#[test]
fn the_active_mask_names_the_lanes_that_run_it_together() {
    let path = write_temp_spec("activemask", ACTIVEMASK);
    for simt in ["its", "lockstep"] {
        let out = in_one_block(
            &["check", path.to_str().unwrap()],
            "2",
            &["--simt", simt, "--memory-model", "sc", "--format", "json"],
        );
        let json = json_of(&out);
        assert_eq!(json["verdict"], "verified", "{simt}: {json}");
    }
    // Under ITS the lanes may run it apart (the mask of one lane): an
    // assertion that they never do fails there, and holds in lockstep.
    let apart = write_temp_spec(
        "activemask_apart",
        &ACTIVEMASK.replace("alone = 1;", "assert(false, \"a lane ran it alone\");"),
    );
    for (simt, verdict) in [("its", "violated"), ("lockstep", "verified")] {
        let out = in_one_block(
            &["check", apart.to_str().unwrap()],
            "2",
            &["--simt", simt, "--memory-model", "sc", "--format", "json"],
        );
        assert_eq!(json_of(&out)["verdict"], verdict, "{simt}");
    }
}

#[test]
fn syncwarp_misuse_is_barrier_divergence() {
    // Lane 1 leaves while lane 0 waits for it at __syncwarp().
    let leaves = write_temp_spec(
        "syncwarp_leaves",
        "harness all {\n    if (laneId == 0) {\n        __syncwarp();\n    }\n}\n",
    );
    // A mask that does not name the caller's own lane.
    let not_own = write_temp_spec("syncwarp_not_own", "harness all {\n    __syncwarp(2);\n}\n");
    for path in [&leaves, &not_own] {
        for simt in ["its", "lockstep"] {
            let out = in_one_block(
                &["check", path.to_str().unwrap()],
                "2",
                &["--simt", simt, "--format", "json"],
            );
            let json = json_of(&out);
            assert_eq!(
                json["violations"][0]["kind"],
                "barrier_divergence",
                "{} {simt}: {json}",
                path.display()
            );
        }
    }
}

#[test]
fn two_warps_of_four_check_within_a_small_state_space() {
    let out = in_one_block(
        &["check", "specs/validation_tinylock.gsync"],
        "8",
        &["--warp-size", "4", "--simt", "its", "--format", "json"],
    );
    let json = json_of(&out);
    assert_eq!(json["verdict"], "verified");
    // A count, not a timing (no test may depend on the machine's load):
    // the reductions keep 8 threads in two warps to tens of thousands of
    // states (72,095 today), where a slip would give millions.
    let states = json["stats"]["states"].as_u64().unwrap();
    assert!((1000..200_000).contains(&states), "{json}");
}

#[test]
fn lockstep_loops_with_divergent_trip_counts_reconverge() {
    // Each lane loops a different number of times through nested divergent
    // branches: the reconvergence stack must neither grow per iteration
    // (a runtime error) nor lose lanes (the final count would be wrong).
    let path = write_temp_spec(
        "loops",
        "shared u32 c[threads_per_block] = 0;
harness all {
    for (u32 i = 0; i < threadIdx * 7; i++) {
        if (i % 2 == 0) { c[threadIdx] += 1; } else { if (i % 3 == 0) { c[threadIdx] += 2; } }
    }
    assert(c[threadIdx] == (threadIdx * 7 + 1) / 2 + 2 * ((threadIdx * 7 + 2) / 6), \"every iteration counted\");
}
",
    );
    for order in ["then-first", "else-first"] {
        let out = in_one_block(
            &["check", path.to_str().unwrap()],
            "4",
            &[
                "--simt",
                "lockstep",
                "--branch-order",
                order,
                "--format",
                "json",
            ],
        );
        assert_eq!(
            json_of(&out)["verdict"],
            "verified",
            "{order}: {}",
            stdout(&out)
        );
    }
}

/// Lockstep lanes reach memory in every order (issue 20): in ascending
/// lane order the highest lane's exchange lands last and lane 0 wins the
/// CAS, so only a non-ascending order violates these assertions.
#[test]
fn lockstep_lanes_reach_memory_in_every_order() {
    for (name, body) in [
        (
            "exchange",
            "atomicExch(last, threadIdx + 1);\n__syncthreads();\n\
             assert(last == threads_per_block, \"the highest lane did not write last\");",
        ),
        (
            "election",
            "if (atomicCAS(leader, 0, threadIdx + 1) == 0) { assert(threadIdx == 0, \"lane 0 lost\"); }",
        ),
    ] {
        let path = write_temp_spec(
            &format!("lane_order_{name}"),
            &format!(
                "//! simt: lockstep\nglobal u32 last = 0;\nglobal u32 leader = 0;\n\
                 harness all {{\n{body}\n}}\n"
            ),
        );
        let args = ["--blocks", "1", "--threads-per-block", "3", "--format", "json"];
        let out = check(&path, &args);
        assert_eq!(code(&out), 1, "{name}: {}", stdout(&out));
        let report = json_of(&out);
        assert_eq!(report["violations"][0]["kind"], "assertion", "{name}: {report}");
        let text = report.to_string();
        assert!(text.contains("the lanes reach memory in the order"), "{name}: {text}");
    }
}

/// Orders that cannot differ are not explored: loads, and atomics that
/// commute whose old values nobody reads (one successor, as before).
#[test]
fn lockstep_explores_one_order_where_orders_cannot_differ() {
    let path = write_temp_spec(
        "lane_order_commuting",
        "//! simt: lockstep\nglobal u32 count = 0;\n\
         harness all {\n    atomicAdd(count, threadIdx + 1);\n    u32 seen = count;\n    assert(seen <= 6);\n}\n",
    );
    let out = check(
        &path,
        &[
            "--blocks",
            "1",
            "--threads-per-block",
            "3",
            "--format",
            "json",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let report = json_of(&out);
    let (states, transitions) = (&report["stats"]["states"], &report["stats"]["transitions"]);
    assert_eq!(
        states.as_u64().unwrap(),
        transitions.as_u64().unwrap() + 1,
        "a single path: {report}"
    );
}
