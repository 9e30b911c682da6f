
#include "http/client.h"
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <stdexcept>
#include "core/strings.h"
#include "http/beast_names.h"

namespace tessera::http {
namespace {

// A reused connection the server has closed fails like this on the next write or read.
bool IsStaleConnection(const beast::error_code& ec) {
  return ec == bhttp::error::end_of_stream || ec == net::error::eof ||
         ec == net::error::connection_reset || ec == net::error::broken_pipe ||
         ec == net::error::connection_aborted || ec == bhttp::error::partial_message;
}

class TransportError : public std::runtime_error {
 public:
  TransportError(const std::string& what, beast::error_code ec)
      : std::runtime_error(what + ": " + ec.message()), ec_(ec) {}
  const beast::error_code& code() const { return ec_; }

 private:
  beast::error_code ec_;
};

}  // namespace

// Sync calls on top of async Beast operations, so every step is bounded by the stream's expiry.
class Client::Impl {
 public:
  Impl(std::string host, uint16_t port) : host_(std::move(host)), port_(port) {}

  Response Send(std::string_view method, std::string_view target, const Headers& headers,
                std::string_view body) {
    bhttp::request<bhttp::string_body> request = BuildRequest(method, target, headers, body);
    bool is_head = EqualsIgnoreCase(method, "HEAD");
    bool is_reused = is_connected_;
    try {
      if (!is_connected_) Connect();
      return Exchange(request, is_head);
    } catch (const TransportError& error) {
      Disconnect();
      if (!is_reused || !IsStaleConnection(error.code())) throw Failure(error);
    }
    try {
      Connect();
      return Exchange(request, is_head);
    } catch (const TransportError& error) {
      Disconnect();
      throw Failure(error);
    }
  }

  void set_timeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }

 private:
  bhttp::request<bhttp::string_body> BuildRequest(std::string_view method, std::string_view target,
                                                  const Headers& headers,
                                                  std::string_view body) const {
    bhttp::request<bhttp::string_body> request;
    request.version(11);
    request.method_string(ToUpper(method));
    request.target(beast::string_view(target.data(), target.size()));
    request.set(bhttp::field::host, host_ + ":" + std::to_string(port_));
    for (const auto& [name, value] : headers.fields()) {
      if (EqualsIgnoreCase(name, "Content-Length") || EqualsIgnoreCase(name, "Host")) continue;
      request.insert(name, value);
    }
    request.body() = std::string(body);
    request.content_length(body.size());
    return request;
  }

  void Connect() {
    beast::error_code ec;
    tcp::resolver resolver(io_context_);
    auto endpoints = resolver.resolve(host_, std::to_string(port_), ec);
    if (ec) throw TransportError("Cannot resolve " + host_, ec);
    stream_.expires_after(timeout_);
    Run([&](auto handler) { stream_.async_connect(endpoints, std::move(handler)); }, "connect");
    stream_.socket().set_option(tcp::no_delay(true), ec);
    is_connected_ = true;
  }

  Response Exchange(const bhttp::request<bhttp::string_body>& request, bool is_head) {
    stream_.expires_after(timeout_);
    Run([&](auto handler) { bhttp::async_write(stream_, request, std::move(handler)); }, "write");
    bhttp::response_parser<bhttp::string_body> parser;
    parser.body_limit(boost::none);
    parser.header_limit(1 << 20);
    parser.skip(is_head);
    Run([&](auto handler) { bhttp::async_read(stream_, buffer_, parser, std::move(handler)); },
        "read");
    bhttp::response<bhttp::string_body> message = parser.release();
    if (!message.keep_alive()) Disconnect();
    return ToResponse(std::move(message));
  }

  static Response ToResponse(bhttp::response<bhttp::string_body> message) {
    Response response;
    response.status = static_cast<int>(message.result_int());
    for (const auto& field : message) {
      response.headers.Add(ToString(field.name_string()), ToString(field.value()));
    }
    response.body = std::move(message.body());
    return response;
  }

  template <typename Initiate>
  void Run(Initiate&& initiate, std::string_view step) {
    beast::error_code result;
    initiate([&result](beast::error_code ec, auto&&...) { result = ec; });
    io_context_.restart();
    io_context_.run();
    if (result) {
      throw TransportError(std::string(step) + " to " + host_ + ":" + std::to_string(port_),
                           result);
    }
  }

  void Disconnect() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
    buffer_.clear();
    is_connected_ = false;
  }

  static std::runtime_error Failure(const TransportError& error) {
    return std::runtime_error(std::string("HTTP ") + error.what());
  }

  std::string host_;
  uint16_t port_;
  std::chrono::milliseconds timeout_{60'000};
  net::io_context io_context_;
  beast::tcp_stream stream_{io_context_};
  beast::flat_buffer buffer_;
  bool is_connected_ = false;
};

Client::Client(std::string host, uint16_t port)
    : impl_(std::make_unique<Impl>(std::move(host), port)) {}
Client::~Client() = default;

Response Client::Send(std::string_view method, std::string_view target, const Headers& headers,
                      std::string_view body) {
  return impl_->Send(method, target, headers, body);
}

void Client::set_timeout(std::chrono::milliseconds timeout) { impl_->set_timeout(timeout); }

}  // namespace tessera::http
