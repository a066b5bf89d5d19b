// The GPU agent alone (no GPU driver kernel, so that compute-sanitizer, which runs one kernel at a
// time, can watch it): rings and buffers in GPU memory that a host thread drives through the
// registers and cudaMemcpy, as slowly as it likes. Every frame the wire brings goes through the
// agent into an rx descriptor's buffer and, queued on the tx ring, back out to the sink, byte for
// byte and in order per queue; the head never passes the tail.
#include <atomic>
#include <chrono>
#include <map>
#include <thread>
#include <vector>

#include "gpu_test.h"
#include "mem/block.h"
#include "nic/gpu_agent.h"
#include "nic/port.h"
#include "util/cuda_check.h"
#include "wire/generator.h"
#include "wire/stamp.h"

using namespace gnf;

namespace {

constexpr uint32_t kEntries = 64;
constexpr uint32_t kSlot = 2048;
constexpr uint16_t kQueues = 2;

struct Collect : wire::Sink {
  std::vector<std::vector<uint8_t>> frames;  // the NIC thread's
  std::atomic<size_t> count{0};
  void deliver(const uint8_t* data, uint32_t len, uint64_t) override {
    frames.emplace_back(data, data + len);
    count.store(frames.size(), std::memory_order_release);
  }
};

template <typename T>
void to_gpu(void* dst, const T* src, size_t count, cudaStream_t s) {
  GNF_CUDA_CHECK(cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyHostToDevice, s));
  GNF_CUDA_CHECK(cudaStreamSynchronize(s));
}
template <typename T>
void from_gpu(T* dst, const void* src, size_t count, cudaStream_t s) {
  GNF_CUDA_CHECK(cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyDeviceToHost, s));
  GNF_CUDA_CHECK(cudaStreamSynchronize(s));
}

// One queue's rings and buffers in GPU memory, driven from the host: every received frame is sent
// back out from its own buffer, which is given to the rx ring again once the NIC reports it sent.
struct HostDrivenQueue {
  mem::Block rx_ring{mem::Domain::Device, kEntries * sizeof(nic::ixgbe_adv_rx_desc)};
  mem::Block tx_ring{mem::Domain::Device, kEntries * sizeof(nic::ixgbe_adv_tx_desc)};
  mem::Block slots{mem::Domain::Device, size_t(kEntries) * kSlot};
  uint32_t rx_next = 0, tx_tail = 0, tx_clean = 0;
  std::vector<uint32_t> tx_slot = std::vector<uint32_t>(kEntries);
  uint64_t forwarded = 0;

  uint64_t slot(uint32_t i) const { return reinterpret_cast<uint64_t>(slots.data()) + uint64_t(i) * kSlot; }

  void program(nic::PortRegs& regs, uint16_t q, cudaStream_t s) {
    std::vector<nic::ixgbe_adv_rx_desc> rx(kEntries);
    for (uint32_t i = 0; i < kEntries; ++i) rx[i].read = {slot(i), 0};
    to_gpu(rx_ring.data(), rx.data(), kEntries, s);
    nic::RxQueueRegs& r = regs.rx[q];
    const auto rx_base = reinterpret_cast<uint64_t>(rx_ring.data()), tx_base = reinterpret_cast<uint64_t>(tx_ring.data());
    r.RDBAL = uint32_t(rx_base);
    r.RDBAH = uint32_t(rx_base >> 32);
    r.RDLEN = kEntries * sizeof(nic::ixgbe_adv_rx_desc);
    r.SRRCTL = kSlot / 1024;  // no DROP_EN: a slow driver makes the port wait, it loses nothing
    nic::reg_write(r.RXDCTL, nic::IXGBE_RXDCTL_ENABLE);
    nic::reg_write(r.RDT, kEntries - 1);
    nic::TxQueueRegs& t = regs.tx[q];
    t.TDBAL = uint32_t(tx_base);
    t.TDBAH = uint32_t(tx_base >> 32);
    t.TDLEN = kEntries * sizeof(nic::ixgbe_adv_tx_desc);
    nic::reg_write(t.TXDCTL, nic::IXGBE_TXDCTL_ENABLE);
  }

  // One round: takes back the buffers of sent frames into the rx ring, then sends what arrived.
  void poll(nic::PortRegs& regs, uint16_t q, cudaStream_t s) {
    const uint32_t tdh = nic::reg_read(regs.tx[q].TDH);
    bool refilled = false;
    for (; tx_clean != tdh; tx_clean = (tx_clean + 1) % kEntries) {
      const uint32_t i = tx_slot[tx_clean];  // the rx descriptor this buffer came from, refilled
      nic::ixgbe_adv_rx_desc d{};
      d.read = {slot(i), 0};
      to_gpu(reinterpret_cast<nic::ixgbe_adv_rx_desc*>(rx_ring.data()) + i, &d, 1, s);
      refilled = true;
    }
    // RDT trails the next descriptor to poll by one; it moves only over refilled descriptors.
    if (refilled) nic::reg_write(regs.rx[q].RDT, (tx_clean + kEntries - 1) % kEntries);
    const uint32_t rdh = nic::reg_read(regs.rx[q].RDH);
    if (rdh == rx_next) return;
    std::vector<nic::ixgbe_adv_rx_desc> done(kEntries);
    from_gpu(done.data(), rx_ring.data(), kEntries, s);
    for (; rx_next != rdh; rx_next = (rx_next + 1) % kEntries) {
      const nic::ixgbe_adv_rx_desc& d = done[rx_next];
      ASSERT_TRUE(d.wb.upper.status_error & nic::IXGBE_RXD_STAT_DD) << "RDH passed a descriptor without DD";
      nic::ixgbe_adv_tx_desc t{};
      t.read.buffer_addr = slot(rx_next);
      t.read.cmd_type_len = nic::tx_cmd_type_len(d.wb.upper.length, false);
      t.read.olinfo_status = uint32_t(d.wb.upper.length) << nic::IXGBE_ADVTXD_PAYLEN_SHIFT;
      to_gpu(reinterpret_cast<nic::ixgbe_adv_tx_desc*>(tx_ring.data()) + tx_tail, &t, 1, s);
      tx_slot[tx_tail] = rx_next;
      tx_tail = (tx_tail + 1) % kEntries;
      ++forwarded;
    }
    nic::reg_write(regs.tx[q].TDT, tx_tail);
  }
};

}  // namespace

// With the default on-NIC buffer, and with one so small (24 KiB: FIFOs of 32 KiB) that the FIFOs'
// byte rings wrap every few rounds, so that the rx rounds' windows (gpu_agent.cu: the bytes read with
// the records) meet the frames the wire side moved to a ring's start, and rounds of more bytes than
// a window holds.
class GpuAgentBuffer : public ::testing::TestWithParam<uint32_t> {};
INSTANTIATE_TEST_SUITE_P(GpuAgent, GpuAgentBuffer, ::testing::Values(0u, 24u * 1024));

TEST_P(GpuAgentBuffer, FramesGoThroughRingsInGpuMemoryAndBackOutByteForByteInOrderPerQueue) {
  GNF_REQUIRE_GPU();
  const wire::GeneratorOptions g{.sizes = {64, 1518, 300, 65}, .flows = 8, .rate_gbps_l1 = 1, .count = 4000};
  std::map<uint32_t, std::vector<std::vector<uint8_t>>> want;  // per flow, in order
  {
    wire::Generator reference(g);
    reference.start(0);
    for (wire::Frame f; reference.next(f) == wire::Next::Frame;)
      want[wire::decode_stamp(f.data, f.len)->flow()].emplace_back(f.data, f.data + f.len);
  }
  mem::Block regs_block(mem::Domain::HostPinned, sizeof(nic::PortRegs));
  auto* regs = reinterpret_cast<nic::PortRegs*>(regs_block.data());
  wire::Generator generator(g);
  Collect sink;
  nic::PortOptions options;
  options.rx_queues = options.tx_queues = kQueues;
  options.flow_control = true;  // the slow host driver holds the sender back instead of losing frames
  if (GetParam() != 0) options.rx_buffer_bytes = GetParam();
  nic::fill_reta_round_robin(options.rss, kQueues);
  nic::Port port(options, nic::PortWiring{&generator, &generator, {&sink}, nic::DmaSide::GpuAgent, mem::Domain::HostPinned},
                 regs);
  cudaStream_t stream;
  GNF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<HostDrivenQueue> queues(kQueues);
  for (uint16_t q = 0; q < kQueues; ++q) queues[q].program(*regs, q, stream);
  nic::GpuAgent agent({&port});
  agent.start();
  port.start(0);

  std::atomic<bool> running{true};
  std::thread nic_thread([&] {
    for (uint64_t now = 0; running.load(); now += 1000) port.poll(now);
  });
  // Until every frame is out, or a minute (compute-sanitizer slows the agent down a lot).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (sink.count.load(std::memory_order_acquire) < 4000 && std::chrono::steady_clock::now() < deadline)
    for (uint16_t q = 0; q < kQueues; ++q) queues[q].poll(*regs, q, stream);
  running.store(false);
  nic_thread.join();
  agent.stop();
  GNF_CUDA_CHECK(cudaStreamDestroy(stream));

  ASSERT_EQ(sink.frames.size(), 4000u);
  std::map<uint32_t, std::vector<std::vector<uint8_t>>> got;
  for (const auto& f : sink.frames) got[wire::decode_stamp(f.data(), uint32_t(f.size()))->flow()].push_back(f);
  EXPECT_EQ(got, want);
  const nic::PortCounterSnapshot c = port.counters();
  EXPECT_EQ(c.rx_good_packets, 4000u);
  EXPECT_EQ(c.tx_good_packets, 4000u);
  EXPECT_EQ(c.rx_queue_packets[0] + c.rx_queue_packets[1], 4000u);
  EXPECT_GT(c.rx_queue_packets[1], 0u);
  EXPECT_EQ(c.rx_no_desc_drop + c.rx_missed + c.tx_bad_desc, 0u);
  EXPECT_GT(c.rx_pause + c.rx_no_desc_stall, 0u) << "the host driver was never the slower side";
  const nic::DmaCounterValues dma = port.dma_counters();
  EXPECT_EQ(dma.packet_bytes_to_memory, dma.packet_bytes_from_memory);
}

// A driver that hands the NIC a descriptor without a buffer (here address 0; session 13 met rx
// descriptors still in write-back format): the agent writes neither that frame nor any after it,
// counts them as rx_dma_refused, and RDH stops before the descriptor; the GPU goes on running.
TEST(GpuAgent, AnRxDescriptorWithoutABufferIsRefusedAndRdhStopsBeforeIt) {
  GNF_REQUIRE_GPU();
  constexpr uint32_t kFrames = 40, kBad = 5;
  const wire::GeneratorOptions g{.sizes = {64, 300}, .flows = 1, .rate_gbps_l1 = 1, .count = kFrames};
  mem::Block regs_block(mem::Domain::HostPinned, sizeof(nic::PortRegs));
  auto* regs = reinterpret_cast<nic::PortRegs*>(regs_block.data());
  wire::Generator generator(g);
  Collect sink;
  nic::PortOptions options;
  options.rx_queues = options.tx_queues = 1;
  nic::Port port(options, nic::PortWiring{&generator, &generator, {&sink}, nic::DmaSide::GpuAgent, mem::Domain::HostPinned},
                 regs);
  cudaStream_t stream;
  GNF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  HostDrivenQueue queue;
  queue.program(*regs, 0, stream);
  nic::ixgbe_adv_rx_desc no_buffer{};
  to_gpu(reinterpret_cast<nic::ixgbe_adv_rx_desc*>(queue.rx_ring.data()) + kBad, &no_buffer, 1, stream);
  nic::GpuAgent agent({&port});
  agent.start();
  port.start(0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  nic::PortCounterSnapshot c{};
  for (uint64_t now = 0; std::chrono::steady_clock::now() < deadline; now += 1000) {
    port.poll(now);
    c = port.counters();
    if (c.rx_good_packets + c.rx_dma_refused == kFrames) break;
  }
  agent.stop();
  EXPECT_EQ(c.rx_good_packets, kBad);
  EXPECT_EQ(c.rx_dma_refused, kFrames - kBad);
  EXPECT_EQ(c.rx_no_desc_drop + c.rx_missed, 0u);
  EXPECT_EQ(nic::reg_read(regs->rx[0].RDH), kBad);
  std::vector<nic::ixgbe_adv_rx_desc> descs(kEntries);
  from_gpu(descs.data(), queue.rx_ring.data(), kEntries, stream);
  for (uint32_t i = 0; i < kBad; ++i) EXPECT_TRUE(descs[i].wb.upper.status_error & nic::IXGBE_RXD_STAT_DD) << i;
  EXPECT_EQ(descs[kBad].read.pkt_addr, 0u) << "the refused descriptor was written back";
  EXPECT_EQ(descs[kBad].read.hdr_addr, 0u) << "the refused descriptor was written back";
  GNF_CUDA_CHECK(cudaStreamDestroy(stream));
}
