#!/bin/bash
# A profile-guided release build of gsync-check, for long checks: the
# same code and the same reports as `cargo build --release`, laid out by
# LLVM after a run of what users check (scripts/pgo-training.txt). The
# book's "A profile-guided build" gives what it gains and on what machine.
#
#   scripts/build-pgo.sh            # builds target/pgo/gsync-check
#
# It takes two release builds (about 5 minutes each on 2 cores) and about
# a minute of training. It needs the toolchain's own llvm-profdata (the
# profile format follows rustc's LLVM): the rustup component `llvm-tools`,
# added here when rustup is there. Not part of the test command.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=target/pgo
data=$root/$out/profiles
merged=$root/$out/merged.profdata

say() { printf 'build-pgo: %s\n' "$*" >&2; }

host=$(rustc -vV | sed -n 's/^host: //p')
profdata=$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata
if [ ! -x "$profdata" ]; then
  if command -v rustup >/dev/null; then
    say "adding the rustup component llvm-tools (for llvm-profdata)"
    rustup component add llvm-tools
  fi
  if [ ! -x "$profdata" ]; then
    say "error: no $profdata; install the toolchain's llvm-tools (rustup component add llvm-tools)"
    exit 2
  fi
fi

say "1/3 instrumented build ($out/instrumented)"
rm -rf "$data"
mkdir -p "$data"
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$data" \
  cargo build --release --target-dir "$out/instrumented"

say "2/3 training runs (scripts/pgo-training.txt)"
bin=$out/instrumented/release/gsync-check
err=$out/training.err
runs=0
while read -r line; do
  case "$line" in '' | '#'*) continue ;; esac
  say "  gsync-check $line"
  # A verdict (0 verified, 1 violated, 3 inconclusive at a cap) is a run
  # that trained, as tests/setup.rs requires; anything else means the list
  # has gone stale.
  status=0
  # shellcheck disable=SC2086 # each line is a command line, split on purpose
  "$bin" $line >/dev/null 2>"$err" || status=$?
  case "$status" in
    0 | 1 | 3) ;;
    *)
      cat "$err" >&2
      say "error: training run 'gsync-check $line' ended with exit $status"
      exit 1
      ;;
  esac
  runs=$((runs + 1))
done <scripts/pgo-training.txt
"$profdata" merge -o "$merged" "$data"

say "3/3 optimised build ($out/build)"
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-use=$merged" \
  cargo build --release --target-dir "$out/build"
cp "$out/build/release/gsync-check" "$out/gsync-check"
say "built $out/gsync-check (profile-guided, $runs training runs)"
