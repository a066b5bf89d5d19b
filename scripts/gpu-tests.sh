#!/usr/bin/env bash
# Runs on the GPU machine from a bundle (scripts/bundle.sh): the GPU test label, compute-sanitizer
# memcheck and racecheck over it, the CPU unit tests, and the benchmarks. Every log and result
# goes into the folder given as the argument.
# Usage: scripts/gpu-tests.sh OUT_DIR [bundle-dir]   (bundle default: .bundle)
set -uo pipefail
out="${1:?usage: gpu-tests.sh OUT_DIR [bundle-dir]}"
bundle="${2:-.bundle}"
mkdir -p "$out"
source "$bundle/env.sh"
status=0
step() {  # step NAME COMMAND...: runs, logs to OUT/NAME.log, prints a one-line verdict
  local name="$1"; shift
  if "$@" >"$out/$name.log" 2>&1; then echo "PASS $name"; else echo "FAIL $name (see $name.log)"; status=1; fi
  tail -n 3 "$out/$name.log" | sed "s/^/  $name: /"
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/gpu.txt" 2>&1 || true
step gpu_tests gnf_gpu_tests --gtest_output="json:$out/gpu_tests.json"
step memcheck compute-sanitizer --tool memcheck --error-exitcode 1 gnf_gpu_tests
step racecheck compute-sanitizer --tool racecheck --error-exitcode 1 gnf_gpu_tests
step unit_tests gnf_unit_tests --gtest_brief=1
step bench_cpu_l2fwd python3 "$bundle/bench/cpu_l2fwd.py" --gnf "$bundle/bin/gnf" --runs 3 --out "$out/cpu-l2fwd"
exit $status
