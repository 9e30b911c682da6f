// http/connection.h
//
// One connection of the server (http/server.h), from the moment it is accepted to its close:
// reads a request's header, has a request that announces a body admitted (ServerOptions::admit),
// reads the body in memory or spools it (http/spool_file.h), dispatches the request, writes the
// answer, and repeats while the connection is kept alive.
//
// Contract (the per-connection half of what http/server.h promises):
//   - One request at a time: the next is read only once the answer to the previous is written.
//   - A request refused before dispatch -- by admission, by the header or body limit (431, 413),
//     as malformed (400) or because its body cannot be stored (500) -- is answered at once with
//     the JSON error body, its body unread, and the connection closed after a short linger.
//   - read_timeout bounds the reading of each request (header and body), idle_timeout the wait
//     for the next request and the writing of each chunk of an answer; a connection that runs
//     out of either is closed without an answer.
//   - The Respond of a dispatched request answers once, from any thread: a later answer is
//     ignored, and dropping every copy unanswered answers 500. Once the host's ResponseGate is
//     closed, answers are dropped.
//   - Every answer written gives one access-log line and one call of on_exchange.
// Every member function except the public ones runs on the connection's strand.
#pragma once

#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "http/server.h"
#include "http/spool_file.h"

namespace tessera::http {

class Connection;

// Lets the server drop answers once its I/O threads are gone (see Server::Stop).
struct ResponseGate {
  std::mutex mutex;
  bool is_open = true;
};

// What a connection needs of the server that accepted it, which outlives every connection that
// can still run.
class ConnectionHost {
 public:
  virtual ~ConnectionHost() = default;

  virtual const ServerOptions& options() const = 0;
  virtual const Dispatch& dispatch() const = 0;
  virtual const std::shared_ptr<ResponseGate>& gate() const = 0;
  virtual bool is_stopping() const = 0;
  // A dispatched request keeps its connection alive until it is answered; false once stopping.
  virtual bool TryBeginInFlight(uint64_t connection_id, std::shared_ptr<Connection> connection) = 0;
  virtual void EndInFlight(uint64_t connection_id) = 0;
  // The connection is closed: it no longer counts against the connection caps.
  virtual void Unregister(uint64_t connection_id, const std::string& peer_address) = 0;
};

// Answers a connection that is not accepted 503 (ERR001, "Connection: close", "Retry-After: 1")
// with `message`, in one small write that never blocks, and closes it.
void RefuseConnection(boost::asio::ip::tcp::socket& socket, std::string_view message);

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(ConnectionHost& host, uint64_t id, boost::asio::ip::tcp::socket socket);

  void Start();
  void Deliver(Response response);  // any thread
  void CloseIfIdle();               // any thread
  void ForceClose();                // any thread
  void CloseNow();                  // only while no I/O thread runs

 private:
  enum class Phase { kReading, kInFlight, kRefusing, kClosed };
  using Clock = std::chrono::steady_clock;
  using HeaderParser = boost::beast::http::request_parser<boost::beast::http::empty_body>;
  using StringParser = boost::beast::http::request_parser<boost::beast::http::string_body>;
  using FileParser = boost::beast::http::request_parser<boost::beast::http::file_body>;
  using BodyParser = std::variant<StringParser, FileParser>;

  // A response being written: the message and the serializer that refers to it.
  template <class Body>
  struct Outgoing {
    explicit Outgoing(boost::beast::http::response<Body> response) : message(std::move(response)) {}
    Outgoing(const Outgoing&) = delete;
    Outgoing& operator=(const Outgoing&) = delete;

    boost::beast::http::response<Body> message;
    boost::beast::http::response_serializer<Body> serializer{message};
  };
  using OutgoingResponse = std::variant<Outgoing<boost::beast::http::string_body>,
                                        Outgoing<boost::beast::http::file_body>>;

  // Reading a request.
  void WaitForNextRequest();
  void OnFirstBytes(const boost::beast::error_code& ec, size_t bytes);
  void ReadHeader();
  void OnHeader(const boost::beast::error_code& ec, size_t bytes);
  bool AnnouncesBody() const;
  RequestHead Head() const;
  std::string ClientAddressOfHeader() const;
  void OnAdmission(Admission admission);
  bool StartSpool();
  void SendContinue();
  bool IsBodyDone();
  void ReadBody();
  void ReadBodyPiece();
  void OnBodyPiece(const boost::beast::error_code& ec, size_t bytes);
  bool FeedBody();
  void ReleaseLargeBuffer();
  void FinishBody();
  void OnReadError(const boost::beast::error_code& ec);
  void DiscardBody();

  // Dispatching it.
  Request TakeRequest();
  void DispatchRequest();
  Respond MakeRespond();
  void Refuse(int status, std::string_view code, std::string_view message);
  void Refuse(Response response);

  // Writing the answer.
  void StartWrite(Response response, bool keep_alive);
  boost::beast::http::response_header<> MakeHeader(const Response& response);
  template <class Body>
  void StartSending(boost::beast::http::response<Body> message, uint64_t content_length);
  void WriteSome();
  void OnWriteSome(const boost::beast::error_code& ec, size_t bytes);
  void FinishExchange(bool written);
  void LogAccess();
  void ReportExchange();

  // Closing.
  void Linger();
  void OnLingerRead(const boost::beast::error_code& ec);
  void Close();

  ConnectionHost& host_;
  const uint64_t id_;
  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  std::string peer_address_;    // the connection's other end
  std::string client_address_;  // the current request's client (http/client_address.h)
  Phase phase_ = Phase::kReading;

  // The header is read with header_parser_, which then becomes body_parser_ (see OnHeader).
  std::optional<HeaderParser> header_parser_;
  std::optional<SpoolFile> spool_;  // before body_parser_: the file is closed before removal
  std::optional<BodyParser> body_parser_;
  uint64_t body_limit_bytes_ = 0;
  std::shared_ptr<const BodyFile> spooled_body_;  // a complete spooled body, until dispatch
  std::string request_id_;
  std::string method_ = "-";
  std::string target_ = "-";
  unsigned version_ = 11;
  bool keep_alive_ = false;
  bool expects_continue_ = false;
  Clock::time_point started_;
  bool is_in_flight_ = false;

  std::optional<OutgoingResponse> outgoing_;
  int response_status_ = 0;
  std::string response_route_;
  uint64_t response_body_bytes_ = 0;
  bool keep_alive_after_write_ = false;
  std::array<char, 4096> discard_{};
};

}  // namespace tessera::http
