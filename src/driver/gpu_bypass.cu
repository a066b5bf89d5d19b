#include "driver/gpu_bypass.h"

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>

#include <fmt/format.h>

#include "driver/gpu_bypass_kernel.cuh"
#include "driver/queue_rings.h"
#include "mem/block.h"
#include "mem/cuda_alloc.h"
#include "sync/ordering.h"
#include "util/cuda_check.h"
#include "util/cuda_wait.h"
#include "util/error.h"
#include "util/trace.h"
#include "wire/latency_histogram.h"

namespace gnf::driver {

using namespace bypass;

namespace {

constexpr size_t kAlign = 128;
size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

// The kernel publishes GpuPlaneCounters as an array of uint64_t: the driver's counters in the order
// of bypass::Stat, then polls, the polls timed and the phases of those (bypass::Phase), then the NF
// counters.
using Words = DriverCounterValues;
static_assert(offsetof(Words, rx_packets) == kRx * 8 && offsetof(Words, tx_packets) == kTx * 8 &&
              offsetof(Words, nf_drops) == kNfDrops * 8 && offsetof(Words, to_host) == kToHost * 8 &&
              offsetof(Words, to_host_overflow) == kToHostOverflow * 8 &&
              offsetof(Words, tx_ring_full) == kTxFull * 8 && offsetof(Words, bad_out_port) == kBadPort * 8 &&
              offsetof(Words, alloc_failures) == kAllocFail * 8 &&
              offsetof(Words, tail_writes) == kTails * 8 && offsetof(Words, consumed) == kConsumed * 8 &&
              offsetof(Words, unrecorded) == kUnrecorded * 8 && sizeof(Words) == kStatCount * 8 &&
              kPhaseCount == kGpuDriverPhaseCount &&
              sizeof(GpuPlaneCounters) == (kStatCount + 2 + kGpuDriverPhaseCount + nf::kMaxChainLength * nf::NfCounters::kMax) * 8);

}  // namespace

struct GpuBypass::Impl {
  std::vector<QueueRings> rings;  // per plane, in GPU memory
  mem::Block plane_states;        // DevPlane[planes] in GPU memory
  mem::Block nf_shares;           // NfShare[planes] in GPU memory: each burst's refs
  mem::Block pinned;              // counters, the control mailbox, exception rings: mapped host memory
  GpuPlaneCounters* counters = nullptr;
  Control* control = nullptr;
  std::vector<DevExceptionRing> exceptions;  // the host's view of each plane's ring
  std::vector<uint32_t> exception_tails;     // the host's copy of each ring's tail
  std::mutex exceptions_mutex;
  std::vector<DevExceptionRing> arrivals;    // the same for the arrival rings (one_way = rx)
  std::vector<uint32_t> arrival_tails;
  // GNF_TRACE_HANDOVERS=agent or found: the arrivals' agent -> poll times, printed at stop().
  wire::LatencyHistogram agent_to_poll;
  std::unique_ptr<GpuClock> clock;
  bool clock_launched = false;           // with a one-way mode
  nf::NfChainView chain;
  KernelConfig config{};
  BypassKernel kernel = nullptr;  // built for the chain's NF kinds
  uint32_t threads = 0;
  uint32_t shared_bytes = 0;  // dynamic shared memory per block
  uint32_t blocks = 0;  // the planes' and their NF blocks
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
  m.config = KernelConfig{options.burst, options.tx_full_wait, options.one_way, nullptr, planes_, options.nf_blocks,
                          nullptr, options.one_way == OneWay::Rx && traced_agent_time() != 0};
  m.kernel = bypass_kernel_for(nf::kinds_of(chain));
  m.threads = (options.burst + kWarpSize - 1) / kWarpSize * kWarpSize;
  // A burst's refs in shared memory while the chain runs (burst_refs), unless NF blocks share them.
  m.shared_bytes = options.nf_blocks != 0 ? 0 : m.threads * uint32_t(sizeof(nf::PacketRef));
  m.blocks = planes_ * (1 + options.nf_blocks);

  // Every block spins for good: all of them must be resident at once.
  int device = 0, sms = 0, per_sm = 0;
  GNF_CUDA_CHECK(cudaGetDevice(&device));
  GNF_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  GNF_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, m.kernel, int(m.threads), m.shared_bytes));
  if (uint64_t(sms) * uint64_t(per_sm) < m.blocks)
    throw UserError(fmt::format("the bypass path runs {} resident thread block(s) per queue (driver.nf_blocks + 1); "
                                "this GPU holds {} of {} threads at once, fewer than the {} blocks of {} queues",
                                1 + options.nf_blocks, uint64_t(sms) * uint64_t(per_sm), m.threads, m.blocks, planes_));
  m.nf_shares = mem::Block(mem::Domain::Device, planes_ * sizeof(NfShare));
  m.config.shares = reinterpret_cast<NfShare*>(m.nf_shares.data());

  // Pinned: per block its counters, then the control mailbox, then per plane an exception ring and
  // an arrival ring (head and tail on cache lines of their own, then the entries).
  const size_t counters_bytes = align_up(m.blocks * sizeof(GpuPlaneCounters));
  const size_t control_bytes = align_up(sizeof(Control));
  const uint32_t entry_bytes = options.slot_bytes() + 16;  // a frame may have grown into its headroom
  const size_t exception_bytes = 2 * kAlign + size_t(kExceptionRingEntries) * entry_bytes;
  const uint32_t arrival_entries = options.one_way == OneWay::Rx ? kArrivalRingEntries : 0;
  const size_t arrival_bytes = 2 * kAlign + size_t(arrival_entries) * sizeof(ArrivalRecord);
  const size_t per_plane_pinned = align_up(exception_bytes) + align_up(arrival_bytes);
  m.pinned = mem::Block(mem::Domain::HostPinned, counters_bytes + control_bytes + planes_ * per_plane_pinned);
  m.counters = reinterpret_cast<GpuPlaneCounters*>(m.pinned.data());
  m.control = new (m.pinned.data() + counters_bytes) Control{};
  m.exception_tails.assign(planes_, 0);
  m.arrival_tails.assign(planes_, 0);

  std::vector<DevPlane> states(planes_);
  for (uint32_t q = 0; q < planes_; ++q) {
    QueueRings& rings = m.rings.emplace_back(ports, q, options, mem::Domain::Device);
    DevPlane& plane = states[q];
    std::memset(&plane, 0, sizeof(plane));
    plane.ports = rings.ports();
    for (uint32_t p = 0; p < rings.ports(); ++p) {
      plane.rx[p] = rings.rx(p);
      plane.tx[p] = rings.tx(p);
      plane.pool[p] = rings.pool(p);
    }
    uint8_t* exc = m.pinned.data() + counters_bytes + control_bytes + q * per_plane_pinned;
    plane.exceptions = DevExceptionRing{exc + 2 * kAlign, reinterpret_cast<uint32_t*>(exc),
                                        reinterpret_cast<uint32_t*>(exc + kAlign), kExceptionRingEntries, entry_bytes, 0, 0};
    m.exceptions.push_back(plane.exceptions);
    uint8_t* arr = exc + align_up(exception_bytes);
    plane.arrivals = DevExceptionRing{arr + 2 * kAlign, reinterpret_cast<uint32_t*>(arr),
                                      reinterpret_cast<uint32_t*>(arr + kAlign), arrival_entries,
                                      uint32_t(sizeof(ArrivalRecord)), 0, 0};
    m.arrivals.push_back(plane.arrivals);
  }
  m.plane_states = mem::Block(mem::Domain::Device, states.size() * sizeof(DevPlane));
  m.plane_states.copy_in(m.plane_states.data(), states.data(), states.size() * sizeof(DevPlane));
  GNF_CUDA_CHECK(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking));
  // The clock's kernel is launched only once the data path's kernels run (start_clock()).
  if (options.one_way != OneWay::Off) {
    m.clock = std::make_unique<GpuClock>(false);
    m.config.host_minus_gpu_ns = m.clock->device_offset();
  }
}

GpuBypass::~GpuBypass() {
  try {
    stop();
  } catch (...) {
  }
  if (impl_->stream) cudaStreamDestroy(impl_->stream);
}

void GpuBypass::start(uint32_t) {
  Impl& m = *impl_;
  if (m.running) return;
  m.control->clear_stop();
  // The NF blocks' hand-over counts from zero at every launch (NfShare).
  GNF_CUDA_CHECK(cudaMemsetAsync(m.nf_shares.data(), 0, m.nf_shares.size(), m.stream));
  m.kernel<<<m.blocks, m.threads, m.shared_bytes, m.stream>>>(
      reinterpret_cast<DevPlane*>(m.plane_states.data()), reinterpret_cast<uint64_t*>(m.counters),
      sizeof(GpuPlaneCounters) / sizeof(uint64_t), m.chain, m.control, m.config);
  GNF_CUDA_CHECK_LAUNCH();
  m.running = true;
  if (m.clock_launched) m.clock->start_tracking();  // a restart: the clock's kernel runs on
}

void GpuBypass::stop_gpu() {
  Impl& m = *impl_;
  if (m.clock) m.clock->stop_kernel();
  m.clock_launched = false;
}

void GpuBypass::start_clock() {
  Impl& m = *impl_;
  if (!m.clock) return;
  m.clock->launch();
  m.clock_launched = true;
  m.clock->start_tracking();
}

void GpuBypass::stop() {
  Impl& m = *impl_;
  if (!m.running) return;
  m.control->request_stop();
  m.running = false;
  wait_for_stop(m.stream, "the bypass driver's kernel");
  if (m.clock) m.clock->stop_tracking();
  if (const wire::LatencyHistogram& h = m.agent_to_poll; h.count() != 0) {  // util/trace.h
    std::fprintf(stderr, "gnf: trace: agent %s -> driver poll, ns: p1 %llu p10 %llu p50 %llu p90 %llu p99 %llu (%llu frames)\n",
                 traced_agent_time() == kTraceAgent ? "DD" : "poll", (unsigned long long)h.percentile(1),
                 (unsigned long long)h.percentile(10), (unsigned long long)h.percentile(50),
                 (unsigned long long)h.percentile(90), (unsigned long long)h.percentile(99),
                 (unsigned long long)h.count());
    m.agent_to_poll = wire::LatencyHistogram();
  }
}

bool GpuBypass::running() const { return impl_->running; }

DriverTotals GpuBypass::counters() const {
  GpuPlaneCounters sum{};
  auto* total = reinterpret_cast<uint64_t*>(&sum);
  const volatile uint64_t* c = reinterpret_cast<const volatile uint64_t*>(impl_->counters);
  const size_t words = sizeof(GpuPlaneCounters) / sizeof(uint64_t);
  for (uint32_t b = 0; b < impl_->blocks; ++b)  // an NF block counts only its NF counters
    for (size_t k = 0; k < words; ++k) total[k] += c[b * words + k];
  DriverTotals totals;
  static_cast<DriverCounterValues&>(totals) = sum;
  std::memcpy(totals.nf, sum.nf, sizeof(totals.nf));
  LoopPhases loop;
  loop.rounds = sum.polls;
  loop.timed_rounds = sum.timed_polls;
  std::copy(std::begin(sum.phase_ns), std::end(sum.phase_ns), loop.ns);
  totals.gpu_loop = loop.per_block(planes_);
  return totals;
}

std::vector<HostFrame> GpuBypass::take_host_frames() {
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
      uint32_t header[3];
      std::memcpy(header, entry, sizeof(header));
      frames.push_back(HostFrame{uint16_t(header[0]), std::vector<uint8_t>(entry + 16, entry + 16 + header[1]),
                                 nf::HostReason(header[2])});
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
      if (a.len && m.config.trace_agent) m.agent_to_poll.record(a.agent_to_poll_ns);
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
  std::vector<DevPlane> states(planes_);
  m.plane_states.copy_out(states.data(), m.plane_states.data(), states.size() * sizeof(DevPlane));
  std::vector<SlotAudit> out;
  for (uint32_t q = 0; q < planes_; ++q) out.push_back(m.rings[q].audit(states[q].rx, states[q].tx, states[q].pool, {}));
  return out;
}

nic::PortRegs* alloc_pinned_port_regs() {
  auto* regs = reinterpret_cast<nic::PortRegs*>(mem::alloc_host_pinned(sizeof(nic::PortRegs)));
  std::memset(regs, 0, sizeof(nic::PortRegs));
  return regs;
}

void free_pinned_port_regs(nic::PortRegs* regs) { mem::free_host_pinned(reinterpret_cast<uint8_t*>(regs)); }

}  // namespace gnf::driver
