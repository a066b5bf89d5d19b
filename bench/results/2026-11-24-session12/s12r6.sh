#!/usr/bin/env bash
# Session 12 device run 6: the PCIe probe with host threads writing the lines the GPU reads.
set -u
source devrun/common.sh
timeout 120 gnf-pcie-probe 20000 > $R/pcie-probe-p0.jsonl 2>&1; echo "probe rc=$?" | tee -a $S
python3 - $R/pcie-probe-p0.jsonl <<'PY' | tee -a $S
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
