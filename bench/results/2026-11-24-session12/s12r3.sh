#!/usr/bin/env bash
# Session 12 device run 3: the PCIe probe, then the whole tests stage on the final code.
set -u
source devrun/common.sh
timeout 120 gnf-pcie-probe 20000 > $R/pcie-probe.jsonl 2>&1; echo "probe rc=$?" | tee -a $S
python3 - $R/pcie-probe.jsonl <<'PY' | tee -a $S
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
ops=[]; [ops.append(r['op']) for r in rows if r['op'] not in ops]
bl=sorted({r['blocks'] for r in rows})
print('op'.ljust(22)+''.join(('b%d ns/Mops' % b).rjust(16) for b in bl))
for o in ops:
  print(o.ljust(22)+''.join(('%.0f/%.1f' % (r['ns_per_op'], r['total_mops'])).rjust(16) for b in bl for r in rows if r['op']==o and r['blocks']==b))
PY
timeout -k 5 430 bash scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | tee -a $S
grep -hE "^one-way|Failure|FAILED  \]" $R/t/gpu_tests.log | head -12 | tee -a $S
B byp-q16-10 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 10000000
cd $R && tar czf $O/results.tgz --exclude='*.pcap' .
