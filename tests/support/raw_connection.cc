#include "support/raw_connection.h"

#include <array>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace tessera::testing {
namespace {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

std::string ToString(beast::string_view text) { return std::string(text.data(), text.size()); }

}  // namespace

class RawConnection::Impl {
 public:
  explicit Impl(uint16_t port) : socket_(io_context_) {
    socket_.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  }

  void Write(std::string_view bytes) { net::write(socket_, net::buffer(bytes)); }

  std::optional<http::Response> ReadResponse(std::chrono::seconds timeout) {
    bhttp::response_parser<bhttp::string_body> parser;
    beast::error_code result = net::error::timed_out;
    bhttp::async_read(socket_, buffer_, parser, [&](beast::error_code ec, size_t) { result = ec; });
    RunFor(timeout);
    if (result) return std::nullopt;
    http::Response response;
    response.status = static_cast<int>(parser.get().result_int());
    for (const auto& field : parser.get()) {
      response.headers.Add(ToString(field.name_string()), ToString(field.value()));
    }
    response.body = parser.get().body();
    return response;
  }

  std::optional<std::string> ReadUntilClosed(std::chrono::seconds timeout) {
    std::string received(static_cast<const char*>(buffer_.data().data()), buffer_.size());
    buffer_.clear();
    bool is_closed = false;
    ReadAll(received, is_closed);
    RunFor(timeout);
    if (!is_closed) return std::nullopt;
    return received;
  }

 private:
  void ReadAll(std::string& received, bool& is_closed) {
    socket_.async_read_some(net::buffer(chunk_), [&](beast::error_code ec, size_t bytes) {
      received.append(chunk_.data(), bytes);
      if (ec) {
        is_closed = ec == net::error::eof || ec == net::error::connection_reset;
        return;
      }
      ReadAll(received, is_closed);
    });
  }

  // Runs the pending read until it completes or `timeout` passes, then cancels what is left.
  void RunFor(std::chrono::seconds timeout) {
    io_context_.restart();
    io_context_.run_for(timeout);
    if (!io_context_.stopped()) {
      beast::error_code ec;
      socket_.cancel(ec);
      io_context_.restart();
      io_context_.run();
    }
  }

  net::io_context io_context_;
  tcp::socket socket_;
  beast::flat_buffer buffer_;
  std::array<char, 4096> chunk_{};
};

RawConnection::RawConnection(uint16_t port) : impl_(std::make_unique<Impl>(port)) {}
RawConnection::~RawConnection() = default;
void RawConnection::Write(std::string_view bytes) { impl_->Write(bytes); }
std::optional<http::Response> RawConnection::ReadResponse(std::chrono::seconds timeout) {
  return impl_->ReadResponse(timeout);
}
std::optional<std::string> RawConnection::ReadUntilClosed(std::chrono::seconds timeout) {
  return impl_->ReadUntilClosed(timeout);
}

}  // namespace tessera::testing
