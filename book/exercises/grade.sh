#!/bin/sh
# Grades a student's answer to a gsync-check exercise.
#
#   book/exercises/grade.sh EXERCISE_DIR STUDENT_FILE [gsync-check]
#
# The instructor owns EXERCISE_DIR/harness.gsync: the header with the
# expected verdicts (`//! expect` lines, the hidden configurations), the
# shared variables and the harness. Its line `// @student` is replaced by
# the student's file (functions and any globals of their own), and
# `gsync-check verify` checks every expectation. Exit 0: all met.
# GRADE_KEEP=FILE keeps the spliced spec in FILE, to `gsync-check check`
# it with one configuration and read the counterexample. A student's file
# that uses a construct only a harness should (`critical`, `phase`,
# `progress`, `check`, `harness`, `param`, `__kernel_boundary()`, named
# barriers, `//!` header lines) is refused before anything runs.
# Each configuration is bounded by GRADE_SECONDS (default 120) and
# GRADE_MIB (default 4096): one that reaches a bound is reported
# UNDECIDED, apart from the failures (exit 3 when nothing else failed), and the summary line counts them.
# EXERCISE_DIR/hints (optional, lines `KIND: text`) replaces the generic
# hint for a kind of failure with the exercise's own.
set -eu
dir=$1
student=$2
checker=${3:-gsync-check}
harness="$dir/harness.gsync"
[ -f "$harness" ] || { echo "grade: no $harness" >&2; exit 2; }
[ -f "$student" ] || { echo "grade: no $student" >&2; exit 2; }
grep -q '^// @student$' "$harness" || { echo "grade: $harness has no '// @student' line" >&2; exit 2; }
# A student's file holds functions and globals of its own, nothing a
# harness writer uses to state or shortcut what is checked: those are
# refused, each named with its line (exit 1, as a failed answer).
refused=$(sed -e 's|//[^!].*$||' -e 's|//$||' "$student" | grep -n -o -E \
    '^//!|(^|[^A-Za-z0-9_.])(harness|check|critical|phase|progress|param|__kernel_boundary|bar[.](sync|arrive))([^A-Za-z0-9_]|$)' \
    | sed -E 's/^([0-9]+):[^A-Za-z_/]*([A-Za-z_./!]+).*$/\1: `\2`/' || true)
# A harness parameter marked `// hidden` on its line is configuration the
# answer must not read: with it (`iters`, say) an answer could compute what
# the harness checks instead of doing it. Parameters the exercise gives
# the student (a semaphore's `cap`) are left unmarked.
params=$(sed -n 's/^param[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*\/\/[[:space:]]*hidden.*/\1/p' "$harness" | paste -sd'|' -)
if [ -n "$params" ]; then
    refused="$refused$(sed -e 's|//.*$||' "$student" | grep -n -o -E "(^|[^A-Za-z0-9_.])($params)([^A-Za-z0-9_]|$)" \
        | sed -E 's/^([0-9]+):[^A-Za-z_]*([A-Za-z_][A-Za-z0-9_]*).*$/\n\1: `\2` (a parameter of the harness)/' || true)"
    refused=$(printf '%s\n' "$refused" | sed '/^$/d')
fi
if [ -n "$refused" ]; then
    echo "REFUSED $student: a student's answer may not use what only the instructor's harness uses"
    echo "(harness, check, critical, phase, progress, param, __kernel_boundary, bar.sync, bar.arrive, //! header lines, the harness's hidden parameters):"
    echo "$refused" | sed 's/^/  line /'
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
name=$(basename "$dir")
awk -v student="$student" '
    $0 == "// @student" { while ((getline line < student) > 0) print line; next }
    { print }
' "$harness" > "$work/$name.gsync"
if [ -n "${GRADE_KEEP:-}" ]; then
    cp "$work/$name.gsync" "$GRADE_KEEP"
fi
status=0
"$checker" verify --max-seconds "${GRADE_SECONDS:-120}" --max-memory "${GRADE_MIB:-4096}" \
    "$work/$name.gsync" > "$work/out" || status=$?
# A configuration that reached a bound is undecided, not failed: the answer
# may be right and only too large to check (a counter that never wraps).
undecided=$(grep -c '^FAIL .*got inconclusive' "$work/out" || true)
summary='s/^\(verify: .* failed\)$/\1/'
[ "$undecided" -gt 0 ] && summary="s/^\\(verify: .* failed\\)\$/\\1 ($undecided of them undecided)/"
sed -e 's/^FAIL \(.*got inconclusive.*\)$/UNDECIDED \1/' -e "$summary" "$work/out"
[ "$status" -eq 0 ] && exit 0
# Anything but a failed expectation (a spec error, a usage error) as is.
[ "$status" -ne 1 ] && exit "$status"
# A hint per kind of failure, once each, and where the answer's lines are
# in the combined file the traces cite.
first=$(grep -n '^// @student$' "$harness" | cut -d: -f1)
lines=$(wc -l < "$student")
echo
echo "Hints:"
failed=$(grep '^FAIL ' "$work/out" | grep -vc 'got inconclusive' || true)
for kind in $(sed -n 's/^FAIL .*got violated \([a-z_]*\).*$/\1/p; s/^FAIL .*got \(inconclusive\).*$/\1/p' "$work/out" | sort -u); do
    # The exercise's own hint for this kind (EXERCISE_DIR/hints, lines
    # `KIND: text`) comes first: it can name the fix the generic one cannot
    # (a lost update needs an atomic, not a fence).
    own=$(sed -n "s/^$kind: //p" "$dir/hints" 2>/dev/null | head -n 1)
    if [ -n "$own" ]; then
        echo "  $kind: $own"
        continue
    fi
    case $kind in
        mutual_exclusion) echo "  mutual_exclusion: two blocks (or threads) were inside at once (or more than the capacity): look for a check and a take that are two steps, not one atomic operation.";;
        heterogeneous_race|data_race) echo "  $kind: two accesses to one location are ordered by nothing at a scope that covers both: a release (fence before the publishing store) on one side and an acquire (fence after the observing load) on the other, at device scope between blocks. A flag polled in a spin loop must itself be volatile or atomic: a plain load synchronizes with nothing, whatever the fences around it.";;
        assertion) echo "  assertion: a value read was not the one the harness expects: usually a missing acquire, or a write another block overwrote.";;
        starvation) echo "  starvation: under a fair scheduler one block can still be passed over for ever: serve the blocks in order (tickets), not whoever wins a race.";;
        livelock) echo "  livelock: the blocks keep running but nobody gets through: look for retries that undo each other.";;
        simd_deadlock) echo "  simd_deadlock: lanes of one warp spin while the lane they wait for is masked off at the end of the loop: under lockstep only one side of a branch runs at a time, so release on the winner's side of the branch, before the paths meet again.";;
        deadlock|occupancy_deadlock|alias_deadlock) echo "  $kind: some block waits for ever for something no schedule provides: check what each spin loop waits for, and who would provide it.";;
        barrier_safety) echo "  barrier_safety: a block left an episode before every block had arrived in it: a counter reused or reset too early.";;
        barrier_divergence) echo "  barrier_divergence: a __syncthreads() that not every thread of the block reaches.";;
        inconclusive) echo "  undecided: the check reached its bound (GRADE_SECONDS, GRADE_MIB) before deciding; counters that grow for ever make the state space infinite (wrap them: u8 tickets stay correct while fewer than 256 blocks wait).";;
        *) echo "  $kind: see the book's glossary.";;
    esac
done
echo "  To see a trace: GRADE_KEEP=spliced.gsync $0 $dir $student, then gsync-check check spliced.gsync with that configuration's options."
echo "  Your line N is line N + $((first - 1)) of the spliced file (your lines are $first to $((first + lines - 1)) there)."
[ "$failed" -eq 0 ] && exit 3
exit 1
