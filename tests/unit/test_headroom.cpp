// Slot headroom ([driver] headroom): the rx descriptors point past it, the packet an NF sees starts
// there, a frame an NF moved leaves from where it now starts and its slot still comes home; an NF
// that prepends more than the headroom holds is refused, never writing outside the slot.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ctl/config.h"
#include "driver/queue_rings.h"
#include "harness.h"
#include "nf/packet.h"
#include "util/error.h"

using namespace gnf;
using gnf::test::plane_sum;
using gnf::test::Rig;
using gnf::test::VectorSource;

namespace {

// UDP/IPv4 frames whose IP header gives the packet's length (the ESP code reads it).
std::vector<std::vector<uint8_t>> frames(uint32_t count, uint32_t len) {
  std::vector<std::vector<uint8_t>> out;
  for (uint32_t i = 0; i < count; ++i) {
    out.push_back(test::udp_frame(len, uint16_t(1000 + i), i));
    out.back()[16] = uint8_t((len - 14) >> 8);
    out.back()[17] = uint8_t(len - 14);
  }
  return out;
}

driver::DriverOptions with_headroom(uint32_t headroom) {
  driver::DriverOptions d;
  d.rx_ring_size = d.tx_ring_size = 16;
  d.burst = 4;
  d.headroom = headroom;
  return d;
}

void expect_every_slot_in_one_place(const Rig& rig) {
  for (const auto& plane : rig.planes) {
    const driver::SlotAudit a = plane->audit();
    EXPECT_TRUE(a.consistent()) << "free " << a.free << " rx " << a.in_rx_rings << " tx " << a.in_tx_rings
                                << " capacity " << a.capacity << " duplicates " << a.duplicates;
  }
}

// A gateway that encrypts everything from port 0 (AES-128-GCM, IPv4 tunnel) and hands it to l2fwd,
// which sends it back out of port 0. The SA file is the running test's own.
std::vector<nf::NfSpec> encrypting_chain() {
  const std::filesystem::path sa = std::filesystem::path(testing::TempDir()) /
                                   (std::string(testing::UnitTest::GetInstance()->current_test_info()->name()) + ".sa");
  std::ofstream(sa) << "sa out 5 aead_algo aes-128-gcm aead_key "
                       "00:01:02:03:04:05:06:07:08:09:0a:0b:0c:0d:0e:0f:10:11:12:13 "
                       "mode ipv4-tunnel src 172.16.0.1 dst 172.16.0.2\n"
                       "sp ipv4 out esp protect 5 pri 1\n";
  nf::Params ipsec;
  ipsec.set("sa", nf::ParamValue{sa.string(), 0});
  ipsec.set("unprotected", nf::ParamValue{std::string("1"), 0});
  nf::Params l2fwd;
  l2fwd.set("mode", nf::ParamValue{std::string("reflect"), 0});
  return {nf::NfSpec{"ipsec", ipsec}, nf::NfSpec{"l2fwd", l2fwd}};
}

}  // namespace

TEST(Headroom, RxDescriptorsPointPastTheHeadroomAndTheDriverSendsFromWhereTheFrameStarts) {
  for (uint32_t headroom : {0u, 64u, 128u, 1024u}) {
    const driver::DriverOptions d = with_headroom(headroom).resolved(false);
    test::CollectSink sink;
    nic::Port port(nic::PortOptions{}, nullptr, &sink);
    driver::QueueRings rings({&port}, 0, d, mem::Domain::Host);
    driver::RxRingRef& rx = rings.rx(0);
    mem::SlotStackRef& pool = rings.pool(0);
    EXPECT_EQ(pool.slot_size, headroom + d.slot_size);
    // The NIC is told the buffer after the headroom, in whole KiB (SRRCTL.BSIZEPACKET).
    EXPECT_EQ(port.regs().rx[0].SRRCTL & 0x1F, d.slot_size / 1024);
    for (uint32_t i = 0; i < rx.entries; ++i) {
      ASSERT_EQ(rx.slots[i], pool.address_of(i)) << headroom;
      ASSERT_EQ(rx.descs[i].read.pkt_addr, pool.address_of(i) + headroom) << headroom;
    }

    // The NIC writes a 60-byte frame back into descriptor 0; the packet starts past the headroom,
    // and the descriptor is refilled with the next free slot's buffer.
    rx.descs[0].wb.upper.length = 60;
    rx.descs[0].wb.upper.status_error = nic::IXGBE_RXD_STAT_DD | nic::IXGBE_RXD_STAT_EOP;
    const uint64_t next_free = pool.peek(0);
    nf::PacketRef p;
    bool dry = false;
    ASSERT_EQ(driver::receive_burst(rx, pool, &p, 4, 0, 0, dry), 1u);
    EXPECT_EQ(reinterpret_cast<uint64_t>(p.data), pool.address_of(0) + headroom);
    EXPECT_EQ(p.headroom, headroom);
    EXPECT_EQ(p.tailroom, d.slot_size - 60);
    EXPECT_EQ(rx.descs[0].read.pkt_addr, next_free + headroom);

    // Moved back into its headroom, the frame is sent from its new start; its slot comes home.
    if (headroom) {
      ASSERT_TRUE(nf::packet_prepend(p, 64));
    }
    driver::TxRingRef& tx = rings.tx(0);
    nf::PacketRef* out[] = {&p};
    ASSERT_EQ(driver::send_burst(tx, out, 1, 0), 1u);
    EXPECT_EQ(tx.descs[0].read.buffer_addr, reinterpret_cast<uint64_t>(p.data));
    EXPECT_EQ(tx.slots[0], pool.address_of(0));
    const uint32_t free_before = pool.top;
    tx.descs[0].wb.status = nic::IXGBE_ADVTXD_STAT_DD;
    EXPECT_EQ(tx.reclaim(rings.pools(), 1), 1u);
    EXPECT_EQ(pool.top, free_before + 1);
    EXPECT_EQ(pool.address_of(pool.free_stack[pool.top - 1]), pool.address_of(0));
  }
}

TEST(Headroom, FramesCrossTheCpuPathByteForByteWhateverTheHeadroom) {
  for (uint32_t headroom : {0u, 64u, 128u, 1024u}) {
    const auto sent = frames(16 * 10, 1514);
    Rig rig(std::make_unique<VectorSource>(sent), nic::PortOptions{}, with_headroom(headroom));
    rig.run_to_completion();
    ASSERT_EQ(rig.sink.frames.size(), sent.size()) << headroom;
    for (size_t i = 0; i < sent.size(); ++i) ASSERT_EQ(rig.sink.frames[i], sent[i]) << headroom << " frame " << i;
    expect_every_slot_in_one_place(rig);
  }
}

TEST(Headroom, PrependMovesTheStartBackIntoTheHeadroomAndRefusesMore) {
  uint8_t slot[256] = {};
  nf::PacketRef p{slot + 128, 60, 0, 0, 0, nf::Verdict::Forward, nf::HostReason::Unspecified, 128, 68};
  EXPECT_TRUE(nf::packet_prepend(p, 100));
  EXPECT_EQ(p.data, slot + 28);
  EXPECT_EQ(p.len, 160u);
  EXPECT_EQ(p.headroom, 28);
  EXPECT_EQ(nf::packet_slot(p), reinterpret_cast<uint64_t>(slot));
  EXPECT_FALSE(nf::packet_prepend(p, 29));  // one byte before the slot
  EXPECT_EQ(p.data, slot + 28);
  EXPECT_EQ(p.len, 160u);
  EXPECT_TRUE(nf::packet_prepend(p, 28));
  EXPECT_EQ(p.data, slot);
}

TEST(Headroom, ReframeKeepsAFrameInsideItsSlot) {
  uint8_t slot[256] = {};
  nf::PacketRef p{slot + 128, 60, 0, 0, 0, nf::Verdict::Forward, nf::HostReason::Unspecified, 128, 68};
  EXPECT_TRUE(nf::packet_reframe(p, slot + 64, 192));  // up to the slot's last byte
  EXPECT_EQ(p.headroom, 64);
  EXPECT_EQ(p.tailroom, 0);
  EXPECT_FALSE(nf::packet_reframe(p, slot + 64, 193));
  EXPECT_FALSE(nf::packet_reframe(p, slot - 1, 10));
  EXPECT_EQ(p.data, slot + 64);
  EXPECT_EQ(p.len, 192u);
  EXPECT_TRUE(nf::packet_reframe(p, slot + 100, 20));  // shrinking gives the room back on both sides
  EXPECT_EQ(p.headroom, 100);
  EXPECT_EQ(p.tailroom, 136);
  EXPECT_EQ(nf::packet_slot(p), reinterpret_cast<uint64_t>(slot));
}

TEST(Headroom, AFrameEncapsulatedInItsHeadroomLeavesFromItsNewStartAndItsSlotComesHome) {
  const auto sent = frames(16 * 4, 200);
  Rig gateway([&] {
    std::vector<std::unique_ptr<wire::Source>> sources;
    sources.push_back(std::make_unique<VectorSource>(sent));
    sources.push_back(nullptr);
    return sources;
  }(), {nic::PortOptions{}, nic::PortOptions{}}, with_headroom(128), encrypting_chain());
  gateway.run_to_completion();
  ASSERT_EQ(gateway.sink.frames.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    const std::vector<uint8_t>& esp = gateway.sink.frames[i];
    // Ethernet, outer IPv4 (protocol 50), SPI 5, sequence number i + 1; GCM adds 8 + 16 + padding.
    ASSERT_GE(esp.size(), sent[i].size() + 20 + 8 + 8 + 2 + 16) << i;
    EXPECT_EQ(esp[14 + 9], 50) << i;
    EXPECT_EQ(esp[14 + 20 + 3], 5) << i;
    EXPECT_EQ(esp[14 + 20 + 7], uint8_t(i + 1)) << i;
  }
  expect_every_slot_in_one_place(gateway);
}

TEST(Headroom, AFrameWithoutRoomForItsTunnelIsACountedDropAndItsSlotComesHome) {
  // 1000-byte frames in 1 KiB buffers: the 24 bytes after them hold the trailer and ICV (18), not
  // the tunnel's 36 bytes of headers as well; those need the headroom.
  for (uint32_t headroom : {0u, 64u}) {
    const auto sent = frames(16 * 4, 1000);
    std::vector<std::unique_ptr<wire::Source>> sources;
    sources.push_back(std::make_unique<VectorSource>(sent));
    sources.push_back(nullptr);
    driver::DriverOptions d = with_headroom(headroom);
    d.slot_size = 1024;
    Rig gateway(std::move(sources), {nic::PortOptions{}, nic::PortOptions{}}, d, encrypting_chain());
    gateway.run_to_completion();
    const uint64_t no_room = gateway.planes[0]->counters().nf[0][nf::kIpsecDropNoRoom].get();
    if (headroom == 0) {
      EXPECT_TRUE(gateway.sink.frames.empty());
      EXPECT_EQ(no_room, sent.size());
      EXPECT_EQ(plane_sum(gateway, &driver::PlaneCounters::nf_drops), sent.size());
    } else {
      EXPECT_EQ(gateway.sink.frames.size(), sent.size());
      EXPECT_EQ(no_room, 0u);
    }
    expect_every_slot_in_one_place(gateway);
  }
}

TEST(Headroom, IsAMultipleOf64NamedByFileLineAndKey) {
  try {
    ctl::Config c = ctl::parse_config("[driver]\nheadroom = 100\n", "f.toml");
    ADD_FAILURE() << "headroom 100 accepted";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "f.toml:2: driver.headroom: must be a multiple of 64 (frames start on a 64-byte line)");
  }
}
