#!/usr/bin/env bash
# Session 13 device run 15: threads_pinned derived from the threads' cores, on the 16-core machine.
set -u
rm -rf .bundle && tar xJf devrun/bundle.tar.xz
source devrun/common.sh
B cpu-1pct --path cpu --speed 100 --queues 4 --nic-threads 2 --load 1
B cpu-nopin --path cpu --speed 100 --queues 4 --nic-threads 2 --load 1 --no-pin-threads
for n in cpu-1pct cpu-nopin; do python3 -c "import json; print('$n', 'threads_pinned', json.load(open('$R/$n.json'))['trial']['threads_pinned'])" | tee -a $S; done
