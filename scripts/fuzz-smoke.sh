#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/) with clang (ASan + UBSan) and runs each for a while on
# a copy of its seed corpus, tests/fuzz/corpus/<target>/. Exits non-zero if the build fails or a
# fuzzer finds anything (crash, sanitizer report, broken invariant, timeout, leak); the input is then
# left in <build dir>/fuzz-artifacts/<target>/.
#
#   scripts/fuzz-smoke.sh [build dir]        (default: build-fuzz)
#   FUZZ_SECONDS=60 scripts/fuzz-smoke.sh    (per target; default: 30)
#   FUZZ_TARGETS="config_fuzz pcap_reader_fuzz" scripts/fuzz-smoke.sh   (default: all of them)
#
# Needs the project's dependencies plus clang and libclang-rt-<version>-dev (Debian 12:
# apt-get install clang libclang-rt-14-dev).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${1:-build-fuzz}
seconds=${FUZZ_SECONDS:-30}
cc=${FUZZ_CC:-clang}
cxx=${FUZZ_CXX:-clang++}

for tool in "$cc" "$cxx" cmake; do
  command -v "$tool" >/dev/null || { echo "fuzz-smoke: '$tool' not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }
done

generator=()
if command -v ninja >/dev/null && [[ ! -f "$build/CMakeCache.txt" || -f "$build/build.ninja" ]]; then generator=(-G Ninja); fi
CC=$cc CXX=$cxx cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DGNF_FUZZ=ON -DGNF_SANITIZE=ON -DGNF_CUDA=OFF >/dev/null

# Each target, and the longest input worth trying: frame_path_fuzz takes many frames, the file
# readers are fed what a config, a route table or a capture of a few hundred frames holds, the
# control socket's parser what its server reads of a request (4 KiB, app/ctl_server.cpp).
declare -A max_len=([frame_path_fuzz]=20000 [config_fuzz]=8192 [route_file_fuzz]=8192 [acl_rule_file_fuzz]=8192
                   [acl_frame_fuzz]=2048 [ipsec_config_fuzz]=8192 [esp_fuzz]=20000
                   [pcap_reader_fuzz]=65536 [router_fuzz]=20000 [nids_fuzz]=16384 [ctl_command_fuzz]=4096
                   [offload_fuzz]=65563)
read -r -a targets <<<"${FUZZ_TARGETS:-frame_path_fuzz config_fuzz route_file_fuzz acl_rule_file_fuzz acl_frame_fuzz ipsec_config_fuzz esp_fuzz pcap_reader_fuzz router_fuzz nids_fuzz ctl_command_fuzz offload_fuzz}"
for target in "${targets[@]}"; do
  [[ -n "${max_len[$target]:-}" ]] || { echo "fuzz-smoke: no fuzz target '$target' (${!max_len[*]})" >&2; exit 2; }
done
cmake --build "$build" --target "${targets[@]}" -j "$(nproc)"

# halt_on_error: a UBSan report is a crash, not a line in the log.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

failed=()
for target in "${targets[@]}"; do
  corpus="$build/fuzz-corpus/$target"
  artifacts="$build/fuzz-artifacts/$target"
  rm -rf "$corpus" "$artifacts"
  mkdir -p "$corpus" "$artifacts"
  cp "tests/fuzz/corpus/$target"/* "$corpus"/

  echo "fuzz-smoke: running $target for ${seconds}s (corpus copy: $corpus)"
  status=0
  "$build/tests/fuzz/$target" -max_total_time="$seconds" -max_len="${max_len[$target]}" -timeout=25 \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" 2>&1 | tee "$build/fuzz-$target.log" \
    || status=${PIPESTATUS[0]}

  if [[ $status -ne 0 ]] || compgen -G "$artifacts/*" >/dev/null; then
    echo "fuzz-smoke: $target FAILED (exit $status); inputs in $artifacts:" >&2
    ls -l "$artifacts" >&2 || true
    echo "fuzz-smoke: reproduce with $build/tests/fuzz/$target <input>" >&2
    failed+=("$target")
  fi
done

# What broke, again at the end, where a log's tail (CI shows only that) will hold it: the fuzzer's
# report and the input run once more, which tells a reproducible finding from a flaky one.
if [[ ${#failed[@]} -ne 0 ]]; then
  for target in "${failed[@]}"; do
    echo "fuzz-smoke: ---- $target: its report ----" >&2
    grep -n -E -A12 "ERROR|invariant broken|deadly signal|Sanitizer|runtime error|timeout|out-of-memory|Slowest unit" \
      "$build/fuzz-$target.log" | head -60 >&2 || true
    for input in "$build/fuzz-artifacts/$target"/*; do
      [[ -f "$input" ]] || continue
      echo "fuzz-smoke: ---- $target: $(basename "$input") run again, then as hex ----" >&2
      "$build/tests/fuzz/$target" -runs=1 "$input" 2>&1 | grep -v -E "^INFO|^#|^Running|^Executed" | head -40 >&2 || true
      od -A d -t x1z "$input" | head -20 >&2 || true
    done
  done
  echo "fuzz-smoke: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz-smoke: OK (${targets[*]})"
