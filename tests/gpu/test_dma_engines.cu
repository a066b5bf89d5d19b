// The GPU DMA engines on their own: what the NIC writes into GPU memory is what it reads back,
// descriptors are written after their packets, and the engine keeps working while a persistent
// kernel (the bypass driver, in real use) spins on another stream.
#include <cuda_runtime.h>

#include <random>

#include "gpu_test.h"
#include "mem/block.h"
#include "nic/cuda_dma.h"
#include "sync/ordering.h"
#include "util/cuda_check.h"

using namespace gnf;

namespace {

std::unique_ptr<nic::DmaEngine> make(const std::string& kind) {
  return kind == "sm" ? nic::make_sm_dma() : nic::make_cuda_dma();
}

constexpr uint32_t kSlots = 512, kSlot = 2048;

// Many rounds of: packets and write-backs into GPU memory, then both read back. The memory is
// the caller's: freeing GPU memory waits for every kernel, persistent ones included.
void round_trips(nic::DmaEngine& dma, int rounds, const mem::Block& slots, const mem::Block& descs) {
  std::mt19937 rng(7);
  for (int round = 0; round < rounds; ++round) {
    const uint32_t n = 1 + rng() % 300;
    std::vector<std::vector<uint8_t>> sent(n);
    std::vector<uint32_t> where(n);
    for (uint32_t i = 0; i < n; ++i) {
      where[i] = (round * 300 + i) % kSlots;
      sent[i].resize(60 + rng() % 1455);
      for (auto& b : sent[i]) b = uint8_t(rng());
      dma.write_packet(reinterpret_cast<uint64_t>(slots.data()) + uint64_t(where[i]) * kSlot, sent[i].data(),
                       uint32_t(sent[i].size()));
      nic::ixgbe_adv_rx_desc wb{};
      wb.wb.upper.length = uint16_t(sent[i].size());
      wb.wb.lower.hi_dword.rss = round;
      wb.wb.upper.status_error = nic::IXGBE_RXD_STAT_DD | nic::IXGBE_RXD_STAT_EOP;
      dma.write_rx_writeback(reinterpret_cast<uint64_t>(descs.data()) + where[i] * sizeof(wb), wb);
    }
    dma.flush();
    std::vector<std::vector<uint8_t>> back(n);
    std::vector<nic::PacketRead> reads(n);
    std::vector<nic::ixgbe_adv_rx_desc> got(n);
    std::vector<nic::DescRead> desc_reads(n);
    for (uint32_t i = 0; i < n; ++i) {
      back[i].resize(sent[i].size());
      reads[i] = nic::PacketRead{back[i].data(), reinterpret_cast<uint64_t>(slots.data()) + uint64_t(where[i]) * kSlot,
                                 uint32_t(sent[i].size())};
      desc_reads[i] = nic::DescRead{&got[i], reinterpret_cast<uint64_t>(descs.data()) + where[i] * sizeof(got[i]), 1};
    }
    dma.read_packets(reads.data(), n);
    dma.read_descs(desc_reads.data(), n);
    for (uint32_t i = 0; i < n; ++i) {
      ASSERT_EQ(back[i], sent[i]) << "round " << round << " packet " << i;
      ASSERT_EQ(got[i].wb.upper.length, sent[i].size()) << "round " << round << " descriptor " << i;
      ASSERT_EQ(got[i].wb.lower.hi_dword.rss, uint32_t(round));
      ASSERT_EQ(got[i].wb.upper.status_error, nic::IXGBE_RXD_STAT_DD | nic::IXGBE_RXD_STAT_EOP);
    }
  }
}

__global__ void spin_until(const uint32_t* flag) {
  while (load_acquire_sys(flag) == 0) {
  }
}

// Polls the DD bit of descriptor i as a driver would (acquire), then checks what a driver reads
// next: the length, and the packet's first and last bytes (written as i and i + 1).
__global__ void watch_write_backs(nic::ixgbe_adv_rx_desc* descs, const uint8_t* slots, uint32_t n,
                                  const uint16_t* lengths, uint32_t* wrong) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  while (!(load_acquire_sys(&descs[i].wb.upper.status_error) & nic::IXGBE_RXD_STAT_DD)) {
  }
  const uint16_t len = descs[i].wb.upper.length;
  const uint8_t* packet = slots + size_t(i) * kSlot;
  if (len != lengths[i] || packet[0] != uint8_t(i) || packet[len - 1] != uint8_t(i + 1)) atomicAdd(wrong, 1u);
}

}  // namespace

class DmaEngines : public ::testing::TestWithParam<std::string> {};

TEST_P(DmaEngines, WhatIsWrittenIsReadBack) {
  GNF_REQUIRE_GPU();
  mem::Block slots(mem::Domain::Device, size_t(kSlots) * kSlot);
  mem::Block descs(mem::Domain::Device, kSlots * sizeof(nic::ixgbe_adv_rx_desc));
  auto dma = make(GetParam());
  round_trips(*dma, 200, slots, descs);
}

TEST_P(DmaEngines, KeepWorkingBesideAPersistentKernel) {
  GNF_REQUIRE_GPU();
  mem::Block flag(mem::Domain::HostPinned, 64);
  mem::Block slots(mem::Domain::Device, size_t(kSlots) * kSlot);
  mem::Block descs(mem::Domain::Device, kSlots * sizeof(nic::ixgbe_adv_rx_desc));
  auto dma = make(GetParam());
  round_trips(*dma, 5, slots, descs);  // the engine runs before the other kernel starts ...
  cudaStream_t stream;
  GNF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  spin_until<<<8, 32, 0, stream>>>(reinterpret_cast<const uint32_t*>(flag.data()));
  GNF_CUDA_CHECK_LAUNCH();
  round_trips(*dma, 50, slots, descs);  // ... and on while it spins
  dma->stop();
  store_release_sys(reinterpret_cast<uint32_t*>(flag.data()), 1);
  GNF_CUDA_CHECK(cudaStreamSynchronize(stream));
  GNF_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST_P(DmaEngines, ADriverThatSeesDoneSeesTheLengthAndThePacket) {
  GNF_REQUIRE_GPU();
  constexpr uint32_t kPackets = 512;
  mem::Block slots(mem::Domain::Device, size_t(kSlots) * kSlot);
  mem::Block descs(mem::Domain::Device, kSlots * sizeof(nic::ixgbe_adv_rx_desc));
  mem::Block lengths(mem::Domain::Device, kPackets * sizeof(uint16_t));
  mem::Block wrong(mem::Domain::HostPinned, 64);
  std::vector<uint16_t> len(kPackets);
  for (uint32_t i = 0; i < kPackets; ++i) len[i] = uint16_t(60 + (i * 37) % 1455);
  GNF_CUDA_CHECK(cudaMemcpy(lengths.data(), len.data(), kPackets * sizeof(uint16_t), cudaMemcpyHostToDevice));
  auto dma = make(GetParam());
  cudaStream_t stream;
  GNF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  // The watchers spin before anything is written.
  watch_write_backs<<<kPackets / 128, 128, 0, stream>>>(reinterpret_cast<nic::ixgbe_adv_rx_desc*>(descs.data()),
                                                        slots.data(), kPackets,
                                                        reinterpret_cast<const uint16_t*>(lengths.data()),
                                                        reinterpret_cast<uint32_t*>(wrong.data()));
  GNF_CUDA_CHECK_LAUNCH();
  for (uint32_t i = 0; i < kPackets; ++i) {
    std::vector<uint8_t> packet(len[i], 0xAB);
    packet.front() = uint8_t(i);
    packet.back() = uint8_t(i + 1);
    dma->write_packet(reinterpret_cast<uint64_t>(slots.data()) + uint64_t(i) * kSlot, packet.data(), len[i]);
    nic::ixgbe_adv_rx_desc wb{};
    wb.wb.upper.length = len[i];
    wb.wb.upper.status_error = nic::IXGBE_RXD_STAT_DD | nic::IXGBE_RXD_STAT_EOP;
    dma->write_rx_writeback(reinterpret_cast<uint64_t>(descs.data()) + i * sizeof(wb), wb);
    if (i % 32 == 31) dma->flush();
  }
  dma->flush();
  GNF_CUDA_CHECK(cudaStreamSynchronize(stream));
  EXPECT_EQ(*reinterpret_cast<volatile uint32_t*>(wrong.data()), 0u);
  dma->stop();
  GNF_CUDA_CHECK(cudaStreamDestroy(stream));
}

INSTANTIATE_TEST_SUITE_P(Kinds, DmaEngines, ::testing::Values("sm", "copy-engine"));
