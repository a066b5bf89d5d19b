// libFuzzer target: arbitrary frames through the whole frame path, on the deterministic rig.
//
//   wire source -> nic::Port rx (MAC size checks, RSS, rx packet buffer, DMA into descriptors)
//   -> driver::Plane per queue (rx ring, NF chain: l2fwd reflect, tx ring)
//   -> nic::Port tx -> wire::MeasuringSink (decodes stamps) -> CollectSink (keeps the frames)
//
// Input layout: kConfigBytes (5) of configuration (see Config below), then frames, each a 2-byte
// little-endian length (taken modulo 9101, so 0..9100: runts and oversize frames occur) and that
// many bytes (fewer if the input ends first). Each raw frame is also given to wire::decode_stamp
// and both nic::rss_classify overloads directly.
//
// After the run every invariant below is checked; a broken one prints what broke and traps, so
// libFuzzer records the input as a crash:
//  - the run drains (a bound on simulated steps: a lost packet or a stuck ring shows up here);
//  - every plane's SlotAudit is consistent, no slot is left in a tx ring or a tx backlog;
//  - offered frames == port tx_good + every drop counter of the port and the planes;
//  - port rx_good == planes' rx_packets, planes' tx_packets == port tx_good (+ tx_bad_desc == 0);
//  - the sink got exactly tx_good frames, and the MeasuringSink accounted for each once; its
//    latency histogram adds up (count, buckets, percentile(0) == min, percentile(100) == max);
//  - every frame sent is a byte-exact copy (after the l2fwd MAC mode) of an accepted input frame,
//    and per RSS queue the frames leave in arrival order (a subsequence of the inputs);
//  - the two rss_classify overloads agree, and their queue is reta[hash & 0x7f] (0 for no hash).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "driver/plane.h"
#include "fuzz_support.h"
#include "harness.h"
#include "nf/chain.h"
#include "nic/port.h"
#include "nic/rss.h"
#include "wire/frame_size.h"
#include "wire/measure.h"
#include "wire/stamp.h"
#include "wire/wire.h"

using namespace gnf;

namespace {

constexpr size_t kConfigBytes = 5;
constexpr uint32_t kMaxFuzzFrameBytes = 9100;

// What the leading bytes choose. Every choice but slot_size 1024 is a configuration ctl::Config
// accepts; 1 KiB slots with 1514-byte frames exercise the NIC's "buffer too small" drop, which a
// valid config never reaches. pool_slots == rx_ring_size, which ctl::Config accepts, is left out:
// the plane can never refill a descriptor and receives nothing (the run cannot drain).
struct Config {
  nic::PortOptions port;
  driver::DriverOptions driver;
  std::string mac_mode;
  int nic_polls = 1;       // NIC polls per driver round
  uint64_t step_ns = 100;  // clock advance per NIC poll
  uint64_t start_ns = 1'000'000;

  explicit Config(const uint8_t* c) {
    static constexpr uint32_t kRings[4] = {8, 16, 64, 16};
    static constexpr const char* kMacModes[4] = {"none", "swap", "rewrite", "none"};
    static constexpr driver::TxCompletion kCompletion[4] = {
        driver::TxCompletion::DescWriteback, driver::TxCompletion::HeadRegister,
        driver::TxCompletion::HeadWriteback, driver::TxCompletion::DescWriteback};
    static constexpr uint32_t kBursts[4] = {1, 4, 32, 64};
    static constexpr uint32_t kTailBatch[4] = {1, 1, 4, 16};
    static constexpr int kPolls[4] = {1, 2, 8, 40};
    static constexpr uint32_t kSlotSizes[4] = {2048, 9216, 2048, 1024};
    static constexpr uint64_t kStepNs[4] = {100, 20, 500, 2000};

    // c[0]: queues, drop_en, ring size, l2fwd mac mode, flow control
    port.rx_queues = port.tx_queues = uint16_t(1 + (c[0] & 3));
    driver.drop_en = c[0] & 4;
    uint32_t ring_index = (c[0] >> 3) & 3;
    driver.rx_ring_size = kRings[ring_index];
    mac_mode = kMacModes[(c[0] >> 5) & 3];
    port.flow_control = c[0] & 0x80;
    // c[1]: tx completion, burst, tail batching, NIC polls per driver round
    driver.tx_completion = kCompletion[c[1] & 3];
    driver.burst = kBursts[(c[1] >> 2) & 3];
    driver.rx_tail_batch = driver.tx_tail_batch = kTailBatch[(c[1] >> 4) & 3];
    nic_polls = kPolls[(c[1] >> 6) & 3];
    // c[2]: frame size limit, slot size, rx buffer, pool size, speed, tx ring size
    port.max_frame_bytes = (c[2] & 1) ? wire::kMaxJumboFrameBytes : wire::kMaxStdFrameBytes;
    driver.slot_size = kSlotSizes[(c[2] >> 1) & 3];
    if (driver.slot_size == 2048 && port.max_frame_bytes > 2048) driver.slot_size = 9216;  // a valid pair
    port.rx_buffer_bytes = (c[2] & 8) ? 16 * 1024 : 512 * 1024;
    switch ((c[2] >> 4) & 3) {
      case 1: driver.pool_slots = driver.rx_ring_size + 1; break;  // the least that can move packets
      case 2: driver.pool_slots = driver.rx_ring_size + driver.burst; break;
      default: driver.pool_slots = 0; break;  // rx ring + tx ring + 2 bursts
    }
    port.speed_gbps = (c[2] & 0x40) ? 100 : 10;
    driver.tx_ring_size = (c[2] & 0x80) ? kRings[(ring_index + 1) % 3] : driver.rx_ring_size;
    // c[3]: clock step, tx packet buffer, RSS hash types
    step_ns = kStepNs[c[3] & 3];
    port.tx_buffer_bytes = (c[3] & 4) ? 16 * 1024 : 160 * 1024;
    if (c[3] & 8) port.rss.ipv4_udp = port.rss.ipv6_udp = false;  // UDP falls back to the address hash
    if (c[3] & 16) port.rss.ipv4_tcp = port.rss.ipv6_tcp = false;
    if (c[3] & 32) port.rss.ipv4 = false;
    if (c[3] & 64) port.rss.ipv6 = false;
    // A machine up for 11.6 days: large CLOCK_MONOTONIC values (ps arithmetic, latencies).
    start_ns = (c[3] & 0x80) ? 1'000'000'000'000'000ull : 1'000'000;
    // c[4]: what a full tx ring does, tail timeout
    static constexpr uint64_t kTailTimeoutNs[4] = {2500, 1, 20'000, 2500};
    driver.tx_full_wait = c[4] & 1;
    driver.tail_timeout_ns = kTailTimeoutNs[(c[4] >> 3) & 3];
    port.mac = {0x02, 0x00, 0x00, 0x00, 0x01, 0x00};
    nic::fill_reta_round_robin(port.rss, port.rx_queues);
  }
};

// Hands out the frames as the wire would, each in a fresh heap buffer of exactly its length that
// is freed by the next call: ASan sees any read past a frame's end and any use of a frame after
// the contract ("valid until the next call to next()") ended.
class FuzzSource final : public wire::Source {
 public:
  explicit FuzzSource(const std::vector<std::pair<const uint8_t*, uint32_t>>& frames) : frames_(frames) {}
  void start(uint64_t) override {}
  wire::Next next(wire::Frame& out) override {
    current_.reset();
    if (next_ == frames_.size()) return wire::Next::Exhausted;
    auto [data, len] = frames_[next_++];
    current_.reset(new uint8_t[len]);
    if (len) std::memcpy(current_.get(), data, len);
    out = wire::Frame{current_.get(), len, 0};
    counters_.frames++;
    counters_.bytes += len;
    return wire::Next::Frame;
  }
  wire::SourceCounters counters() const override { return counters_; }
  std::string describe() const override { return "fuzz"; }

 private:
  const std::vector<std::pair<const uint8_t*, uint32_t>>& frames_;
  size_t next_ = 0;
  std::unique_ptr<uint8_t[]> current_;
  wire::SourceCounters counters_;
};

void check_rss(const nic::RssConfig& cfg, const nic::ToeplitzTable& table, const uint8_t* frame, uint32_t len,
               uint16_t queues) {
  nic::RssResult a = nic::rss_classify(cfg, frame, len);
  nic::RssResult b = nic::rss_classify(cfg, table, frame, len);
  FUZZ_CHECK_EQ(uint8_t(a.type), uint8_t(b.type), "rss_classify: the two overloads disagree on the type");
  FUZZ_CHECK_EQ(a.hash, b.hash, "rss_classify: the bitwise and the table Toeplitz hash differ");
  FUZZ_CHECK_EQ(a.queue, b.queue, "rss_classify: the two overloads disagree on the queue");
  if (a.type == nic::RssResult::Type::None) {
    FUZZ_CHECK_EQ(a.hash, 0, "rss_classify: no hash type but a hash");
    FUZZ_CHECK_EQ(a.queue, 0, "rss_classify: no hash type but not the default queue");
  } else {
    FUZZ_CHECK_EQ(a.queue, cfg.reta[a.hash & 0x7f], "rss_classify: queue is not reta[hash & 0x7f]");
  }
  FUZZ_CHECK(a.queue < queues, "rss_classify: queue beyond the port's rx queues");
}

uint64_t plane_sum(const std::vector<std::unique_ptr<driver::Plane>>& planes, const Counter driver::PlaneCounters::*m) {
  uint64_t n = 0;
  for (const auto& plane : planes) n += (plane->counters().*m).get();
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool verbose = std::getenv("FRAME_PATH_FUZZ_VERBOSE") != nullptr;
  if (size < kConfigBytes) return -1;  // not kept in the corpus
  const Config cfg(data);

  // Split the rest into frames.
  std::vector<std::pair<const uint8_t*, uint32_t>> frames;
  for (size_t at = kConfigBytes; at + 2 <= size;) {
    uint32_t len = uint32_t(data[at] | data[at + 1] << 8) % (kMaxFuzzFrameBytes + 1);
    at += 2;
    len = uint32_t(std::min<size_t>(len, size - at));
    frames.emplace_back(data + at, len);
    at += len;
  }

  // Direct calls on each raw frame, from an exactly sized copy (ASan sees any overread).
  // The key never varies (the port's default), so the table is built once.
  static const nic::ToeplitzTable table(nic::kDefaultRssKey);
  uint64_t wire_ns = 0;
  for (auto [bytes, len] : frames) {
    std::unique_ptr<uint8_t[]> copy(new uint8_t[len]);
    if (len) std::memcpy(copy.get(), bytes, len);
    std::optional<wire::Stamp> stamp = wire::decode_stamp(copy.get(), len);
    if (stamp) FUZZ_CHECK(len >= 14 + 20 + 8 + wire::kStampBytes, "decode_stamp: a stamp in a frame too short for one");
    check_rss(cfg.port.rss, table, copy.get(), len, cfg.port.rx_queues);
    wire_ns += wire::l1_bytes(len) * 8 / cfg.port.speed_gbps + 1;
  }

  // The rig: one port (reflect), one plane per queue.
  nf::Params params;
  params.set("mode", nf::ParamValue{std::string("reflect"), 0});
  params.set("mac", nf::ParamValue{cfg.mac_mode, 0});
  nf::NfContext context;
  context.ports = 1;
  context.port_macs[0] = cfg.port.mac;
  nf::NfChain chain({nf::NfSpec{"l2fwd", params}}, context);

  test::CollectSink collect;
  wire::MeasuringSink sink(&collect);
  FuzzSource source(frames);
  nic::Port port(cfg.port, &source, &sink);
  std::vector<nic::Port*> ports = {&port};
  std::vector<std::unique_ptr<driver::Plane>> planes;
  for (uint16_t q = 0; q < cfg.port.rx_queues; ++q)
    planes.push_back(std::make_unique<driver::Plane>(q, ports, cfg.driver, chain.view()));
  uint64_t now_ns = cfg.start_ns;
  port.start(now_ns);

  auto drained = [&] {
    if (!port.rx_drained() || !port.tx_drained()) return false;
    const nic::PortCounterSnapshot pc = port.counters();
    uint64_t rx = plane_sum(planes, &driver::PlaneCounters::rx_packets);
    uint64_t done = plane_sum(planes, &driver::PlaneCounters::tx_packets) +
                    plane_sum(planes, &driver::PlaneCounters::nf_drops) +
                    plane_sum(planes, &driver::PlaneCounters::to_host) +
                    plane_sum(planes, &driver::PlaneCounters::to_host_overflow) +
                    plane_sum(planes, &driver::PlaneCounters::tx_ring_full) +
                    plane_sum(planes, &driver::PlaneCounters::bad_out_port);
    return rx == pc.rx_good_packets && rx == done &&
           plane_sum(planes, &driver::PlaneCounters::tx_packets) == pc.tx_good_packets + pc.tx_bad_desc;
  };
  // Liveness bound: far more simulated time than the frames need on the wire, in and out, plus
  // two tail timeouts per frame (with the smallest pool a packet may wait out the tx tail timeout
  // before its slot comes back, and the rx tail timeout before its descriptor is returned).
  const uint64_t ns_per_round = uint64_t(cfg.nic_polls) * cfg.step_ns;
  const uint64_t max_rounds = 20'000 + 64 * frames.size() +
                              (4 * wire_ns + 2 * (frames.size() + 1) * cfg.driver.tail_timeout_ns) / ns_per_round;
  uint64_t rounds = 0;
  for (; rounds < max_rounds && !drained(); ++rounds) {
    for (int i = 0; i < cfg.nic_polls; ++i) {
      now_ns += cfg.step_ns;
      port.poll(now_ns);
    }
    for (auto& plane : planes) plane->poll(now_ns);
  }
  const nic::PortCounterSnapshot pc = port.counters();
  if (rounds == max_rounds) {
    std::fprintf(stderr,
                 "frame_path_fuzz: not drained after %llu rounds: rx_drained %d tx_drained %d rx_good %llu "
                 "planes rx %llu tx %llu, port tx_good %llu, alloc_failures %llu\n",
                 (unsigned long long)rounds, int(port.rx_drained()), int(port.tx_drained()),
                 (unsigned long long)pc.rx_good_packets,
                 (unsigned long long)plane_sum(planes, &driver::PlaneCounters::rx_packets),
                 (unsigned long long)plane_sum(planes, &driver::PlaneCounters::tx_packets),
                 (unsigned long long)pc.tx_good_packets,
                 (unsigned long long)plane_sum(planes, &driver::PlaneCounters::alloc_failures));
    fuzz::fail("the run did not drain (liveness)", rounds, max_rounds);
  }
  for (auto& plane : planes) plane->flush(now_ns);
  sink.finish();

  // Slots: each in exactly one place, none left behind in a tx ring.
  for (const auto& plane : planes) {
    driver::SlotAudit a = plane->audit();
    if (!a.consistent())
      std::fprintf(stderr, "plane %u: free %llu rx %llu tx %llu driver %llu capacity %llu duplicates %llu\n",
                   plane->queue(), (unsigned long long)a.free, (unsigned long long)a.in_rx_rings,
                   (unsigned long long)a.in_tx_rings, (unsigned long long)a.in_driver, (unsigned long long)a.capacity,
                   (unsigned long long)a.duplicates);
    FUZZ_CHECK(a.consistent(), "SlotAudit not consistent");
    FUZZ_CHECK_EQ(a.in_tx_rings, 0, "slots left in a tx ring after the run");
    FUZZ_CHECK_EQ(a.in_driver, 0, "packets left in a tx backlog after the run");
    FUZZ_CHECK_EQ(a.in_rx_rings, cfg.driver.rx_ring_size, "rx ring does not hold one slot per descriptor");
  }

  // Counters add up.
  const uint64_t offered = frames.size();
  FUZZ_CHECK_EQ(source.counters().frames, offered, "the port did not take every frame from the source");
  const uint64_t port_drops = pc.rx_runt + pc.rx_oversize + pc.rx_missed + pc.rx_no_desc_drop +
                              pc.rx_buffer_too_small + pc.rx_queue_disabled + pc.tx_bad_desc;
  const uint64_t plane_drops = plane_sum(planes, &driver::PlaneCounters::nf_drops) +
                               plane_sum(planes, &driver::PlaneCounters::to_host) +
                               plane_sum(planes, &driver::PlaneCounters::to_host_overflow) +
                               plane_sum(planes, &driver::PlaneCounters::tx_ring_full) +
                               plane_sum(planes, &driver::PlaneCounters::bad_out_port);
  FUZZ_CHECK_EQ(offered, pc.tx_good_packets + port_drops + plane_drops,
                "offered != tx_good + drops");
  FUZZ_CHECK_EQ(pc.rx_good_packets, plane_sum(planes, &driver::PlaneCounters::rx_packets),
                "port rx_good != planes' rx_packets");
  FUZZ_CHECK_EQ(plane_sum(planes, &driver::PlaneCounters::tx_packets), pc.tx_good_packets,
                "planes' tx_packets != port tx_good");
  FUZZ_CHECK_EQ(pc.tx_bad_desc, 0, "the driver queued a descriptor the NIC cannot send");
  FUZZ_CHECK_EQ(pc.rx_queue_disabled, 0, "a frame hashed to a queue no plane enabled");
  if (cfg.port.flow_control) FUZZ_CHECK_EQ(pc.rx_missed, 0, "flow control on, yet frames were missed");
  if (!cfg.driver.drop_en) FUZZ_CHECK_EQ(pc.rx_no_desc_drop, 0, "DROP_EN off, yet no-descriptor drops");
  if (cfg.driver.tx_full_wait)
    FUZZ_CHECK_EQ(plane_sum(planes, &driver::PlaneCounters::tx_ring_full), 0, "tx_full = wait, yet tx ring drops");
  uint64_t rx_q = 0, tx_q = 0;
  for (uint32_t q = 0; q < nic::kMaxQueues; ++q) {
    rx_q += pc.rx_queue_packets[q];
    tx_q += pc.tx_queue_packets[q];
    if (q >= cfg.port.rx_queues) FUZZ_CHECK_EQ(pc.rx_queue_packets[q] + pc.tx_queue_packets[q], 0,
                                               "traffic on a queue the port does not have");
  }
  FUZZ_CHECK_EQ(rx_q, pc.rx_good_packets, "sum of QPRC != GPRC");
  FUZZ_CHECK_EQ(tx_q, pc.tx_good_packets, "sum of QPTC != GPTC");

  // The sink: exactly the frames sent, each accounted once by the MeasuringSink.
  FUZZ_CHECK_EQ(collect.count, pc.tx_good_packets, "sink frames != port tx_good");
  wire::MeasureReport report = sink.report();
  FUZZ_CHECK_EQ(report.received + report.duplicates + report.foreign, collect.count,
                "MeasuringSink: received + duplicates + foreign != delivered");

  // Contents and order: per RSS queue, the frames sent are the accepted frames, in order, with the
  // MAC mode applied; nothing else changed.
  const uint16_t queues = cfg.port.rx_queues;
  std::vector<std::vector<std::vector<uint8_t>>> expected(queues);
  for (auto [bytes, len] : frames) {
    if (len < wire::kMinFrameBytes || len > cfg.port.max_frame_bytes) continue;
    std::vector<uint8_t> f(bytes, bytes + len);
    if (cfg.mac_mode == "swap") {
      for (int b = 0; b < 6; ++b) std::swap(f[b], f[6 + b]);
    } else if (cfg.mac_mode == "rewrite") {
      const uint8_t dst[6] = {0x02, 0, 0, 0, 0, 0};
      std::memcpy(f.data(), dst, 6);
      std::memcpy(f.data() + 6, cfg.port.mac.data(), 6);
    }
    expected[nic::rss_classify(cfg.port.rss, table, f.data(), len).queue].push_back(std::move(f));
  }
  std::vector<size_t> next_expected(queues, 0);
  std::vector<uint64_t> sent_per_queue(queues, 0);
  uint64_t stamped = 0;
  for (const auto& out : collect.frames) {
    nic::RssResult rss = nic::rss_classify(cfg.port.rss, table, out.data(), uint32_t(out.size()));
    FUZZ_CHECK(rss.queue < queues, "a frame sent classifies to a queue the port does not have");
    ++sent_per_queue[rss.queue];
    const auto& want = expected[rss.queue];
    size_t& i = next_expected[rss.queue];
    while (i < want.size() && want[i] != out) ++i;
    FUZZ_CHECK(i < want.size(), "a frame sent is not an in-order, byte-exact copy of an accepted input");
    ++i;
    if (wire::decode_stamp(out.data(), uint32_t(out.size()))) ++stamped;
  }
  for (uint16_t q = 0; q < queues; ++q) {
    FUZZ_CHECK_EQ(sent_per_queue[q], pc.tx_queue_packets[q], "frames of queue q != QPTC[q]");
    FUZZ_CHECK(pc.rx_queue_packets[q] + pc.rx_queue_drops[q] <= expected[q].size(),
               "QPRC[q] + QPRDC[q] > frames RSS put on queue q");
  }
  FUZZ_CHECK_EQ(stamped, report.received + report.duplicates, "MeasuringSink: stamped frames miscounted");

  // The latency histogram of what the MeasuringSink decoded (send times are whatever the bytes say).
  const wire::LatencyHistogram& lat = report.latency;
  FUZZ_CHECK_EQ(lat.count(), report.received - report.clock_skew, "latency samples != first copies on time");
  uint64_t in_buckets = 0;
  for (auto [low, n] : lat.buckets()) in_buckets += n;
  FUZZ_CHECK_EQ(in_buckets, lat.count(), "LatencyHistogram: buckets do not add up to count");
  if (lat.count()) {
    FUZZ_CHECK_EQ(lat.percentile(0), lat.min(), "LatencyHistogram: percentile(0) != min");
    FUZZ_CHECK_EQ(lat.percentile(100), lat.max(), "LatencyHistogram: percentile(100) != max");
    uint64_t p50 = lat.percentile(50), p99 = lat.percentile(99);
    FUZZ_CHECK(lat.min() <= p50 && p50 <= p99 && p99 <= lat.max(), "LatencyHistogram: percentiles out of order");
    FUZZ_CHECK(lat.mean() >= double(lat.min()) * (1 - 1e-9) && lat.mean() <= double(lat.max()) * (1 + 1e-9),
               "LatencyHistogram: mean outside [min, max]");
    FUZZ_CHECK(lat.stddev() >= 0, "LatencyHistogram: negative stddev");
  }

  if (verbose) {  // FRAME_PATH_FUZZ_VERBOSE=1: what an input exercised (for checking seeds)
    std::fprintf(stderr,
                 "queues %u ring %u/%u burst %u pool %u slot %u max_frame %u mac %s: offered %llu tx_good %llu "
                 "runt %llu oversize %llu missed %llu no_desc_drop %llu stall %llu pause %llu too_small %llu "
                 "tx_ring_full %llu alloc_failures %llu stamped %llu foreign %llu duplicates %llu reordered %llu "
                 "clock_skew %llu rounds %llu\n",
                 queues, cfg.driver.rx_ring_size, cfg.driver.tx_ring_size, cfg.driver.burst, cfg.driver.slots_per_pool(),
                 cfg.driver.slot_size, cfg.port.max_frame_bytes, cfg.mac_mode.c_str(), (unsigned long long)offered,
                 (unsigned long long)pc.tx_good_packets, (unsigned long long)pc.rx_runt,
                 (unsigned long long)pc.rx_oversize, (unsigned long long)pc.rx_missed,
                 (unsigned long long)pc.rx_no_desc_drop, (unsigned long long)pc.rx_no_desc_stall,
                 (unsigned long long)pc.rx_pause, (unsigned long long)pc.rx_buffer_too_small,
                 (unsigned long long)plane_sum(planes, &driver::PlaneCounters::tx_ring_full),
                 (unsigned long long)plane_sum(planes, &driver::PlaneCounters::alloc_failures),
                 (unsigned long long)stamped, (unsigned long long)report.foreign,
                 (unsigned long long)report.duplicates, (unsigned long long)report.reordered,
                 (unsigned long long)report.clock_skew, (unsigned long long)rounds);
  }
  return 0;
}
