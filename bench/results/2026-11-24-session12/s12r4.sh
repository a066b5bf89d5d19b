#!/usr/bin/env bash
# Session 12 device run 4: the PCIe probe with host threads polling the lines, then the sanitize stage.
set -u
source devrun/common.sh
for p in 0 4; do timeout 120 gnf-pcie-probe 20000 $p > $R/pcie-probe-p$p.jsonl 2>&1; echo "probe pollers=$p rc=$?" | tee -a $S; done
python3 - $R/pcie-probe-p0.jsonl $R/pcie-probe-p4.jsonl <<'PY' | tee -a $S
import json,sys
for f in sys.argv[1:]:
  rows=[json.loads(l) for l in open(f) if l.startswith('{')]
  ops=[]; [ops.append(r['op']) for r in rows if r['op'] not in ops]
  bl=sorted({r['blocks'] for r in rows})
  print(f.split('/')[-1]); print('op'.ljust(22)+''.join(('b%d ns/Mops' % b).rjust(16) for b in bl))
  for o in ops:
    print(o.ljust(22)+''.join(('%.0f/%.1f' % (r['ns_per_op'], r['total_mops'])).rjust(16) for b in bl for r in rows if r['op']==o and r['blocks']==b))
PY
timeout -k 5 470 bash scripts/gpu-tests.sh $R/s .bundle sanitize 2>&1 | tee -a $S
cd $R && tar czf $O/results.tgz .
