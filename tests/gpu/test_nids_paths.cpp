// The nids NF on the GPU. One traffic mix (planted matches for alert and drop rules, a pass rule's,
// clean packets, two alerts in one packet) and configs/nids.rules' rules:
//   NidsOnGpu: the chain's kernel alone, a thread per packet (short: compute-sanitizer runs it):
//     the cpu's verdicts, counters, per-rule hits and alerts; a reloaded set is what the next kernel
//     sees; a ring of two records loses alerts, counted, and writes exactly the others.
//   NidsGpuPaths: the pcap through nids and l2fwd on every path (gpu_rig.h's kPathVariants): the cpu
//     path's forwarded frames, dropped count and alerts, time-stamped within the run.
// Alerts are compared as multisets of (sid, addresses, ports): GPU threads publish in any order.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <set>

#include "../unit/nf_frames.h"
#include "chain_on_gpu.h"
#include "gpu_rig.h"

using namespace gnf;
using namespace gnf::test;

namespace {

constexpr uint32_t kCases = 7, kFrames = 3500;
// Per kCases frames: one dropped (its drop rule alerts too), three alerted, one of them twice.
constexpr uint64_t kDropped = kFrames / kCases, kAlerted = 3 * kFrames / kCases, kAlerts = 5 * kFrames / kCases;
constexpr uint32_t kSlot = 256;

constexpr char kRules[] =
    "alert tcp $EXTERNAL_NET any -> $HOME_NET 80 (msg:\"cmd.exe in a GET\"; content:\"GET \"; depth:4; "
    "content:\"cmd.exe\"; nocase; distance:0; sid:1001; rev:2;)\n"
    "drop udp any any -> any 53 (msg:\"bad marker\"; content:\"|de ad|\"; sid:1002;)\n"
    "pass tcp 10.9.0.0/16 any -> any any (content:\"GET \"; sid:1003;)\n"
    "alert ip any any -> any any (msg:\"passwd\"; content:\"/etc/passwd\"; sid:1004;)\n";

// Frame i of the mix: case i % kCases, from an address and port of its own. With `lead`, the
// case's payload comes after that many filler bytes and before as many again: a long payload whose
// matches lie anywhere (some rules, anchored at its start, then do not match, on the CPU as on the GPU).
std::vector<uint8_t> frame(uint32_t i, uint32_t lead = 0) {
  const std::string src = "198.18." + std::to_string(i >> 8 & 0xff) + "." + std::to_string(i & 0xff);
  const uint16_t sport = uint16_t(10000 + i % 20000);
  const std::string filler(lead, char('a' + i % 26));
  const auto payload = [&](const char* text) { return filler + text + filler; };
  std::vector<uint8_t> f;
  switch (i % kCases) {
    case 0: f = ipv4_frame(src.c_str(), "10.0.0.5", 6, sport, 80, 0, 20, payload("GET /scripts/CMD.EXE?/c+dir")); break;
    case 1: f = ipv4_frame(src.c_str(), "198.19.0.1", 17, sport, 53, 0, 8, payload("\x12\x34\xde\xad")); break;
    case 2: f = ipv4_frame(src.c_str(), "10.0.0.7", 17, sport, 69, 0, 8, payload("RRQ /etc/passwd")); break;
    case 3: f = ipv4_frame("10.9.1.1", "10.0.0.5", 6, sport, 80, 0, 20, payload("GET /cmd.exe /etc/passwd")); break;
    case 4: f = ipv4_frame(src.c_str(), "10.0.0.5", 17, sport, 2, 0, 8, payload("nothing here")); break;
    case 5: f = ipv4_frame(src.c_str(), "10.0.0.6", 6, sport, 80, 0, 20, payload("GET /cmd.exe?/etc/passwd")); break;
    default: f = ipv4_frame(src.c_str(), "10.0.0.5", 6, sport, 443, 0, 20, payload("GET cmd.exe, not at port 80")); break;
  }
  f.resize(std::max<size_t>(f.size(), 60), 0);
  return f;
}

std::string write_rules(const std::string& text) {
  const std::string path = temp_path("nids.rules");
  std::ofstream(path) << text;
  return path;
}

nf::NfSpec nids(const std::string& rules, const std::string& eve, int64_t alert_queue = 65536) {
  nf::Params params("gpu-test", 1, "nf[nids]");
  params.set("rules", nf::ParamValue{rules, 0});
  params.set("eve_log", nf::ParamValue{eve, 0});
  params.set("alert_queue", nf::ParamValue{alert_queue, 0});
  params.set("HOME_NET", nf::ParamValue{std::string("[10.0.0.0/8]"), 0});
  params.set("EXTERNAL_NET", nf::ParamValue{std::string("!$HOME_NET"), 0});
  return nf::NfSpec{"nids", params};
}

// An EVE line's field: the text after "key": up to the next comma or brace.
std::string field(const std::string& line, const std::string& key) {
  const size_t at = line.find("\"" + key + "\":");
  if (at == std::string::npos) return "";
  const size_t from = at + key.size() + 3, to = line.find_first_of(",}", from);
  return line.substr(from, to - from);
}

struct Alerts {
  std::multiset<std::string> keys;  // "sid src:sport -> dst:dport"
  std::vector<int64_t> unix_s;
};

Alerts read_eve(const std::string& path) {
  Alerts out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    out.keys.insert(field(line, "signature_id") + " " + field(line, "src_ip") + ":" + field(line, "src_port") + " -> " +
                    field(line, "dest_ip") + ":" + field(line, "dest_port"));
    std::tm utc{};
    strptime(field(line, "timestamp").c_str(), "\"%Y-%m-%dT%H:%M:%S", &utc);
    out.unix_s.push_back(int64_t(timegm(&utc)));
  }
  return out;
}

int64_t unix_now_s() { return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count(); }

uint64_t counter(const std::vector<std::pair<std::string, uint64_t>>& counters, const std::string& name) {
  for (const auto& [n, value] : counters)
    if (n == name) return value;
  ADD_FAILURE() << "no counter " << name;
  return 0;
}

std::vector<uint64_t> hits(const nf::NfChain& chain) {
  std::vector<uint64_t> out;
  const nf::NfTableStats stats = *chain.tables(0)->table_stats();
  for (const nf::NfEntryStats& e : stats.entries) out.push_back(e.counters.at(1).second);
  return out;
}

// The mix in slots, as run_chain_on_gpu takes it; with `long_payloads`, frame i's payload has
// i * 7 % 640 filler bytes before its case's text and as many after (up to ~1.4 KB).
struct Batch {
  uint32_t slot;
  std::vector<uint8_t> bytes;
  std::vector<nf::PacketRef> refs;
  explicit Batch(bool long_payloads = false)
      : slot(long_payloads ? 2048 : kSlot), bytes(size_t(kFrames) * slot, 0) {
    for (uint32_t i = 0; i < kFrames; ++i) {
      const std::vector<uint8_t> f = frame(i, long_payloads ? i * 7 % 640 : 0);
      uint8_t* at = &bytes[size_t(i) * slot];
      std::copy(f.begin(), f.end(), at);
      refs.push_back(nf::PacketRef{at, uint32_t(f.size()), 0, 0, 0, nf::Verdict::Forward, nf::HostReason::Unspecified});
    }
  }
};

// The chain of one nids on the GPU: its counters (alerts written once the chain is gone). With
// `packets_per_block`, blocks of test::kBlockThreads threads run it as the data paths do (tiles).
std::vector<unsigned long long> on_gpu(nf::NfChain& chain, const Batch& batch, std::vector<nf::PacketRef>* refs = nullptr,
                                       uint32_t packets_per_block = 0) {
  test::ChainOnGpu gpu = test::run_chain_on_gpu(chain.device_view(), batch.bytes, batch.refs, packets_per_block);
  if (refs) *refs = gpu.refs;
  return std::vector<unsigned long long>(gpu.counters.begin(), gpu.counters.begin() + nf::NidsNfView::kCounterCount);
}

}  // namespace

TEST(NidsOnGpu, GivesTheCpusVerdictsCountersHitsAndAlertsAndSeesAReloadedSet) {
  GNF_REQUIRE_GPU();
  const std::string rules = write_rules(kRules), cpu_eve = temp_path("cpu.eve"), gpu_eve = temp_path("gpu.eve");
  const Batch batch;
  {
    nf::NfChain cpu({nids(rules, cpu_eve)}, nf::NfContext{}), gpu({nids(rules, gpu_eve)}, nf::NfContext{});
    std::vector<nf::PacketRef> cpu_refs = batch.refs, gpu_refs;
    std::vector<nf::NfCounters> cpu_counters(nf::kMaxChainLength);
    nf::PacketBatch whole{cpu_refs.data(), kFrames};
    nf::run_chain(cpu.view(), whole, cpu_counters.data());
    const std::vector<unsigned long long> counters = on_gpu(gpu, batch, &gpu_refs);
    for (uint32_t i = 0; i < kFrames; ++i) ASSERT_EQ(gpu_refs[i].verdict, cpu_refs[i].verdict) << "frame " << i;
    for (int c = 0; c < nf::NidsNfView::kCounterCount; ++c)
      EXPECT_EQ(counters[c], cpu_counters[0].value[c]) << nf::NidsNfView::kCounterNames[c];
    EXPECT_EQ(counters[nf::NidsNfView::kAlerts], kAlerts);
    EXPECT_EQ(counters[nf::NidsNfView::kDropped], kDropped);
    EXPECT_EQ(hits(gpu), hits(cpu));

    std::ofstream(rules) << "alert udp any any -> any any (msg:\"new\"; content:\"passwd\"; sid:5;)\n";
    ASSERT_TRUE(gpu.reload().at(0).done);
    const std::vector<unsigned long long> after = on_gpu(gpu, batch);
    EXPECT_EQ(after[nf::NidsNfView::kAlerts], kFrames / kCases);
    EXPECT_EQ(hits(gpu), std::vector<uint64_t>{kFrames / kCases});
  }
  const Alerts cpu = read_eve(cpu_eve), gpu = read_eve(gpu_eve);
  ASSERT_EQ(cpu.keys.size(), kAlerts);
  ASSERT_EQ(gpu.keys.size(), kAlerts + kFrames / kCases);
  std::multiset<std::string> first_set;
  for (const std::string& key : gpu.keys)
    if (key.rfind("5 ", 0) != 0) first_set.insert(key);
  EXPECT_EQ(first_set, cpu.keys);
  for (const std::string& f : {rules, cpu_eve, gpu_eve}) std::filesystem::remove(f);
}

// The data paths run nids on tiles (nf/tile.cuh) as wide as a block's threads per packet allow:
// every width, on short payloads and on long ones with matches anywhere, gives the cpu's verdicts
// and counters.
TEST(NidsOnGpu, TilesOfEveryWidthGiveTheCpusVerdictsAndCounters) {
  GNF_REQUIRE_GPU();
  const std::string rules = write_rules(kRules), cpu_eve = temp_path("cpu.eve"), gpu_eve = temp_path("gpu.eve");
  {
    nf::NfChain cpu({nids(rules, cpu_eve)}, nf::NfContext{}), gpu({nids(rules, gpu_eve)}, nf::NfContext{});
    for (const bool long_payloads : {false, true}) {
      const Batch batch(long_payloads);
      std::vector<nf::PacketRef> cpu_refs = batch.refs;
      std::vector<nf::NfCounters> cpu_counters(nf::kMaxChainLength);
      nf::PacketBatch whole{cpu_refs.data(), kFrames};
      nf::run_chain(cpu.view(), whole, cpu_counters.data());
      EXPECT_GT(cpu_counters[0].value[nf::NidsNfView::kDropped], 0u);
      // A tile per packet of 1, 4 and 32 lanes, and 32 with blocks of 3 packets.
      for (const uint32_t per_block : {test::kBlockThreads, test::kBlockThreads / 4, test::kBlockThreads / 32, 3u}) {
        std::vector<nf::PacketRef> gpu_refs;
        const std::vector<unsigned long long> counters = on_gpu(gpu, batch, &gpu_refs, per_block);
        for (uint32_t i = 0; i < kFrames; ++i)
          ASSERT_EQ(gpu_refs[i].verdict, cpu_refs[i].verdict) << "frame " << i << ", " << per_block << " a block";
        for (int c = 0; c < nf::NidsNfView::kCounterCount; ++c)
          EXPECT_EQ(counters[c], cpu_counters[0].value[c]) << nf::NidsNfView::kCounterNames[c] << ", " << per_block;
      }
    }
  }
  for (const std::string& f : {rules, cpu_eve, gpu_eve}) std::filesystem::remove(f);
}

TEST(NidsOnGpu, ARingOfTwoLosesAlertsCountedAndWritesTheOthers) {
  GNF_REQUIRE_GPU();
  const std::string rules = write_rules(kRules), eve = temp_path("tiny.eve");
  std::vector<unsigned long long> counters;
  {
    nf::NfChain chain({nids(rules, eve, 2)}, nf::NfContext{});
    counters = on_gpu(chain, Batch());
  }
  EXPECT_EQ(counters[nf::NidsNfView::kAlerts] + counters[nf::NidsNfView::kAlertsLost], kAlerts);
  EXPECT_GT(counters[nf::NidsNfView::kAlertsLost], 0u);
  EXPECT_EQ(read_eve(eve).keys.size(), counters[nf::NidsNfView::kAlerts]);
  for (const std::string& f : {rules, eve}) std::filesystem::remove(f);
}

TEST(NidsGpuPaths, EveryPathForwardsDropsAndAlertsAsTheCpuPath) {
  GNF_REQUIRE_GPU();
  const std::string input = temp_path("nids.pcap"), rules = write_rules(kRules), eve = temp_path("paths.eve");
  std::vector<std::vector<uint8_t>> frames;
  for (uint32_t i = 0; i < kFrames; ++i) frames.push_back(frame(i));
  write_pcap(input, frames);
  std::vector<std::vector<uint8_t>> forwarded_on_cpu;
  Alerts on_cpu;
  for (const PathVariant& v : kPathVariants) {
    ctl::Config c;
    ctl::PortSpec port;
    port.nic.name = "port0";
    nic::fill_reta_round_robin(port.nic.rss, 1);
    c.ports.push_back(port);
    c.nfs.push_back(nids(rules, eve));
    c.nfs.push_back(l2fwd("reflect", "swap"));
    const int64_t started = unix_now_s();
    path::Snapshot s;
    const auto forwarded = pcap_through(c, v, 0, input, nf::NidsNfView::kDropped, kDropped, &s);
    const int64_t ended = unix_now_s();
    EXPECT_EQ(counter(s.nfs[0].counters, "alerts"), kAlerts) << v.name;
    EXPECT_EQ(counter(s.nfs[0].counters, "alerted"), kAlerted) << v.name;
    const Alerts alerts = read_eve(eve);
    for (const int64_t t : alerts.unix_s) ASSERT_TRUE(t >= started - 1 && t <= ended + 1) << v.name << ": " << t;
    if (v.path == ctl::PathKind::Cpu) {
      ASSERT_EQ(forwarded.size(), kFrames - kDropped);
      ASSERT_EQ(alerts.keys.size(), kAlerts);
      forwarded_on_cpu = forwarded;
      on_cpu = alerts;
      continue;
    }
    EXPECT_EQ(forwarded, forwarded_on_cpu) << v.name;
    EXPECT_EQ(alerts.keys, on_cpu.keys) << v.name;
  }
  for (const std::string& f : {input, rules, eve}) std::filesystem::remove(f);
}
