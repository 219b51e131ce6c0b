//! Inputs a user or a fuzzer gets wrong (issue 17): each is refused with
//! exit 2 and an error naming the file, line and column, never a crash, a
//! silent pass or a run until memory is gone.

mod common;

use common::*;
use std::path::Path;

/// `spin_lock.gsync` with `line` added to its header.
fn spin_lock_with_header_line(name: &str, line: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(repo().join("specs/spin_lock.gsync")).unwrap();
    let text = text.replacen("//! family:", &format!("{line}\n//! family:"), 1);
    write_temp_spec(name, &text)
}

/// Exit 2, and stderr holds every fragment.
fn assert_refused(args: &[&str], fragments: &[&str]) {
    let out = run(args);
    let err = stderr(&out);
    assert_eq!(code(&out), 2, "{args:?}: {err}");
    for f in fragments {
        assert!(err.contains(f), "{args:?}: `{f}` not in {err}");
    }
}

#[test]
fn a_misspelt_expect_fails_verify_instead_of_passing() {
    let path = spin_lock_with_header_line("expects_typo", "//! expects: violated deadlock");
    assert_refused(
        &["verify", path.to_str().unwrap()],
        &[
            "unknown header key `expects`",
            "expects_typo.gsync:2:5",
            "did you mean `expect`?",
        ],
    );
}

#[test]
fn an_unknown_header_key_is_an_error() {
    let path = spin_lock_with_header_line("colour", "//! colour: blue");
    assert_refused(
        &["verify", path.to_str().unwrap()],
        &["unknown header key `colour`", "colour.gsync:2:5"],
    );
    assert_refused(
        &["check", path.to_str().unwrap()],
        &["unknown header key `colour`", "colour.gsync:2:5"],
    );
}

#[test]
fn a_liveness_line_naming_no_parameter_is_located() {
    let path = write_temp_spec(
        "liveness_typo",
        "//! name: l\n//! liveness: iter=0\nparam iters = 1;\nharness master { }\n",
    );
    assert_refused(
        &["check", path.to_str().unwrap()],
        &[
            "`liveness:` sets `iter`, which is not a parameter",
            "liveness_typo.gsync:2:15",
            "did you mean `iters`?",
        ],
    );
}

#[test]
fn a_weird_simt_mode_is_located() {
    let path = spin_lock_with_header_line("simt_weird", "//! simt: weird");
    assert_refused(
        &["check", path.to_str().unwrap()],
        &["unknown SIMT mode `weird`", "simt_weird.gsync:2:11"],
    );
}

#[test]
fn a_file_that_is_not_utf8_names_the_first_bad_byte() {
    let path = write_temp_spec("latin1", "");
    std::fs::write(
        &path,
        b"global u32 x = 0;\nharness master {\n  x = 1; // caf\xe9\n}\n",
    )
    .unwrap();
    assert_refused(
        &["check", path.to_str().unwrap()],
        &["latin1.gsync:3:16: the file is not UTF-8 text (byte 0xe9"],
    );
    assert_refused(
        &["litmus", path.to_str().unwrap()],
        &["latin1.gsync:3:16: the file is not UTF-8 text"],
    );
    assert_refused(
        &["replay", path.to_str().unwrap()],
        &["latin1.gsync:3:16: the file is not UTF-8 text"],
    );
}

/// `/dev/zero` never ends: each reader stops at the size cap at once.
#[test]
fn an_endless_file_is_refused_at_the_size_cap() {
    if !Path::new("/dev/zero").exists() {
        eprintln!("SKIPPED: no /dev/zero on this system");
        return;
    }
    for command in ["check", "litmus", "replay"] {
        assert_refused(
            &[command, "/dev/zero"],
            &["/dev/zero is larger than 16 MiB"],
        );
    }
}

#[test]
fn a_designated_index_outside_the_launch_is_located() {
    // `flags[nblocks] = {[2] = 1}` fits 3 blocks, not the default 2.
    let path = write_temp_spec(
        "designated_range",
        "//! name: d\nglobal u32 flags[nblocks] = {[0] = 1, [2] = 1};\n\
         harness master { while (load.acquire(flags[blockIdx]) == 0) { } }\n",
    );
    let p = path.to_str().unwrap();
    assert_refused(
        &["check", p],
        &[
            "index 2 is out of range for `flags`, which has 2 element(s) in this launch",
            "designated_range.gsync:2:40",
        ],
    );
    // Under 3 blocks it is in range, and block 1 waits for ever.
    let out = run(&["check", p, "--blocks", "3"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stdout(&out).contains("deadlock"), "{}", stdout(&out));
}
