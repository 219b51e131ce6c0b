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
if [ -n "$refused" ]; then
    echo "REFUSED $student: a student's answer may not use what only the instructor's harness uses"
    echo "(harness, check, critical, phase, progress, param, __kernel_boundary, bar.sync, bar.arrive, //! header lines):"
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
"$checker" verify "$work/$name.gsync"
