#include "http/client_address.h"

#include <algorithm>
#include <boost/asio/ip/address.hpp>
#include <optional>
#include <stdexcept>

#include "core/strings.h"

namespace tessera::http {
namespace {

std::string_view Trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::optional<std::string> CanonicalAddress(std::string_view text) {
  boost::system::error_code error;
  auto address = boost::asio::ip::make_address(std::string(Trimmed(text)), error);
  if (error) return std::nullopt;
  return address.to_string();
}

std::vector<std::string_view> SplitOnCommas(std::string_view text) {
  std::vector<std::string_view> pieces;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    pieces.push_back(Trimmed(text.substr(start, comma - start)));
    start = comma + 1;
  }
  return pieces;
}

// Every X-Forwarded-For entry, leftmost first.
std::vector<std::string_view> ForwardedFor(const Headers& headers) {
  std::vector<std::string_view> entries;
  for (const auto& [name, value] : headers.fields()) {
    if (!EqualsIgnoreCase(name, "X-Forwarded-For")) continue;
    for (std::string_view entry : SplitOnCommas(value)) entries.push_back(entry);
  }
  return entries;
}

}  // namespace

std::vector<std::string> ParseTrustedProxies(std::string_view list) {
  std::vector<std::string> proxies;
  if (Trimmed(list).empty()) return proxies;
  for (std::string_view entry : SplitOnCommas(list)) {
    std::optional<std::string> address = CanonicalAddress(entry);
    if (!address) {
      throw std::invalid_argument("'" + std::string(entry.substr(0, 64)) +
                                  "' is not an IP address; expected IPv4 or IPv6 addresses "
                                  "separated by commas");
    }
    proxies.push_back(*address);
  }
  return proxies;
}

bool IsTrustedProxy(std::string_view address, const std::vector<std::string>& trusted_proxies) {
  return std::find(trusted_proxies.begin(), trusted_proxies.end(), address) !=
         trusted_proxies.end();
}

std::string ClientAddressOf(const std::string& peer, const Headers& headers,
                            const std::vector<std::string>& trusted_proxies) {
  if (!IsTrustedProxy(peer, trusted_proxies)) return peer;
  std::vector<std::string_view> entries = ForwardedFor(headers);
  for (auto entry = entries.rbegin(); entry != entries.rend(); ++entry) {
    std::optional<std::string> address = CanonicalAddress(*entry);
    if (!address) return peer;
    if (!IsTrustedProxy(*address, trusted_proxies)) return *address;
  }
  return peer;
}

}  // namespace tessera::http
