// http/client_address.h
//
// The address of the client a request comes from. Behind a load balancer or reverse proxy the
// connection's peer is the proxy, and every client would share its address -- and its limits
// (failed-login lockout, connections per address). A proxy the server is told to trust reports
// the client in X-Forwarded-For: "client, proxy1, proxy2", each proxy appending the address it
// received the request from.
//
// Contract:
//   - ParseTrustedProxies("10.0.0.5, ::1") gives the canonical text of each IP address (IPv4 or
//     IPv6; "" gives none); anything else throws std::invalid_argument naming the entry and what
//     is accepted.
//   - ClientAddressOf() is `peer` unless `peer` is a trusted proxy. For a trusted peer the
//     X-Forwarded-For entries (every such header, in order) are read from the right: trusted
//     proxies are passed over and the first other entry is the client, in canonical form. When
//     that entry is not an IP address, or every entry is trusted or there is none, the peer is
//     the client: an address the proxies did not vouch for is never taken.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "http/message.h"

namespace tessera::http {

std::vector<std::string> ParseTrustedProxies(std::string_view list);

std::string ClientAddressOf(const std::string& peer, const Headers& headers,
                            const std::vector<std::string>& trusted_proxies);

bool IsTrustedProxy(std::string_view address, const std::vector<std::string>& trusted_proxies);

}  // namespace tessera::http
