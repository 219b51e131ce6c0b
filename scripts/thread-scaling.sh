#!/bin/bash
# Thread scaling of one check: the same command at 1, 2, 4, 8 and 16
# explorer threads (THREADS overrides the list), each line the wall time,
# states, states/s and peak RSS the report's --stats line gives. Not part
# of the test command (a 16-core machine is what it is for).
#   scripts/thread-scaling.sh BINARY SPEC [CHECK OPTIONS...]
set -u
B=$1
shift
printf '%-8s %10s %12s %14s  %s\n' threads seconds states "states/s" "peak RSS"
for t in ${THREADS:-1 2 4 8 16}; do
  start=$(date +%s%N)
  line=$("$B" "$@" --threads "$t" --stats 2>/dev/null | grep '^stats:')
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  states=$(echo "$line" | sed -E 's/^stats: ([0-9]+) states.*/\1/')
  rss=$(echo "$line" | sed -nE 's/.*peak RSS ([0-9.]+ [KMG]iB).*/\1/p')
  printf '%-8s %10s %12s %14s  %s\n' "$t" "$(( ms / 1000 )).$(( ms % 1000 / 100 ))" "$states" \
    "$(( states * 1000 / (ms > 0 ? ms : 1) ))" "$rss"
done
