#include "nf/ipsec/ipsec_mb_cipher.h"

#include <intel-ipsec-mb.h>
#include <openssl/crypto.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace gnf::nf {

namespace {

constexpr uint32_t kSha1BlockBytes = 64;
constexpr uint32_t kSha1DigestBytes = 20;
constexpr uint32_t kGcmTagBytes = 16;

}  // namespace

// An SA's keys as the library takes them: AES round keys (both directions, 15 rounds' room), GCM's
// key data (round keys and GHASH powers), HMAC's inner and outer states after the padded key.
struct IpsecMbEspCipher::Keys {
  alignas(64) gcm_key_data gcm;
  alignas(16) uint32_t enc[4 * 15];
  alignas(16) uint32_t dec[4 * 15];
  alignas(16) uint8_t ipad[kSha1DigestBytes + 12];
  alignas(16) uint8_t opad[kSha1DigestBytes + 12];
};

// What one job in flight needs to outlive its submission: GCM's nonce and AAD, the tag the
// library writes, the ICV a packet arrived with (ESN puts the sequence number's high half where it
// was, RFC 4303 §2.2.1), and where the outcome goes.
struct IpsecMbEspCipher::Scratch {
  uint8_t nonce[kGcmNonceBytes];
  uint8_t aad[kMaxAadBytes];
  uint8_t tag[kGcmTagBytes];
  uint8_t received_icv[kGcmTagBytes];
  uint8_t* icv;
  uint32_t icv_bytes;
  bool* ok;
};

IpsecMbEspCipher::IpsecMbEspCipher(const std::vector<IpsecSa>& sas) : sas_(sas), keys_(sas.size()) {
  mgr_ = alloc_mb_mgr(0);
  if (!mgr_) throw std::runtime_error("intel-ipsec-mb: cannot allocate a manager");
  IMB_ARCH arch = IMB_ARCH_NONE;
  // GNF_IPSEC_MB_ARCH (sse, avx, avx2, avx512) picks the library's code path instead of the CPU's
  // best; the caller then vouches that the CPU has it.
  const char* forced = std::getenv("GNF_IPSEC_MB_ARCH");
  const std::string want = forced ? forced : "";
  if (want == "sse") init_mb_mgr_sse(mgr_), arch = IMB_ARCH_SSE;
  else if (want == "avx") init_mb_mgr_avx(mgr_), arch = IMB_ARCH_AVX;
  else if (want == "avx2") init_mb_mgr_avx2(mgr_), arch = IMB_ARCH_AVX2;
  else if (want == "avx512") init_mb_mgr_avx512(mgr_), arch = IMB_ARCH_AVX512;
  else if (!want.empty()) {
    free_mb_mgr(mgr_);
    throw std::runtime_error("GNF_IPSEC_MB_ARCH: '" + want + "' is none of sse, avx, avx2, avx512");
  } else init_mb_mgr_auto(mgr_, &arch);
  arch_ = int(arch);
  if (imb_get_errno(mgr_) != 0) {
    const std::string why = imb_get_strerror(imb_get_errno(mgr_));
    free_mb_mgr(mgr_);
    throw std::runtime_error("intel-ipsec-mb: " + why);
  }
  for (size_t i = 0; i < sas.size(); ++i) {
    const IpsecSa& sa = sas[i];
    Keys& k = keys_[i];
    if (sa.cipher == EspCipher::AesCbc128) IMB_AES_KEYEXP_128(mgr_, sa.cipher_key, k.enc, k.dec);
    if (sa.cipher == EspCipher::AesGcm128) IMB_AES128_GCM_PRE(mgr_, sa.cipher_key, &k.gcm);
    if (sa.cipher == EspCipher::AesGcm256) IMB_AES256_GCM_PRE(mgr_, sa.cipher_key, &k.gcm);
    if (sa.auth == EspAuth::HmacSha1_96) {
      const uint32_t key_bytes = esp_auth_key_bytes(sa.auth);
      if (key_bytes > kSha1BlockBytes) throw std::runtime_error("intel-ipsec-mb: HMAC key longer than a SHA-1 block");
      // HMAC (RFC 2104): the key padded to a block, XORed with 0x36 and 0x5c, each hashed once.
      uint8_t pad[kSha1BlockBytes];
      for (auto [value, state] : {std::pair{uint8_t(0x36), k.ipad}, std::pair{uint8_t(0x5c), k.opad}}) {
        std::memset(pad, value, sizeof(pad));
        for (uint32_t b = 0; b < key_bytes; ++b) pad[b] ^= sa.auth_key[b];
        IMB_SHA1_ONE_BLOCK(mgr_, pad, state);
      }
    }
  }
}

IpsecMbEspCipher::~IpsecMbEspCipher() { free_mb_mgr(mgr_); }

std::string IpsecMbEspCipher::arch() const {
  switch (IMB_ARCH(arch_)) {
    case IMB_ARCH_NOAESNI: return "no-aesni";
    case IMB_ARCH_SSE: return "sse";
    case IMB_ARCH_AVX: return "avx";
    case IMB_ARCH_AVX2: return "avx2";
    case IMB_ARCH_AVX512: return "avx512";
    default: return "unknown";
  }
}

bool IpsecMbEspCipher::seal(uint32_t sa_index, const IpsecSa&, const EspCryptoJob& job) {
  bool ok = false;
  const EspBurstJob one{sa_index, job};
  run_burst(&one, 1, true, &ok);
  return ok;
}

bool IpsecMbEspCipher::open(uint32_t sa_index, const IpsecSa&, const EspCryptoJob& job) {
  bool ok = false;
  const EspBurstJob one{sa_index, job};
  run_burst(&one, 1, false, &ok);
  return ok;
}

void IpsecMbEspCipher::seal_burst(const EspBurstJob* jobs, uint32_t count, bool* ok) { run_burst(jobs, count, true, ok); }
void IpsecMbEspCipher::open_burst(const EspBurstJob* jobs, uint32_t count, bool* ok) { run_burst(jobs, count, false, ok); }

void IpsecMbEspCipher::run_burst(const EspBurstJob* jobs, uint32_t count, bool seal, bool* ok) {
  if (count > kMaxBurst) throw std::invalid_argument("intel-ipsec-mb: burst over kMaxBurst jobs");
  if (scratch_.size() < count) scratch_.resize(count);
  // A job the library hands back: the ICV written (seal) or compared in constant time (open), and
  // an ICV that ESN's high half covered put back.
  const auto finish = [seal](IMB_JOB* done) {
    Scratch& s = *static_cast<Scratch*>(done->user_data);
    if (done->status != IMB_STATUS_COMPLETED) {
      *s.ok = false;
      return;
    }
    if (seal) {
      std::memcpy(s.icv, s.tag, s.icv_bytes);
      *s.ok = true;
    } else {
      *s.ok = CRYPTO_memcmp(s.tag, s.received_icv, s.icv_bytes) == 0;
      std::memcpy(s.icv, s.received_icv, s.icv_bytes);
    }
  };
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t sa_index = jobs[i].sa_index;
    const IpsecSa& sa = sas_[sa_index];
    const Keys& k = keys_[sa_index];
    const EspCryptoJob& job = jobs[i].job;
    Scratch& s = scratch_[i];
    s.ok = ok + i;
    s.icv = esp_icv(sa, job);
    s.icv_bytes = esp_icv_bytes(sa.auth);
    if (sa.cipher == EspCipher::Null && sa.auth == EspAuth::Null) {
      ok[i] = true;
      continue;
    }
    if (!seal) std::memcpy(s.received_icv, s.icv, s.icv_bytes);
    IMB_JOB* j = IMB_GET_NEXT_JOB(mgr_);
    j->user_data = &s;
    j->cipher_direction = seal ? IMB_DIR_ENCRYPT : IMB_DIR_DECRYPT;
    // Encrypt then MAC on the way out; the MAC is over the ciphertext, so checked before decrypting.
    j->chain_order = seal ? IMB_ORDER_CIPHER_HASH : IMB_ORDER_HASH_CIPHER;
    // The offsets count from src, the hash's and the cipher's; dst is where the cipher's output
    // starts (in place: the payload).
    j->src = job.esp;
    j->dst = esp_payload(sa, job);
    j->cipher_start_src_offset_in_bytes = esp_payload(sa, job) - job.esp;
    j->msg_len_to_cipher_in_bytes = job.payload;
    j->auth_tag_output = s.tag;
    j->auth_tag_output_len_in_bytes = s.icv_bytes;
    if (sa.auth == EspAuth::Gcm) {
      if (seal) esp_gcm_iv(job.seq, esp_iv(job));
      const EspGcmInput in = esp_gcm_input(sa, job);
      std::memcpy(s.nonce, in.nonce, sizeof(s.nonce));
      std::memcpy(s.aad, in.aad, in.aad_bytes);
      j->cipher_mode = IMB_CIPHER_GCM;
      j->hash_alg = IMB_AUTH_AES_GMAC;
      j->enc_keys = &k.gcm;
      j->dec_keys = &k.gcm;
      j->key_len_in_bytes = esp_cipher_key_bytes(sa.cipher);
      j->iv = s.nonce;
      j->iv_len_in_bytes = kGcmNonceBytes;
      j->hash_start_src_offset_in_bytes = j->cipher_start_src_offset_in_bytes;
      j->msg_len_to_hash_in_bytes = job.payload;
      j->u.GCM.aad = s.aad;
      j->u.GCM.aad_len_in_bytes = in.aad_bytes;
    } else {
      // The library refuses a CBC message of no blocks; the IV is still made, and the MAC covers it.
      if (sa.cipher == EspCipher::AesCbc128 && seal) {
        // The IV: the SA's key applied to a nonce block (cipher.h), CFB over zeros being E_K(iv).
        uint8_t nonce[kAesBlockBytes], zeros[kAesBlockBytes] = {};
        esp_cbc_iv_nonce(sa.spi, job.seq, nonce);
        IMB_AES128_CFB_ONE(mgr_, esp_iv(job), zeros, nonce, k.enc, kAesBlockBytes);
      }
      if (sa.cipher == EspCipher::AesCbc128 && job.payload != 0) {
        j->cipher_mode = IMB_CIPHER_CBC;
        j->enc_keys = k.enc;
        j->dec_keys = k.dec;
        j->key_len_in_bytes = IMB_KEY_128_BYTES;
        j->iv = esp_iv(job);
        j->iv_len_in_bytes = kAesBlockBytes;
      } else {
        j->cipher_mode = IMB_CIPHER_NULL;
      }
      if (sa.auth == EspAuth::HmacSha1_96) {
        // With ESN the MAC covers the sequence number's high half after the payload, where the ICV
        // goes (seal) or was (open, kept in received_icv): written there, hashed, then overwritten.
        uint8_t high[4];
        const uint32_t extra = esp_hmac_extra(sa, job, high);
        std::memcpy(s.icv, high, extra);
        j->hash_alg = IMB_AUTH_HMAC_SHA_1;
        j->hash_start_src_offset_in_bytes = 0;
        j->msg_len_to_hash_in_bytes = esp_hmac_covered(sa, job) + extra;
        j->u.HMAC._hashed_auth_key_xor_ipad = k.ipad;
        j->u.HMAC._hashed_auth_key_xor_opad = k.opad;
      } else {
        j->hash_alg = IMB_AUTH_NULL;
        j->auth_tag_output_len_in_bytes = 0;
      }
    }
    for (IMB_JOB* done = IMB_SUBMIT_JOB(mgr_); done; done = IMB_GET_COMPLETED_JOB(mgr_)) finish(done);
  }
  while (IMB_JOB* done = IMB_FLUSH_JOB(mgr_)) finish(done);
}

}  // namespace gnf::nf
