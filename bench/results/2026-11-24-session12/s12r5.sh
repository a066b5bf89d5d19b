#!/usr/bin/env bash
# Session 12 device run 5: the PCIe probe with 0, 4 and 8 host threads polling the lines the GPU writes.
set -u
source devrun/common.sh
for p in 0 4; do timeout 120 gnf-pcie-probe 20000 $p > $R/pcie-probe-p$p.jsonl 2>&1; echo "probe pollers=$p rc=$?" | tee -a $S; done
python3 bench/pcie/table.py $R/pcie-probe-p*.jsonl | tee -a $S
cd $R && tar czf $O/results.tgz .
