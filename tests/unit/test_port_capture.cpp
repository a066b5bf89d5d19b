// A port's capture into a pcap file (path/port_capture.h), on the NIC model driven step by step:
// what the port receives and sends is written whole, `max` ends it, and misuse is refused.
#include <gtest/gtest.h>
#include <pcap/pcap.h>

#include <algorithm>
#include <string>
#include <vector>

#include "harness.h"
#include "path/port_capture.h"
#include "util/error.h"

namespace gnf::test {
namespace {

std::vector<std::vector<uint8_t>> frames_of(int n) {
  std::vector<std::vector<uint8_t>> frames;
  for (int i = 0; i < n; ++i) frames.push_back(udp_frame(64 + uint32_t(i % 200), uint16_t(1000 + i), uint32_t(i)));
  return frames;
}

std::vector<std::vector<uint8_t>> read_pcap(const std::string& file) {
  char error[PCAP_ERRBUF_SIZE];
  pcap_t* p = pcap_open_offline_with_tstamp_precision(file.c_str(), PCAP_TSTAMP_PRECISION_NANO, error);
  EXPECT_NE(p, nullptr) << error;
  std::vector<std::vector<uint8_t>> records;
  pcap_pkthdr* header;
  const u_char* data;
  while (p && pcap_next_ex(p, &header, &data) == 1) {
    EXPECT_EQ(header->caplen, header->len);
    records.emplace_back(data, data + header->caplen);
  }
  if (p) pcap_close(p);
  return records;
}

TEST(PortCapture, WritesWhatThePortReceivesAndSendsWhole) {
  const auto frames = frames_of(300);
  Rig rig(std::make_unique<VectorSource>(frames), nic::PortOptions{}, driver::DriverOptions{});
  path::PortCaptures captures({rig.port});
  const std::string file = ::testing::TempDir() + "port_capture_both.pcap";
  captures.start(0, file, true, true, 0);
  rig.run_to_completion();
  const path::CaptureResult r = captures.stop(0);
  EXPECT_EQ(r.port, "port0");
  EXPECT_EQ(r.rx_frames, frames.size());
  EXPECT_EQ(r.tx_frames, rig.sink.frames.size());
  EXPECT_EQ(rig.sink.frames.size(), frames.size());  // l2fwd reflects every frame: tx is captured too
  EXPECT_EQ(r.capture_dropped, 0u);
  EXPECT_FALSE(r.reached_max);
  std::vector<std::vector<uint8_t>> expected = frames;
  expected.insert(expected.end(), rig.sink.frames.begin(), rig.sink.frames.end());
  std::vector<std::vector<uint8_t>> written = read_pcap(file);
  std::sort(expected.begin(), expected.end());
  std::sort(written.begin(), written.end());
  EXPECT_EQ(written, expected);
}

TEST(PortCapture, MaxEndsTheCaptureAfterTheFirstFramesOfTheSideAskedFor) {
  const auto frames = frames_of(200);
  Rig rig(std::make_unique<VectorSource>(frames), nic::PortOptions{}, driver::DriverOptions{});
  path::PortCaptures captures({rig.port});
  const std::string file = ::testing::TempDir() + "port_capture_max.pcap";
  captures.start(0, file, true, false, 50);
  rig.run_to_completion();
  const path::CaptureResult r = captures.stop(0);
  EXPECT_EQ(r.rx_frames, 50u);
  EXPECT_EQ(r.tx_frames, 0u);
  EXPECT_TRUE(r.reached_max);
  EXPECT_EQ(read_pcap(file), std::vector<std::vector<uint8_t>>(frames.begin(), frames.begin() + 50));
}

TEST(PortCapture, MisuseIsRefusedWithTheReason) {
  Rig rig(std::make_unique<VectorSource>(frames_of(1)), nic::PortOptions{}, driver::DriverOptions{});
  path::PortCaptures captures({rig.port});
  EXPECT_EQ(captures.find_port("port0"), 0u);
  EXPECT_EQ(captures.find_port("0"), 0u);
  EXPECT_FALSE(captures.find_port("1"));
  EXPECT_FALSE(captures.find_port("port9"));
  EXPECT_THROW(captures.stop(0), UserError);
  EXPECT_THROW(captures.start(0, "/nonexistent/dir/x.pcap", true, true, 0), UserError);
  captures.start(0, ::testing::TempDir() + "port_capture_twice.pcap", true, true, 0);
  EXPECT_THROW(captures.start(0, ::testing::TempDir() + "port_capture_again.pcap", true, true, 0), UserError);
  captures.stop(0);
  captures.start(0, ::testing::TempDir() + "port_capture_again.pcap", true, true, 0);  // once stopped, again
}

}  // namespace
}  // namespace gnf::test
