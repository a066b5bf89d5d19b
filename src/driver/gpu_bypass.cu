#include "driver/gpu_bypass.h"

#include <cuda/atomic>

#include <cstring>
#include <unordered_set>

#include "mem/block.h"
#include "mem/cuda_alloc.h"
#include "util/cuda_check.h"
#include "util/error.h"

namespace gnf::driver {

namespace {

constexpr uint32_t kMaxBurst = 256;
constexpr size_t kAlign = 128;
size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

// What one block knows about one port's rings and its rx ring's pool; all in GPU memory except
// the tail registers, which are in pinned host memory (the NIC's BAR, in effect).
struct DevRxRing {
  nic::ixgbe_adv_rx_desc* descs;
  uint64_t* slots;  // the slot each descriptor holds (the write-back overwrites pkt_addr)
  uint32_t entries;
  uint32_t next;
  uint32_t* rdt;
  uint32_t unpublished;  // refilled descriptors not yet handed over through RDT
  uint64_t unpublished_since_ns;
};

struct DevTxRing {
  nic::ixgbe_adv_tx_desc* descs;
  uint64_t* slots;
  uint32_t entries;
  uint32_t tail;
  uint32_t clean;
  uint32_t* tdt;
  uint32_t* head_wb;  // TDH, written here by the NIC (TDWBAL), in GPU memory
  uint32_t unpublished;  // descriptors filled but not yet announced through TDT
  uint64_t unpublished_since_ns;
};

// Tail batching, as the CPU driver does it (options.h): a tail is written once `batch`
// descriptors are pending, or once the oldest pending one has waited `timeout_ns` by the GPU's
// global timer. With batch 1 every burst writes its tails.
struct TailBatching {
  uint32_t rx_batch;
  uint32_t tx_batch;
  uint64_t timeout_ns;
};

struct DevPool {
  uint32_t* free_stack;  // indices of free slots; [0, top) are free
  uint32_t top;
  uint32_t slot_size;
  uint32_t count;
  uint64_t base;
};

struct DevPlane {
  DevRxRing rx[nf::kMaxPorts];
  DevTxRing tx[nf::kMaxPorts];
  DevPool pool[nf::kMaxPorts];
  uint32_t ports;
};

// --- Memory ordering, the heart of the bypass path -------------------------------------------
// Polls: the NIC's copy engine writes the packet, then (in a later batch of the same stream) the
// descriptor's DD word. A thread observes DD with an acquire load at system scope; everything it
// reads after that (length, hash, the packet bytes) is at least as new, and the acquire keeps a
// stale L1 line of a recycled slot from being served.
__device__ __forceinline__ uint32_t load_acquire_sys(uint32_t* p) {
  return cuda::atomic_ref<uint32_t, cuda::thread_scope_system>(*p).load(cuda::memory_order_acquire);
}
// Doorbells: descriptors are written by many threads of the block; after __syncthreads() thread 0
// fences at system scope (cumulative over what the barrier made it observe) and then stores the
// tail with release semantics into pinned host memory. The NIC model reads the tail with an
// acquire load and only then fetches the descriptors over the copy engine. No fence, no tail: a
// published GPU bypass prototype wrote tails without one and saw crashes with several rings.
__device__ __forceinline__ void store_release_sys(uint32_t* p, uint32_t v) {
  __threadfence_system();
  cuda::atomic_ref<uint32_t, cuda::thread_scope_system>(*p).store(v, cuda::memory_order_release);
}

__device__ void free_slot(DevPlane& plane, uint64_t addr) {
  for (uint32_t p = 0; p < plane.ports; ++p) {
    DevPool& pool = plane.pool[p];
    if (addr >= pool.base && addr < pool.base + uint64_t(pool.count) * pool.slot_size) {
      pool.free_stack[pool.top++] = uint32_t((addr - pool.base) / pool.slot_size);
      return;
    }
  }
}

// Returns the slots of descriptors the NIC has sent (up to the head it wrote back).
__device__ void reclaim(DevPlane& plane, DevTxRing& tx) {
  uint32_t head = load_acquire_sys(tx.head_wb);
  while (tx.clean != head) {
    free_slot(plane, tx.slots[tx.clean]);
    tx.clean = tx.clean + 1 == tx.entries ? 0 : tx.clean + 1;
  }
}

__device__ __forceinline__ void publish(volatile uint64_t& counter, uint64_t value) { counter = value; }

__device__ __forceinline__ uint64_t global_timer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Writes RDT if the tail-batching rule says so; returns whether it did.
__device__ bool maybe_publish_rx(DevRxRing& ring, const TailBatching& rule, uint64_t now, bool force) {
  if (ring.unpublished == 0) return false;
  if (!force && ring.unpublished < rule.rx_batch && now - ring.unpublished_since_ns < rule.timeout_ns) return false;
  // RDT trails `next` by one: RDT == RDH would tell the NIC the ring is empty.
  store_release_sys(ring.rdt, (ring.next + ring.entries - 1) % ring.entries);
  ring.unpublished = 0;
  return true;
}

__device__ bool maybe_publish_tx(DevTxRing& tx, const TailBatching& rule, uint64_t now, bool force) {
  if (tx.unpublished == 0) return false;
  if (!force && tx.unpublished < rule.tx_batch && now - tx.unpublished_since_ns < rule.timeout_ns) return false;
  store_release_sys(tx.tdt, tx.tail);
  tx.unpublished = 0;
  return true;
}

__global__ void __launch_bounds__(kMaxBurst) bypass_kernel(DevPlane* planes, GpuPlaneCounters* counters,
                                                           nf::NfChainView chain, uint32_t* stop_flag, uint32_t burst,
                                                           bool tx_full_wait, TailBatching tails_rule) {
  DevPlane& plane = planes[blockIdx.x];
  GpuPlaneCounters& out = counters[blockIdx.x];
  __shared__ nf::PacketRef refs[kMaxBurst];
  __shared__ unsigned long long nf_totals[nf::kMaxChainLength][nf::NfCounters::kMax];
  __shared__ uint32_t ready, stop;
  const uint32_t t = threadIdx.x;
  for (uint32_t i = t; i < nf::kMaxChainLength * nf::NfCounters::kMax; i += blockDim.x) (&nf_totals[0][0])[i] = 0;
  uint64_t rx = 0, tx_count = 0, nf_drops = 0, to_host = 0, tx_full = 0, bad_port = 0, alloc_fail = 0, tails = 0;

  for (uint64_t iteration = 0;; ++iteration) {
    if (t == 0) stop = (iteration & 15) == 0 ? load_acquire_sys(stop_flag) : 0;
    __syncthreads();
    if (stop) break;
    for (uint32_t p = 0; p < plane.ports; ++p) {
      DevRxRing& ring = plane.rx[p];
      DevPool& pool = plane.pool[p];
      const uint32_t idx = (ring.next + t) % ring.entries;
      const bool is_ready = t < burst && (load_acquire_sys(&ring.descs[idx].wb.upper.status_error) & nic::IXGBE_RXD_STAT_DD);
      if (t == 0) ready = burst;
      __syncthreads();
      if (t < burst && !is_ready) atomicMin(&ready, t);  // the first descriptor not done ends the batch
      __syncthreads();
      uint32_t n = ready < pool.top ? ready : pool.top;  // every taken descriptor needs a fresh slot
      if (t == 0 && n < ready) ++alloc_fail;
      if (n == 0) continue;
      if (t < n) {
        nic::ixgbe_adv_rx_desc& desc = ring.descs[idx];
        const uint64_t slot = ring.slots[idx];
        const uint64_t fresh = pool.base + uint64_t(pool.free_stack[pool.top - 1 - t]) * pool.slot_size;
        refs[t] = nf::PacketRef{reinterpret_cast<uint8_t*>(slot), desc.wb.upper.length, desc.wb.lower.hi_dword.rss,
                                uint16_t(p), uint16_t(p), nf::Verdict::Forward};
        ring.slots[idx] = fresh;
        desc.read.pkt_addr = fresh;
        desc.read.hdr_addr = 0;  // clears DD: the NIC sees this descriptor again only after RDT passes it
        nf::NfCounters local[nf::kMaxChainLength] = {};
        nf::PacketBatch one{&refs[t], 1};
        nf::run_chain(chain, one, local);
        for (uint32_t e = 0; e < chain.count; ++e)
          for (int k = 0; k < nf::NfCounters::kMax; ++k)
            if (local[e].value[k]) atomicAdd(&nf_totals[e][k], local[e].value[k]);
      }
      __syncthreads();
      if (t == 0) {
        pool.top -= n;
        ring.next = (ring.next + n) % ring.entries;
        if (ring.unpublished == 0) ring.unpublished_since_ns = global_timer_ns();
        ring.unpublished += n;
        rx += n;
        // Dispatch in arrival order: a flow's packets leave on the paired tx ring in order.
        for (uint32_t i = 0; i < n; ++i) {
          nf::PacketRef& r = refs[i];
          const uint64_t slot = reinterpret_cast<uint64_t>(r.data);
          if (r.verdict == nf::Verdict::Forward && r.out_port < plane.ports) {
            DevTxRing& tx = plane.tx[r.out_port];
            if ((tx.tail + 1) % tx.entries == tx.clean) reclaim(plane, tx);
            if (tx_full_wait && (tx.tail + 1) % tx.entries == tx.clean) {
              // Lossless: give the NIC what is queued, then wait for room (or the exit flag).
              tails += maybe_publish_tx(tx, tails_rule, 0, true);
              while ((tx.tail + 1) % tx.entries == tx.clean && !load_acquire_sys(stop_flag)) reclaim(plane, tx);
            }
            if ((tx.tail + 1) % tx.entries == tx.clean) {
              ++tx_full;
              free_slot(plane, slot);
              continue;
            }
            nic::ixgbe_adv_tx_desc& d = tx.descs[tx.tail];
            d.read.buffer_addr = slot;
            d.read.cmd_type_len = nic::tx_cmd_type_len(r.len, false);
            d.read.olinfo_status = r.len << nic::IXGBE_ADVTXD_PAYLEN_SHIFT;
            tx.slots[tx.tail] = slot;
            tx.tail = tx.tail + 1 == tx.entries ? 0 : tx.tail + 1;
            if (tx.unpublished++ == 0) tx.unpublished_since_ns = global_timer_ns();
            ++tx_count;
          } else {
            if (r.verdict == nf::Verdict::Forward) ++bad_port;
            else if (r.verdict == nf::Verdict::Drop) ++nf_drops;
            else ++to_host;  // the bypass path has no exception ring yet: counted, then freed
            free_slot(plane, slot);
          }
        }
        // Tails last (see store_release_sys), as the batching rule allows.
        const uint64_t now = global_timer_ns();
        tails += maybe_publish_rx(ring, tails_rule, now, false);
        for (uint32_t o = 0; o < plane.ports; ++o) tails += maybe_publish_tx(plane.tx[o], tails_rule, now, false);
      }
      __syncthreads();
    }
    if (t == 0) {
      // Idle or not, a pending tail is written once its timeout has passed.
      const uint64_t now = global_timer_ns();
      for (uint32_t o = 0; o < plane.ports; ++o) {
        tails += maybe_publish_rx(plane.rx[o], tails_rule, now, false);
        tails += maybe_publish_tx(plane.tx[o], tails_rule, now, false);
        reclaim(plane, plane.tx[o]);
      }
      publish(out.rx_packets, rx);
      publish(out.tx_packets, tx_count);
      publish(out.nf_drops, nf_drops);
      publish(out.to_host, to_host);
      publish(out.tx_ring_full, tx_full);
      publish(out.bad_out_port, bad_port);
      publish(out.alloc_failures, alloc_fail);
      publish(out.tail_writes, tails);
      publish(out.polls, iteration);
      for (uint32_t e = 0; e < chain.count; ++e)
        for (int k = 0; k < nf::NfCounters::kMax; ++k) publish(out.nf[e][k], nf_totals[e][k]);
    }
    __syncthreads();
  }
}

}  // namespace

struct GpuBypass::Impl {
  std::vector<mem::Block> blocks;  // one device block per plane
  mem::Block plane_states;         // DevPlane[planes] in GPU memory
  mem::Block pinned;               // counters + stop flag, mapped
  GpuPlaneCounters* counters = nullptr;
  uint32_t* stop_flag = nullptr;
  nf::NfChainView chain;
  uint32_t burst = 32;
  bool tx_full_wait = false;
  TailBatching tails_rule{1, 1, 0};
  cudaStream_t stream = nullptr;
  bool running = false;
};

GpuBypass::GpuBypass(const std::vector<nic::Port*>& ports, uint16_t queues, const DriverOptions& options,
                     const nf::NfChainView& chain)
    : impl_(std::make_unique<Impl>()), planes_(queues) {
  if (!mem::cuda_device_available()) throw UserError("path 'bypass' needs a CUDA GPU, and none is usable here");
  if (options.burst > kMaxBurst) throw UserError("driver.burst is at most 256 on the bypass path");
  Impl& m = *impl_;
  m.chain = chain;
  m.burst = options.burst;
  m.tx_full_wait = options.tx_full_wait;
  m.tails_rule = TailBatching{options.rx_tail_batch, options.tx_tail_batch, options.tail_timeout_ns};
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

  std::vector<DevPlane> states(planes_);
  for (uint32_t q = 0; q < planes_; ++q) {
    m.blocks.emplace_back(mem::Domain::Device, per_port * n_ports);
    uint8_t* base = m.blocks.back().data();
    DevPlane& plane = states[q];
    std::memset(&plane, 0, sizeof(plane));
    plane.ports = n_ports;
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
      // Completion by head write-back into GPU memory: polling it costs the GPU no PCIe read.
      t.TDWBAH = uint32_t(reinterpret_cast<uint64_t>(wb) >> 32);
      t.TDWBAL = uint32_t(reinterpret_cast<uint64_t>(wb)) | nic::IXGBE_TDWBAL_HEAD_WB_EN;
      nic::reg_write(t.TXDCTL, nic::IXGBE_TXDCTL_ENABLE);
      nic::reg_write(r.RXDCTL, nic::IXGBE_RXDCTL_ENABLE);
      nic::reg_write(r.RDT, rx_entries - 1);

      plane.rx[p] = DevRxRing{rx_descs, rx_slot_array, rx_entries, 0, &r.RDT, 0, 0};
      plane.tx[p] = DevTxRing{tx_descs, tx_slot_array, tx_entries, 0, 0, &t.TDT, wb, 0, 0};
      plane.pool[p] = DevPool{free_stack, uint32_t(free_indices.size()), options.slot_size, slots, pool_base};
    }
  }
  m.plane_states = mem::Block(mem::Domain::Device, states.size() * sizeof(DevPlane));
  GNF_CUDA_CHECK(cudaMemcpy(m.plane_states.data(), states.data(), states.size() * sizeof(DevPlane), cudaMemcpyHostToDevice));
  m.pinned = mem::Block(mem::Domain::HostPinned, planes_ * sizeof(GpuPlaneCounters) + 64);
  m.counters = reinterpret_cast<GpuPlaneCounters*>(m.pinned.data());
  m.stop_flag = reinterpret_cast<uint32_t*>(m.pinned.data() + planes_ * sizeof(GpuPlaneCounters));
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
  cuda::atomic_ref<uint32_t, cuda::thread_scope_system>(*m.stop_flag).store(0, cuda::memory_order_release);
  // One block per plane; all blocks must be resident at once (they spin), so planes <= SMs.
  bypass_kernel<<<planes_, m.burst, 0, m.stream>>>(reinterpret_cast<DevPlane*>(m.plane_states.data()), m.counters,
                                                   m.chain, m.stop_flag, m.burst, m.tx_full_wait, m.tails_rule);
  GNF_CUDA_CHECK_LAUNCH();
  m.running = true;
}

void GpuBypass::stop() {
  Impl& m = *impl_;
  if (!m.running) return;
  cuda::atomic_ref<uint32_t, cuda::thread_scope_system>(*m.stop_flag).store(1, cuda::memory_order_release);
  m.running = false;
  GNF_CUDA_CHECK(cudaStreamSynchronize(m.stream));
}

GpuPlaneCounters GpuBypass::totals() const {
  GpuPlaneCounters sum{};
  const volatile GpuPlaneCounters* c = impl_->counters;
  for (uint32_t q = 0; q < planes_; ++q) {
    sum.rx_packets += c[q].rx_packets;
    sum.tx_packets += c[q].tx_packets;
    sum.nf_drops += c[q].nf_drops;
    sum.to_host += c[q].to_host;
    sum.tx_ring_full += c[q].tx_ring_full;
    sum.bad_out_port += c[q].bad_out_port;
    sum.alloc_failures += c[q].alloc_failures;
    sum.tail_writes += c[q].tail_writes;
    sum.polls += c[q].polls;
    for (uint32_t e = 0; e < nf::kMaxChainLength; ++e)
      for (int k = 0; k < nf::NfCounters::kMax; ++k) sum.nf[e][k] += c[q].nf[e][k];
  }
  return sum;
}

std::vector<SlotAudit> GpuBypass::audit() const {
  const Impl& m = *impl_;
  std::vector<DevPlane> states(planes_);
  GNF_CUDA_CHECK(cudaMemcpy(states.data(), m.plane_states.data(), states.size() * sizeof(DevPlane), cudaMemcpyDeviceToHost));
  auto fetch = [](const void* device, size_t count, auto* type_tag) {
    using T = std::remove_pointer_t<decltype(type_tag)>;
    std::vector<T> v(count);
    if (count) GNF_CUDA_CHECK(cudaMemcpy(v.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
    return v;
  };
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
      for (uint32_t index : fetch(pool.free_stack, pool.top, (uint32_t*)nullptr))
        place(pool.base + uint64_t(index) * pool.slot_size, a.free);
      for (uint64_t slot : fetch(plane.rx[p].slots, plane.rx[p].entries, (uint64_t*)nullptr)) place(slot, a.in_rx_rings);
      const DevTxRing& tx = plane.tx[p];
      std::vector<uint64_t> tx_slots = fetch(tx.slots, tx.entries, (uint64_t*)nullptr);
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
