// Poll-mode threads' cores (util/cores.h): distinct, allowed, one left over, none on small machines;
// the other threads kept off them and given them back.
#include <pthread.h>
#include <sched.h>

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

}  // namespace
