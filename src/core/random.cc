#include "core/random.h"

#include <sys/random.h>

#include <cerrno>

#include "core/error.h"

namespace tessera {

std::string RandomBytes(size_t count) {
  std::string bytes(count, '\0');
  size_t filled = 0;
  while (filled < count) {
    ssize_t got = getrandom(bytes.data() + filled, count - filled, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorCode::kInternal, "the operating system refused to provide random bytes");
    }
    filled += static_cast<size_t>(got);
  }
  return bytes;
}

std::string RandomString(size_t count, std::string_view alphabet) {
  const size_t limit = 256 - (256 % alphabet.size());
  std::string out;
  out.reserve(count);
  while (out.size() < count) {
    for (unsigned char byte : RandomBytes(count)) {
      if (byte >= limit) continue;
      out.push_back(alphabet[byte % alphabet.size()]);
      if (out.size() == count) break;
    }
  }
  return out;
}

}  // namespace tessera
