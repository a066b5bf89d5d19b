#!/bin/bash
# Session 24 run 7, issue 11: a burst's packet refs in the bypass kernel's shared memory while its NF
# chain runs (before: in the plane's NfShare in GPU memory, an L2 round trip each way), as
# gnf, against gnf-r3 (eed6a98, runs 3-5's build), side by side; then scripts/gpu-tests.sh's tests stage.
cd "$(dirname "$0")/../../.." && tar -xJf devrun24/b5.tar.xz
source bench/results/2026-11-25-session22/common.sh
C="--speed 100 --nic-threads 8 --load 1 --path bypass --queues 16"
T="--speed 100 --path bypass --nic-threads 11"
for rep in 1 2; do
  for g in gnf-r3 gnf; do
    export GNF=$g
    B $g-q16-rt-$rep $C --size 64
    B $g-q16-rt1500-$rep $C --size 1500
    B $g-q16-rx-$rep $C --size 64 --one-way rx
    B $g-q48-28M-$rep $T --size 64 --queues 48 --rate-pps 28000000
    B $g-q48-33M-$rep $T --size 64 --queues 48 --rate-pps 33000000
  done
done
unset GNF
cd $O && tar -cJf results.tar.xz r summary.txt && rm -rf r && cd - >/dev/null
bash scripts/gpu-tests.sh $OUT/tests .bundle tests 2>&1 | tail -30
cd $OUT && rm -f tests/*.pcap && tar -cJf tests.tar.xz tests && rm -rf tests
