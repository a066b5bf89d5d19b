#include "driver/plane.h"

#include <unordered_set>

#include "sync/readers.h"
#include "util/error.h"

namespace gnf::driver {

namespace {
constexpr size_t kRingAlign = 128;  // RDLEN/TDLEN granularity; also keeps rings off shared lines
size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }
}  // namespace

Plane::Plane(uint16_t queue, const std::vector<nic::Port*>& ports, const DriverOptions& unresolved,
             const nf::NfChainView& chain, bool nf_on_gpu)
    : queue_(queue), ports_(ports), options_(unresolved.resolved(false)), chain_(chain) {
  const DriverOptions& options = options_;
  const size_t n_ports = ports.size();
  const size_t rx_ring_bytes = align_up(options.rx_ring_size * sizeof(nic::ixgbe_adv_rx_desc), kRingAlign);
  const size_t tx_ring_bytes = align_up(options.tx_ring_size * sizeof(nic::ixgbe_adv_tx_desc), kRingAlign);
  const size_t head_wb_bytes = kRingAlign;
  const uint32_t slots = options.slots_per_pool();
  const size_t pool_bytes = size_t(slots) * options.slot_size;
  const size_t per_port = rx_ring_bytes + tx_ring_bytes + head_wb_bytes + pool_bytes;
  block_ = mem::Block(nf_on_gpu ? mem::Domain::HostPinned : mem::Domain::Host, per_port * n_ports);

  pools_.reserve(n_ports);
  for (size_t p = 0; p < n_ports; ++p) {
    uint8_t* base = block_.data() + p * per_port;
    pools_.emplace_back(base + rx_ring_bytes + tx_ring_bytes + head_wb_bytes, options.slot_size, slots);
  }
  for (auto& pool : pools_) pool_ptrs_.push_back(&pool);
  rx_.resize(n_ports);
  tx_.resize(n_ports);
  for (size_t p = 0; p < n_ports; ++p) {
    uint8_t* base = block_.data() + p * per_port;
    nic::PortRegs& regs = ports[p]->regs();
    rx_[p].init(regs.rx[queue], reinterpret_cast<nic::ixgbe_adv_rx_desc*>(base), options.rx_ring_size, pools_[p], options);
    tx_[p].init(regs.tx[queue], reinterpret_cast<nic::ixgbe_adv_tx_desc*>(base + rx_ring_bytes), options.tx_ring_size,
                reinterpret_cast<uint32_t*>(base + rx_ring_bytes + tx_ring_bytes), options);
  }
  if (nf_on_gpu)
    gpu_nf_ = std::make_unique<GpuNfRunner>(options.staged_mode, options.burst, options.staged_depth, options.slot_size,
                                            chain);
  else
    host_batch_.resize(options.burst);
  out_.resize(options.burst);
  backlog_.resize(n_ports);
}

bool Plane::send_backlog(uint64_t now_ns) {
  bool waiting = false;
  for (uint32_t port = 0; port < backlog_.size(); ++port) {
    std::deque<nf::PacketRef>& queue = backlog_[port];
    if (queue.empty()) continue;
    TxRing& tx = tx_[port];
    tx.reclaim(options_, pool_ptrs_.data(), uint32_t(pool_ptrs_.size()));
    uint32_t n = 0;
    for (auto it = queue.begin(); it != queue.end() && n < out_.size(); ++it) out_[n++] = &*it;
    uint32_t sent = tx.send(out_.data(), n, options_, now_ns);
    counters_.tx_packets.add(sent);
    queue.erase(queue.begin(), queue.begin() + sent);
    tx.publish(options_, now_ns, true);
    waiting |= !queue.empty();
  }
  return waiting;
}

bool Plane::poll(uint64_t now_ns) {
  bool moved = false;
  if (send_backlog(now_ns)) return true;  // back-pressure: leave new packets in the rx rings
  for (uint16_t p = 0; p < rx_.size(); ++p) {
    // On the staged path the burst is received straight into the GPU runner's next entry; with
    // every entry on the GPU, the oldest is waited for first.
    nf::PacketRef* batch = gpu_nf_ ? gpu_nf_->next_batch() : host_batch_.data();
    if (!batch) {
      complete_gpu_bursts(now_ns, true);
      batch = gpu_nf_->next_batch();
    }
    uint64_t alloc_failures = 0;
    uint32_t n = rx_[p].receive(batch, options_.burst, p, now_ns, alloc_failures);
    if (alloc_failures) {
      counters_.alloc_failures.add(alloc_failures);
      reclaim_all();  // slots may be waiting in finished tx descriptors
    }
    if (n == 0) continue;
    moved = true;
    counters_.rx_packets.add(n);
    // A burst's table lookups lie between reader_enter and reader_leave (sync/readers.h); on the
    // staged path they run on the GPU between submit and completion, which finish in order.
    sync::ReaderSlot* reader = chain_.readers ? chain_.readers + queue_ : nullptr;
    if (reader) sync::reader_enter(reader);
    if (gpu_nf_) {
      gpu_nf_->submit(n);
    } else {
      nf::PacketBatch packets{batch, n};
      nf::run_chain(chain_, packets, nf_counters_.data());
      if (reader) sync::reader_leave(reader);
      dispatch(batch, n, now_ns);
    }
  }
  if (gpu_nf_) moved |= complete_gpu_bursts(now_ns, false) || gpu_nf_->in_flight() != 0;
  for (auto& rx : rx_) {
    uint32_t before = rx.unpublished;
    rx.publish(options_, now_ns);
    if (before && !rx.unpublished) counters_.tail_writes.add();
  }
  for (auto& tx : tx_) {
    uint32_t before = tx.unpublished;
    tx.publish(options_, now_ns);
    if (before && !tx.unpublished) counters_.tail_writes.add();
  }
  if (!moved) reclaim_all();
  return moved;
}

void Plane::dispatch(nf::PacketRef* packets, uint32_t count, uint64_t now_ns) {
  const uint32_t n_ports = uint32_t(tx_.size());
  for (uint32_t i = 0; i < count; ++i) {
    nf::PacketRef& p = packets[i];
    const uint64_t slot = reinterpret_cast<uint64_t>(p.data);
    if (p.verdict == nf::Verdict::Forward && p.out_port >= n_ports) {
      counters_.bad_out_port.add();
      p.verdict = nf::Verdict::Drop;
    } else if (p.verdict == nf::Verdict::Drop) {
      counters_.nf_drops.add();
    }
    if (p.verdict == nf::Verdict::ToHost) {
      std::lock_guard lock(host_mutex_);
      if (host_frames_.size() < kExceptionQueueDepth) {
        host_frames_.push_back(HostFrame{p.in_port, std::vector<uint8_t>(p.data, p.data + p.len)});
        counters_.to_host.add();
      } else {
        counters_.to_host_overflow.add();
      }
    }
    if (p.verdict != nf::Verdict::Forward) release_slot(slot, pool_ptrs_.data(), uint32_t(pool_ptrs_.size()));
  }
  // Forwarded packets leave per output port, in arrival order.
  for (uint32_t port = 0; port < n_ports; ++port) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; ++i)
      if (packets[i].verdict == nf::Verdict::Forward && packets[i].out_port == port) out_[n++] = &packets[i];
    if (n == 0) continue;
    TxRing& tx = tx_[port];
    // Behind a backlog (staged bursts complete while it waits), new packets queue up behind it.
    uint32_t sent = 0;
    if (backlog_[port].empty()) {
      if (tx.entries - 1 - tx.in_use() < n) tx.reclaim(options_, pool_ptrs_.data(), uint32_t(pool_ptrs_.size()));
      sent = tx.send(out_.data(), n, options_, now_ns);
      counters_.tx_packets.add(sent);
    }
    if (options_.tx_full_wait) {
      // Lossless: the rest waits here, and the plane takes no new packets until it has left.
      for (uint32_t i = sent; i < n; ++i) backlog_[port].push_back(*out_[i]);
      continue;
    }
    for (uint32_t i = sent; i < n; ++i) {
      release_slot(reinterpret_cast<uint64_t>(out_[i]->data), pool_ptrs_.data(), uint32_t(pool_ptrs_.size()));
      counters_.tx_ring_full.add();
    }
  }
  for (uint32_t e = 0; e < chain_.count; ++e)
    for (int c = 0; c < nf::NfCounters::kMax; ++c)
      if (nf_counters_[e].value[c] != counters_.nf[e][c].get()) {
        counters_.nf[e][c].reset();
        counters_.nf[e][c].add(nf_counters_[e].value[c]);
      }
}

bool Plane::complete_gpu_bursts(uint64_t now_ns, bool wait_for_one) {
  bool any = false;
  for (;;) {
    GpuNfRunner::Done done = gpu_nf_->take_done(wait_for_one && !any, nf_counters_.data());
    if (!done.refs) return any;
    if (chain_.readers) sync::reader_leave(chain_.readers + queue_);
    dispatch(done.refs, done.count, now_ns);
    any = true;
  }
}

void Plane::stop_gpu() {
  if (gpu_nf_) gpu_nf_->stop();
}

void Plane::reclaim_all() {
  for (auto& tx : tx_) tx.reclaim(options_, pool_ptrs_.data(), uint32_t(pool_ptrs_.size()));
}

void Plane::flush(uint64_t now_ns) {
  if (gpu_nf_)
    while (gpu_nf_->in_flight()) complete_gpu_bursts(now_ns, true);
  for (auto& rx : rx_) rx.publish(options_, now_ns, true);
  for (auto& tx : tx_) tx.publish(options_, now_ns, true);
  reclaim_all();
}

std::vector<HostFrame> Plane::take_host_frames() {
  std::lock_guard lock(host_mutex_);
  std::vector<HostFrame> out(std::make_move_iterator(host_frames_.begin()), std::make_move_iterator(host_frames_.end()));
  host_frames_.clear();
  return out;
}

SlotAudit Plane::audit() const {
  SlotAudit a;
  std::unordered_set<uint64_t> seen;
  auto place = [&](uint64_t addr, uint64_t& where) {
    ++where;
    if (!seen.insert(addr).second) ++a.duplicates;
  };
  for (const auto& pool : pools_) {
    a.capacity += pool.capacity();
    for (uint32_t index : pool.free_indices()) place(pool.address_of(index), a.free);
  }
  for (const auto& rx : rx_)
    for (uint64_t slot : rx.slots) place(slot, a.in_rx_rings);
  for (const auto& tx : tx_)
    for (uint32_t i = tx.clean; i != tx.tail; i = i + 1 == tx.entries ? 0 : i + 1) place(tx.slots[i], a.in_tx_rings);
  for (const auto& queue : backlog_)
    for (const nf::PacketRef& p : queue) place(reinterpret_cast<uint64_t>(p.data), a.in_driver);
  if (gpu_nf_) {
    // Bursts on the GPU hold their slots in the driver.
    std::vector<uint64_t> in_flight;
    gpu_nf_->for_each_in_flight(
        [](const nf::PacketRef& p, void* out) {
          static_cast<std::vector<uint64_t>*>(out)->push_back(reinterpret_cast<uint64_t>(p.data));
        },
        &in_flight);
    for (uint64_t slot : in_flight) place(slot, a.in_driver);
  }
  return a;
}

}  // namespace gnf::driver
