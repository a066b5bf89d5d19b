// Scratch probe: where AES-GCM on tiles spends its time, by variants (not committed).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "nf/ipsec/aes.h"
#include "nf/ipsec/gcm.h"
#include "nf/ipsec/sha1.h"
#include "nf/tile.cuh"
#ifndef GCM_MIN_BLOCKS
#define GCM_MIN_BLOCKS 1
#endif

using namespace gnf::nf;

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e = (x);                                                        \
    if (e != cudaSuccess) {                                                     \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

constexpr uint32_t kSlot = 2048, kPayloadAt = 50, kPayload = 1424, kAad = 8, kInner = 1420, kSas = 16;

struct PosTable {  // M[i][n]: nibble n at nibble position i (0 = top of hi), times v
  ulonglong2 e[32][16];
};

struct SaKeys {
  AesKey key;
  GhashPowers powers;
  PosTable step[6];  // H^1, H^2, H^4, ... H^32
};

// --- AES variants -------------------------------------------------------------------------------
struct FlatTe {
  const uint32_t* t;
  __device__ uint32_t operator()(uint32_t x) const { return t[x]; }
};
// The lane's column as a shared-window byte address; byte k (0 = low) of `word` looks up entry byte.
struct AddrTe {
  uint32_t base;
  __device__ uint32_t at(uint32_t word, int k) const {
    const uint32_t byte = __byte_perm(word, 0, 0x4440 + k);
    uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(base + (byte << 7)));
    return v;
  }
};
template <int R>
__device__ __forceinline__ AesBlock enc_addr(const AddrTe& te, const uint32_t* rk, AesBlock s) {
  for (int i = 0; i < 4; ++i) s.w[i] ^= rk[i];
#pragma unroll
  for (int r = 1; r < R; ++r) {
    AesBlock o;
#pragma unroll
    for (int c = 0; c < 4; ++c)
      o.w[c] = te.at(s.w[c], 3) ^ aes_ror(te.at(s.w[(c + 1) & 3], 2), 8) ^ aes_ror(te.at(s.w[(c + 2) & 3], 1), 16) ^
               aes_ror(te.at(s.w[(c + 3) & 3], 0), 24) ^ rk[4 * r + c];
    s = o;
  }
  AesBlock o;
#pragma unroll
  for (int c = 0; c < 4; ++c)
    o.w[c] = (((te.at(s.w[c], 3) >> 8) & 0xFF) << 24 | ((te.at(s.w[(c + 1) & 3], 2) >> 8) & 0xFF) << 16 |
              ((te.at(s.w[(c + 2) & 3], 1) >> 8) & 0xFF) << 8 | ((te.at(s.w[(c + 3) & 3], 0) >> 8) & 0xFF)) ^ rk[4 * R + c];
  return o;
}
struct LaneTe {  // lane[x * 32]: the lane's column of the 32 copies
  const uint32_t* lane;
  __device__ uint32_t operator()(uint32_t x) const { return lane[x << 5]; }
};
struct BankedTe {  // t[x * 32 + bank]
  const uint32_t* t;
  uint32_t bank;
  __device__ uint32_t operator()(uint32_t x) const { return t[x << 5 | bank]; }
};

template <class Te>
__device__ __forceinline__ uint32_t col(const Te& te, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  return te(a >> 24) ^ aes_ror(te((b >> 16) & 0xFF), 8) ^ aes_ror(te((c >> 8) & 0xFF), 16) ^ aes_ror(te(d & 0xFF), 24);
}
template <class Te>
__device__ __forceinline__ uint32_t sb(const Te& te, uint32_t x) {
  return (te(x) >> 8) & 0xFF;
}
template <class Te>
__device__ __forceinline__ uint32_t lastcol(const Te& te, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  return sb(te, a >> 24) << 24 | sb(te, (b >> 16) & 0xFF) << 16 | sb(te, (c >> 8) & 0xFF) << 8 | sb(te, d & 0xFF);
}
template <int R, class Te>
__device__ __forceinline__ AesBlock enc(const Te& te, const uint32_t* rk, AesBlock s) {
  for (int i = 0; i < 4; ++i) s.w[i] ^= rk[i];
#pragma unroll
  for (int r = 1; r < R; ++r) {
    AesBlock o;
#pragma unroll
    for (int c = 0; c < 4; ++c) o.w[c] = col(te, s.w[c], s.w[(c + 1) & 3], s.w[(c + 2) & 3], s.w[(c + 3) & 3]) ^ rk[4 * r + c];
    s = o;
  }
  AesBlock o;
#pragma unroll
  for (int c = 0; c < 4; ++c) o.w[c] = lastcol(te, s.w[c], s.w[(c + 1) & 3], s.w[(c + 2) & 3], s.w[(c + 3) & 3]) ^ rk[4 * R + c];
  return o;
}

// --- GHASH variants ------------------------------------------------------------------------------
__device__ __forceinline__ Ghash mul_pos8(const PosTable& m, const Ghash& x) {
  uint64_t hi = 0, lo = 0;
#pragma unroll 8
  for (int i = 0; i < 32; ++i) {
    const uint32_t n = uint32_t((i < 16 ? x.hi : x.lo) >> (60 - 4 * (i & 15))) & 0xF;
    const ulonglong2 v = m.e[i][n];
    hi ^= v.x, lo ^= v.y;
  }
  return Ghash{hi, lo};
}
__host__ __device__ __forceinline__ Ghash mul_pos(const PosTable& m, const Ghash& x) {
  uint64_t hi = 0, lo = 0;
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    const uint32_t n = uint32_t((i < 16 ? x.hi : x.lo) >> (60 - 4 * (i & 15))) & 0xF;
    const ulonglong2 v = m.e[i][n];
    hi ^= v.x, lo ^= v.y;
  }
  return Ghash{hi, lo};
}

// kAes: 0 none, 1 repo (flat, keys from global each block), 2 flat + keys in registers, 3 banked + registers
// kGhash: 0 none, 1 repo's Shoup, 2 position tables
template <int kAes, int kGhash, uint32_t kTile>
__global__ void __launch_bounds__(256, GCM_MIN_BLOCKS) gcm_probe(const uint32_t* te_global, const SaKeys* keys, uint8_t* slots, uint32_t count,
                          unsigned long long* sink) {
  extern __shared__ uint32_t shared[];
  if (kAes == 3) {
    for (uint32_t i = threadIdx.x; i < 256 * 32; i += blockDim.x) shared[i] = te_global[i >> 5];
  } else {
    for (uint32_t i = threadIdx.x; i < sizeof(AesTables) / 4; i += blockDim.x) shared[i] = te_global[i];
  }
  PosTable* pos_shared = reinterpret_cast<PosTable*>(shared + 256 * 32);
  if (kGhash == 3) {
    const uint32_t* from = reinterpret_cast<const uint32_t*>(&keys[0].step[__ffs(kTile) - 1]);
    for (uint32_t i = threadIdx.x; i < sizeof(PosTable) / 4; i += blockDim.x) reinterpret_cast<uint32_t*>(pos_shared)[i] = from[i];
  }
  __syncthreads();
  const AesTables& flat = *reinterpret_cast<const AesTables*>(shared);
  const Tile tile = tile_of(kTile);
  const uint32_t tiles = gridDim.x * blockDim.x / kTile;
  unsigned long long acc = 0;
  for (uint32_t p = (blockIdx.x * blockDim.x + threadIdx.x) / kTile; p < count; p += tiles) {
    const SaKeys& k = keys[p % kSas];
    uint8_t* slot = slots + uint64_t(p) * kSlot;
    uint8_t* data = slot + kPayloadAt;
    const uint8_t* aad = slot + 34;
    const uint8_t* nonce = slot + 16;  // any 12 bytes
    if (kAes == 1 && kGhash == 1) {
      const Ghash s = aes_gcm_lane(flat, k.key, k.powers, nonce, aad, kAad, data, kPayload, true, tile.lane, tile.size);
      acc ^= tile.xor_all(s.hi) ^ tile.xor_all(s.lo);
      continue;
    }
    uint32_t rk[60];
    const bool regs = kAes >= 2 && kAes != 5 && kAes != 6;
    if (regs) {
#pragma unroll
      for (int i = 0; i < 44; ++i) rk[i] = k.key.words[i];
    }
    const uint32_t aad_blocks = 1, data_blocks = (kPayload + 15) / 16, blocks = aad_blocks + data_blocks + 1;
    const uint32_t padding = (kTile - blocks % kTile) % kTile;
    const AesBlock j0 = gcm_j0(nonce);
    const PosTable& step = k.step[__ffs(kTile) - 1];
    Ghash y{0, 0};
    for (uint32_t j = tile.lane; j < blocks + padding; j += kTile) {
      if (kGhash == 1 && j >= kTile) y = ghash_multiply(k.powers.of[kTile - 1], y);
      if (kGhash == 2 && j >= kTile) y = mul_pos(step, y);
      if (kGhash == 3 && j >= kTile) y = mul_pos(*pos_shared, y);
      if (kGhash == 4 && j >= kTile) y = mul_pos8(step, y);
      if (j < padding) continue;
      const uint32_t i = j - padding;
      AesBlock g;
      if (i < aad_blocks) g = gcm_aad_block(aad, kAad, i);
      else if (i < aad_blocks + data_blocks) {
        const uint32_t b = i - aad_blocks, at = 16 * b, n = kPayload - at < 16 ? kPayload - at : 16;
        AesBlock counter = j0;
        counter.w[3] += 1 + b;
        AesBlock ks{};
        if (kAes == 1) ks = aes_encrypt(flat, k.key, counter);
        if (kAes == 2) ks = enc<10>(FlatTe{flat.te}, rk, counter);
        if (kAes == 3) ks = enc<10>(BankedTe{shared, threadIdx.x & 31}, rk, counter);
        if (kAes == 4) ks = enc<10>(LaneTe{shared + (threadIdx.x & 31)}, rk, counter);
        if (kAes == 6) ks = enc_addr<10>(AddrTe{uint32_t(__cvta_generic_to_shared(shared)) + 4 * (threadIdx.x & 31)}, k.key.words, counter);
        if (kAes == 7) ks = enc_addr<10>(AddrTe{uint32_t(__cvta_generic_to_shared(shared)) + 4 * (threadIdx.x & 31)}, rk, counter);
        if (kAes == 5) ks = enc<10>(LaneTe{shared + (threadIdx.x & 31)}, k.key.words, counter);
        if (kAes == 0) ks = counter;
        const AesBlock in = n == 16 ? aes_load(data + at) : aes_load_partial(data + at, n);
        const AesBlock out = aes_xor(in, ks);
        if (n == 16) aes_store(data + at, out);
        else aes_store_partial(data + at, out, n);
        g = aes_truncate(out, n);
      } else {
        g = gcm_lengths_block(kAad, kPayload);
      }
      const Ghash gg = ghash_of(g);
      y.hi ^= gg.hi, y.lo ^= gg.lo;
    }
    if (kGhash == 1) y = ghash_multiply(k.powers.of[kTile - 1 - tile.lane], y);
    if (kGhash >= 2) y = ghash_multiply(k.powers.of[kTile - 1 - tile.lane], y);
    acc ^= tile.xor_all(y.hi) ^ tile.xor_all(y.lo);
  }
  if (acc == 0x1234567) sink[0] = acc;
}

// CBC + HMAC-SHA1 thread per packet: kAes 1 repo, 2 flat + registers, 3 banked + registers; kSha 0/1
template <int kAes, int kSha>
__global__ void cbc_probe(const uint32_t* te_global, const SaKeys* keys, uint8_t* slots, uint32_t count,
                          unsigned long long* sink) {
  extern __shared__ uint32_t shared[];
  if (kAes == 3) {
    for (uint32_t i = threadIdx.x; i < 256 * 32; i += blockDim.x) shared[i] = te_global[i >> 5];
  } else {
    for (uint32_t i = threadIdx.x; i < sizeof(AesTables) / 4; i += blockDim.x) shared[i] = te_global[i];
  }
  __syncthreads();
  const AesTables& flat = *reinterpret_cast<const AesTables*>(shared);
  unsigned long long acc = 0;
  for (uint32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < count; p += gridDim.x * blockDim.x) {
    const SaKeys& k = keys[p % kSas];
    uint8_t* slot = slots + uint64_t(p) * kSlot;
    uint8_t* data = slot + kPayloadAt;
    if (kAes == 1) aes_cbc_encrypt(flat, k.key, slot + 34, data, kPayload);
    if (kAes >= 2) {
      uint32_t rk[44];
#pragma unroll
      for (int i = 0; i < 44; ++i) rk[i] = k.key.words[i];
      AesBlock chain = aes_load(slot + 34);
      for (uint32_t at = 0; at < kPayload; at += 16) {
        const AesBlock in = aes_xor(aes_load(data + at), chain);
        chain = kAes == 2 ? enc<10>(FlatTe{flat.te}, rk, in) : enc<10>(BankedTe{shared, threadIdx.x & 31}, rk, in);
        aes_store(data + at, chain);
      }
    }
    if (kSha) {
      uint32_t h[5] = {1, 2, 3, 4, 5};
      for (uint32_t at = 0; at + 64 <= kPayload + 16; at += 64) sha1_compress(h, slot + 34 + at);
      acc ^= h[0] ^ h[4];
    }
  }
  if (acc == 0x1234567) sink[0] = acc;
}

template <class K>
double time_it(K kernel, uint32_t threads_per_packet, size_t shared, const uint32_t* te, const SaKeys* keys,
               uint8_t* slots, uint32_t count, unsigned long long* sink) {
  const uint32_t block = 256;
  const uint32_t blocks = uint32_t((uint64_t(count) * threads_per_packet + block - 1) / block);
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> ms;
  for (int r = 0; r < 7; ++r) {
    CK(cudaEventRecord(a));
    kernel<<<blocks, block, shared>>>(te, keys, slots, count, sink);
    CK(cudaGetLastError());
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float m;
    CK(cudaEventElapsedTime(&m, a, b));
    ms.push_back(m);
  }
  std::sort(ms.begin(), ms.end());
  return double(count) * kInner * 8 / (ms[3] / 1e3) / 1e9;
}

static PosTable pos_table(const GhashKey& key) {
  PosTable t{};
  for (int i = 0; i < 32; ++i)
    for (int n = 0; n < 16; ++n) {
      Ghash x{0, 0};
      const uint64_t v = uint64_t(n) << (60 - 4 * (i & 15));
      if (i < 16) x.hi = v;
      else x.lo = v;
      const Ghash r = ghash_multiply(key, x);
      t.e[i][n] = ulonglong2{r.hi, r.lo};
    }
  return t;
}

int main(int argc, char** argv) {
  const uint32_t count = argc > 1 ? atoi(argv[1]) : 400000;
  const AesTables& t = aes_tables();
  std::vector<SaKeys> keys(kSas);
  for (uint32_t s = 0; s < kSas; ++s) {
    uint8_t key[16];
    for (int i = 0; i < 16; ++i) key[i] = uint8_t(s * 31 + i * 7);
    aes_encryption_key(key, 16, keys[s].key);
    keys[s].powers = ghash_powers(t, keys[s].key);
    for (int p = 0; p < 6; ++p) keys[s].step[p] = pos_table(keys[s].powers.of[(1u << p) - 1]);
  }
  for (int trial = 0; trial < 1000; ++trial) {
    Ghash x{uint64_t(rand()) << 33 ^ uint64_t(rand()) << 11 ^ rand(), uint64_t(rand()) << 35 ^ uint64_t(rand()) << 7 ^ rand()};
    const uint32_t s = trial % kSas, p = trial % 6;
    const Ghash a = ghash_multiply(keys[s].powers.of[(1u << p) - 1], x), b = mul_pos(keys[s].step[p], x);
    if (a.hi != b.hi || a.lo != b.lo) { printf("mul_pos mismatch\n"); return 1; }
  }
  printf("mul_pos matches Shoup on 1000 values\n");
  uint32_t* te;
  SaKeys* dk;
  uint8_t* slots;
  unsigned long long* sink;
  CK(cudaMalloc(&te, sizeof(AesTables)));
  CK(cudaMemcpy(te, &t, sizeof(AesTables), cudaMemcpyHostToDevice));
  CK(cudaMalloc(&dk, keys.size() * sizeof(SaKeys)));
  CK(cudaMemcpy(dk, keys.data(), keys.size() * sizeof(SaKeys), cudaMemcpyHostToDevice));
  CK(cudaMalloc(&slots, size_t(count) * kSlot));
  CK(cudaMemset(slots, 0x5A, size_t(count) * kSlot));
  CK(cudaMalloc(&sink, 8));
  const size_t flat = sizeof(AesTables), banked = 256 * 32 * 4;
#define G(A, H, T, S) printf("gcm aes=%d ghash=%d tile=%2d min_blocks=%d: %7.1f Gbit/s\n", A, H, T, GCM_MIN_BLOCKS, time_it(gcm_probe<A, H, T>, T, S, te, dk, slots, count, sink))
  const size_t pos = banked + sizeof(PosTable);
  G(1, 1, 16, flat);
  G(5, 0, 16, banked);
  G(6, 0, 16, banked);
  G(7, 0, 16, banked);
  G(0, 2, 16, flat);
  G(0, 4, 16, flat);
  G(5, 2, 8, banked);
  G(6, 2, 8, banked);
  G(7, 2, 8, banked);
  G(6, 4, 8, banked);
  G(6, 2, 16, banked);
  G(6, 4, 16, banked);
  G(7, 2, 16, banked);
  G(6, 2, 4, banked);
  G(6, 4, 4, banked);
  G(6, 3, 8, pos);
  G(6, 3, 16, pos);
  return 0;
}
