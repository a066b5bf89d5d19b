// A running data path: ports with their wires (path/ports.h), the NF chain, the driver the path's
// table chooses (path/path_table.h, driver/driver.h), the NIC model's threads
// (path/nic_threads.h), and the control plane app attached (path/host_hooks.h). The calibrate
// "path" has no driver: every port loops its rx buffer back to its own tx line.
#pragma once
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "driver/driver.h"
#include "driver/host_tx.h"
#include "nf/chain.h"
#include "nic/gpu_agent.h"
#include "path/host_hooks.h"
#include "path/nic_threads.h"
#include "path/path_table.h"
#include "path/ports.h"
#include "path/snapshot.h"
#include "path/spec.h"
#include "util/cores.h"
#include "wire/measure.h"

namespace gnf::path {

class Pipeline {
 public:
  using ThreadCpu = gnf::ThreadCpu;

  // Builds everything `spec` describes; app has validated it (ctl::validate) and attaches the
  // control plane through `attach_host`. Throws gnf::UserError on what cannot be built.
  explicit Pipeline(const PathSpec& spec, AttachHost attach_host = {});
  ~Pipeline();

  void start();
  // Starts as start() does, and makes every generator and measuring sink count the measured
  // window as well: frames sent in [start + warmup_ns, start + warmup_ns + window_ns).
  void start(uint64_t warmup_ns, uint64_t window_ns);
  // When start() started the wires (CLOCK_MONOTONIC ns); 0 before.
  uint64_t start_ns() const { return start_ns_; }
  // Asks every source to stop (Ctrl-C, end of a timed run), the host's own too; in-flight packets still drain.
  void stop_sources();
  // True once every source is exhausted and every packet has left or been counted as dropped.
  bool drained() const;
  // Stops the threads and closes the wires. Idempotent. Throws UserError, once everything has
  // stopped and every sink has been finished, if a sink could not write its file.
  void stop();

  // Reads the NFs' files again and replaces their tables while traffic flows (NfChain::reload).
  std::vector<nf::NfChain::Reload> reload_tables() { return chain_->reload(); }
  // The NF chain and the ports, for the control socket's commands (app/ctl_command.h): the owners
  // of the chain's tables change them while traffic flows, and a port's frames can be captured.
  nf::NfChain& chain() const { return *chain_; }
  std::vector<nic::Port*> ports() const { return ports_->all(); }

  // Any thread: the run loop, the control socket's (app/ctl_server.h) and the metrics' take them
  // side by side.
  Snapshot snapshot() const;
  // Only after stop(): where every slot is, per plane.
  std::vector<driver::SlotAudit> audit() const;
  // Per port: what its sink measured (stamped frames: latency, loss, reordering); with
  // driver.one_way = "rx" one more, last: what the GPU measured as the sink.
  std::vector<wire::MeasureReport> measurements() const;
  // With driver.one_way set: how the GPU's clock was calibrated against the host's.
  std::optional<driver::GpuClockStats> gpu_clock() const;
  // Frames sent per flow by all generators together (indexed by flow id), for loss accounting.
  std::vector<uint64_t> generated_per_flow() const { return ports_->generated_per_flow(); }
  // Frames the NFs sent to the host since the last call, when no control plane takes them: from
  // the driver, or the newest kept by the exception thread. Any thread.
  std::vector<driver::HostFrame> take_host_frames();
  // Only after stop(), with a measured window: frames the generators sent inside it, per flow
  // and per second of the window.
  std::vector<uint64_t> generated_in_window_per_flow() const { return ports_->generated_in_window_per_flow(); }
  std::vector<uint64_t> generated_in_window_per_second() const { return ports_->generated_in_window_per_second(); }
  // Every generator has sent its whole schedule (any thread; true when there is none).
  bool generators_finished() const { return ports_->generators_finished(); }
  uint64_t host_frames() const { return host_frames_.load(); }

  // The driver alone: stop it (rx rings keep what arrives, up to their size) and start it again,
  // carrying on where it stopped. Only the bypass path's can; throws UserError on the others.
  void pause_driver();
  void resume_driver();

  // Per thread, by role: the NIC model's, then the driver's; complete after stop().
  std::vector<ThreadCpu> thread_cpu() const;

  const PathSpec& spec() const { return spec_; }
  // The Linux interface port `port` is attached to, or null.
  const wire::Link* link(size_t port) const { return ports_->link(port); }
  uint32_t driver_thread_count() const { return driver_threads_; }
  // Whether every poll-mode thread ran on a core of its own (util/cores.h); complete after stop().
  bool threads_pinned() const;
  // Only after stop(): the threads other than the poll-mode ones (thread_cpu()), where they could
  // run as stop() began.
  const std::vector<ThreadPlace>& other_threads() const { return other_threads_; }
  uint32_t nic_thread_count() const { return nic_threads_.count(); }

 private:
  // The host's own tx queue on every port, and the control plane attached over it.
  void attach_host(const AttachHost& attach, uint16_t host_queue);
  // Takes the frames the NFs sent to the host to the attached handler, or without one into
  // host_queue_; and the GPU sink's arrivals (one_way = rx) into gpu_sink_.
  void exception_loop();

  PathSpec spec_;
  const PathRow& row_;
  std::unique_ptr<nf::NfChain> chain_;
  std::unique_ptr<Ports> ports_;
  std::unique_ptr<wire::MeasuringSink> gpu_sink_;  // one_way = rx; the exception thread feeds it
  std::unique_ptr<driver::Driver> driver_;         // null on calibrate
  std::unique_ptr<nic::GpuAgent> agent_;           // the NIC's DMA for rings in GPU memory (bypass)
  std::vector<std::unique_ptr<driver::HostTxQueue>> host_tx_;  // per port, with a router
  std::unique_ptr<HostHandler> host_;
  std::unique_ptr<ThreadsKeptOff> off_poll_cores_;  // the other threads, while poll threads are pinned
  std::vector<ThreadPlace> other_threads_;
  mutable std::mutex host_handler_mutex_;  // the exception thread against snapshot()
  mutable std::mutex snapshot_mutex_;      // one snapshot at a time, whichever thread asks

  std::atomic<uint64_t> host_frames_{0};
  std::mutex host_mutex_;
  std::deque<driver::HostFrame> host_queue_;  // the newest kHostQueueDepth frames, without a handler
  static constexpr size_t kHostQueueDepth = 1024;
  std::atomic<uint64_t> host_tx_frames_{0};
  std::thread exception_thread_;
  std::atomic<bool> exception_thread_running_{false};
  NicThreads nic_threads_;
  uint32_t driver_threads_ = 0;
  uint64_t start_ns_ = 0;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace gnf::path
