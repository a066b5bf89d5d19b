#!/usr/bin/env bash
# Device run 7: where one-way hangs (watched, stderr); the tests stage without one-way; loops.
set -u
source .bundle/env.sh
O=${OUT:-/tmp/out}; R=$O/r; mkdir -p $R
S=$O/summary.txt
nvidia-smi --query-gpu=name --format=csv,noheader | tee -a $S
gnf bench --path bypass --speed 100 --queues 4 --nic-threads 2 --size 300 --load 1 --one-way tx --warmup 0.3 --duration 1 --json $R/ow-tx.json > $R/ow-tx.out 2> $R/ow-tx.err &
pid=$!
for t in 3 13; do sleep $((t == 3 ? 3 : 10))
  echo "-- one-way tx after ${t}s: stderr:" | tee -a $S; tr '\r' '\n' < $R/ow-tx.err | tail -4 | tee -a $S
  for task in /proc/$pid/task/*; do [ -d $task ] || continue; echo "$(cat $task/comm) $(awk '{print $3, $14}' $task/stat)"; done | sort | uniq -c | tee -a $S
done
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null; sleep 1
GNF_GPU_TEST_FILTER='-OneWay.*' GNF_LEAK_TEST_PACKETS=20000000 timeout -k 5 300 bash scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | tee -a $S
grep -h "through the driver" $R/t/gpu_tests.log | head -2 | tee -a $S
row() { python3 - "$@" <<'PY'
import json,sys
try:
  d=json.load(open(sys.argv[1])); r=d['result']; l=r['latency']; g=r.get('gpu_loops',{})
  print(sys.argv[2], 'recv %.2fM loss %.4f p50 %s p99 %s late %s nic %.2f loops d %.0fk a %.0fk round %.0f poll %.0f where %s' % (r['received']/1e6, r['loss']['ratio'], l.get('p50'), l.get('p99'), r['nic_model']['late_frames'], r['cpu']['nic']['cores'], g.get('driver_polls_per_s',0)/1e3, g.get('agent_rounds_per_s',0)/1e3, g.get('agent_round_ns',0), g.get('agent_poll_ns',0), {k:v for k,v in r['loss']['where'].items() if v}))
except Exception as e: print(sys.argv[2], 'no result', e)
PY
}
B() { local name=$1; shift; timeout -k 3 25 gnf bench "$@" --warmup 0.3 --duration 1 -q --json $R/$name.json 2>$R/$name.err; row $R/$name.json "$name" | tee -a $S; }
B byp-64-1pct --path bypass --speed 100 --queues 4 --nic-threads 2 --load 1
B byp-t8-10 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 10000000
B cal-t8-40 --calibrate --speed 100 --queues 16 --nic-threads 8 --rate-pps 40000000
B cpu-64-1pct --path cpu --speed 100 --queues 4 --nic-threads 2 --driver-threads 2 --load 1
cd $R && tar czf $O/results.tgz .
