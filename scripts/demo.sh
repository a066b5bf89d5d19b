#!/usr/bin/env bash
# The README's first command: install what is missing, build, and run the bundled default
# (sample.pcap through a softnic port, the cpu path and l2fwd, into build/l2fwd-out.pcap).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build/gnf run --config configs/l2fwd-pcap.toml --json build/l2fwd-summary.json
echo "demo: wrote build/l2fwd-out.pcap and build/l2fwd-summary.json"
