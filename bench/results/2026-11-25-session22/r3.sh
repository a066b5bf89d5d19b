#!/bin/bash
# Session 22 run 3, issue 11: where a frame's latency goes on bypass, continued. gnf = run 2's build
# with GNF_TRACE_HANDOVERS=found (the agent's poll time) and gnf-pcie-probe's ping-pong; gnf-base = ff74a8f.
cd "$(dirname "$0")/../../.." && tar -xJf devrun22/m3.tar.xz
source bench/results/2026-11-25-session22/common.sh
gnf-pcie-probe ping-pong 100000 | tee $O/ping-pong.jsonl
C="--speed 100 --nic-threads 8 --load 1 --path bypass"
export GNF=gnf
GNF_TRACE_HANDOVERS=agent B gnf-q16-rx-agent $C --size 64 --queues 16 --one-way rx
GNF_TRACE_HANDOVERS=found B gnf-q16-rx-found $C --size 64 --queues 16 --one-way rx
GNF_TRACE_HANDOVERS=admit,found B gnf-q16-rx-admit-found $C --size 64 --queues 16 --one-way rx
GNF_TRACE_HANDOVERS=found B gnf-q1-rx-found $C --size 64 --queues 1 --one-way rx
for g in gnf-base gnf; do
  export GNF=$g
  B $g-q16-tx72 $C --size 72 --queues 16 --one-way tx
  B $g-q16-rx72 $C --size 72 --queues 16 --one-way rx
  B $g-q16-rt72 $C --size 72 --queues 16
done
grep -H "trace:" $R/*.err | tee -a $S
cd $O && tar -cJf results.tar.xz r && rm -rf r
