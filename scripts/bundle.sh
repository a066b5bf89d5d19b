#!/usr/bin/env bash
# Packs what the GPU machine needs into a self-contained folder: the binaries built here, the
# shared libraries they load that a bare Ubuntu 24.04 + CUDA 13 image lacks, configs, test data
# and the bench scripts. Usage: scripts/bundle.sh [build-dir] [out-dir]   (default: build .bundle)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
out="${2:-.bundle}"
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
for b in gnf tests/gnf_unit_tests tests/gnf_gpu_tests bench/lookup/gnf-lookup-bench bench/pcie/gnf-pcie-probe bench/host/gnf-jitter-probe bench/esp/gnf-esp-bench bench/nids/gnf-nids-bench; do
  [ -x "$build/$b" ] && cp "$build/$b" "$out/bin/"
done
# Debug info stays here; the device tool carries 64 MiB at most.
strip --strip-debug "$out"/bin/*
# Everything ldd resolves except the C/C++ runtime, which the target has in newer versions, and
# OpenSSL's libcrypto/libssl (3.x keeps its ABI): the target's own is the CPU baseline an operator
# there would run, and this machine's build was 1.3-1.8x slower on the H100 host per ESP packet
# (bench/results/2026-11-25-session20, run 11).
for b in "$out"/bin/*; do
  ldd "$b" | awk '/=> \// {print $3}'
done | sort -u | grep -Ev '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*|libstdc\+\+|libgcc_s|libcrypto|libssl)\.so' |
  while read -r lib; do cp -L "$lib" "$out/lib/"; done
cp -r configs bench "$out/"
rm -rf "$out/bench/results"  # earlier runs' reports: not needed there, and they would eat the 64 MiB
mkdir -p "$out/tests" && cp -r tests/data tests/conformance "$out/tests/"
rm -rf "$out/tests/conformance/__pycache__"
# libxdp loads its XDP programs from object files at run time (LIBXDP_OBJECT_PATH).
bpf=/usr/lib/x86_64-linux-gnu/bpf
if ls "$bpf"/xsk_def_xdp_prog*.o >/dev/null 2>&1; then mkdir -p "$out/lib/bpf" && cp "$bpf"/*.o "$out/lib/bpf/"; fi
# The RouteViews tables the router's GPU tests and gnf-lookup-bench read (python3-pyasn's here; the
# GPU machine has no pyasn).
mkdir -p "$out/data"
for f in ipasn_20140513.dat.gz ipasn6_20151101.dat.gz; do
  if [ -f "/usr/lib/python3/dist-packages/data/$f" ]; then
    cp "/usr/lib/python3/dist-packages/data/$f" "$out/data/"
  else
    echo "bundle.sh: /usr/lib/python3/dist-packages/data/$f is missing (python3-pyasn): not bundled" >&2
  fi
done
cat > "$out/env.sh" <<'EOS'
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$here/bin:$PATH"
export GNF_ROUTEVIEWS_DIR="$here/data"
export LIBXDP_OBJECT_PATH="$here/lib/bpf"
EOS
du -sh "$out"
