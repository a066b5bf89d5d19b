#if defined(GNF_HAVE_XDP)
#include "wire/af_xdp.h"

#include <bpf/libbpf.h>
#include <fmt/format.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>

#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "util/clock.h"
#include "util/error.h"
#include "wire/offload.h"

namespace gnf::wire {

namespace {

// 4 KiB UMEM frames; received frames get 256 B less (XDP_PACKET_HEADROOM), larger ones are dropped.
constexpr uint32_t kFrameBytes = XSK_UMEM__DEFAULT_FRAME_SIZE;
// UMEM frames [0, kRxFrames) circulate through the fill and rx rings, the rest through the tx and
// completion rings; every ring is as large as the frames that can be in it, so no reserve fails.
constexpr uint32_t kRxFrames = 2048, kTxFrames = 2048;
constexpr uint32_t kRxBatch = 64;  // rx descriptors taken from the ring at once

// libbpf and libxdp report through print callbacks (to stderr by default, even when nothing is
// wrong: "No bpffs found", a dispatcher fallback). While gnf makes or deletes a socket their
// warnings are kept instead, and shown only if making it fails, beside the kernel's reason.
std::mutex g_log_mutex;
std::string g_log;

void keep_message(const char* format, va_list args) {
  char line[512];
  std::vsnprintf(line, sizeof(line), format, args);
  std::lock_guard lock(g_log_mutex);
  if (g_log.size() < 4096) g_log += line;
}
int libbpf_message(libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_WARN) keep_message(format, args);
  return 0;
}
int libxdp_message(libxdp_print_level level, const char* format, va_list args) {
  if (level == LIBXDP_WARN) keep_message(format, args);
  return 0;
}

std::string take_log() {
  std::lock_guard lock(g_log_mutex);
  std::string log = std::move(g_log);
  g_log.clear();
  while (!log.empty() && log.back() == '\n') log.pop_back();
  for (char& c : log)
    if (c == '\n') c = ';';
  return log;
}

class QuietLibxdp {
 public:
  QuietLibxdp() : libbpf_(libbpf_set_print(libbpf_message)), libxdp_(libxdp_set_print(libxdp_message)) { take_log(); }
  ~QuietLibxdp() {
    libbpf_set_print(libbpf_);
    libxdp_set_print(libxdp_);
  }
  QuietLibxdp(const QuietLibxdp&) = delete;
  QuietLibxdp& operator=(const QuietLibxdp&) = delete;

 private:
  libbpf_print_fn_t libbpf_;
  libxdp_print_fn_t libxdp_;
};

class AfXdpLink final : public Link {
 public:
  AfXdpLink(const LinkOptions& options, const InterfaceInfo& interface, std::shared_ptr<const Netns> netns);
  ~AfXdpLink() override;
  AfXdpLink(const AfXdpLink&) = delete;
  AfXdpLink& operator=(const AfXdpLink&) = delete;

  Next next(Frame& out) override;
  void deliver(const uint8_t* data, uint32_t len, uint64_t time_ns) override;
  void flush() override;

 private:
  // One try at making the socket in XDP mode `xdp_flags`; 0 or the negative errno.
  int try_create(uint32_t xdp_flags, std::string& step);
  void destroy();
  void release_rx_batch();
  void reclaim_tx();
  xdp_statistics statistics() const;
  uint64_t kernel_rx_drops() const override;
  uint64_t kernel_tx_errors() const override;

  std::shared_ptr<const Netns> netns_;
  InterfaceInfo interface_;
  uint8_t* area_ = nullptr;
  xsk_umem* umem_ = nullptr;
  xsk_socket* xsk_ = nullptr;
  xsk_ring_prod fill_{};
  xsk_ring_cons completion_{};
  xsk_ring_cons rx_ring_{};
  xsk_ring_prod tx_ring_{};
  // The rx descriptors [rx_first_, rx_first_ + rx_count_) peeked from the ring; rx_taken_ of them
  // handed out. The last one handed out stays ours until the next call to next().
  uint32_t rx_first_ = 0, rx_count_ = 0, rx_taken_ = 0;
  std::vector<uint64_t> tx_free_;  // UMEM addresses of tx frames the kernel has given back
  bool tx_unsent_ = false;
};

AfXdpLink::AfXdpLink(const LinkOptions& options, const InterfaceInfo& interface, std::shared_ptr<const Netns> netns)
    : Link("af_xdp", options), netns_(std::move(netns)), interface_(interface) {
  void* area = mmap(nullptr, size_t(kRxFrames + kTxFrames) * kFrameBytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED)
    throw UserError(fmt::format("AF_XDP on {}: cannot map the UMEM: {}", link_where(options), std::strerror(errno)));
  area_ = static_cast<uint8_t*>(area);
  // Native XDP runs in the driver, before an skb exists; generic (skb) mode runs after, on any
  // interface. The first that the kernel accepts is kept.
  std::string step, native_failure, log;
  int err = 0;
  {
    QuietLibxdp quiet;
    err = try_create(XDP_FLAGS_DRV_MODE, step);
    if (err) {
      native_failure = fmt::format("native mode: {}: {}", step, std::strerror(-err));
      err = try_create(XDP_FLAGS_SKB_MODE, step);
      // The failed try's socket may hold the queue a moment longer (the kernel releases it after
      // the close returns): EBUSY then, once or twice. Another socket on the queue keeps it busy.
      for (int i = 0; err == -EBUSY && i < 20; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        err = try_create(XDP_FLAGS_SKB_MODE, step);
      }
    }
    log = take_log();
  }
  if (err) {
    destroy();
    throw UserError(fmt::format("AF_XDP on {}: {}; generic mode: {}: {}{}", link_where(options), native_failure, step,
                                std::strerror(-err), log.empty() ? "" : " (libxdp: " + log + ")"));
  }
  xdp_options opts{};
  socklen_t len = sizeof(opts);
  bool zero_copy =
      getsockopt(xsk_socket__fd(xsk_), SOL_XDP, XDP_OPTIONS, &opts, &len) == 0 && (opts.flags & XDP_OPTIONS_ZEROCOPY);
  set_mode(fmt::format("queue 0, {} mode, {}", native_failure.empty() ? "native" : "generic (skb)",
                       zero_copy ? "zero-copy" : "copy"));

  uint32_t idx = 0;
  xsk_ring_prod__reserve(&fill_, kRxFrames, &idx);
  for (uint32_t i = 0; i < kRxFrames; ++i) *xsk_ring_prod__fill_addr(&fill_, idx + i) = uint64_t(i) * kFrameBytes;
  xsk_ring_prod__submit(&fill_, kRxFrames);
  for (uint32_t i = 0; i < kTxFrames; ++i) tx_free_.push_back(uint64_t(kRxFrames + i) * kFrameBytes);
}

int AfXdpLink::try_create(uint32_t xdp_flags, std::string& step) {
  xsk_umem_config umem_config{kRxFrames, kTxFrames, kFrameBytes, 0, 0};
  step = "xsk_umem__create";
  int err =
      xsk_umem__create(&umem_, area_, size_t(kRxFrames + kTxFrames) * kFrameBytes, &fill_, &completion_, &umem_config);
  if (err) {
    umem_ = nullptr;
    return err;
  }
  xsk_socket_config config{};
  config.rx_size = kRxFrames;
  config.tx_size = kTxFrames;
  config.xdp_flags = xdp_flags;
  // The kernel says when it needs a system call to go on (flags in the fill and tx rings), so an
  // idle poll costs none. Generic mode always copies; in native mode the kernel picks zero-copy
  // where the driver has it.
  config.bind_flags = XDP_USE_NEED_WAKEUP | (xdp_flags & XDP_FLAGS_SKB_MODE ? XDP_COPY : 0);
  step = "xsk_socket__create";
  err = xsk_socket__create(&xsk_, options().interface.c_str(), 0, umem_, &rx_ring_, &tx_ring_, &config);
  if (err) {
    xsk_ = nullptr;
    xsk_umem__delete(umem_);
    umem_ = nullptr;
  }
  return err;
}

void AfXdpLink::destroy() {
  // Deleting the last socket of the interface detaches libxdp's program from it, by interface
  // index: inside the interface's namespace, where that index means this interface.
  auto teardown = [this] {
    QuietLibxdp quiet;
    if (xsk_) xsk_socket__delete(xsk_);
    if (umem_) xsk_umem__delete(umem_);
  };
  try {
    netns_->run(teardown);
  } catch (const UserError&) {
    // Held open since the link was made, the namespace can still be entered unless thread
    // creation itself failed; the sockets are closed regardless, only the program may stay.
  }
  xsk_ = nullptr;
  umem_ = nullptr;
  if (area_) munmap(area_, size_t(kRxFrames + kTxFrames) * kFrameBytes);
  area_ = nullptr;
}

AfXdpLink::~AfXdpLink() { destroy(); }

// The descriptors of a batch stay the kernel's to overwrite only after release; their frames go
// back to the fill ring, whose room equals the rx frames, so the reserve always succeeds.
void AfXdpLink::release_rx_batch() {
  uint32_t idx = 0;
  xsk_ring_prod__reserve(&fill_, rx_count_, &idx);
  for (uint32_t i = 0; i < rx_count_; ++i)
    *xsk_ring_prod__fill_addr(&fill_, idx + i) =
        xsk_umem__extract_addr(xsk_ring_cons__rx_desc(&rx_ring_, rx_first_ + i)->addr);
  xsk_ring_prod__submit(&fill_, rx_count_);
  xsk_ring_cons__release(&rx_ring_, rx_count_);
  rx_count_ = rx_taken_ = 0;
}

// The ring functions carry the memory ordering (libxdp's xsk.h, after the kernel's xsk_queue.h):
// peek loads the producer index with acquire, so descriptors and frames it covers are complete;
// submit and release store with release, so what we wrote (or finished reading) comes first.
Next AfXdpLink::next(Frame& out) {
  if (rx_count_ && rx_taken_ == rx_count_) release_rx_batch();
  if (rx_count_ == 0) {
    rx_count_ = xsk_ring_cons__peek(&rx_ring_, kRxBatch, &rx_first_);
    if (rx_count_ == 0) {
      if (xsk_ring_prod__needs_wakeup(&fill_))
        recvfrom(xsk_socket__fd(xsk_), nullptr, 0, MSG_DONTWAIT, nullptr, nullptr);
      return Next::Later;
    }
  }
  const xdp_desc* desc = xsk_ring_cons__rx_desc(&rx_ring_, rx_first_ + rx_taken_++);
  // A UMEM frame holds 4 KiB from the descriptor's chunk on: room to pad a runt in place.
  auto* data = static_cast<uint8_t*>(xsk_umem__get_data(area_, xsk_umem__add_offset_to_addr(desc->addr)));
  out = Frame{data, pad_to_minimum(data, desc->len), now_ns()};
  rx_stats_.frames.add();
  rx_stats_.bytes.add(out.len);
  return Next::Frame;
}

void AfXdpLink::reclaim_tx() {
  uint32_t idx = 0;
  uint32_t done = xsk_ring_cons__peek(&completion_, kTxFrames, &idx);
  for (uint32_t i = 0; i < done; ++i) tx_free_.push_back(*xsk_ring_cons__comp_addr(&completion_, idx + i));
  if (done) xsk_ring_cons__release(&completion_, done);
}

void AfXdpLink::deliver(const uint8_t* data, uint32_t len, uint64_t) {
  if (len > kFrameBytes || !fits_mtu(data, len, interface_.mtu)) {
    tx_stats_.errors.add();
    return;
  }
  if (tx_free_.empty()) reclaim_tx();
  if (tx_free_.empty()) {
    tx_stats_.ring_full.add();
    return;
  }
  uint64_t addr = tx_free_.back();
  tx_free_.pop_back();
  uint32_t idx = 0;
  xsk_ring_prod__reserve(&tx_ring_, 1, &idx);  // room for every tx frame: cannot fail
  std::memcpy(xsk_umem__get_data(area_, addr), data, len);
  *xsk_ring_prod__tx_desc(&tx_ring_, idx) = xdp_desc{addr, len, 0};
  xsk_ring_prod__submit(&tx_ring_, 1);
  tx_unsent_ = true;
  tx_stats_.frames.add();
  tx_stats_.bytes.add(len);
}

void AfXdpLink::flush() {
  reclaim_tx();
  if (!tx_unsent_) return;
  // In copy mode the kernel sends from the ring only inside sendto(), a bounded batch per call
  // (EAGAIN: more is left); what it left is sent on the next round's call.
  if (xsk_ring_prod__needs_wakeup(&tx_ring_) &&
      sendto(xsk_socket__fd(xsk_), nullptr, 0, MSG_DONTWAIT, nullptr, 0) < 0 && errno != EAGAIN && errno != EBUSY &&
      errno != ENOBUFS)
    tx_stats_.send_errors.add();
  tx_unsent_ = xsk_prod_nb_free(&tx_ring_, kTxFrames) < kTxFrames;
}

xdp_statistics AfXdpLink::statistics() const {
  xdp_statistics stats{};
  socklen_t len = sizeof(stats);
  getsockopt(xsk_socket__fd(xsk_), SOL_XDP, XDP_STATISTICS, &stats, &len);
  return stats;
}

// XDP_STATISTICS counts from the socket's creation. A frame the XDP program redirected is dropped
// when the rx ring is full or the fill ring has no frame to copy it into (rx_dropped).
uint64_t AfXdpLink::kernel_rx_drops() const {
  xdp_statistics stats = statistics();
  return stats.rx_dropped + stats.rx_ring_full;
}

uint64_t AfXdpLink::kernel_tx_errors() const { return statistics().tx_invalid_descs; }

}  // namespace

std::unique_ptr<Link> open_af_xdp(const LinkOptions& options, const InterfaceInfo& interface,
                                  std::shared_ptr<const Netns> netns) {
  return std::make_unique<AfXdpLink>(options, interface, std::move(netns));
}

bool af_xdp_built() { return true; }

}  // namespace gnf::wire
#endif
