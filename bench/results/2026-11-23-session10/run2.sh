#!/usr/bin/env bash
# Device run 2: every GPU test but the 100 M one after the ring-layer merge; where the bypass
# path's latency goes (one-way); what the NIC model alone carries; first bypass/cpu rates.
set -u
source .bundle/env.sh
O=${OUT:-/tmp/out}; R=$O/r; mkdir -p $R
S=$O/summary.txt
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; lscpu | grep -E "Model name|MHz"; } > $R/machine.txt 2>&1
echo "== gpu tests" | tee -a $S
timeout 240 gnf_gpu_tests '--gtest_filter=-Bypass.AHundred*' > $R/gpu_tests.log 2>&1; echo "rc=$?" | tee -a $S
grep -E "^\[  (PASSED|FAILED) |FAILED \]|Failure|Expected|Which is|Actual|bypass, |tx flow" $R/gpu_tests.log | head -60 | tee -a $S
row() { python3 - "$@" <<'PY'
import json,sys
try:
  d=json.load(open(sys.argv[1])); r=d['result']; l=r['latency']; ow=r.get('one_way') or {}
  print(sys.argv[2], 'sent %.2fM recv %.2fM loss %.4f p50 %s p99 %s late %s nic %.2f drv %.2f where %s' % (r['sent']/1e6, r['received']/1e6, r['loss']['ratio'], l.get('p50'), l.get('p99'), r['nic_model']['late_frames'], r['cpu']['nic']['cores'], r['cpu']['driver']['cores'], {k:v for k,v in r['loss']['where'].items() if v}))
except Exception as e: print(sys.argv[2], 'no result', e)
PY
}
B() { local name=$1; shift; timeout 40 gnf bench "$@" --warmup 0.3 --duration 1 -q --json $R/$name.json 2>$R/$name.err; row $R/$name.json "$name" | tee -a $S; }
echo "== one-way, 300 B, 1 % of 100G" | tee -a $S
for w in rx tx; do B ow-$w --path bypass --speed 100 --queues 4 --nic-threads 2 --size 300 --load 1 --one-way $w; done
B p2p-300-1pct --path bypass --speed 100 --queues 4 --nic-threads 2 --size 300 --load 1
B p2p-64-1pct --path bypass --speed 100 --queues 4 --nic-threads 2 --load 1
B cpu-64-1pct --path cpu --speed 100 --queues 4 --nic-threads 2 --driver-threads 2 --load 1
echo "== calibrate 64 B, 16 queues" | tee -a $S
for t in 8 14; do for m in 30 60 90; do B cal-t$t-$m --calibrate --speed 100 --queues 16 --nic-threads $t --rate-pps ${m}000000; done; done
echo "== bypass / cpu 64 B, 16 queues" | tee -a $S
for m in 10 20 30 40; do B byp-t8-$m --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps ${m}000000; done
for m in 10 20; do B cpu-t6d6-$m --path cpu --speed 100 --queues 16 --nic-threads 6 --driver-threads 6 --rate-pps ${m}000000; done
cd $R && tar czf $O/results.tgz . && cp $S $O/ 2>/dev/null
