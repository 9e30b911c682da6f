#!/usr/bin/env bash
# Runs the libFuzzer harnesses of a `make fuzz` build (docs/fuzzing.md), one after the other.
#   scripts/run-fuzzers.sh BUILD_DIR
# Settings (environment):
#   FUZZ_RUNS=N        inputs per harness (default 1000000); FUZZ_SECONDS=S stops a harness
#                      after S seconds instead, or first, when both are set
#   FUZZ_HARNESSES="filter element_id"   a subset (default: every harness the build lists)
#   FUZZ_OUT=DIR       where each harness's growing corpus, crashes and logs go
#                      (default BUILD_DIR/fuzz-out); crashes in FUZZ_OUT/crashes/<harness>/
#   FUZZ_TIMEOUT=S     seconds one input may take before it counts as a crash (default 25)
#   FUZZ_NICE=N        niceness of the harnesses (default 19)
#   FUZZ_LOCK=FILE     run each harness under `flock FILE` (a lock shared with other heavy work)
# Writes FUZZ_OUT/summary.tsv (harness, executions, seconds, exec/s, crashes) and exits 1 when
# any harness crashed or failed.
set -uo pipefail

build_dir=${1:?usage: scripts/run-fuzzers.sh BUILD_DIR}
list=$build_dir/fuzz-harnesses.txt
out=${FUZZ_OUT:-$build_dir/fuzz-out}
runs=${FUZZ_RUNS:-1000000}
timeout=${FUZZ_TIMEOUT:-25}
niceness=${FUZZ_NICE:-19}
if [ ! -s "$list" ]; then
  echo "$list is missing or empty: configure the build with -DTESSERA_FUZZ=ON (make fuzz)" >&2
  exit 2
fi

mkdir -p "$out"
summary=$out/summary.tsv
printf 'harness\texecutions\tseconds\texec_per_second\tcrashes\n' >"$summary"
failed=0

while read -r name max_len dictionary corpus; do
  if [ -n "${FUZZ_HARNESSES:-}" ] && [[ " $FUZZ_HARNESSES " != *" $name "* ]]; then
    continue
  fi
  work=$out/corpus/$name
  crashes=$out/crashes/$name
  log=$out/$name.log
  mkdir -p "$work" "$crashes"
  seeds=()
  for dir in $corpus; do
    [ -d "$dir" ] && seeds+=("$dir")
  done
  limits=(-runs="$runs")
  [ -n "${FUZZ_SECONDS:-}" ] && limits+=(-max_total_time="$FUZZ_SECONDS")
  lock=()
  [ -n "${FUZZ_LOCK:-}" ] && lock=(flock "$FUZZ_LOCK")
  echo "fuzzing $name (${limits[*]}), log in $log"
  # New inputs go to the first directory (the work corpus); the seeds are only read.
  "${lock[@]}" nice -n "$niceness" "$build_dir/fuzz_$name" "${limits[@]}" -max_len="$max_len" \
    -dict="$dictionary" -timeout="$timeout" -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$crashes/" "$work" "${seeds[@]}" >"$log" 2>&1
  status=$?
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  seconds=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  per_second=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  found=$(find "$crashes" -type f | wc -l)
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "${executions:-?}" "${seconds:-?}" "${per_second:-?}" \
    "$found" >>"$summary"
  if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then
    echo "  $name FAILED (exit $status, $found crash file(s) in $crashes); tail of $log:"
    tail -n 40 "$log" | sed 's/^/    /'
    failed=1
  else
    echo "  $name: ${executions:-?} executions in ${seconds:-?} s (${per_second:-?}/s), no crash"
  fi
done <"$list"

column -t -s $'\t' "$summary"
exit $failed
