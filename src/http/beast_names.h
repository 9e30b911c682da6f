// http/beast_names.h
//
// The short names http/'s sources use for Boost.Beast and Boost.Asio, and Beast's string_view
// (boost::string_view, not std::string_view) as a std::string. For http/'s own .cc files only:
// Beast stays inside this layer.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http.hpp>
#include <string>

namespace tessera::http {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

inline std::string ToString(beast::string_view text) {
  return std::string(text.data(), text.size());
}

}  // namespace tessera::http
