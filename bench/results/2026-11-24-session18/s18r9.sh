#!/bin/bash
# Session 18 run 9: the final catch-up rule (efa5b5f: a group starts late, a window lasts at most 5 ms) on the
# device: the harness's nids scenario on staged and bypass at 512 and 1500 B (as runs 3 and 7, fewer points).
cd "$(dirname "$0")/.." && tar -xJf devrun18/b.tar.xz
cp -r configs bench .bundle/ && mkdir -p .bundle/tests && cp -r tests/data tests/conformance .bundle/tests/
source devrun18/common.sh
timeout -k 5 330 python3 bench/run.py nids --gnf .bundle/bin/gnf --out $O/h --index $O/h/RESULTS.md --speed 100 --paths staged,bypass \
  --sizes 512,1500 --queues 16 --nic-threads 8 --driver-threads 4 --repetitions 1 --trial-s 1 --warmup-s 0.3 --resolution 5% > $R/harness.log 2>&1
echo "harness rc=$?" | tee -a $S; grep -E "^\| (512|1500) B \| (staged|bypass) \| [0-9≥]" $O/h/*/report.md | head -4 | cut -d'|' -f1-4,16-17 | tee -a $S
cd $O && tar -cJf results.tar.xz r h && rm -rf r h
