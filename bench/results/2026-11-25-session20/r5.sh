#!/bin/bash
cd "$(dirname "$0")/.." && tar -xJf devrun20/b2.tar.xz && mkdir -p v && tar -xJf devrun20/v.tar.xz -C v
source devrun20/common.sh
for b in v/esp-old .bundle/bin/gnf-esp-bench v/esp-mb3full v/esp-mb2 v/esp-mb2full; do
  echo "== $b" | tee -a $S
  timeout -k 5 60 $b --cpu-seconds 0.01 --json $R/$(basename $b).json 2>&1 | grep -E "gcm|cbc" | grep -E " 1420 | imix " | tee -a $S
done
cd $O && tar -cJf results.tar.xz r && rm -rf r
