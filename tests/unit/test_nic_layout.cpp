#include <cstddef>

#include <gtest/gtest.h>

#include "nic/ixgbe_desc.h"
#include "nic/pacing.h"
#include "nic/regs.h"

using namespace gnf::nic;

TEST(DescriptorLayout, RxDescriptorMatchesThe82599Datasheet) {
  EXPECT_EQ(sizeof(ixgbe_adv_rx_desc), 16u);
  EXPECT_EQ(offsetof(ixgbe_adv_rx_desc, read.pkt_addr), 0u);
  EXPECT_EQ(offsetof(ixgbe_adv_rx_desc, read.hdr_addr), 8u);
  EXPECT_EQ(offsetof(ixgbe_adv_rx_desc, wb.lower.hi_dword.rss), 4u);
  EXPECT_EQ(offsetof(ixgbe_adv_rx_desc, wb.upper.status_error), 8u);
  EXPECT_EQ(offsetof(ixgbe_adv_rx_desc, wb.upper.length), 12u);
  EXPECT_EQ(offsetof(ixgbe_adv_rx_desc, wb.upper.vlan), 14u);
}

TEST(DescriptorLayout, WritingTheReadFormatClearsDescriptorDone) {
  ixgbe_adv_rx_desc d{};
  d.wb.upper.status_error = IXGBE_RXD_STAT_DD | IXGBE_RXD_STAT_EOP;
  d.read.hdr_addr = 0;
  EXPECT_EQ(d.wb.upper.status_error & IXGBE_RXD_STAT_DD, 0u);
}

TEST(DescriptorLayout, TxDescriptorMatchesThe82599Datasheet) {
  EXPECT_EQ(sizeof(ixgbe_adv_tx_desc), 16u);
  EXPECT_EQ(offsetof(ixgbe_adv_tx_desc, read.buffer_addr), 0u);
  EXPECT_EQ(offsetof(ixgbe_adv_tx_desc, read.cmd_type_len), 8u);
  EXPECT_EQ(offsetof(ixgbe_adv_tx_desc, read.olinfo_status), 12u);
  EXPECT_EQ(offsetof(ixgbe_adv_tx_desc, wb.status), 12u);
}

TEST(DescriptorLayout, TxCommandWordCarriesLengthEopAndReportStatus) {
  uint32_t cmd = tx_cmd_type_len(60, true);
  EXPECT_EQ(cmd & IXGBE_ADVTXD_DTALEN_MASK, 60u);
  EXPECT_TRUE(cmd & IXGBE_ADVTXD_DCMD_EOP);
  EXPECT_TRUE(cmd & IXGBE_ADVTXD_DCMD_RS);
  EXPECT_TRUE(cmd & IXGBE_ADVTXD_DCMD_DEXT);
  EXPECT_FALSE(tx_cmd_type_len(60, false) & IXGBE_ADVTXD_DCMD_RS);
}

TEST(RegisterLayout, TheDriversTailAndTheNicsHeadAreOnCacheLinesOfTheirOwn) {
  EXPECT_EQ(alignof(RxQueueRegs), 64u);
  EXPECT_EQ(alignof(TxQueueRegs), 64u);
  EXPECT_EQ(offsetof(RxQueueRegs, RDT) / 64, 0u);
  EXPECT_EQ(offsetof(RxQueueRegs, RDH) / 64, 1u);
  EXPECT_EQ(offsetof(TxQueueRegs, TDT) / 64, 0u);
  EXPECT_EQ(offsetof(TxQueueRegs, TDH) / 64, 1u);
  EXPECT_EQ(sizeof(PortRegs), kMaxQueues * 2 * 128u);
}

TEST(Pacing, A64ByteFrameAt100GbpsOccupiesTheLineFor6Point72Ns) {
  EXPECT_EQ(wire_time_ps(60, 100), 6720u);  // 60 B + 4 FCS + 20 preamble/IFG = 84 B = 672 bits
}

TEST(Pacing, LineRatesGiveTheTextbookPacketRates) {
  // 14.88 Mpps at 10G and 148.8 Mpps at 100G for 64 B frames; 812.7 kpps for 1518 B at 10G.
  EXPECT_NEAR(1e12 / double(wire_time_ps(60, 10)), 14'880'952, 1);
  EXPECT_NEAR(1e12 / double(wire_time_ps(60, 100)), 148'809'523, 1);
  EXPECT_NEAR(1e12 / double(wire_time_ps(1514, 10)), 812'743, 1);
}

TEST(Pacing, FramesGoBackToBackAndNeverBeforeTheirTime) {
  LineClock line(100);
  line.reset(0);
  EXPECT_EQ(line.transmit(60, 0), 6720u);
  EXPECT_EQ(line.transmit(60, 0), 13440u);       // waits for the line
  EXPECT_EQ(line.transmit(60, 100'000), 106720u);  // idle line: starts at its own time
}
