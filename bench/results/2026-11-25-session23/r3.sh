#!/bin/bash
# Session 23 run 3, issue 11: the seed scenarios on the NIC model of sessions 10-22 (581d272), with
# each scenario's defaults (10 G ports as in the papers, 3 repetitions): rings, tail-batching,
# writeback (5 s trials), one-way; then calibrate --quick. The reports in reports.tar (the first
# attempt's came back 8 files of 25: the device returns a limited count).
cd "$(dirname "$0")/../../.." && tar -xJf devrun23/b3.tar.xz
source .bundle/env.sh
export PATH=$PWD/.bundle/bin:$PATH
H=(python3 .bundle/bench/run.py --gnf .bundle/bin/gnf --out $OUT/bench)
timeout 160 "${H[@]}" rings 2>&1 | tail -3
timeout 100 "${H[@]}" tail-batching 2>&1 | tail -3
timeout 120 "${H[@]}" writeback --trial-s 5 2>&1 | tail -3
timeout 100 "${H[@]}" one-way 2>&1 | tail -3
timeout 100 "${H[@]}" calibrate --quick 2>&1 | tail -3
cd $OUT/bench && for d in */; do [ -d "$d/trials" ] && tar -cJf "$d/trials.tar.xz" -C "$d" trials && rm -rf "$d/trials"; done
cd $OUT && tar -cf reports.tar bench && rm -rf bench && ls -la
