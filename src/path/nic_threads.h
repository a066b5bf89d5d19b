// The NIC model's threads: they poll the ports (wire in, DMA, wire out), the "hardware", and with
// it the wire: generators and sinks run inside the threads of the ports they are attached to.
// Their cost is reported apart from the driver's.
#pragma once
#include <atomic>
#include <thread>
#include <vector>

#include "path/ports.h"
#include "util/poll_thread.h"

namespace gnf::path {

class NicThreads {
 public:
  NicThreads() = default;
  ~NicThreads() { stop(); }
  NicThreads(const NicThreads&) = delete;
  NicThreads& operator=(const NicThreads&) = delete;

  // Deals the ports' queue groups over up to `threads` threads (those left without work are not
  // started): how many there will be.
  uint32_t deal(const Ports& ports, uint32_t threads);
  // Placed and waiting as `threads` says.
  void start(const PollThreads& threads);
  // Asks the threads to stop; stop() then waits for them.
  void request_stop() { running_.store(false); }
  void stop();

  uint32_t count() const { return uint32_t(work_.size()); }
  // Complete after stop().
  const std::vector<ThreadCpu>& thread_cpu() const { return thread_cpu_; }

 private:
  // A thread's share: one direction of a queue group of a port.
  struct Work {
    nic::QueueGroup* group;
    bool rx;
  };
  void loop(size_t index, PollThread thread);

  std::vector<std::vector<Work>> work_;  // per thread
  std::atomic<bool> running_{false};
  std::vector<std::thread> threads_;
  std::vector<ThreadCpu> thread_cpu_;  // written by each thread as it exits
};

}  // namespace gnf::path
