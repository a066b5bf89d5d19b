#!/usr/bin/env bash
set -u
source .bundle/env.sh
O=${OUT:-/tmp/out}; R=$O/r; mkdir -p $R; S=$O/summary.txt
nvidia-smi --query-gpu=name --format=csv,noheader | tee -a $S
timeout -k 5 100 gnf_gpu_tests '--gtest_filter=OneWay.*' > $R/oneway.log 2>&1; echo "== oneway rc=$?" | tee -a $S
grep -E "^\[  (PASSED|FAILED) |FAILED \]|Failure|one-way|not drained|has not stopped" $R/oneway.log | head -20 | tee -a $S
row() { python3 - "$@" <<'PY'
import json,sys
try:
  d=json.load(open(sys.argv[1])); r=d['result']; l=r['latency']; g=r.get('gpu_loops',{}); c=r.get('gpu_clock') or {}
  print(sys.argv[2], 'recv %.2fM loss %.4f p50 %s p99 %s mean %s sd %s skew? late %s loops d %.0fk a %.0fk round %.0f poll %.0f clock_unc %s' % (r['received']/1e6, r['loss']['ratio'], l.get('p50'), l.get('p99'), l.get('mean'), l.get('stddev'), r['nic_model']['late_frames'], g.get('driver_polls_per_s',0)/1e3, g.get('agent_rounds_per_s',0)/1e3, g.get('agent_round_ns',0), g.get('agent_poll_ns',0), c.get('worst_offset_uncertainty_ns')))
except Exception as e: print(sys.argv[2], 'no result', e)
PY
}
B() { local name=$1; shift; timeout -k 3 25 gnf bench "$@" --warmup 0.3 --duration 1 -q --json $R/$name.json 2>$R/$name.err; row $R/$name.json "$name" | tee -a $S; }
B ow-rx --path bypass --speed 100 --queues 4 --nic-threads 2 --size 300 --load 1 --one-way rx
B ow-tx --path bypass --speed 100 --queues 4 --nic-threads 2 --size 300 --load 1 --one-way tx
B p2p-300 --path bypass --speed 100 --queues 4 --nic-threads 2 --size 300 --load 1
timeout -k 5 150 compute-sanitizer --tool memcheck --error-exitcode 1 gnf_gpu_tests '--gtest_filter=*GpuAgent*:*GpuClock*' > $R/memcheck.log 2>&1; echo "== memcheck rc=$?" | tee -a $S; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.log | tail -3 | tee -a $S
timeout -k 5 150 compute-sanitizer --tool racecheck --error-exitcode 1 gnf_gpu_tests '--gtest_filter=*GpuAgent*:*GpuClock*' > $R/racecheck.log 2>&1; echo "== racecheck rc=$?" | tee -a $S; grep -E "RACECHECK SUMMARY|PASSED|FAILED" $R/racecheck.log | tail -3 | tee -a $S
cd $R && tar czf $O/results.tgz .
