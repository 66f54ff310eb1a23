#!/usr/bin/env bash
# The fuzz step of CI (called by .ci/run): builds every target, seeds the corpora (seed.sh) and
# runs each target for a short bounded time. A crash, a timeout or an out-of-memory fails the
# step and leaves the input under fuzz/artifacts/<target>/.
#
# No sanitizer by default (FUZZ_SANITIZER=address to add one): btvm is safe Rust except for the
# calls into JIT-compiled code, which AddressSanitizer cannot instrument; the verify and
# differential targets check that code by comparing its results and state bytes with the vm's.
# Without the instrumentation the build is minutes shorter.
#
#   fuzz/ci.sh [SECONDS_PER_TARGET]      (default 20)
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-20}
san=${FUZZ_SANITIZER:-none}
export RUSTC_BOOTSTRAP=1   # cargo-fuzz needs nightly flags; stable Rust accepts them with this

if ! cargo fuzz --version > /dev/null 2>&1; then
  echo "-- installing cargo-fuzz"
  cargo install cargo-fuzz --version 0.13.2 --locked -q
fi
echo "-- building every target"
cargo fuzz build -s "$san"
./seed.sh
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for target in $(cargo fuzz list); do
  mkdir -p "corpus/$target" "artifacts/$target"
  if cargo fuzz run -s "$san" "$target" -- -max_total_time="$secs" -timeout=20 -rss_limit_mb=4096 \
      -print_final_stats=1 > "$log" 2>&1; then
    runs=$(grep -m1 '^stat::number_of_executed_units' "$log" | awk '{print $2}')
    rate=$(grep -m1 '^stat::average_exec_per_sec' "$log" | awk '{print $2}')
    echo "-- $target: ${runs:-?} executions in ${secs}s (${rate:-?}/s), no crash"
  else
    # The panic message comes first: the tail alone is libFuzzer's report and a backtrace.
    grep -m1 -A3 'panicked at' "$log" >&2 || true
    tail -60 "$log" >&2
    echo "fuzz target $target failed; the input is in fuzz/artifacts/$target/" >&2
    exit 1
  fi
done
