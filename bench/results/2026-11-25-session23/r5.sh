#!/bin/bash
# Session 23 run 5, issue 11: run 3's seed scenarios again with four NIC-model threads (the harness's
# new default for full runs; run 3 had gnf's default of one, and the model was the limit in
# nearly every trial), the landed code (581d272, run 3's bundle), the repository's bench/run.py.
cd "$(dirname "$0")/../../.." && tar -xJf devrun23/b3.tar.xz
source .bundle/env.sh
export PATH=$PWD/.bundle/bin:$PATH
H=(python3 bench/run.py --gnf .bundle/bin/gnf --out $OUT/bench)
timeout 160 "${H[@]}" rings 2>&1 | tail -3
timeout 100 "${H[@]}" tail-batching 2>&1 | tail -3
timeout 120 "${H[@]}" writeback --trial-s 5 2>&1 | tail -3
timeout 100 "${H[@]}" one-way 2>&1 | tail -3
cd $OUT/bench && for d in */; do [ -d "$d/trials" ] && tar -cJf "$d/trials.tar.xz" -C "$d" trials && rm -rf "$d/trials"; done
cd $OUT && tar -cf reports.tar bench && rm -rf bench && ls -la
