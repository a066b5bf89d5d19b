"""What a host at the far end of a veth does, for test_linux_link.py: run it inside a network
namespace (`ip netns exec NS python3 netns_peer.py COMMAND ...`); it prints one JSON line.

  ping HOST COUNT INTERVAL_S          ICMP echo (a raw socket, as ping does): sent, received, rtt_ms
  udp-server PORT SECONDS             echoes every UDP datagram back to its sender: echoed
  udp-ping HOST PORT COUNT SIZE       UDP request/response through udp-server: sent, received, rtt_ms
  tx-checksum IFNAME on|off           the interface's transmit checksum offload (ETHTOOL_STXCSUM)
  echo-requests IFNAME COUNT SECONDS  after a {"listening"} line: the ICMP / ICMPv6 echo requests the
                                      interface receives (up to COUNT): src, dst, ttl (hop limit)

Plain sockets only, so that no ping or ethtool binary need be installed.
"""
import array
import fcntl
import json
import os
import select
import socket
import struct
import sys
import time

REPLY_TIMEOUT_S = 1.0


def internet_checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def wait_for(sock, matches, deadline):
    """Reads from `sock` until a datagram satisfies `matches` (True) or the deadline passes (False)."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([sock], [], [], left)[0]:
            return False
        if matches(sock.recv(65536)):
            return True


def ping(host, count, interval_s):
    sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    ident = os.getpid() & 0xffff
    rtts = []
    for seq in range(count):
        body = b"gnf-link-test" * 4
        header = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
        packet = struct.pack("!BBHHH", 8, 0, internet_checksum(header + body), ident, seq) + body

        def is_reply(data, seq=seq):
            icmp = data[(data[0] & 0x0f) * 4:]  # a raw socket hands over the IP header too
            kind, _, _, reply_ident, reply_seq = struct.unpack("!BBHHH", icmp[:8])
            return kind == 0 and reply_ident == ident and reply_seq == seq

        sent_at = time.monotonic()
        sock.sendto(packet, (host, 0))
        if wait_for(sock, is_reply, sent_at + REPLY_TIMEOUT_S):
            rtts.append((time.monotonic() - sent_at) * 1e3)
        time.sleep(max(0.0, interval_s - (time.monotonic() - sent_at)))
    return {"sent": count, "received": len(rtts), "rtt_ms": rtts}


def udp_server(port, seconds):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("0.0.0.0", port))
    print(json.dumps({"listening": port}), flush=True)
    echoed = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if select.select([sock], [], [], 0.1)[0]:
            data, peer = sock.recvfrom(65536)
            sock.sendto(data, peer)
            echoed += 1
    return {"echoed": echoed}


def udp_ping(host, port, count, size):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.connect((host, port))
    rtts = []
    for i in range(count):
        message = struct.pack("!I", i) + bytes(range(256)) * (size // 256) + bytes(size % 256)
        sent_at = time.monotonic()
        sock.send(message)
        try:
            if wait_for(sock, lambda data: data == message, sent_at + REPLY_TIMEOUT_S):
                rtts.append((time.monotonic() - sent_at) * 1e3)
        except ConnectionRefusedError:  # an ICMP port unreachable: nobody listening (yet)
            pass
    return {"sent": count, "received": len(rtts), "rtt_ms": rtts}


def tx_checksum(ifname, on):
    SIOCETHTOOL, ETHTOOL_STXCSUM = 0x8946, 0x17
    value = array.array("I", [ETHTOOL_STXCSUM, 1 if on else 0])  # struct ethtool_value
    ifreq = struct.pack("16sP", ifname.encode(), value.buffer_info()[0]) + bytes(16)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        fcntl.ioctl(sock.fileno(), SIOCETHTOOL, ifreq)
    return {"interface": ifname, "tx_checksum": on}


def echo_requests(ifname, count, seconds):
    ETH_P_ALL = 0x0003
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sock.bind((ifname, 0))
    print(json.dumps({"listening": ifname}), flush=True)
    seen = []
    deadline = time.monotonic() + seconds

    def note(frame):
        kind, ip = struct.unpack("!H", frame[12:14])[0], frame[14:]
        if kind == 0x0800 and ip[9] == 1 and ip[(ip[0] & 0x0f) * 4] == 8:
            seen.append({"src": socket.inet_ntop(socket.AF_INET, ip[12:16]),
                         "dst": socket.inet_ntop(socket.AF_INET, ip[16:20]), "ttl": ip[8]})
        elif kind == 0x86dd and ip[6] == 58 and ip[40] == 128:
            seen.append({"src": socket.inet_ntop(socket.AF_INET6, ip[8:24]),
                         "dst": socket.inet_ntop(socket.AF_INET6, ip[24:40]), "ttl": ip[7]})
        return len(seen) == count

    wait_for(sock, note, deadline)
    return {"seen": seen}


def main(argv):
    command, args = argv[1], argv[2:]
    if command == "ping":
        result = ping(args[0], int(args[1]), float(args[2]))
    elif command == "udp-server":
        result = udp_server(int(args[0]), float(args[1]))
    elif command == "udp-ping":
        result = udp_ping(args[0], int(args[1]), int(args[2]), int(args[3]))
    elif command == "tx-checksum":
        result = tx_checksum(args[0], args[1] == "on")
    elif command == "echo-requests":
        result = echo_requests(args[0], int(args[1]), float(args[2]))
    else:
        sys.exit("netns_peer.py: unknown command %r" % command)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main(sys.argv)
