"""Frame sizes and Ethernet line rates, as RFC 2544 and the papers quote them.

Sizes include the 4-byte FCS (64 B is the smallest Ethernet frame). On the wire every frame also
costs 8 B of preamble + start delimiter and 12 B of inter-frame gap: layer 1 is size + 20 bytes.
"""

L1_OVERHEAD_BYTES = 20

# RFC 2544 section 9.1's sizes plus 1280 (IPv6's minimum MTU + headers) and IMIX.
RFC2544_SIZES = (64, 128, 256, 512, 1024, 1280, 1518)

# "Simple IMIX": 7 : 4 : 1 frames of 64 / 594 / 1518 B (the generator's --imix).
IMIX = ((64, 7), (594, 4), (1518, 1))
IMIX_LABEL = "imix"


def mean_frame_bytes(size):
    """Mean frame size (with FCS) of `size`: a byte count, or "imix"."""
    if size == IMIX_LABEL:
        return sum(s * n for s, n in IMIX) / sum(n for _, n in IMIX)
    return float(size)


def l1_bytes(size):
    """Mean bytes a frame of `size` occupies on the wire."""
    return mean_frame_bytes(size) + L1_OVERHEAD_BYTES


def line_rate_pps(speed_gbps, size):
    """Frames per second that fill a port of `speed_gbps` (layer 1) with frames of `size`."""
    return speed_gbps * 1e9 / (8 * l1_bytes(size))


def gbps_l1(pps, size):
    return pps * 8 * l1_bytes(size) / 1e9


def gbps_l2(pps, size):
    return pps * 8 * mean_frame_bytes(size) / 1e9


def parse_sizes(text):
    """"64,128,imix" -> [64, 128, "imix"]; "all" -> every RFC 2544 size and IMIX."""
    if text.strip() == "all":
        return list(RFC2544_SIZES) + [IMIX_LABEL]
    sizes = []
    for item in text.split(","):
        item = item.strip().lower()
        if item == IMIX_LABEL:
            sizes.append(IMIX_LABEL)
            continue
        size = int(item)
        if not 64 <= size <= 9018:
            raise ValueError("frame size %d B is outside 64..9018 (sizes include the FCS)" % size)
        sizes.append(size)
    return sizes


def size_label(size):
    return "IMIX" if size == IMIX_LABEL else "%d B" % size
