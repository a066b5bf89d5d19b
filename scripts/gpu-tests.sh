#!/usr/bin/env bash
# Runs on the GPU machine from a bundle (scripts/bundle.sh). Every log and result goes into OUT_DIR.
#
# Usage: scripts/gpu-tests.sh OUT_DIR [bundle-dir] [stage ...]      (bundle default: .bundle)
# Stages (default: all of them, in this order):
#   tests     the GPU test label (gnf_gpu_tests), the CPU unit tests, the bundled pcap through every
#             path and mode (byte-identical captures), the router's RFC-conformance table on cpu,
#             staged and bypass (each row as the table says, and as the cpu path does)
#   sanitize  compute-sanitizer memcheck and racecheck over the GPU tests that stay short under it
#   bench     the harness's named scenarios (bench/README.md), quick versions, into OUT_DIR/bench
# Exits non-zero if any step failed; prints one PASS/FAIL line per step.
set -uo pipefail
out="${1:?usage: gpu-tests.sh OUT_DIR [bundle-dir] [stage ...]}"
bundle="${2:-.bundle}"
shift $(( $# < 2 ? $# : 2 ))
stages="${*:-tests sanitize bench}"
mkdir -p "$out"
source "$bundle/env.sh"
status=0
step() {  # step NAME COMMAND...: runs, logs to OUT/NAME.log, prints a one-line verdict
  local name="$1"; shift
  if "$@" >"$out/$name.log" 2>&1; then echo "PASS $name"; else echo "FAIL $name (see $name.log)"; status=1; fi
  tail -n 3 "$out/$name.log" | sed "s/^/  $name: /"
}
has() { [[ " $stages " == *" $1 "* ]]; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/gpu.txt" 2>&1 || true

# The bundled pcap through cpu, the three staged modes and bypass: the captures must hold the same
# frames. pcap records carry departure times, which differ: frames alone count.
same_output() {
  local base="$out/pcap.toml" v name path driver
  sed -e "s#^file = .*#file = \"$(realpath "$bundle")/tests/data/sample.pcap\"#" -e 's/^queues = .*/queues = 1/' \
      -e "s#^pcap = .*#pcap = \"$out/NAME.pcap\"#" "$bundle/configs/l2fwd-pcap.toml" >"$base"
  local variants=("cpu:cpu:" "staged-zero-copy:staged:staged_mode = \"zero-copy\"" "staged-copy:staged:staged_mode = \"copy\""
                  "staged-persistent:staged:staged_mode = \"persistent\"" "bypass:bypass:")
  for v in "${variants[@]}"; do
    IFS=: read -r name path driver <<<"$v"
    sed -e "s#NAME#$name#" -e "s#^\[driver\]#[driver]\n$driver#" "$base" >"$out/pcap-$name.toml"
    gnf run --config "$out/pcap-$name.toml" --path "$path" --json "$out/pcap-$name.json" -q || return 1
    cmp <(frames_of "$out/cpu.pcap") <(frames_of "$out/$name.pcap") || return 1
  done
}
# frames_of FILE [sorted]: the frames of a pcap, length-prefixed, in file order or sorted.
frames_of() { python3 -c "
import struct, sys
d = open(sys.argv[1], 'rb').read(); o = 24; out = []
while o < len(d):
    incl = struct.unpack_from('<I', d, o + 8)[0]; out.append(d[o + 16:o + 16 + incl]); o += 16 + incl
out = sorted(out) if len(sys.argv) > 2 else out
sys.stdout.buffer.write(b''.join(len(f).to_bytes(4, 'little') + f for f in out)); print(sys.argv[1], len(out), file=sys.stderr)" "$@"; }

# The router (configs/l3fwd-pcap.toml: forwarding, ARP/ND, ICMP answers, held packets, malformed
# frames) on cpu, staged and bypass: each port's capture holds the same frames. The slow path's
# answers and the forwarded frames may interleave differently, so frames are compared sorted.
router_every_path() {
  local base="$out/router.toml" v name path driver port
  sed -e "s#^file = .*#file = \"$(realpath "$bundle")/tests/data/router.pcap\"#" \
      -e "s#^routes = .*#routes = \"$(realpath "$bundle")/configs/l3fwd-routes.txt\"#" \
      -e "s#^neighbours = .*#neighbours = \"$(realpath "$bundle")/configs/l3fwd-neighbours.txt\"#" \
      -e "s#^pcap = \"../build/router-\(.*\).pcap\"#pcap = \"$out/router-NAME-\1.pcap\"#" "$bundle/configs/l3fwd-pcap.toml" >"$base"
  local variants=("cpu:cpu:" "staged-zero-copy:staged:staged_mode = \"zero-copy\"" "staged-persistent:staged:staged_mode = \"persistent\""
                  "bypass:bypass:")
  for v in "${variants[@]}"; do
    IFS=: read -r name path driver <<<"$v"
    sed -e "s#NAME#$name#" -e "s#^\[driver\]#[driver]\n$driver#" "$base" >"$out/router-$name.toml"
    gnf run --config "$out/router-$name.toml" --path "$path" --json "$out/router-$name.json" -q || return 1
    for port in west east; do
      cmp <(frames_of "$out/router-cpu-$port.pcap" sorted) <(frames_of "$out/router-$name-$port.pcap" sorted) || return 1
    done
  done
}

if has tests; then
  # GNF_GPU_TEST_FILTER (a gtest filter) narrows the GPU tests, e.g. to skip a known hang.
  step gpu_tests timeout 420 gnf_gpu_tests --gtest_output="json:$out/gpu_tests.json" ${GNF_GPU_TEST_FILTER:+"--gtest_filter=$GNF_GPU_TEST_FILTER"}
  # The NVML tests load a fake libnvidia-ml from the build folder, which the bundle does not carry
  # (CI runs them).
  step unit_tests gnf_unit_tests --gtest_brief=1 '--gtest_filter=-Nvml.*:GpuSampler.*'
  step pcap_every_path same_output
  step router_every_path router_every_path
  # tests/conformance/check.py needs python3 and gnf only (the table's frames are in data/).
  step conformance timeout 600 python3 "$bundle/tests/conformance/check.py" --gnf "$bundle/bin/gnf" \
    --out "$out/conformance" cpu staged bypass
fi
if has sanitize; then
  # compute-sanitizer runs one kernel at a time, so kernels that wait on each other (the bypass
  # driver and the GPU agent, the staged persistent kernels, the GPU clock beside another kernel)
  # never finish under it. The kernels that can run alone are covered: the GPU agent driven by a host
  # thread (GpuAgent.*), the NF kernels, the ESP cipher, the anti-replay window, the table replay,
  # the clock (Tracking: it alone). The bypass driver's kernel needs the agent beside it and is not
  # covered. Tests that move many packets or
  # depend on timing are left out. NidsOnGpu is nids's kernel alone, its alert ring included
  # (NidsGpuPaths runs the persistent kernels: left out).
  filter='--gtest_filter=*GpuAgent*:*NfChainOnGpu*:*MemoryDomains*:*GpuClock.Tracking*:*Lpm4OnGpu*:*Lpm6OnGpu*:*AclOnGpu*:*AclNfOnGpu*:*EspCipherOnGpu*:*ReplayOnGpu*:*NidsOnGpu*'
  # The l3fwd test (a 460k-route table, its GPU copy updated by the replay kernel) under memcheck
  # only: racecheck looks for shared-memory hazards, and neither of its kernels uses shared memory
  # (racecheck did not finish it within 200 s).
  step memcheck timeout 250 compute-sanitizer --tool memcheck --error-exitcode 1 gnf_gpu_tests "$filter:*L3FwdOnGpu.Forwards*"
  # The ESP cipher's tests take 45-70 s each under racecheck (its tiles keep AES tables in shared
  # memory, which racecheck follows access by access): a step of their own with its own time.
  step racecheck timeout 200 compute-sanitizer --tool racecheck --error-exitcode 1 gnf_gpu_tests "$filter:-*EspCipherOnGpu*"
  step racecheck_esp timeout 400 compute-sanitizer --tool racecheck --error-exitcode 1 gnf_gpu_tests '--gtest_filter=*EspCipherOnGpu*'
fi
if has bench; then
  harness=(python3 "$bundle/bench/run.py" --gnf "$bundle/bin/gnf" --out "$out/bench")
  step bench_calibrate timeout 120 "${harness[@]}" calibrate --quick
  step bench_rings timeout 200 "${harness[@]}" rings --quick
  step bench_tail_batching timeout 120 "${harness[@]}" tail-batching --quick
  step bench_writeback timeout 120 "${harness[@]}" writeback --quick
  step bench_paths timeout 400 "${harness[@]}" paths --quick
  step bench_one_way timeout 120 "${harness[@]}" one-way --quick
  step bench_lookups timeout 300 "${harness[@]}" lookups --quick --lookup-bench "$bundle/bin/gnf-lookup-bench"
fi
exit $status
