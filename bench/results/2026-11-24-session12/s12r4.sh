#!/usr/bin/env bash
# Session 12 device run 4: the PCIe probe with host threads polling the lines, then the sanitize stage.
set -u
source devrun/common.sh
for p in 0 4; do timeout 120 gnf-pcie-probe 20000 $p > $R/pcie-probe-p$p.jsonl 2>&1; echo "probe pollers=$p rc=$?" | tee -a $S; done
python3 bench/pcie/table.py $R/pcie-probe-p0.jsonl $R/pcie-probe-p4.jsonl | tee -a $S
timeout -k 5 470 bash scripts/gpu-tests.sh $R/s .bundle sanitize 2>&1 | tee -a $S
cd $R && tar czf $O/results.tgz .
