// core/sha256_stream.h
//
// SHA-256 over data that arrives in pieces (package entries, whole package files), so nothing
// has to be held in memory to be hashed. Update() any number of times, then FinishHex() gives the
// digest of everything since construction (or since the previous FinishHex()) as 64 lower-case
// hex characters -- the same text Sha256Hex() of core/hash.h gives for the concatenated pieces --
// and leaves the stream empty, ready for the next message. Throws Error(kInternal) only if
// OpenSSL fails.
#pragma once

#include <memory>
#include <string>
#include <string_view>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX, kept out of this header

namespace tessera {

class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(Sha256Stream&&) noexcept;
  Sha256Stream& operator=(Sha256Stream&&) noexcept;

  void Update(std::string_view data);
  std::string FinishHex();

 private:
  struct ContextDeleter {
    void operator()(evp_md_ctx_st* context) const;
  };
  std::unique_ptr<evp_md_ctx_st, ContextDeleter> context_;
};

}  // namespace tessera
