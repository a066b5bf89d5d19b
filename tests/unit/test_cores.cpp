// Poll-mode threads' cores (util/cores.h): distinct, allowed, one left over, none on small machines;
// the other threads kept off them and given them back; the operator's CPU lists, read and written as
// Linux writes them, and the placement they make.
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "util/cores.h"

namespace {

std::set<int> cores_in(const cpu_set_t& set) {
  std::set<int> out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.insert(c);
  return out;
}

std::set<int> allowed_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  return cores_in(set);
}

TEST(PollThreadCores, AreDistinctAllowedCoresLeavingTheLowestToTheProcess) {
  const std::set<int> allowed = allowed_cores();
  for (uint32_t threads = 1; threads <= allowed.size() + 1; ++threads) {
    const std::vector<int> cores = gnf::poll_thread_cores(threads);
    if (allowed.size() < 4 || threads + 1 > allowed.size()) {
      EXPECT_TRUE(cores.empty()) << threads << " threads on " << allowed.size() << " cores";
      continue;
    }
    ASSERT_EQ(cores.size(), threads);
    const std::set<int> distinct(cores.begin(), cores.end());
    EXPECT_EQ(distinct.size(), threads);
    for (int c : cores) EXPECT_TRUE(allowed.count(c)) << c;
    EXPECT_FALSE(distinct.count(*allowed.begin())) << "the lowest allowed core stays the process's";
  }
  EXPECT_TRUE(gnf::poll_thread_cores(0).empty());
}

TEST(PollThreadCores, PinningBindsTheThreadAndRefusesWhatIsNoCore) {
  EXPECT_FALSE(gnf::pin_this_thread(-1));
  EXPECT_FALSE(gnf::pin_this_thread(CPU_SETSIZE));
  const int core = *allowed_cores().rbegin();
  std::thread([core] {
    ASSERT_TRUE(gnf::pin_this_thread(core));
    cpu_set_t set;
    CPU_ZERO(&set);
    ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof(set), &set), 0);
    EXPECT_EQ(CPU_COUNT(&set), 1);
    EXPECT_TRUE(CPU_ISSET(core, &set));
  }).join();
}

std::set<int> cores_of(pthread_t thread) {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(pthread_getaffinity_np(thread, sizeof(set), &set), 0);
  return cores_in(set);
}

TEST(ThreadsKeptOff, MovesEveryThreadOffTheCoresAndGivesThemBackAfter) {
  const std::set<int> allowed = allowed_cores();
  if (allowed.size() < 2) GTEST_SKIP() << "one core: nothing to keep threads off";
  const int poll_core = *allowed.rbegin();
  std::set<int> rest = allowed;
  rest.erase(poll_core);
  std::atomic<bool> done{false};
  std::thread older([&] {
    while (!done.load()) std::this_thread::yield();
  });
  {
    const gnf::ThreadsKeptOff kept({poll_core});
    EXPECT_EQ(cores_of(pthread_self()), rest);
    EXPECT_EQ(cores_of(older.native_handle()), rest);  // threads started before too
    std::set<int> newer_cores;
    std::thread([&] { newer_cores = cores_of(pthread_self()); }).join();
    EXPECT_EQ(newer_cores, rest);  // and those started since
  }
  EXPECT_EQ(cores_of(pthread_self()), allowed);
  EXPECT_EQ(cores_of(older.native_handle()), allowed);
  done.store(true);
  older.join();
  // Keeping threads off every core would leave them nowhere: nothing changes.
  const gnf::ThreadsKeptOff nowhere(std::vector<int>(allowed.begin(), allowed.end()));
  EXPECT_EQ(cores_of(pthread_self()), allowed);
}

TEST(CpuList, TakesSinglesAndRangesInTheOrderWritten) {
  const gnf::CpuList list = gnf::parse_cpu_list("6,2-4,0");
  EXPECT_EQ(list.problem, "");
  EXPECT_EQ(list.cpus, (std::vector<int>{6, 2, 3, 4, 0}));
  EXPECT_EQ(gnf::parse_cpu_list("7").cpus, (std::vector<int>{7}));
  EXPECT_EQ(gnf::parse_cpu_list("1023").cpus, (std::vector<int>{1023}));
}

TEST(CpuList, SaysWhatIsWrongWithWhatIsNoList) {
  const std::string expected = "expected a CPU list like \"2-7,10\"";
  EXPECT_EQ(gnf::parse_cpu_list("").problem, expected);
  for (const char* text : {"x", "1,", ",1", "1,,2", "1-", "-1", "1-2-3", "1 ,2", "0x3", "1.5"})
    EXPECT_EQ(gnf::parse_cpu_list(text).problem, expected + ", not \"" + text + "\"") << text;
  EXPECT_EQ(gnf::parse_cpu_list("5-3").problem, "5-3 runs backwards");
  EXPECT_EQ(gnf::parse_cpu_list("1,0-2").problem, "CPU 1 is listed twice");
  EXPECT_EQ(gnf::parse_cpu_list("1020-1024").problem, "CPU 1024: CPUs are numbered below 1024");
  EXPECT_TRUE(gnf::parse_cpu_list("5-3").cpus.empty());
}

TEST(CpuList, IsWrittenAscendingWithRunsAsRanges) {
  EXPECT_EQ(gnf::cpu_list_text({6, 3, 0, 1, 2, 8, 9}), "0-3,6,8-9");
  EXPECT_EQ(gnf::cpu_list_text({5}), "5");
  EXPECT_EQ(gnf::cpu_list_text({}), "");
  EXPECT_EQ(gnf::parse_cpu_list(gnf::cpu_list_text({0, 1, 2, 7})).cpus, (std::vector<int>{0, 1, 2, 7}));
}

const std::vector<int> kEightCores = {0, 1, 2, 3, 4, 5, 6, 7};

TEST(Placement, TheOperatorsListGoesToThePollThreadsInOrderAndTheRestStayOffIt) {
  const gnf::Placement plan = gnf::plan_placement(2, {5, 2, 3}, {}, kEightCores);
  EXPECT_EQ(plan.poll, (std::vector<int>{5, 2}));
  EXPECT_EQ(plan.kept_off, (std::vector<int>{5, 2, 3}));  // the whole list: it is the poll threads'
}

TEST(Placement, ControlCpusAreWhereEveryOtherThreadRuns) {
  const gnf::Placement listed = gnf::plan_placement(2, {4, 5}, {0, 1}, kEightCores);
  EXPECT_EQ(listed.poll, (std::vector<int>{4, 5}));
  EXPECT_EQ(listed.kept_off, (std::vector<int>{2, 3, 4, 5, 6, 7}));
  // Without a list the poll threads take the highest cores outside the control threads'.
  const gnf::Placement chosen = gnf::plan_placement(2, {}, {6, 7}, kEightCores);
  EXPECT_EQ(chosen.poll, (std::vector<int>{5, 4}));
  EXPECT_EQ(chosen.kept_off, (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

TEST(Placement, WithoutListsItIsTheChoiceOfPollThreadCores) {
  const gnf::Placement plan = gnf::plan_placement(3, {}, {}, kEightCores);
  EXPECT_EQ(plan.poll, (std::vector<int>{7, 6, 5}));
  EXPECT_EQ(plan.kept_off, plan.poll);
  // Too few cores: nothing pinned, nothing moved.
  const gnf::Placement small = gnf::plan_placement(1, {}, {}, {0, 1});
  EXPECT_TRUE(small.poll.empty() && small.kept_off.empty());
  const gnf::Placement unpinned = gnf::plan_placement(0, {}, {}, kEightCores);
  EXPECT_TRUE(unpinned.poll.empty() && unpinned.kept_off.empty());
  EXPECT_EQ(gnf::poll_thread_cores(2), gnf::plan_placement(2, {}, {}, gnf::calling_thread_cores()).poll);
}

TEST(ProcessThreads, NameEveryThreadWithTheCoresItMayRunOn) {
  std::atomic<bool> named{false}, done{false};
  std::thread worker([&] {
    pthread_setname_np(pthread_self(), "gnf-test-peer");
    named.store(true);
    while (!done.load()) std::this_thread::yield();
  });
  while (!named.load()) std::this_thread::yield();
  const std::vector<gnf::ThreadPlace> threads = gnf::process_threads();
  done.store(true);
  worker.join();
  const auto peer = std::find_if(threads.begin(), threads.end(),
                                 [](const gnf::ThreadPlace& t) { return t.name == "gnf-test-peer"; });
  ASSERT_NE(peer, threads.end());
  const std::set<int> allowed = allowed_cores();
  EXPECT_EQ(std::set<int>(peer->cores.begin(), peer->cores.end()), allowed);
  EXPECT_NE(std::find_if(threads.begin(), threads.end(), [](const gnf::ThreadPlace& t) { return t.tid == getpid(); }),
            threads.end());
}

}  // namespace
