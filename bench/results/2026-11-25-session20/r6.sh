#!/bin/bash
cd "$(dirname "$0")/.." && tar -xJf devrun20/b2.tar.xz && mkdir -p v && tar -xJf devrun20/v.tar.xz -C v
source devrun20/common.sh
for b in cur g2 g4; do
  echo "== $b" | tee -a $S
  timeout -k 5 60 v/esp-$b --cpu-seconds 0.01 --algorithm aes-128-gcm --algorithm aes-256-gcm --algorithm aes-128-cbc+hmac-sha1-96 --size 1420 --size imix --json $R/esp-$b.json 2>&1 | grep -E "gcm|cbc" | tee -a $S
done
echo "== old" | tee -a $S
timeout -k 5 100 v/esp-old --cpu-seconds 0.01 --json $R/esp-old.json 2>&1 | grep -E "gcm|cbc" | grep -E " 1420 | imix " | tee -a $S
cd $O && tar -cJf results.tar.xz r && rm -rf r
