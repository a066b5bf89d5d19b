// What the AF_PACKET link does to one frame the kernel hands it, for the scapy oracle
// (test_gso_vs_scapy.py): stdin holds a virtio_net_hdr (10 bytes, host byte order) and the frame.
// A GSO header: the frame is segmented (wire/gso.h); otherwise a NEEDS_CSUM checksum is completed
// (wire/offload.h). stdout: each resulting frame as a 4-byte little-endian length and its bytes.
// Exit 0; 3 if gnf refuses the frame (bad metadata or headers), 4 if it has too many segments.
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <vector>

#include "wire/gso.h"
#include "wire/offload.h"

using namespace gnf::wire;

namespace {

void put(const uint8_t* frame, uint32_t len) {
  uint8_t prefix[4] = {uint8_t(len), uint8_t(len >> 8), uint8_t(len >> 16), uint8_t(len >> 24)};
  std::fwrite(prefix, 1, 4, stdout);
  std::fwrite(frame, 1, len, stdout);
}

}  // namespace

int main() {
  std::vector<uint8_t> in;
  for (int c; (c = std::getchar()) != EOF;) in.push_back(uint8_t(c));
  VnetHeader vnet;
  if (in.size() < VnetHeader::kBytes || !parse_vnet_header(in.data(), vnet)) return 3;
  std::vector<uint8_t> frame(in.begin() + VnetHeader::kBytes, in.end());
  if (vnet.gso != VnetHeader::Gso::None) {
    GsoSegments out;
    GsoResult result = gso_segment(frame.data(), uint32_t(frame.size()), vnet, out);
    if (result != GsoResult::Ok) return result == GsoResult::TooMany ? 4 : 3;
    for (auto span : out.frames) put(out.bytes.data() + span.offset, span.len);
    return 0;
  }
  if (vnet.needs_csum && !complete_checksum_at(frame.data(), uint32_t(frame.size()), vnet.csum_start, vnet.csum_offset))
    return 3;
  put(frame.data(), uint32_t(frame.size()));
  return 0;
}
