// Memory order between host threads and GPU threads: the one place gnf spells it. Host code (g++,
// C++20) and CUDA code (nvcc, C++17, both passes) call the same functions: on the host they are
// GCC's __atomic builtins, on the GPU libcu++'s cuda::atomic_ref, which become PTX's ld.acquire,
// st.release and ld/st.relaxed at the scope the name gives. They live in namespace gnf itself, not
// gnf::sync: every layer speaks them (the NIC model's DMA engines, the drivers, the tables).
//
// Scopes. `_sys`: host threads and GPU threads share the word: pinned host memory mapped into the
// GPU (the NIC's registers, doorbells, mailboxes, exception rings, reader slots), or GPU memory that
// the NIC model's DMA jobs write and GPU drivers poll (descriptor status words). `_gpu`: only GPU
// threads share the word (PTX's .gpu scope: the order need not reach the host).
//
// What acquire and release at system scope guarantee. A release store and an acquire load on the
// same word, the load reading the stored value, synchronise: every write the storing thread made
// before the store (to any memory: descriptors in GPU memory, frames in pinned memory) is visible to
// every read the loading thread makes after the load. The PTX memory model states this for GPU
// threads and host threads alike (the host is a thread of the system scope; pinned memory mapped
// with cudaHostAllocMapped is coherent for both sides), C++'s for host threads among themselves. So
// a poll is an acquire load of the word that says an entry is ready (DD, a head, a sequence number),
// and the entry's other words are read only after it; a doorbell is a release store made after the
// entry is written. Nothing weaker orders anything between the two sides: plain and volatile
// accesses, on either side, may be seen in any order.
//
// Why a block's doorbell fences after the barrier. On the GPU many threads write the entries (a
// burst's descriptors, frames for the host) and one thread rings the doorbell. A release store
// orders only what its own thread wrote, and __syncthreads() orders the block's writes only for the
// block. A release fence at system scope (release_fence_sys), made by the ringing thread after the
// barrier, is cumulative: every write the barrier ordered before it is ordered, at system scope, before the
// fencing thread's later stores. Hence: every writer, then __syncthreads(), then one thread calls
// publish_after_barrier (fence, then a relaxed store: PTX's release pattern); a thread ringing
// several doorbells after one barrier fences once (DoorbellBatch), since each later store follows
// that fence in program order. The stores after the fence are relaxed, not release: a release store
// is a fence of its own (a MEMBAR.SYS, which waits for every earlier write of the thread to reach
// the system, a PCIe round trip when one went to pinned memory), and the fence before it already
// orders everything. On the host a ring's writer is one thread: its release store alone orders its
// writes.
//
// Why a recycled buffer read after an acquire is never a stale L1 line. An SM's L1 is not coherent:
// a line read while a slot held its previous packet can still be there when the slot comes back with
// a new one. The acquire's promise covers every read after it, plain loads included: they return
// the writes released before the value the acquire observed, or newer ones, so the hardware cannot
// serve them from a line filled before the acquire (it drops the SM's L1 lines at an acquire of
// .gpu or .sys scope). The packet bytes, length and hash read after the DD acquire are therefore the
// ones the DMA engine wrote before it released DD. A relaxed or volatile poll of DD followed by plain
// reads of the packet is exactly how stale bytes get served.
//
// What this does not cover: writes made by a GPU copy engine (cudaMemcpy*Async) while a kernel runs.
// CUDA orders copies in a stream for the later work of that stream, and for the host once it has
// synchronised with the stream; it does not say in which order a kernel running meanwhile observes
// a copy's writes, nor that it observes two copies of one stream in stream order. Words that a
// running kernel must see in order are written by GPU threads (sync/device_mirror.cu replays table
// updates in a kernel for this reason) or by host threads through pinned memory.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#include <cuda/atomic>
#endif

#include "util/hd.h"

namespace gnf {

// Acquire for loads, release for stores, as above. Relaxed: one whole load or store that orders
// nothing by itself, for a word other threads read while it changes (a reader's burst count, a table
// entry); ordering comes from a fence beside it.
enum class MemoryOrder { Relaxed, Acquire, Release };

namespace ordering_detail {
// Keeps `value`'s type out of template deduction: store_release_sys(&word32, 1) stores a uint32_t.
template <typename T>
struct Exactly {
  using type = T;
};
}  // namespace ordering_detail

// Words host threads and GPU threads share: host and device code.
template <MemoryOrder O, typename T>
GNF_INLINE T load_sys(const T* word) {
  static_assert(O != MemoryOrder::Release, "a load does not release");
#if defined(__CUDA_ARCH__)
  return cuda::atomic_ref<T, cuda::thread_scope_system>(*const_cast<T*>(word))
      .load(O == MemoryOrder::Acquire ? cuda::memory_order_acquire : cuda::memory_order_relaxed);
#else
  return __atomic_load_n(word, O == MemoryOrder::Acquire ? __ATOMIC_ACQUIRE : __ATOMIC_RELAXED);
#endif
}

template <MemoryOrder O, typename T>
GNF_INLINE void store_sys(T* word, typename ordering_detail::Exactly<T>::type value) {
  static_assert(O != MemoryOrder::Acquire, "a store does not acquire");
#if defined(__CUDA_ARCH__)
  cuda::atomic_ref<T, cuda::thread_scope_system>(*word).store(
      value, O == MemoryOrder::Release ? cuda::memory_order_release : cuda::memory_order_relaxed);
#else
  __atomic_store_n(word, value, O == MemoryOrder::Release ? __ATOMIC_RELEASE : __ATOMIC_RELAXED);
#endif
}

// A poll, and a doorbell by the thread that wrote what it announces (a block's doorbell:
// publish_after_barrier).
template <typename T>
GNF_INLINE T load_acquire_sys(const T* word) { return load_sys<MemoryOrder::Acquire>(word); }
template <typename T>
GNF_INLINE void store_release_sys(T* word, typename ordering_detail::Exactly<T>::type value) {
  store_sys<MemoryOrder::Release>(word, value);
}

#if defined(__CUDACC__)
// Words only GPU threads share (the NIC model's SM DMA engine and the drivers, the GPU copy of the
// clock's offset): the orders at device scope, device code only.
template <MemoryOrder O, typename T>
__device__ __forceinline__ T load_gpu(const T* word) {
  static_assert(O != MemoryOrder::Release, "a load does not release");
  return cuda::atomic_ref<T, cuda::thread_scope_device>(*const_cast<T*>(word))
      .load(O == MemoryOrder::Acquire ? cuda::memory_order_acquire : cuda::memory_order_relaxed);
}

template <MemoryOrder O, typename T>
__device__ __forceinline__ void store_gpu(T* word, typename ordering_detail::Exactly<T>::type value) {
  static_assert(O != MemoryOrder::Acquire, "a store does not acquire");
  cuda::atomic_ref<T, cuda::thread_scope_device>(*word).store(
      value, O == MemoryOrder::Release ? cuda::memory_order_release : cuda::memory_order_relaxed);
}
#endif

#if defined(__CUDACC__)
// Polling on the GPU. A persistent loop that polls with ld.acquire.sys pays for a system-scope
// fence on every poll, idle or not: measured on the H100 (bench/results/2026-11-23-h100-session10),
// the bypass driver's loop, polling with acquire loads, went round 67 k times a second and the GPU
// agent's 86 k, some 15 us a round, which is most of the latency each adds. So GPU loops poll with
// relaxed loads (morally strong: they see the value, in one round trip) and, only when a poll found
// something, fence with acquire: a relaxed load followed by an acquire fence is an acquire (PTX's
// acquire pattern). The fence's scope is that of the word's writer: the device when it is a GPU
// thread (the agent writes write-backs and heads for the driver, the driver tails for the agent),
// the system when it is a host thread (the NIC model's FIFOs).
//
// The fence is PTX's one-way fence.acquire (PTX ISA 8.6, sm_90) where the compiler has it. libcu++
// spells an acquire fence fence.acq_rel, which the H100's SASS makes MEMBAR.ALL.{GPU,SYS}, ERRBAR,
// CGAERRBAR and CCTL.IVALL: it waits for every earlier store of the thread, and the GPU loops'
// earlier stores go into pinned memory (tails, heads, a FIFO's consumed count), a PCIe trip away.
// fence.acquire is CCTL.IVALL alone (the SM's L1 dropped, which is what makes the reads after it
// fresh), all a poll needs: it orders the loads before it against the accesses after it.
// bench/results/2026-11-25-session23 (run 1) has the SASS, and what it took off: the agent's poll
// round 1.8 -> 1.5 us, its frame round (poll to DD) 2.2 us, port to port p50 25.2 -> 23.2 us.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8))
#define GNF_ONE_WAY_FENCES 1
#endif
__device__ __forceinline__ void acquire_fence_gpu() {
#if defined(GNF_ONE_WAY_FENCES)
  asm volatile("fence.acquire.gpu;" ::: "memory");
#else
  cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
#endif
}
__device__ __forceinline__ void acquire_fence_sys() {
#if defined(GNF_ONE_WAY_FENCES)
  asm volatile("fence.acquire.sys;" ::: "memory");
#else
  cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_system);
#endif
}

// The release half, before the relaxed stores of PTX's release pattern (a doorbell, DD, a count
// that hands room back): it orders every earlier access of the thread, and those the barrier
// before it ordered, before the stores after it. __threadfence() and __threadfence_system() are
// fence.sc, which also joins one total order of all such fences, more than a release needs.
__device__ __forceinline__ void release_fence_gpu() {
#if defined(GNF_ONE_WAY_FENCES)
  asm volatile("fence.release.gpu;" ::: "memory");
#else
  cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
#endif
}
__device__ __forceinline__ void release_fence_sys() {
#if defined(GNF_ONE_WAY_FENCES)
  asm volatile("fence.release.sys;" ::: "memory");
#else
  cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_system);
#endif
}

#endif

// A poll of a word that, when the reader is on the GPU, only GPU threads write (descriptor status
// words and heads the GPU agent writes back for the GPU driver), of which the reader then reads
// what its writer released: `ready(value)` says whether there is something to read. On the host an
// acquire load; on the GPU a relaxed load and, when ready, an acquire fence, both at device scope
// (above): the writer is a GPU thread.
template <typename Ready>
GNF_INLINE uint32_t poll_acquire(const uint32_t* word, Ready ready) {
#if defined(__CUDA_ARCH__)
  const uint32_t value = load_gpu<MemoryOrder::Relaxed>(word);
  if (ready(value)) acquire_fence_gpu();
  return value;
#else
  (void)ready;
  return load_acquire_sys(word);
#endif
}

// A counter that readers on several rings add to at once (an ACL rule's hits): one atomic add that
// orders nothing, since nothing is read because of a count. On the GPU atomicAdd, at device scope:
// only GPU threads add to a counter in GPU memory, and the host reads it by copying it out.
GNF_INLINE void add_relaxed(unsigned long long* counter, unsigned long long n) {
#if defined(__CUDA_ARCH__)
  atomicAdd(counter, n);
#else
  __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
#endif
}

// A claim among writers of one side (the producers of an alert ring, nf/nids/alert_ring.h): one
// compare-and-swap that orders nothing by itself; what the claimant then reads and writes is
// ordered by acquires and releases of other words. True when `word` held `expected` and now holds
// `desired`; otherwise `expected` becomes what it held. On the GPU atomicCAS, at device scope, as
// add_relaxed: only GPU threads claim from a word in GPU memory (a GPU's atomics on pinned host
// memory are not atomic with the CPU's on a PCIe host, so the two sides never share such a word).
GNF_INLINE bool compare_exchange_relaxed(unsigned long long* word, unsigned long long& expected,
                                         unsigned long long desired) {
#if defined(__CUDA_ARCH__)
  const unsigned long long held = atomicCAS(word, expected, desired);
  const bool swapped = held == expected;
  expected = held;
  return swapped;
#else
  return __atomic_compare_exchange_n(word, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
#endif
}

// A sequentially consistent fence at system scope (fence.sc.sys on the GPU): the store-then-load
// handshake of the readers' grace periods (sync/readers.h) needs it on both sides.
GNF_INLINE void fence_seq_cst_sys() {
#if defined(__CUDA_ARCH__)
  __threadfence_system();
#else
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

// The fence of publish_after_barrier: on the GPU, after __syncthreads(), cumulative over every write
// the barrier ordered before it; on the host nothing (a host writer orders its own writes).
GNF_INLINE void fence_after_barrier() {
#if defined(__CUDA_ARCH__)
  release_fence_sys();
#endif
}

// A store that follows fence_after_barrier(): on the GPU a relaxed store (with the fence, the
// release pattern); on the host, where no fence went before, a release store.
template <typename T>
GNF_INLINE void store_after_fence_sys(T* word, typename ordering_detail::Exactly<T>::type value) {
#if defined(__CUDA_ARCH__)
  store_sys<MemoryOrder::Relaxed>(word, value);
#else
  store_release_sys(word, value);
#endif
}

// A doorbell rung by one thread for what its whole block wrote (see above). On the host: the
// release store of a single writer.
template <typename T>
GNF_INLINE void publish_after_barrier(T* word, typename ordering_detail::Exactly<T>::type value) {
  fence_after_barrier();
  store_after_fence_sys(word, value);
}

// Several doorbells rung by one thread after one barrier (a burst's rx tail, tx tails and exception
// heads): the first fences, and every store, following that fence in program order, is relaxed.
// ring() is for a word a host thread reads (exception and arrival heads). ring_for_device() is for a
// word that, when a GPU thread rings it, only GPU threads read: the tails of rings in GPU memory,
// which the GPU agent polls (nic/gpu_agent.cu). Its fence need only be at device scope: scope is a
// property of the threads that synchronise, not of where the word lives, so a release at device
// scope into pinned memory pairs with the agent's relaxed poll and device-scope acquire of it. A
// system-scope fence also waits for the thread's earlier stores into pinned memory (the last
// round's tails) to complete across PCIe, which the bypass driver paid in every commit.
class DoorbellBatch {
 public:
  GNF_INLINE void ring(uint32_t* word, uint32_t value) {
    if (fenced_ < kSystem) {
      fence_after_barrier();
      fenced_ = kSystem;
    }
    store_after_fence_sys(word, value);
  }
  GNF_INLINE void ring_for_device(uint32_t* word, uint32_t value) {
#if defined(__CUDA_ARCH__)
    if (fenced_ < kDevice) {
      release_fence_gpu();
      fenced_ = kDevice;
    }
    store_sys<MemoryOrder::Relaxed>(word, value);
#else
    store_release_sys(word, value);  // a host writer orders its own writes
#endif
  }

 private:
  static constexpr uint8_t kDevice = 1, kSystem = 2;
  uint8_t fenced_ = 0;
};

}  // namespace gnf
