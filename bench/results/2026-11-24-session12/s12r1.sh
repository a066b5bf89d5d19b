#!/usr/bin/env bash
# Session 12 device run 1: where the GPU loops' rounds go (phases), after fence-then-relaxed doorbells;
# SASS fence counts; the OneWay tests.
set -u
source devrun/common.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
CO=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -1)
if [ -n "$CO" ]; then
  $CO -sass $(command -v gnf) > $R/gnf.sass 2>/dev/null
  python3 - $R/gnf.sass <<'PY' | tee -a $S
import re,sys
cur=None; counts={}
for line in open(sys.argv[1]):
  m=re.search(r'Function : (\S+)',line)
  if m: cur=m.group(1); continue
  for op in re.findall(r'\b(MEMBAR\.[A-Z.]+|FENCE\.[A-Z.]+|CCTL[A-Z.]*)',line):
    if cur and ('agent' in cur or 'bypass' in cur or 'clock' in cur): counts.setdefault(cur,{}).setdefault(op,0); counts[cur][op]+=1
for f,c in counts.items(): print('sass', f[:60], c)
PY
fi
B byp-1pct --path bypass --speed 100 --queues 4 --nic-threads 2 --load 1
B byp-q16-1pct --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1
B byp-q16-5 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 5000000
B byp-q16-10 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 10000000
B byp-q16-20 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 20000000
B byp-q32-20 --path bypass --speed 100 --queues 32 --nic-threads 8 --rate-pps 20000000
B ow-rx --path bypass --speed 100 --queues 4 --nic-threads 2 --size 300 --load 1 --one-way rx
B ow-tx --path bypass --speed 100 --queues 4 --nic-threads 2 --size 300 --load 1 --one-way tx
GNF_GPU_TEST_FILTER='OneWay.*' timeout -k 5 120 bash scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | head -3 | tee -a $S
grep -hE "^one-way|Failure|FAILED  \]" $R/t/gpu_tests.log | head -12 | tee -a $S
cd $R && tar czf $O/results.tgz --exclude='*.pcap' --exclude='gnf.sass' .
