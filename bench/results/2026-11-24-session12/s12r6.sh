#!/usr/bin/env bash
# Session 12 device run 6 (13): the PCIe probe, no host threads.
set -u
source devrun/common.sh
timeout 120 gnf-pcie-probe 20000 > $R/pcie-probe-p0.jsonl 2>&1; echo "probe rc=$?" | tee -a $S
python3 bench/pcie/table.py $R/pcie-probe-p0.jsonl | tee -a $S
cd $R && tar czf $O/results.tgz .
