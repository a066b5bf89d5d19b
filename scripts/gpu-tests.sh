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
step gpu_tests timeout 240 gnf_gpu_tests --gtest_output="json:$out/gpu_tests.json"
if [ -z "${SKIP_SANITIZER:-}" ]; then
  # Under the sanitizers the emulated NIC crawls: the pcap replay (5000 frames) covers the bypass
  # kernel there, and tests whose assertions depend on timing (tail-batching counts) are left out.
  filter='--gtest_filter=-*BypassRings*:*TailBatching*'
  step memcheck timeout 300 compute-sanitizer --tool memcheck --error-exitcode 1 gnf_gpu_tests "$filter"
  step racecheck timeout 300 compute-sanitizer --tool racecheck --error-exitcode 1 gnf_gpu_tests "$filter"
fi
step unit_tests gnf_unit_tests --gtest_brief=1
# The bundled pcap through the cpu, staged and bypass paths: byte-identical captures.
same_output() {
  local cfg="$out/pcap.toml"
  sed -e "s#^file = .*#file = \"$(realpath "$bundle")/tests/data/sample.pcap\"#" -e 's/^queues = .*/queues = 1/' \
      -e "s#^pcap = .*#pcap = \"$out/PATH.pcap\"#" "$bundle/configs/l2fwd-pcap.toml" >"$cfg"
  for path in cpu staged bypass; do
    sed "s#PATH#$path#" "$cfg" >"$out/pcap-$path.toml"
    gnf run --config "$out/pcap-$path.toml" --path "$path" --json "$out/pcap-$path.json" -q || return 1
  done
  cmp <(tcpdump_strip "$out/cpu.pcap") <(tcpdump_strip "$out/staged.pcap") &&
    cmp <(tcpdump_strip "$out/cpu.pcap") <(tcpdump_strip "$out/bypass.pcap")
}
# pcap records carry departure times, which differ between runs: compare the frames alone.
tcpdump_strip() { python3 -c "
import struct, sys
d = open(sys.argv[1], 'rb').read(); o = 24; out = []
while o < len(d):
    incl = struct.unpack_from('<I', d, o + 8)[0]; out.append(d[o + 16:o + 16 + incl]); o += 16 + incl
sys.stdout.buffer.write(b''.join(len(f).to_bytes(4, 'little') + f for f in out)); print(len(out), file=sys.stderr)" "$1"; }
step pcap_cpu_staged_bypass same_output
# The harness (bench/README.md): l2fwd 64 B on the cpu path at 100 GbE, NDR/PDR over 3 repetitions,
# with one and two NIC-model threads; then every path at two sizes, briefly.
step bench_cpu_l2fwd timeout 600 python3 "$bundle/bench/run.py" sweep --gnf "$bundle/bin/gnf" --paths cpu --sizes 64 \
  --speed 100 --repetitions 3 --out "$out/bench-cpu-l2fwd"
step bench_cpu_l2fwd_2nic timeout 600 python3 "$bundle/bench/run.py" sweep --gnf "$bundle/bin/gnf" --paths cpu --sizes 64 \
  --speed 100 --repetitions 3 --nic-threads 2 --out "$out/bench-cpu-l2fwd-2nic"
step bench_paths_quick timeout 600 python3 "$bundle/bench/run.py" paths --quick --gnf "$bundle/bin/gnf" --out "$out/bench-paths"
for q in 1 4; do
  for path in cpu staged bypass; do
    step "paths_${path}_q$q" timeout 120 gnf run --path "$path" --gen --size 64 --speed 100 --queues "$q" --flows 64 --count 3000000 \
      --nic-threads 2 --json "$out/paths-$path-q$q.json" -q
  done
done
exit $status
