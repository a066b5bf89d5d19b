#!/usr/bin/env bash
# Configures and builds gnf into ./build (CUDA targets too when nvcc is found).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
ninja -C build
