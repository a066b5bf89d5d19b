#include "driver/gpu_bypass.h"

#include <cuda/atomic>

#include <cstddef>
#include <cstring>
#include <mutex>
#include <unordered_set>

#include <fmt/format.h>

#include "driver/gpu_bypass_kernel.cuh"
#include "mem/block.h"
#include "mem/cuda_alloc.h"
#include "util/cuda_check.h"
#include "util/error.h"
#include "util/sys_atomic.cuh"

namespace gnf::driver {

using namespace bypass;

namespace {

constexpr size_t kAlign = 128;
size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

// The kernel publishes GpuPlaneCounters as an array of uint64_t in this order (bypass::Stat).
static_assert(offsetof(GpuPlaneCounters, rx_packets) == kRx * 8 && offsetof(GpuPlaneCounters, tx_packets) == kTx * 8 &&
              offsetof(GpuPlaneCounters, nf_drops) == kNfDrops * 8 && offsetof(GpuPlaneCounters, to_host) == kToHost * 8 &&
              offsetof(GpuPlaneCounters, to_host_overflow) == kToHostOverflow * 8 &&
              offsetof(GpuPlaneCounters, tx_ring_full) == kTxFull * 8 &&
              offsetof(GpuPlaneCounters, bad_out_port) == kBadPort * 8 &&
              offsetof(GpuPlaneCounters, alloc_failures) == kAllocFail * 8 &&
              offsetof(GpuPlaneCounters, tail_writes) == kTails * 8 &&
              offsetof(GpuPlaneCounters, consumed) == kConsumed * 8 &&
              offsetof(GpuPlaneCounters, unrecorded) == kUnrecorded * 8 && offsetof(GpuPlaneCounters, polls) == kStatCount * 8 &&
              offsetof(GpuPlaneCounters, nf) == (kStatCount + 1) * 8 && sizeof(GpuPlaneCounters) % 8 == 0);

template <typename T>
std::vector<T> fetch(const void* device, size_t count) {
  std::vector<T> v(count);
  if (count) GNF_CUDA_CHECK(cudaMemcpy(v.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

}  // namespace

struct GpuBypass::Impl {
  std::vector<mem::Block> blocks;  // rings, slot arrays and pools: one device block per plane
  mem::Block plane_states;         // DevPlane[planes] in GPU memory
  mem::Block pinned;               // counters, stop flag, exception rings: mapped host memory
  GpuPlaneCounters* counters = nullptr;
  uint32_t* stop_flag = nullptr;
  std::vector<DevExceptionRing> exceptions;  // the host's view of each plane's ring
  std::vector<uint32_t> exception_tails;     // the host's copy of each ring's tail
  std::mutex exceptions_mutex;
  std::vector<DevExceptionRing> arrivals;    // the same for the arrival rings (one_way = rx)
  std::vector<uint32_t> arrival_tails;
  std::unique_ptr<GpuClock> clock;           // with a one-way mode
  nf::NfChainView chain;
  KernelConfig config{};
  uint32_t threads = 0;
  cudaStream_t stream = nullptr;
  bool running = false;
};

GpuBypass::GpuBypass(const std::vector<nic::Port*>& ports, uint16_t queues, const DriverOptions& unresolved,
                     const nf::NfChainView& chain)
    : impl_(std::make_unique<Impl>()), planes_(queues) {
  if (!mem::cuda_device_available()) throw UserError("path 'bypass' needs a CUDA GPU, and none is usable here");
  const DriverOptions options = unresolved.resolved(true);
  Impl& m = *impl_;
  m.chain = chain;
  m.config = KernelConfig{options.burst,           options.rx_tail_batch, options.tx_tail_batch,
                          options.tail_timeout_ns, options.tx_completion, options.tx_full_wait,
                          options.one_way,         nullptr};
  if (options.one_way != OneWay::Off) {
    m.clock = std::make_unique<GpuClock>();
    m.config.host_minus_gpu_ns = m.clock->device_offset();
  }
  m.threads = (options.burst + kWarpSize - 1) / kWarpSize * kWarpSize;

  // Every block spins for good: all of them must be resident at once.
  int device = 0, sms = 0, per_sm = 0;
  GNF_CUDA_CHECK(cudaGetDevice(&device));
  GNF_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  GNF_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bypass_kernel, int(m.threads), 0));
  if (uint64_t(sms) * uint64_t(per_sm) < planes_)
    throw UserError(fmt::format("the bypass path runs one resident thread block per queue; this GPU holds {} of {} "
                                "threads at once, fewer than the {} queues",
                                uint64_t(sms) * uint64_t(per_sm), m.threads, planes_));

  const uint32_t n_ports = uint32_t(ports.size());
  const uint32_t rx_entries = options.rx_ring_size, tx_entries = options.tx_ring_size;
  const uint32_t slots = options.slots_per_pool();
  const size_t rx_ring = align_up(rx_entries * sizeof(nic::ixgbe_adv_rx_desc));
  const size_t tx_ring = align_up(tx_entries * sizeof(nic::ixgbe_adv_tx_desc));
  const size_t head_wb = kAlign;
  const size_t rx_slots = align_up(rx_entries * sizeof(uint64_t));
  const size_t tx_slots = align_up(tx_entries * sizeof(uint64_t));
  const size_t stack = align_up(slots * sizeof(uint32_t));
  const size_t pool = size_t(slots) * options.slot_size;
  const size_t per_port = rx_ring + tx_ring + head_wb + rx_slots + tx_slots + stack + pool;

  // Pinned: per plane its counters, then the stop flag, then per plane an exception ring (head and
  // tail on cache lines of their own, then the entries).
  const size_t counters_bytes = align_up(planes_ * sizeof(GpuPlaneCounters));
  const uint32_t entry_bytes = options.slot_size + 16;
  const size_t exception_bytes = 2 * kAlign + size_t(kExceptionRingEntries) * entry_bytes;
  const uint32_t arrival_entries = options.one_way == OneWay::Rx ? kArrivalRingEntries : 0;
  const size_t arrival_bytes = 2 * kAlign + size_t(arrival_entries) * sizeof(ArrivalRecord);
  const size_t per_plane_pinned = align_up(exception_bytes) + align_up(arrival_bytes);
  m.pinned = mem::Block(mem::Domain::HostPinned, counters_bytes + kAlign + planes_ * per_plane_pinned);
  m.counters = reinterpret_cast<GpuPlaneCounters*>(m.pinned.data());
  m.stop_flag = reinterpret_cast<uint32_t*>(m.pinned.data() + counters_bytes);
  m.exception_tails.assign(planes_, 0);
  m.arrival_tails.assign(planes_, 0);

  std::vector<DevPlane> states(planes_);
  for (uint32_t q = 0; q < planes_; ++q) {
    m.blocks.emplace_back(mem::Domain::Device, per_port * n_ports);
    uint8_t* base = m.blocks.back().data();
    DevPlane& plane = states[q];
    std::memset(&plane, 0, sizeof(plane));
    plane.ports = n_ports;
    uint8_t* exc = m.pinned.data() + counters_bytes + kAlign + q * per_plane_pinned;
    plane.exceptions = DevExceptionRing{exc + 2 * kAlign, reinterpret_cast<uint32_t*>(exc),
                                        reinterpret_cast<uint32_t*>(exc + kAlign), kExceptionRingEntries, entry_bytes, 0, 0};
    m.exceptions.push_back(plane.exceptions);
    uint8_t* arr = exc + align_up(exception_bytes);
    plane.arrivals = DevExceptionRing{arr + 2 * kAlign, reinterpret_cast<uint32_t*>(arr),
                                      reinterpret_cast<uint32_t*>(arr + kAlign), arrival_entries,
                                      uint32_t(sizeof(ArrivalRecord)), 0, 0};
    m.arrivals.push_back(plane.arrivals);
    for (uint32_t p = 0; p < n_ports; ++p) {
      uint8_t* at = base + p * per_port;
      auto* rx_descs = reinterpret_cast<nic::ixgbe_adv_rx_desc*>(at);
      auto* tx_descs = reinterpret_cast<nic::ixgbe_adv_tx_desc*>(at + rx_ring);
      auto* wb = reinterpret_cast<uint32_t*>(at + rx_ring + tx_ring);
      auto* rx_slot_array = reinterpret_cast<uint64_t*>(at + rx_ring + tx_ring + head_wb);
      auto* tx_slot_array = reinterpret_cast<uint64_t*>(at + rx_ring + tx_ring + head_wb + rx_slots);
      auto* free_stack = reinterpret_cast<uint32_t*>(at + rx_ring + tx_ring + head_wb + rx_slots + tx_slots);
      uint64_t pool_base = reinterpret_cast<uint64_t>(at + rx_ring + tx_ring + head_wb + rx_slots + tx_slots + stack);

      // Slots 0..rx_entries-1 go into the rx descriptors, the rest onto the free stack.
      std::vector<nic::ixgbe_adv_rx_desc> descs(rx_entries);
      std::vector<uint64_t> held(rx_entries);
      for (uint32_t i = 0; i < rx_entries; ++i) {
        held[i] = pool_base + uint64_t(i) * options.slot_size;
        descs[i].read.pkt_addr = held[i];
        descs[i].read.hdr_addr = 0;
      }
      std::vector<uint32_t> free_indices;
      for (uint32_t i = slots; i-- > rx_entries;) free_indices.push_back(i);
      GNF_CUDA_CHECK(cudaMemcpy(rx_descs, descs.data(), descs.size() * sizeof(descs[0]), cudaMemcpyHostToDevice));
      GNF_CUDA_CHECK(cudaMemcpy(rx_slot_array, held.data(), held.size() * sizeof(held[0]), cudaMemcpyHostToDevice));
      if (!free_indices.empty())
        GNF_CUDA_CHECK(cudaMemcpy(free_stack, free_indices.data(), free_indices.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));

      nic::PortRegs& regs = ports[p]->regs();
      nic::RxQueueRegs& r = regs.rx[q];
      r.RDBAL = uint32_t(reinterpret_cast<uint64_t>(rx_descs));
      r.RDBAH = uint32_t(reinterpret_cast<uint64_t>(rx_descs) >> 32);
      r.RDLEN = rx_entries * sizeof(nic::ixgbe_adv_rx_desc);
      r.SRRCTL = (options.slot_size / 1024) | (options.drop_en ? nic::IXGBE_SRRCTL_DROP_EN : 0);
      r.RDH = 0;
      nic::TxQueueRegs& t = regs.tx[q];
      t.TDBAL = uint32_t(reinterpret_cast<uint64_t>(tx_descs));
      t.TDBAH = uint32_t(reinterpret_cast<uint64_t>(tx_descs) >> 32);
      t.TDLEN = tx_entries * sizeof(nic::ixgbe_adv_tx_desc);
      t.TDH = 0;
      t.TDT = 0;
      if (options.tx_completion == TxCompletion::HeadWriteback) {
        // Head write-back into GPU memory: polling it costs the GPU no PCIe read.
        t.TDWBAH = uint32_t(reinterpret_cast<uint64_t>(wb) >> 32);
        t.TDWBAL = uint32_t(reinterpret_cast<uint64_t>(wb)) | nic::IXGBE_TDWBAL_HEAD_WB_EN;
      }
      nic::reg_write(t.TXDCTL, nic::IXGBE_TXDCTL_ENABLE);
      nic::reg_write(r.RXDCTL, nic::IXGBE_RXDCTL_ENABLE);
      // Intentionally one short of the whole ring: RDT == RDH would mean "no descriptors" to the NIC.
      nic::reg_write(r.RDT, rx_entries - 1);

      plane.rx[p] = DevRxRing{rx_descs, rx_slot_array, rx_entries, 0, &r.RDT, 0, 0};
      plane.tx[p] = DevTxRing{tx_descs, tx_slot_array, tx_entries, 0, 0, &t.TDT, &t.TDH, wb, 0, 0};
      plane.pool[p] = DevPool{free_stack, uint32_t(free_indices.size()), options.slot_size, slots, pool_base};
    }
  }
  m.plane_states = mem::Block(mem::Domain::Device, states.size() * sizeof(DevPlane));
  GNF_CUDA_CHECK(cudaMemcpy(m.plane_states.data(), states.data(), states.size() * sizeof(DevPlane), cudaMemcpyHostToDevice));
  GNF_CUDA_CHECK(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking));
}

GpuBypass::~GpuBypass() {
  try {
    stop();
  } catch (...) {
  }
  if (impl_->stream) cudaStreamDestroy(impl_->stream);
}

void GpuBypass::start() {
  Impl& m = *impl_;
  if (m.running) return;
  store_release_sys(m.stop_flag, 0);
  bypass_kernel<<<planes_, m.threads, 0, m.stream>>>(reinterpret_cast<DevPlane*>(m.plane_states.data()),
                                                     reinterpret_cast<uint64_t*>(m.counters),
                                                     sizeof(GpuPlaneCounters) / sizeof(uint64_t), m.chain, m.stop_flag,
                                                     m.config);
  GNF_CUDA_CHECK_LAUNCH();
  m.running = true;
  if (m.clock) m.clock->start_tracking();
}

void GpuBypass::stop() {
  Impl& m = *impl_;
  if (!m.running) return;
  store_release_sys(m.stop_flag, 1);
  m.running = false;
  GNF_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  if (m.clock) m.clock->stop_tracking();
}

bool GpuBypass::running() const { return impl_->running; }

GpuPlaneCounters GpuBypass::totals() const {
  GpuPlaneCounters sum{};
  auto* total = reinterpret_cast<uint64_t*>(&sum);
  const volatile uint64_t* c = reinterpret_cast<const volatile uint64_t*>(impl_->counters);
  const size_t words = sizeof(GpuPlaneCounters) / sizeof(uint64_t);
  for (uint32_t q = 0; q < planes_; ++q)
    for (size_t k = 0; k < words; ++k) total[k] += c[q * words + k];
  return sum;
}

std::vector<HostFrame> GpuBypass::take_exceptions() {
  Impl& m = *impl_;
  std::lock_guard lock(m.exceptions_mutex);
  std::vector<HostFrame> frames;
  for (uint32_t q = 0; q < planes_; ++q) {
    const DevExceptionRing& ring = m.exceptions[q];
    // Acquire pairs with the kernel's release of head: the entries before it are complete.
    const uint32_t head = load_acquire_sys(ring.head);
    uint32_t& tail = m.exception_tails[q];
    for (; tail != head; ++tail) {
      const uint8_t* entry = ring.entries + size_t(tail % ring.count) * ring.entry_bytes;
      uint32_t header[2];
      std::memcpy(header, entry, sizeof(header));
      frames.push_back(HostFrame{uint16_t(header[0]), std::vector<uint8_t>(entry + 16, entry + 16 + header[1])});
    }
    // Release: the entries are copied out before the kernel may refill them.
    store_release_sys(ring.tail, tail);
  }
  return frames;
}

std::vector<GpuArrival> GpuBypass::take_arrivals() {
  Impl& m = *impl_;
  std::vector<GpuArrival> out;
  for (uint32_t q = 0; q < planes_; ++q) {
    const DevExceptionRing& ring = m.arrivals[q];
    if (ring.count == 0) continue;
    const uint32_t head = load_acquire_sys(ring.head);  // pairs with the kernel's release
    uint32_t& tail = m.arrival_tails[q];
    for (; tail != head; ++tail) {
      ArrivalRecord a;
      std::memcpy(&a, ring.entries + size_t(tail % ring.count) * ring.entry_bytes, sizeof(a));
      if (a.len) out.push_back(GpuArrival{wire::Stamp{a.flow_seq, a.send_time_ns, 0}, a.len, a.seen_ns});
    }
    store_release_sys(ring.tail, tail);  // copied out before the kernel may refill
  }
  return out;
}

std::optional<GpuClockStats> GpuBypass::clock_stats() const {
  if (!impl_->clock) return std::nullopt;
  return impl_->clock->stats();
}

std::vector<SlotAudit> GpuBypass::audit() const {
  const Impl& m = *impl_;
  std::vector<DevPlane> states = fetch<DevPlane>(m.plane_states.data(), planes_);
  std::vector<SlotAudit> out;
  for (const DevPlane& plane : states) {
    SlotAudit a;
    std::unordered_set<uint64_t> seen;
    auto place = [&](uint64_t addr, uint64_t& where) {
      ++where;
      if (!seen.insert(addr).second) ++a.duplicates;
    };
    for (uint32_t p = 0; p < plane.ports; ++p) {
      const DevPool& pool = plane.pool[p];
      a.capacity += pool.count;
      for (uint32_t index : fetch<uint32_t>(pool.free_stack, pool.top))
        place(pool.base + uint64_t(index) * pool.slot_size, a.free);
      for (uint64_t slot : fetch<uint64_t>(plane.rx[p].slots, plane.rx[p].entries)) place(slot, a.in_rx_rings);
      const DevTxRing& tx = plane.tx[p];
      std::vector<uint64_t> tx_slots = fetch<uint64_t>(tx.slots, tx.entries);
      for (uint32_t i = tx.clean; i != tx.tail; i = i + 1 == tx.entries ? 0 : i + 1) place(tx_slots[i], a.in_tx_rings);
    }
    out.push_back(a);
  }
  return out;
}

nic::PortRegs* alloc_pinned_port_regs() {
  auto* regs = reinterpret_cast<nic::PortRegs*>(mem::alloc_host_pinned(sizeof(nic::PortRegs)));
  std::memset(regs, 0, sizeof(nic::PortRegs));
  return regs;
}

void free_pinned_port_regs(nic::PortRegs* regs) { mem::free_host_pinned(reinterpret_cast<uint8_t*>(regs)); }

}  // namespace gnf::driver
