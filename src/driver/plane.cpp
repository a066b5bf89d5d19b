#include "driver/plane.h"

#include "sync/readers.h"
#include "util/error.h"

namespace gnf::driver {

Plane::Plane(uint16_t queue, const std::vector<nic::Port*>& ports, const DriverOptions& unresolved,
             const nf::NfChainView& chain, bool nf_on_gpu)
    : queue_(queue),
      ports_(ports),
      options_(unresolved.resolved(false)),
      chain_(chain),
      rings_(ports, queue, options_, nf_on_gpu ? mem::Domain::HostPinned : mem::Domain::Host) {
  const DriverOptions& options = options_;
  if (nf_on_gpu)
    gpu_nf_ = std::make_unique<GpuNfRunner>(options.staged_mode, options.burst, options.staged_depth, options.slot_bytes(),
                                            chain);
  else
    host_batch_.resize(options.burst);
  out_.resize(options.burst);
  backlog_.resize(ports.size());
}

bool Plane::send_backlog(uint64_t now_ns) {
  bool waiting = false;
  for (uint32_t port = 0; port < backlog_.size(); ++port) {
    std::deque<nf::PacketRef>& queue = backlog_[port];
    if (queue.empty()) continue;
    TxRingRef& tx = rings_.tx(port);
    tx.reclaim(rings_.pools(), rings_.ports());
    uint32_t n = 0;
    for (auto it = queue.begin(); it != queue.end() && n < out_.size(); ++it) out_[n++] = &*it;
    uint32_t sent = send_burst(tx, out_.data(), n, now_ns);
    counters_.tx_packets.add(sent);
    queue.erase(queue.begin(), queue.begin() + sent);
    DoorbellBatch doorbells;
    tx.publish(now_ns, true, doorbells);
    waiting |= !queue.empty();
  }
  return waiting;
}

bool Plane::poll(uint64_t now_ns) {
  bool moved = false;
  if (send_backlog(now_ns)) return true;  // back-pressure: leave new packets in the rx rings
  for (uint16_t p = 0; p < rings_.ports(); ++p) {
    // On the staged path the burst is received straight into the GPU runner's next entry; with
    // every entry on the GPU, the oldest is waited for first.
    nf::PacketRef* batch = gpu_nf_ ? gpu_nf_->next_batch() : host_batch_.data();
    if (!batch) {
      complete_gpu_bursts(now_ns, true);
      batch = gpu_nf_->next_batch();
    }
    bool pool_ran_dry = false;
    uint32_t n = receive_burst(rings_.rx(p), rings_.pool(p), batch, options_.burst, p, now_ns, pool_ran_dry);
    if (pool_ran_dry) {
      counters_.alloc_failures.add();
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
      nf::PacketBatch packets{batch, n, queue_};
      nf::run_chain(chain_, packets, nf_counters_.data(), nf_runtime_.data());
      if (reader) sync::reader_leave(reader);
      for (uint32_t e = 0; e < chain_.count; ++e) {
        counters_.nf_calls[e].set(nf_runtime_[e].calls);
        counters_.nf_packets[e].set(nf_runtime_[e].packets);
      }
      dispatch(batch, n, now_ns);
    }
  }
  if (gpu_nf_) moved |= complete_gpu_bursts(now_ns, false) || gpu_nf_->in_flight() != 0;
  DoorbellBatch doorbells;
  for (uint32_t p = 0; p < rings_.ports(); ++p) {
    if (rings_.rx(p).publish(now_ns, false, doorbells)) counters_.tail_writes.add();
    if (rings_.tx(p).publish(now_ns, false, doorbells)) counters_.tail_writes.add();
  }
  if (!moved) reclaim_all();
  return moved;
}

bool Plane::quiet() const {
  for (uint32_t p = 0; p < rings_.ports(); ++p)
    if (rings_.rx_refs()[p].rdt.pending || rings_.tx_refs()[p].tdt.pending || !backlog_[p].empty()) return false;
  return !gpu_nf_ || gpu_nf_->in_flight() == 0;
}

void Plane::dispatch(nf::PacketRef* packets, uint32_t count, uint64_t now_ns) {
  const uint32_t n_ports = rings_.ports();
  for (uint32_t i = 0; i < count; ++i) {
    nf::PacketRef& p = packets[i];
    if (p.verdict == nf::Verdict::Forward && p.out_port >= n_ports) {
      counters_.bad_out_port.add();
      p.verdict = nf::Verdict::Drop;
    } else if (p.verdict == nf::Verdict::Drop) {
      counters_.nf_drops.add();
    }
    if (p.verdict == nf::Verdict::ToHost) {
      std::lock_guard lock(host_mutex_);
      if (host_frames_.size() < kExceptionQueueDepth) {
        host_frames_.push_back(HostFrame{p.in_port, std::vector<uint8_t>(p.data, p.data + p.len), p.reason});
        counters_.to_host.add();
      } else {
        counters_.to_host_overflow.add();
      }
    }
    if (p.verdict != nf::Verdict::Forward) mem::release_slot(rings_.pools(), n_ports, nf::packet_slot(p));
  }
  // Forwarded packets leave per output port, in arrival order.
  for (uint32_t port = 0; port < n_ports; ++port) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; ++i)
      if (packets[i].verdict == nf::Verdict::Forward && packets[i].out_port == port) out_[n++] = &packets[i];
    if (n == 0) continue;
    TxRingRef& tx = rings_.tx(port);
    // Behind a backlog (staged bursts complete while it waits), new packets queue up behind it.
    uint32_t sent = 0;
    if (backlog_[port].empty()) {
      if (tx.room() < n) tx.reclaim(rings_.pools(), n_ports);
      sent = send_burst(tx, out_.data(), n, now_ns);
      counters_.tx_packets.add(sent);
    }
    if (options_.tx_full_wait) {
      // Lossless: the rest waits here, and the plane takes no new packets until it has left.
      for (uint32_t i = sent; i < n; ++i) backlog_[port].push_back(*out_[i]);
      continue;
    }
    for (uint32_t i = sent; i < n; ++i) {
      mem::release_slot(rings_.pools(), n_ports, nf::packet_slot(*out_[i]));
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
  for (uint32_t p = 0; p < rings_.ports(); ++p) rings_.tx(p).reclaim(rings_.pools(), rings_.ports());
}

void Plane::flush(uint64_t now_ns) {
  if (gpu_nf_)
    while (gpu_nf_->in_flight()) complete_gpu_bursts(now_ns, true);
  DoorbellBatch doorbells;
  for (uint32_t p = 0; p < rings_.ports(); ++p) {
    rings_.rx(p).publish(now_ns, true, doorbells);
    rings_.tx(p).publish(now_ns, true, doorbells);
  }
  reclaim_all();
}

std::vector<HostFrame> Plane::take_host_frames() {
  std::lock_guard lock(host_mutex_);
  std::vector<HostFrame> out(std::make_move_iterator(host_frames_.begin()), std::make_move_iterator(host_frames_.end()));
  host_frames_.clear();
  return out;
}

SlotAudit Plane::audit() const {
  std::vector<uint64_t> in_driver;
  for (const auto& queue : backlog_)
    for (const nf::PacketRef& p : queue) in_driver.push_back(nf::packet_slot(p));
  if (gpu_nf_) {
    // Bursts on the GPU hold their slots in the driver.
    gpu_nf_->for_each_in_flight(
        [](const nf::PacketRef& p, void* out) {
          static_cast<std::vector<uint64_t>*>(out)->push_back(nf::packet_slot(p));
        },
        &in_driver);
  }
  return rings_.audit(rings_.rx_refs(), rings_.tx_refs(), rings_.pool_refs(), in_driver);
}

}  // namespace gnf::driver
