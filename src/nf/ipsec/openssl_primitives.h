// The three primitives the CPU's ESP cipher is made of, each keyed once (its key schedule kept)
// and used per packet: OpenSSL 3's EVP interface, never hand-written crypto.
//
// The cpu path takes AES-128-CBC + HMAC-SHA1 from here and AES-GCM from intel-ipsec-mb
// (host_cipher.h says why: the faster of the two a packet at a time); OpenSSL is also the oracle
// the other ciphers are tested against.
//
// Each object is one thread's: EVP contexts are not shared between threads.
#pragma once
#include <cstdint>
#include <memory>

struct evp_cipher_ctx_st;
struct evp_mac_ctx_st;

namespace gnf::nf {

struct OpensslFree {
  void operator()(evp_cipher_ctx_st* ctx) const;
  void operator()(evp_mac_ctx_st* ctx) const;
};

// AES-128 in CBC mode without padding (ESP pads itself), and its single-block ECB form for IVs.
class AesCbc128 {
 public:
  AesCbc128(const uint8_t* key, bool encrypt);
  // `bytes` a multiple of 16; in place when in == out.
  bool run(const uint8_t* iv, const uint8_t* in, uint8_t* out, uint32_t bytes);
  // One block through the raw cipher (encryption direction only).
  bool encrypt_block(const uint8_t* in, uint8_t* out);

 private:
  std::unique_ptr<evp_cipher_ctx_st, OpensslFree> cbc_, ecb_;
  bool encrypt_;
};

// AES-GCM with a 12-byte nonce and a 16-byte tag; key_bytes 16 or 32.
class AesGcm {
 public:
  AesGcm(const uint8_t* key, uint32_t key_bytes, bool encrypt);
  bool seal(const uint8_t* nonce, const uint8_t* aad, uint32_t aad_bytes, const uint8_t* in, uint8_t* out,
            uint32_t bytes, uint8_t* tag);
  // False when the tag does not match (OpenSSL compares it in constant time).
  bool open(const uint8_t* nonce, const uint8_t* aad, uint32_t aad_bytes, const uint8_t* in, uint8_t* out,
            uint32_t bytes, const uint8_t* tag);

 private:
  std::unique_ptr<evp_cipher_ctx_st, OpensslFree> ctx_;
};

// HMAC-SHA1 over up to two pieces of data.
class HmacSha1 {
 public:
  HmacSha1(const uint8_t* key, uint32_t key_bytes);
  bool mac(const uint8_t* data, uint32_t bytes, const uint8_t* extra, uint32_t extra_bytes, uint8_t digest[20]);

 private:
  std::unique_ptr<evp_mac_ctx_st, OpensslFree> ctx_;
};

}  // namespace gnf::nf
