// The counter tables (util/counter.h): each lists every counter of its block once, under the name
// the JSON summary and the stats lines use, and their roles account for every frame of a run.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "driver/plane.h"
#include "nic/dma_counters.h"
#include "nic/port.h"
#include "ctl/config.h"
#include "path/pipeline.h"

using namespace gnf;

namespace {

template <typename Block>
void expect_every_counter_listed_once(const char* block) {
  const auto& fields = Block::kFields;
  EXPECT_EQ(std::size(fields) * sizeof(Counter), sizeof(Block)) << block << ": a counter without a table line";
  std::set<std::string> names;
  for (size_t i = 0; i < std::size(fields); ++i) {
    EXPECT_TRUE(names.insert(fields[i].name).second) << block << ": " << fields[i].name << " named twice";
    for (size_t j = 0; j < i; ++j)
      EXPECT_FALSE(fields[i].member == fields[j].member) << block << ": " << fields[i].name << " and "
                                                         << fields[j].name << " are the same counter";
  }
}

// The names of a block's counters whose table line satisfies `pick`, in table order.
template <typename Block, typename Pick>
std::vector<std::string> names(Pick pick) {
  std::vector<std::string> out;
  for (const auto& field : Block::kFields)
    if (pick(field)) out.push_back(field.name);
  return out;
}

std::vector<std::string> line_names(const auto& fields) {
  std::vector<std::string> out;
  for (const auto& field : fields)
    if (field.line) out.push_back(field.line);
  return out;
}

using PortValues = nic::PortCounterValues;
using DriverValues = driver::DriverCounterValues;

}  // namespace

TEST(CounterTables, ListEveryCounterOfTheirBlockOnce) {
  expect_every_counter_listed_once<nic::PortCountersOf<Counter>>("port");
  expect_every_counter_listed_once<nic::DmaCounters>("dma");
  expect_every_counter_listed_once<driver::DriverCountersOf<Counter>>("driver");
}

// tests/e2e/checks.py and the README read these names from the JSON summary and the stats lines.
TEST(CounterTables, NameFramesByWhereTheyEndAsTheSummaryDoes) {
  EXPECT_EQ(names<PortValues>([](const auto& field) { return dropped_at_nic(field.role); }),
            (std::vector<std::string>{"rx_missed", "rx_no_desc", "rx_runt", "rx_oversize", "rx_buffer_too_small",
                                      "rx_queue_disabled", "rx_dma_refused", "tx_bad_desc", "tx_overrun"}));
  EXPECT_EQ(names<PortValues>(with_role(Role::Sent)), std::vector<std::string>{"tx_packets"});
  EXPECT_EQ(names<DriverValues>(with_role(Role::DriverEnd)),
            (std::vector<std::string>{"nf_drops", "to_host", "to_host_overflow", "tx_ring_full", "bad_out_port",
                                      "gpu_sink"}));
  EXPECT_EQ(line_names(PortValues::kFields), (std::vector<std::string>{"missed", "no_desc", "runt", "oversize"}));
  EXPECT_EQ(line_names(DriverValues::kFields),
            (std::vector<std::string>{"nf_drop", "to_host", "tx_full", "alloc_fail"}));
}

TEST(CounterTables, SumLiveCountersOfSeveralPlanesIntoOneSnapshot) {
  driver::PlaneCounters a, b;
  a.rx_packets.add(3);
  b.rx_packets.add(4);
  b.tail_writes.add(2);
  b.unrecorded.add(1);
  DriverValues sum;
  add_counters(sum, a);
  add_counters(sum, b);
  EXPECT_EQ(sum.rx_packets, 7u);
  EXPECT_EQ(sum.tail_writes, 2u);
  EXPECT_EQ(sum.unrecorded, 1u);
  EXPECT_EQ(sum.tx_packets, 0u);
  EXPECT_EQ(frames(sum, Role::FromNic), 7u);
}

namespace {

// Port "in" takes `count` generated 64 B frames at 10 GbE line rate into rings of 8 descriptors, far
// more than a driver on a shared core takes out: the NIC drops many. l2fwd sends the rest out of "out".
ctl::Config overloaded_two_ports(uint64_t count) {
  ctl::Config c;
  c.driver.rx_ring_size = c.driver.tx_ring_size = 8;
  c.driver.burst = 4;
  for (const char* name : {"in", "out"}) {
    ctl::PortSpec port;
    port.nic.name = name;
    port.nic.rx_buffer_bytes = 16 * 1024;
    c.ports.push_back(port);
  }
  c.ports[0].source.kind = ctl::SourceSpec::Kind::Generator;
  c.ports[0].source.generator.count = count;
  nf::Params params("counter-test", 1, "nf[l2fwd]");
  params.set("mode", nf::ParamValue{std::string("pairs"), 0});
  c.nfs.push_back(nf::NfSpec{"l2fwd", params});
  return c;
}

bool wait_drained(const path::Pipeline& pipeline) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    if (pipeline.drained()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

}  // namespace

TEST(CounterTables, AccountForEveryFrameOfAnOverloadedRun) {
  constexpr uint64_t kFrames = 50'000;
  path::Pipeline pipeline(overloaded_two_ports(kFrames));
  pipeline.start();
  ASSERT_TRUE(wait_drained(pipeline));
  pipeline.stop();
  const path::Snapshot s = pipeline.snapshot();

  EXPECT_EQ(s.offered(), kFrames);
  EXPECT_EQ(s.accounted(), kFrames);
  // The same, counted by name: sent, or dropped at a port or in the driver.
  uint64_t ended = s.driver.nf_drops + s.driver.to_host + s.driver.to_host_overflow + s.driver.tx_ring_full +
                   s.driver.bad_out_port + s.driver.consumed;
  uint64_t nic_drops = 0, to_driver = 0;
  for (const path::PortStats& p : s.ports) {
    nic_drops += p.rx_missed + p.rx_no_desc_drop + p.rx_runt + p.rx_oversize + p.rx_buffer_too_small +
                 p.rx_queue_disabled + p.rx_dma_refused + p.tx_bad_desc + p.tx_overrun;
    ended += p.tx_good_packets;
    to_driver += p.rx_good_packets;
  }
  EXPECT_GT(nic_drops, 0u) << "no drops: the run was not overloaded, the drop roles went untested";
  EXPECT_GT(s.ports[1].tx_good_packets, 0u);
  EXPECT_EQ(ended + nic_drops, kFrames);
  EXPECT_EQ(to_driver, s.driver.rx_packets);
  EXPECT_EQ(s.driver.rx_packets, s.driver.tx_packets + s.driver.tx_ring_full);
}
