#!/bin/bash
cd "$(dirname "$0")/.."
export PATH=$PWD/devrun20:$PATH
for mb in 2 3 4; do timeout -k 5 60 probe_mb$mb 262144 2>&1; done
