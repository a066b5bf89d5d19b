// libFuzzer target: what the AF_PACKET link does with a frame the kernel hands it (wire/gso.h,
// wire/offload.h): a struct virtio_net_hdr, then the frame.
//
// Input layout: 10 bytes of virtio_net_hdr (host byte order, as the kernel writes it), then the
// frame (up to 64 KB). A header gnf does not know is refused; a GSO type is segmented; otherwise a
// NEEDS_CSUM checksum is completed where the header says, as the link does.
//
// Invariants; a broken one prints what broke and traps, so libFuzzer records the input as a crash:
//  - segments lie within the output, each with room for the Ethernet minimum; there is at least
//    one and at most kMaxGsoSegments; all but the last have the first's length, the last no more,
//    and none is longer than the super-frame; each keeps the super-frame's MAC addresses;
//  - SuperFrameBuilder takes the segments back as far as they continue one another; a super-frame
//    of two or more, cut again with the header it wrote, gives back those very segments; it never
//    writes more than its room; the input frame itself goes in too (it parses whatever it gets);
//  - a completed checksum changes the two bytes of its field and nothing else, and the sum from
//    csum_start to the end plus what the field held before (the pseudo-header's sum) is all ones,
//    as a receiver's check needs.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_support.h"
#include "wire/checksum.h"
#include "wire/frame_size.h"
#include "wire/gso.h"
#include "wire/offload.h"

namespace {

using namespace gnf::wire;
using gnf::fuzz::fail;

void check_segments(const std::vector<uint8_t>& frame, const GsoSegments& out) {
  size_t n = out.frames.size();
  if (n == 0 || n > kMaxGsoSegments) fail("segment count", n, kMaxGsoSegments);
  for (size_t i = 0; i < n; ++i) {
    GsoSegments::Span s = out.frames[i];
    if (size_t(s.offset) + std::max(s.len, kMinFrameBytes) > out.bytes.size()) fail("segment outside the output", i, s.offset);
    if (s.len > frame.size()) fail("segment longer than the super-frame", s.len, frame.size());
    if (i + 1 < n && s.len != out.frames[0].len) fail("a middle segment of another length", i, s.len);
    if (i + 1 == n && s.len > out.frames[0].len) fail("the last segment longer than the first", s.len, out.frames[0].len);
    if (s.len < 12 || std::memcmp(out.bytes.data() + s.offset, frame.data(), 12) != 0) fail("MAC addresses changed", i);
  }
}

void check_rebuilt(const GsoSegments& segments) {
  constexpr uint32_t kRoom = 65600;
  SuperFrameBuilder builder(kRoom);
  size_t taken = 0;
  while (taken < segments.frames.size() &&
         builder.add(segments.bytes.data() + segments.frames[taken].offset, segments.frames[taken].len))
    ++taken;
  if (builder.segments() != taken) fail("builder count", builder.segments(), taken);
  if (taken == 0) return;
  std::vector<uint8_t> out(VnetHeader::kBytes + kRoom);
  uint32_t n = builder.finish(out.data());
  if (n > out.size()) fail("builder wrote past its room", n, out.size());
  if (taken == 1) return;
  VnetHeader vnet;
  if (!parse_vnet_header(out.data(), vnet)) fail("the builder's header does not parse");
  GsoSegments again;
  if (gso_segment(out.data() + VnetHeader::kBytes, n - uint32_t(VnetHeader::kBytes), vnet, again) != GsoResult::Ok)
    fail("a built super-frame does not segment");
  if (again.frames.size() != taken) fail("segments of a built super-frame", again.frames.size(), taken);
  for (size_t i = 0; i < taken; ++i) {
    GsoSegments::Span a = again.frames[i], b = segments.frames[i];
    if (a.len != b.len || std::memcmp(again.bytes.data() + a.offset, segments.bytes.data() + b.offset, a.len) != 0)
      fail("a segment of a built super-frame differs", i);
  }
}

void check_completed(const std::vector<uint8_t>& before, const std::vector<uint8_t>& after, const VnetHeader& v) {
  size_t field = size_t(v.csum_start) + v.csum_offset;
  for (size_t i = 0; i < after.size(); ++i)
    if (after[i] != before[i] && i != field && i != field + 1) fail("a byte outside the field changed", i, field);
  uint64_t pseudo = uint32_t(before[field]) << 8 | before[field + 1];
  uint16_t verify = checksum_finish(checksum_add(pseudo, after.data() + v.csum_start, after.size() - v.csum_start));
  if (verify != 0) fail("the completed checksum does not verify", verify);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < VnetHeader::kBytes) return 0;
  VnetHeader vnet;
  if (!parse_vnet_header(data, vnet)) return 0;
  std::vector<uint8_t> frame(data + VnetHeader::kBytes, data + std::min<size_t>(size, VnetHeader::kBytes + 65553));
  {
    SuperFrameBuilder builder(9014);
    builder.add(frame.data(), uint32_t(frame.size()));
    builder.add(frame.data(), uint32_t(frame.size()));
    std::vector<uint8_t> out(VnetHeader::kBytes + 9014);
    if (builder.segments() > 1) fail("the same frame taken twice");
    builder.finish(out.data());
  }
  if (vnet.gso != VnetHeader::Gso::None) {
    GsoSegments out;
    if (gso_segment(frame.data(), uint32_t(frame.size()), vnet, out) == GsoResult::Ok) {
      check_segments(frame, out);
      check_rebuilt(out);
    }
    return 0;
  }
  if (!vnet.needs_csum) return 0;
  std::vector<uint8_t> after = frame;
  if (complete_checksum_at(after.data(), uint32_t(after.size()), vnet.csum_start, vnet.csum_offset))
    check_completed(frame, after, vnet);
  else if (after != frame)
    fail("a refused checksum changed the frame");
  return 0;
}
