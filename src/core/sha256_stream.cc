#include "core/sha256_stream.h"

#include <openssl/evp.h>

#include "core/error.h"
#include "core/hash.h"

namespace tessera {

namespace {

void Start(EVP_MD_CTX* context) {
  if (EVP_DigestInit_ex(context, EVP_sha256(), nullptr) != 1) {
    throw Error(ErrorCode::kInternal, "SHA-256: EVP_DigestInit_ex failed");
  }
}

}  // namespace

void Sha256Stream::ContextDeleter::operator()(evp_md_ctx_st* context) const {
  EVP_MD_CTX_free(context);
}

Sha256Stream::Sha256Stream() : context_(EVP_MD_CTX_new()) {
  if (!context_) throw Error(ErrorCode::kInternal, "SHA-256: EVP_MD_CTX_new failed");
  Start(context_.get());
}

Sha256Stream::~Sha256Stream() = default;
Sha256Stream::Sha256Stream(Sha256Stream&&) noexcept = default;
Sha256Stream& Sha256Stream::operator=(Sha256Stream&&) noexcept = default;

void Sha256Stream::Update(std::string_view data) {
  if (EVP_DigestUpdate(context_.get(), data.data(), data.size()) != 1) {
    throw Error(ErrorCode::kInternal, "SHA-256: EVP_DigestUpdate failed");
  }
}

std::string Sha256Stream::FinishHex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context_.get(), digest, &length) != 1) {
    throw Error(ErrorCode::kInternal, "SHA-256: EVP_DigestFinal_ex failed");
  }
  Start(context_.get());
  return HexEncode(std::string_view(reinterpret_cast<const char*>(digest), length), false);
}

}  // namespace tessera
