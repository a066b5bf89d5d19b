#!/usr/bin/env bash
# Device run 4: one-way after the allocation-order fix; agent/bypass tests; loop rates; NIC model capacity.
set -u
source .bundle/env.sh
O=${OUT:-/tmp/out}; R=$O/r; mkdir -p $R
S=$O/summary.txt
T() { local name=$1 limit=$2; shift 2; timeout -k 5 $limit gnf_gpu_tests "$@" > $R/$name.log 2>&1; echo "== $name rc=$?" | tee -a $S
  grep -E "^\[  (PASSED|FAILED) |FAILED \]|Failure|Expected|Which is|Actual|bypass, |tx flow|not drained|has not stopped|one-way" $R/$name.log | head -40 | tee -a $S; }
T oneway 100 '--gtest_filter=OneWay.*'
T agent_bypass 150 '--gtest_filter=GpuAgent*:Bypass.*:Rings/BypassRings*:GpuPaths*:*BypassFlowControl*:*BypassCompletion*:-Bypass.AHundred*'
row() { python3 - "$@" <<'PY'
import json,sys
try:
  d=json.load(open(sys.argv[1])); r=d['result']; l=r['latency']; g=r.get('gpu_loops',{})
  print(sys.argv[2], 'sent %.2fM recv %.2fM loss %.4f p50 %s p99 %s late %s nic %.2f drv %.2f loops d %.0fk a %.0fk where %s' % (r['sent']/1e6, r['received']/1e6, r['loss']['ratio'], l.get('p50'), l.get('p99'), r['nic_model']['late_frames'], r['cpu']['nic']['cores'], r['cpu']['driver']['cores'], g.get('driver_polls_per_s',0)/1e3, g.get('agent_rounds_per_s',0)/1e3, {k:v for k,v in r['loss']['where'].items() if v}))
except Exception as e: print(sys.argv[2], 'no result', e)
PY
}
B() { local name=$1; shift; timeout -k 3 25 gnf bench "$@" --warmup 0.3 --duration 1 -q --json $R/$name.json 2>$R/$name.err; row $R/$name.json "$name" | tee -a $S; grep -h "has not stopped\|error" $R/$name.err | head -3 | tee -a $S; }
echo "== latency at 1 % of 100G" | tee -a $S
B byp-64-1pct --path bypass --speed 100 --queues 4 --nic-threads 2 --load 1
B ow-rx --path bypass --speed 100 --queues 4 --nic-threads 2 --size 300 --load 1 --one-way rx
B ow-tx --path bypass --speed 100 --queues 4 --nic-threads 2 --size 300 --load 1 --one-way tx
B byp-300-1pct --path bypass --speed 100 --queues 4 --nic-threads 2 --size 300 --load 1
echo "== calibrate 64 B, 16 queues" | tee -a $S
for t in 4 8 14; do for m in 20 40 60 80; do B cal-t$t-$m --calibrate --speed 100 --queues 16 --nic-threads $t --rate-pps ${m}000000; done; done
echo "== bypass / cpu 64 B, 16 queues" | tee -a $S
for m in 10 20 30 40; do B byp-t12-$m --path bypass --speed 100 --queues 16 --nic-threads 12 --rate-pps ${m}000000; done
for m in 10 20; do B cpu-t6d6-$m --path cpu --speed 100 --queues 16 --nic-threads 6 --driver-threads 6 --rate-pps ${m}000000; done
cd $R && tar czf $O/results.tgz . 
