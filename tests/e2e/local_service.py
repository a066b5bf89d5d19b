"""Services on gnf's own addresses and their clients, for test_router_local_netns.py: run it inside
a network namespace (`ip netns exec NS python3 local_service.py COMMAND ...`); it prints JSON lines.

  tcp-server ADDRESS PORT COUNT    an SSH-like service: to each of COUNT connections it sends a banner
                                   line, reads a line and answers it uppercased; prints {"listening"}
                                   first, then {"served": COUNT}
  tcp-client ADDRESS PORT LINE     connects, reads the banner, sends LINE: {"banner", "reply"}
  udp-server ADDRESS PORT COUNT    answers COUNT datagrams, each uppercased, to their senders
  udp-client ADDRESS PORT TEXT     sends TEXT (again each 0.2 s until answered, 5 s at most): {"reply"}

Addresses of either family, link-local ones with their interface (fe80::1%west); the servers bind with IP_FREEBIND, so they may start before the address
is usable (an IPv6 one still tentative).
"""
import json
import socket
import sys
import time

BANNER = b"SSH-2.0-gnf-local-delivery-test\r\n"
IP_FREEBIND = 15  # linux/in.h; works on IPv6 sockets too
TIMEOUT_S = 10


def family_of(address):
    return socket.AF_INET6 if ":" in address else socket.AF_INET


def server_socket(address, port, kind):
    sock = socket.socket(family_of(address), kind)
    sock.setsockopt(socket.SOL_IP, IP_FREEBIND, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(socket.getaddrinfo(address, port, family_of(address), kind)[0][4])  # "fe80::1%west": its scope
    sock.settimeout(TIMEOUT_S)
    return sock


def read_line(conn):
    line = b""
    while not line.endswith(b"\n"):
        chunk = conn.recv(1024)
        if not chunk:
            break
        line += chunk
    return line


def tcp_server(address, port, count):
    sock = server_socket(address, port, socket.SOCK_STREAM)
    sock.listen(count)
    print(json.dumps({"listening": port}), flush=True)
    for _ in range(count):
        conn, _ = sock.accept()
        with conn:
            conn.settimeout(TIMEOUT_S)
            conn.sendall(BANNER)
            conn.sendall(read_line(conn).upper())
    return {"served": count}


def tcp_client(address, port, line):
    with socket.create_connection((address, port), timeout=TIMEOUT_S) as conn:
        banner = read_line(conn)
        conn.sendall(line.encode() + b"\n")
        reply = read_line(conn)
    return {"banner": banner.decode(errors="replace"), "reply": reply.decode(errors="replace")}


def udp_server(address, port, count):
    sock = server_socket(address, port, socket.SOCK_DGRAM)
    print(json.dumps({"listening": port}), flush=True)
    for _ in range(count):
        data, sender = sock.recvfrom(65536)
        sock.sendto(data.upper(), sender)
    return {"served": count}


def udp_client(address, port, text):
    sock = socket.socket(family_of(address), socket.SOCK_DGRAM)
    sock.connect((address, port))
    sock.settimeout(0.2)
    end = time.monotonic() + 5
    while time.monotonic() < end:
        sock.send(text.encode())
        try:
            return {"reply": sock.recv(65536).decode(errors="replace")}
        except (socket.timeout, ConnectionRefusedError):
            continue
    return {"reply": None}


def main(argv):
    command, address, port, arg = argv[1], argv[2], int(argv[3]), argv[4]
    commands = {"tcp-server": lambda: tcp_server(address, port, int(arg)),
                "tcp-client": lambda: tcp_client(address, port, arg),
                "udp-server": lambda: udp_server(address, port, int(arg)),
                "udp-client": lambda: udp_client(address, port, arg)}
    print(json.dumps(commands[command]()), flush=True)


if __name__ == "__main__":
    main(sys.argv)
