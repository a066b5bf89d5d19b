#!/bin/bash
# Builds /work/main/.netns-gpu (untracked there; carried to the device with .bundle): iproute2's ip and
# ss, ping, traceroute, iperf3 from this Debian 12 machine with their non-glibc libraries (run
# through the device's own ld.so with --library-path, so nothing they exec inherits the libraries),
# pytest 9.2 and its pure-Python dependencies, and this branch's tests/e2e and configs/l3fwd-veth.toml.
set -e
D=/work/main/.netns-gpu; WT=/work/wt-netns-gpu
mkdir -p $D/real $D/lib $D/bin $D/py $D/tests $D/configs
pip download --no-deps --only-binary=:all: --python-version 3.12 --platform any -d /tmp/netns-whl \
    pytest pluggy iniconfig packaging pygments
for w in /tmp/netns-whl/*.whl; do unzip -q -o $w -d $D/py; done
for b in /usr/sbin/ip /usr/bin/ss /usr/bin/ping /usr/bin/iperf3; do cp -L $b $D/real/; done
cp -L /usr/bin/traceroute.db $D/real/traceroute
for b in $D/real/*; do ldd $b | awk '$3 ~ /^\//{print $3}'; done | sort -u |
    grep -v -E 'libc\.so|libm\.so|libresolv|ld-linux' | while read l; do cp -L $l $D/lib/; done
for t in ip ss ping traceroute iperf3; do
  printf '#!/bin/sh\nD="$(dirname "$(readlink -f "$0")")/.."\nexec /lib64/ld-linux-x86-64.so.2 --library-path "$D/lib" "$D/real/$(basename "$0")" "$@"\n' > $D/bin/$t
  chmod +x $D/bin/$t
done
rm -rf $D/tests/e2e; cp -r $WT/tests/e2e $D/tests/; cp $WT/configs/l3fwd-veth.toml $D/configs/
cp $WT/bench/results/2026-11-23-h100-session9/netns-bypass/run.sh $D/run.sh
