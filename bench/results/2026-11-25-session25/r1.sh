#!/bin/bash
# Session 25 run 1, issue 11: bypass kernels built per NF kind for every kind but IPsec (434098e), as
# gnf, against gnf-base (4aa00db: only l2fwd chains had a build of their own), side by side with
# the router (configs/l3fwd-bench.toml: l3fwd) and the NIDS (configs/nids-bench.toml: nids + l2fwd,
# the build without IPsec); l2fwd at 48 and 64 rings near the 40 Mpps goal; latency traces; then
# scripts/gpu-tests.sh's tests stage.
cd "$(dirname "$0")/../../.." && tar -xJf devrun25/b1.tar.xz
source bench/results/2026-11-25-session22/common.sh
C="--speed 100 --nic-threads 8 --load 1 --path bypass --queues 16"
T="--speed 100 --path bypass --nic-threads 11 --size 64"
for g in gnf-base gnf; do
  export GNF=$g
  B $g-l3-q16-rt $C --size 64 --config configs/l3fwd-bench.toml
  B $g-l3-q48-20M $T --queues 48 --rate-pps 20000000 --config configs/l3fwd-bench.toml
  B $g-l3-q48-30M $T --queues 48 --rate-pps 30000000 --config configs/l3fwd-bench.toml
  B $g-nids-q16-rt $C --size 300 --config configs/nids-bench.toml
  B $g-l2-q16-rt $C --size 64
done
export GNF=gnf
for q in 48 64; do for r in 37 40 44; do B gnf-l2-q$q-${r}M $T --queues $q --rate-pps ${r}000000; done; done
for t in found agent admit; do GNF_TRACE_HANDOVERS=$t B gnf-l2-q16-rx-$t $C --size 64 --one-way rx; done
B gnf-l2-q16-rx $C --size 64 --one-way rx
B gnf-l2-q16-tx72 $C --size 72 --one-way tx
unset GNF
cd $O && tar -cJf results.tar.xz r summary.txt && rm -rf r && cd - >/dev/null
bash scripts/gpu-tests.sh $OUT/tests .bundle tests 2>&1 | tail -30
cd $OUT && rm -f tests/*.pcap && tar -cJf tests.tar.xz tests && rm -rf tests
