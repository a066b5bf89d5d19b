#!/usr/bin/env bash
# Session 12 device run 5: the PCIe probe with 0, 4 and 8 host threads polling the lines the GPU writes.
set -u
source devrun/common.sh
for p in 0 4; do timeout 120 gnf-pcie-probe 20000 $p > $R/pcie-probe-p$p.jsonl 2>&1; echo "probe pollers=$p rc=$?" | tee -a $S; done
python3 - $R/pcie-probe-p*.jsonl <<'PY' | tee -a $S
import json,sys
for f in sys.argv[1:]:
  rows=[json.loads(l) for l in open(f) if l.startswith('{')]
  ops=[]; [ops.append(r['op']) for r in rows if r['op'] not in ops]
  bl=sorted({r['blocks'] for r in rows})
  print(f.split('/')[-1]); print('op'.ljust(22)+''.join(('b%d ns/Mops' % b).rjust(16) for b in bl))
  for o in ops:
    print(o.ljust(22)+''.join(('%.0f/%.1f' % (r['ns_per_op'], r['total_mops'])).rjust(16) for b in bl for r in rows if r['op']==o and r['blocks']==b))
PY
cd $R && tar czf $O/results.tgz .
