#!/usr/bin/env bash
# Installs what gnf needs to build and test on Debian 12, skipping what is already there.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config git
  libpcap-dev libcli11-dev libtomlplusplus-dev libspdlog-dev libfmt-dev nlohmann-json3-dev
  prometheus-cpp-dev  # gnf run's metrics endpoint (app/metrics.h)
  libxdp-dev libbpf-dev  # AF_XDP links (without them gnf builds with AF_PACKET links only)
  iproute2  # `ip netns` and veth pairs for the Linux-link tests
  iputils-ping traceroute iperf3 ethtool  # the router between namespaces (tests/e2e/test_router_netns.py)
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-scapy python3-pytest python3-matplotlib
  clang libclang-rt-14-dev
  dpdk-dev python3-pyasn  # the LPM oracle (tests/oracle): DPDK's rte_lpm and a RouteViews table
  libmnl-dev  # netlink sync (ctl/netlink_sync.h)
  libssl-dev  # OpenSSL 3: the CPU's IPsec ciphers (nf/ipsec/)
  libipsec-mb-dev  # intel-ipsec-mb: the CPU's multi-buffer ESP cipher, the GPU's peer in bench/esp
  python3-cryptography-vectors  # NIST CAVP and RFC vectors the IPsec ciphers are tested against
  libhyperscan-dev sagan-rules modsecurity-crs  # the nids automaton's oracle; real rules (tests/unit/test_nids_sagan.cpp)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
