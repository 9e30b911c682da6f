
#include "http/connection.h"
#include <spdlog/spdlog.h>
#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <filesystem>
#include <limits>
#include <system_error>
#include <type_traits>
#include "core/ids.h"
#include "core/json.h"
#include "core/strings.h"
#include "http/beast_names.h"
#include "http/client_address.h"

namespace tessera::http {
namespace {

constexpr uint32_t kHeaderLimitBytes = 64 * 1024;
constexpr size_t kSmallReadBytes = 64 * 1024;
constexpr size_t kBodyReadBytes = 1024 * 1024;
constexpr size_t kKeptBufferBytes = 64 * 1024;
// After refusing a request, what the client still sends is read and discarded for this long, so
// closing does not reset the connection before the client has read the refusal.
constexpr std::chrono::seconds kLingerTime{2};

std::string ErrorBody(std::string_view code, std::string_view message, std::string_view ticket_id) {
  Json body;
  body["code"] = code;
  body["message"] = message;
  body["ticketId"] = ticket_id;
  return DumpJson(body);
}

Response ErrorResponse(int status, std::string_view code, std::string_view message,
                       std::string_view ticket_id) {
  return Response::Json(status, ErrorBody(code, message, ticket_id));
}

// An absolute-form target ("http://host/path?q") reduced to its origin form ("/path?q").
std::string_view OriginForm(std::string_view target) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (StartsWithIgnoreCase(target, scheme)) {
      size_t slash = target.find('/', scheme.size());
      return slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
    }
  }
  return target;
}

// The raw path of a target: origin form, without the query string.
std::string_view PathOf(std::string_view target) {
  std::string_view origin = OriginForm(target);
  return origin.substr(0, origin.find('?'));
}

bool IsParseError(const beast::error_code& ec) {
  return ec.category() == bhttp::make_error_code(bhttp::error::bad_method).category() &&
         ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message;
}

bool HasNoBody(int status) { return status < 200 || status == 204 || status == 304; }

// The file of a file response, open for reading; nullopt with the failure logged.
std::optional<bhttp::file_body::value_type> OpenResponseFile(const std::string& path,
                                                             std::string_view request_id) {
  // Checked first: opening a FIFO would block the I/O thread, and a directory opens but not reads.
  std::error_code status_ec;
  if (!std::filesystem::is_regular_file(path, status_ec)) {
    spdlog::error("Request {}: the response file {} is not a regular file", request_id, path);
    return std::nullopt;
  }
  bhttp::file_body::value_type file;
  beast::error_code ec;
  file.open(path.c_str(), beast::file_mode::scan, ec);
  if (ec) {
    spdlog::error("Request {}: cannot open the response file {}: {}", request_id, path,
                  ec.message());
    return std::nullopt;
  }
  return file;
}

// Shared by the copies of one Respond callback: the first answer wins; dropping every copy
// without answering answers 500, so a connection never waits forever on a lost callback.
class Responder {
 public:
  Responder(std::weak_ptr<Connection> connection, std::shared_ptr<ResponseGate> gate,
            std::string request_id)
      : connection_(std::move(connection)),
        gate_(std::move(gate)),
        request_id_(std::move(request_id)) {}
  ~Responder() {
    if (!is_answered_.exchange(true)) {
      spdlog::error("Request {} was dropped without a response", request_id_);
      Post(ErrorResponse(500, "ERR001", "The request was not answered", request_id_));
    }
  }
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;

  void Answer(Response response) {
    if (is_answered_.exchange(true)) {
      spdlog::error("Request {} was answered more than once; the later answer is ignored",
                    request_id_);
      return;
    }
    Post(std::move(response));
  }

 private:
  void Post(Response response) {
    std::lock_guard lock(gate_->mutex);
    if (!gate_->is_open) return;
    if (std::shared_ptr<Connection> connection = connection_.lock())
      connection->Deliver(std::move(response));
  }

  std::weak_ptr<Connection> connection_;
  std::shared_ptr<ResponseGate> gate_;
  std::string request_id_;
  std::atomic<bool> is_answered_{false};
};

}  // namespace

void RefuseConnection(tcp::socket& socket, std::string_view message) {
  std::string body = ErrorBody("ERR001", message, NewTicketId());
  std::string refusal =
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
      "Connection: close\r\nRetry-After: 1\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  beast::error_code ignored;
  socket.non_blocking(true, ignored);
  socket.write_some(net::buffer(refusal), ignored);
  socket.shutdown(tcp::socket::shutdown_both, ignored);
  socket.close(ignored);
}

Connection::Connection(ConnectionHost& host, uint64_t id, tcp::socket socket)
    : host_(host), id_(id), stream_(std::move(socket)) {
  beast::error_code ec;
  tcp::endpoint remote = stream_.socket().remote_endpoint(ec);
  peer_address_ = ec ? "-" : remote.address().to_string();
  client_address_ = peer_address_;
}

void Connection::Start() {
  net::post(stream_.get_executor(), [self = shared_from_this()] { self->ReadHeader(); });
}

void Connection::Deliver(Response response) {
  net::post(stream_.get_executor(), [self = shared_from_this(), response = std::move(response)] {
    self->StartWrite(std::move(response), self->keep_alive_);
  });
}

void Connection::CloseIfIdle() {
  net::post(stream_.get_executor(), [self = shared_from_this()] {
    if (self->phase_ != Phase::kInFlight) self->Close();
  });
}

void Connection::ForceClose() {
  net::post(stream_.get_executor(), [self = shared_from_this()] { self->Close(); });
}

void Connection::CloseNow() {
  phase_ = Phase::kClosed;
  beast::error_code ec;
  stream_.socket().close(ec);
}

void Connection::WaitForNextRequest() {
  phase_ = Phase::kReading;
  if (host_.is_stopping()) return Close();
  if (buffer_.size() > 0) return ReadHeader();
  stream_.expires_after(host_.options().idle_timeout);
  stream_.async_read_some(buffer_.prepare(4096),
                          beast::bind_front_handler(&Connection::OnFirstBytes, shared_from_this()));
}

void Connection::OnFirstBytes(const beast::error_code& ec, size_t bytes) {
  if (phase_ == Phase::kClosed) return;
  if (ec) return Close();
  buffer_.commit(bytes);
  ReadHeader();
}

void Connection::ReadHeader() {
  if (phase_ == Phase::kClosed) return;
  phase_ = Phase::kReading;
  DiscardBody();
  header_parser_.emplace();
  header_parser_->header_limit(kHeaderLimitBytes);
  // The body's limit depends on the request (see OnHeader); not limited while reading the header.
  // (boost::none would not do: Beast 1.74 refuses every declared length against it.)
  header_parser_->body_limit(std::numeric_limits<uint64_t>::max());
  body_limit_bytes_ = host_.options().max_body_bytes;
  expects_continue_ = false;
  request_id_ = NewTicketId();
  method_ = "-";
  target_ = "-";
  version_ = 11;
  keep_alive_ = false;
  started_ = Clock::now();
  stream_.expires_after(host_.options().read_timeout);
  bhttp::async_read_header(stream_, buffer_, *header_parser_,
                           beast::bind_front_handler(&Connection::OnHeader, shared_from_this()));
}

void Connection::OnHeader(const beast::error_code& ec, size_t) {
  if (phase_ == Phase::kClosed) return;
  if (ec) return OnReadError(ec);
  started_ = Clock::now();  // not while the connection waited idle for this request
  const auto& header = header_parser_->get();
  method_ = ToUpper(ToString(header.method_string()));
  target_ = ToString(header.target());
  version_ = header.version();
  keep_alive_ = header.keep_alive();
  expects_continue_ = EqualsIgnoreCase(ToString(header[bhttp::field::expect]), "100-continue");
  client_address_ = ClientAddressOfHeader();
  if (host_.is_stopping()) return Close();
  const Admit& admit = host_.options().admit;
  if (!admit || !AnnouncesBody()) return OnAdmission({});
  // Holds the session: no read is pending while admission decides.
  auto decide = [self = shared_from_this()](Admission admission) {
    net::post(self->stream_.get_executor(), [self, admission = std::move(admission)]() mutable {
      self->OnAdmission(std::move(admission));
    });
  };
  try {
    admit(Head(), std::move(decide));
  } catch (const std::exception& e) {
    spdlog::error("Request {}: admission threw: {}", request_id_, e.what());
    Refuse(500, "ERR001", "Internal error");
  }
}

bool Connection::AnnouncesBody() const {
  const auto& header = header_parser_->get();
  if (header.chunked()) return true;
  auto length = header_parser_->content_length();
  return length && *length > 0;
}

std::string Connection::ClientAddressOfHeader() const {
  const auto& trusted = host_.options().trusted_proxies;
  if (!IsTrustedProxy(peer_address_, trusted)) return peer_address_;
  Headers headers;
  for (const auto& field : header_parser_->get()) {
    if (EqualsIgnoreCase(ToString(field.name_string()), "X-Forwarded-For")) {
      headers.Add("X-Forwarded-For", ToString(field.value()));
    }
  }
  return ClientAddressOf(peer_address_, headers, trusted);
}

RequestHead Connection::Head() const {
  RequestHead head;
  head.request_id = request_id_;
  head.method = method_;
  head.path = std::string(PathOf(target_));
  for (const auto& field : header_parser_->get()) {
    head.headers.Add(ToString(field.name_string()), ToString(field.value()));
  }
  head.remote_address = client_address_;
  return head;
}

void Connection::OnAdmission(Admission admission) {
  if (phase_ == Phase::kClosed) return;
  if (admission.refusal) return Refuse(std::move(*admission.refusal));
  body_limit_bytes_ =
      admission.max_body_bytes > 0 ? admission.max_body_bytes : host_.options().max_body_bytes;
  if (auto length = header_parser_->content_length(); length && *length > body_limit_bytes_) {
    return OnReadError(bhttp::error::body_limit);
  }
  // Beast's converting constructor hands the parsed header to a parser for the body's kind.
  if (!admission.spools_body) {
    body_parser_.emplace(std::in_place_type<StringParser>, std::move(*header_parser_));
  } else if (!StartSpool()) {
    return Refuse(500, "ERR001", "The request body cannot be stored");
  }
  header_parser_.reset();
  // Applies to chunked bodies too, whose length is known only as they arrive.
  std::visit([&](auto& parser) { parser.body_limit(body_limit_bytes_); }, *body_parser_);
  if (expects_continue_ && !IsBodyDone()) return SendContinue();
  ReadBody();
}

// Turns header_parser_ into a parser writing the body to a new spool file; false when the file
// cannot be created.
bool Connection::StartSpool() {
  std::optional<NewSpoolFile> created = CreateSpoolFile(host_.options().spool_dir);
  if (!created) return false;
  spool_.emplace(std::move(created->path));
  auto& parser = std::get<FileParser>(
      body_parser_.emplace(std::in_place_type<FileParser>, std::move(*header_parser_)));
  beast::error_code ec;
  parser.get().body().reset(std::move(created->file), ec);
  if (ec) {
    spdlog::error("Request {}: cannot use the spool file: {}", request_id_, ec.message());
    DiscardBody();
    return false;
  }
  return true;
}

void Connection::SendContinue() {
  auto interim =
      std::make_shared<bhttp::response<bhttp::empty_body>>(bhttp::status::continue_, version_);
  bhttp::async_write(stream_, *interim,
                     [self = shared_from_this(), interim](beast::error_code ec, size_t) {
                       if (self->phase_ == Phase::kClosed) return;
                       if (ec) {
                         self->DiscardBody();
                         return self->Close();
                       }
                       self->ReadBody();
                     });
}

bool Connection::IsBodyDone() {
  return std::visit([](auto& parser) { return parser.is_done(); }, *body_parser_);
}

void Connection::ReadBody() {
  if (!FeedBody()) return;
  if (IsBodyDone()) return FinishBody();
  stream_.expires_after(host_.options().read_timeout);
  ReadBodyPiece();
}

// Beast's own body read takes 64 KB at a time; a body of megabytes then costs hundreds of
// wake-ups. Each read here takes what the socket holds, up to kBodyReadBytes.
void Connection::ReadBodyPiece() {
  size_t wanted = kSmallReadBytes;
  std::visit(
      [&](auto& parser) {
        if (auto remaining = parser.content_length_remaining()) {
          wanted = std::clamp<uint64_t>(*remaining, kSmallReadBytes, kBodyReadBytes);
        }
      },
      *body_parser_);
  stream_.async_read_some(buffer_.prepare(wanted),
                          beast::bind_front_handler(&Connection::OnBodyPiece, shared_from_this()));
}

void Connection::OnBodyPiece(const beast::error_code& ec, size_t bytes) {
  if (phase_ == Phase::kClosed) return;
  if (ec) return OnReadError(ec == net::error::eof ? bhttp::error::partial_message : ec);
  if (host_.is_stopping()) {
    DiscardBody();
    return Close();
  }
  buffer_.commit(bytes);
  if (!FeedBody()) return;
  if (!IsBodyDone()) return ReadBodyPiece();
  ReleaseLargeBuffer();
  FinishBody();
}

// Hands the buffered bytes to the body's parser; false when it refused them (answered here).
bool Connection::FeedBody() {
  beast::error_code ec;
  std::visit(
      [&](auto& parser) {
        while (buffer_.size() > 0 && !parser.is_done()) {
          const size_t used = parser.put(buffer_.data(), ec);
          buffer_.consume(used);
          if (ec == bhttp::error::need_more) ec = {};
          if (ec || used == 0) break;
        }
      },
      *body_parser_);
  if (ec) OnReadError(ec);
  return !ec;
}

// A connection keeps its buffer between requests: not one grown for a large body.
void Connection::ReleaseLargeBuffer() {
  if (buffer_.capacity() <= kKeptBufferBytes) return;
  boost::beast::flat_buffer small;
  auto copied = net::buffer_copy(small.prepare(buffer_.size()), buffer_.data());
  small.commit(copied);
  buffer_ = std::move(small);
}

// A spooled body's file is closed, so that the handler reads all of it, and becomes the request's.
void Connection::FinishBody() {
  if (auto* parser = std::get_if<FileParser>(&*body_parser_)) {
    beast::file& file = parser->get().body().file();
    beast::error_code size_ec;
    beast::error_code close_ec;
    uint64_t size = file.size(size_ec);
    file.close(close_ec);
    if (size_ec || close_ec) {
      spdlog::error("Request {}: cannot finish the spool file: {}", request_id_,
                    (size_ec ? size_ec : close_ec).message());
      DiscardBody();
      return Refuse(500, "ERR001", "The request body cannot be stored");
    }
    spooled_body_ = std::make_shared<const BodyFile>(spool_->Release(), size);
    spool_.reset();
  }
  DispatchRequest();
}

void Connection::OnReadError(const beast::error_code& ec) {
  bool was_spooling = spool_.has_value();
  DiscardBody();  // a partly written spool file goes now, not when the connection does
  if (ec == bhttp::error::body_limit) {
    return Refuse(413, "ERR006",
                  "The request body is larger than the limit of " +
                      std::to_string(body_limit_bytes_) + " bytes");
  }
  if (ec == bhttp::error::header_limit) {
    return Refuse(431, "ERR006",
                  "The request header is larger than the limit of " +
                      std::to_string(kHeaderLimitBytes) + " bytes");
  }
  if (was_spooling && IsStorageError(ec)) {
    spdlog::error("Request {}: cannot write the spool file: {}", request_id_, ec.message());
    return Refuse(500, "ERR001", "The request body cannot be stored");
  }
  if (IsParseError(ec)) return Refuse(400, "ERR006", "Malformed HTTP request");
  Close();  // the peer went away or was too slow: there is nobody to answer
}

// Only while no read uses the parsers.
void Connection::DiscardBody() {
  body_parser_.reset();
  spool_.reset();
  spooled_body_.reset();
}

Request Connection::TakeRequest() {
  Request request;
  request.method = method_;
  std::string_view target = OriginForm(target_);
  size_t question = target.find('?');
  request.path = std::string(target.substr(0, question));
  if (question != std::string_view::npos) {
    request.query = QueryParams::Parse(target.substr(question + 1));
  }
  std::visit(
      [&](auto& parser) {
        auto message = parser.release();
        for (const auto& field : message) {
          request.headers.Add(ToString(field.name_string()), ToString(field.value()));
        }
        if constexpr (std::is_same_v<std::decay_t<decltype(parser)>, StringParser>) {
          request.body = std::move(message.body());
        }
      },
      *body_parser_);
  body_parser_.reset();
  request.body_file = std::move(spooled_body_);
  request.remote_address = client_address_;
  request.request_id = request_id_;
  return request;
}

void Connection::DispatchRequest() {
  Request request = TakeRequest();
  if (!host_.TryBeginInFlight(id_, shared_from_this())) return Close();
  is_in_flight_ = true;
  phase_ = Phase::kInFlight;
  stream_.expires_never();
  Respond respond = MakeRespond();
  try {
    host_.dispatch()(std::move(request), respond);
  } catch (const std::exception& e) {
    spdlog::error("Request {}: dispatch threw: {}", request_id_, e.what());
    respond(ErrorResponse(500, "ERR001", "Internal error", request_id_));
  } catch (...) {
    spdlog::error("Request {}: dispatch threw a non-standard exception", request_id_);
    respond(ErrorResponse(500, "ERR001", "Internal error", request_id_));
  }
}

Respond Connection::MakeRespond() {
  auto responder = std::make_shared<Responder>(weak_from_this(), host_.gate(), request_id_);
  return [responder](Response response) { responder->Answer(std::move(response)); };
}

void Connection::Refuse(int status, std::string_view code, std::string_view message) {
  Refuse(ErrorResponse(status, code, message, request_id_));
}

void Connection::Refuse(Response response) {
  phase_ = Phase::kRefusing;
  StartWrite(std::move(response), /*keep_alive=*/false);
}

void Connection::StartWrite(Response response, bool keep_alive) {
  response_route_ = std::move(response.route);
  if (phase_ == Phase::kClosed) return FinishExchange(/*written=*/false);
  if (response.status < 100 || response.status > 999) {
    spdlog::error("Request {}: invalid status {} replaced by 500", request_id_, response.status);
    response = ErrorResponse(500, "ERR001", "Internal error", request_id_);
  }
  if (HasNoBody(response.status)) {
    response.body.clear();
    response.body_file.clear();
  }
  std::optional<bhttp::file_body::value_type> file;
  if (!response.body_file.empty()) {
    file = OpenResponseFile(response.body_file, request_id_);
    if (!file) response = ErrorResponse(500, "ERR001", "Internal error", request_id_);
  }
  keep_alive_after_write_ = keep_alive && !host_.is_stopping();
  response_status_ = response.status;
  bhttp::response_header<> header = MakeHeader(response);
  bool is_head = method_ == "HEAD";
  if (file && !is_head) {
    uint64_t size = file->size();
    return StartSending(bhttp::response<bhttp::file_body>(std::move(header), std::move(*file)),
                        size);
  }
  // A HEAD response states the length its GET would have, with no body.
  uint64_t content_length = file ? file->size() : response.body.size();
  bhttp::response<bhttp::string_body> message(std::move(header));
  if (!is_head) message.body() = std::move(response.body);
  StartSending(std::move(message), content_length);
}

bhttp::response_header<> Connection::MakeHeader(const Response& response) {
  bhttp::response_header<> header;
  header.version(version_);
  header.result(static_cast<unsigned>(response.status));
  header.set(bhttp::field::server, "Tessera");
  for (const auto& [name, value] : response.headers.fields()) {
    if (EqualsIgnoreCase(name, "Content-Length") || EqualsIgnoreCase(name, "Transfer-Encoding") ||
        EqualsIgnoreCase(name, "Connection") || EqualsIgnoreCase(name, "Server")) {
      continue;
    }
    header.insert(name, value);
  }
  return header;
}

template <class Body>
void Connection::StartSending(bhttp::response<Body> message, uint64_t content_length) {
  response_body_bytes_ = content_length;
  message.content_length(content_length);
  message.keep_alive(keep_alive_after_write_);
  outgoing_.emplace(std::in_place_type<Outgoing<Body>>, std::move(message));
  WriteSome();
}

void Connection::WriteSome() {
  // Re-armed for every chunk: a slow reader gets idle_timeout per chunk, not for the whole body.
  stream_.expires_after(host_.options().idle_timeout);
  std::visit(
      [&](auto& outgoing) {
        bhttp::async_write_some(
            stream_, outgoing.serializer,
            beast::bind_front_handler(&Connection::OnWriteSome, shared_from_this()));
      },
      *outgoing_);
}

void Connection::OnWriteSome(const beast::error_code& ec, size_t) {
  if (ec || phase_ == Phase::kClosed) return FinishExchange(/*written=*/false);
  bool is_done =
      std::visit([](auto& outgoing) { return outgoing.serializer.is_done(); }, *outgoing_);
  if (!is_done) return WriteSome();
  FinishExchange(/*written=*/true);
}

void Connection::FinishExchange(bool written) {
  if (written) {
    LogAccess();
    ReportExchange();
  }
  outgoing_.reset();
  if (is_in_flight_) {
    is_in_flight_ = false;
    host_.EndInFlight(id_);
  }
  if (!written || phase_ == Phase::kClosed) return Close();
  if (phase_ == Phase::kRefusing) return Linger();
  if (keep_alive_after_write_) return WaitForNextRequest();
  Close();
}

void Connection::LogAccess() {
  if (!host_.options().access_log) return;
  auto duration = std::chrono::duration<double, std::milli>(Clock::now() - started_);
  // What the client sent is cut short: a log line must not grow with an attacker's input.
  spdlog::info("{} {} {} {} {} {}B {:.1f}ms", request_id_, client_address_, Abbreviate(method_, 16),
               Abbreviate(target_, 512), response_status_, response_body_bytes_, duration.count());
}

void Connection::ReportExchange() {
  const auto& observe = host_.options().on_exchange;
  if (!observe) return;
  observe(Exchange{method_, response_route_, response_status_,
                   std::chrono::duration<double>(Clock::now() - started_).count(),
                   response_body_bytes_});
}

void Connection::Linger() {
  beast::error_code ec;
  stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  if (ec) return Close();
  stream_.expires_after(std::min<Clock::duration>(kLingerTime, host_.options().read_timeout));
  stream_.async_read_some(net::buffer(discard_),
                          [self = shared_from_this()](beast::error_code read_ec, size_t) {
                            self->OnLingerRead(read_ec);
                          });
}

void Connection::OnLingerRead(const beast::error_code& ec) {
  if (ec || phase_ == Phase::kClosed) return Close();
  stream_.async_read_some(
      net::buffer(discard_),
      [self = shared_from_this()](beast::error_code ec, size_t) { self->OnLingerRead(ec); });
}

void Connection::Close() {
  if (phase_ == Phase::kClosed) return;
  phase_ = Phase::kClosed;
  beast::error_code ec;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
  stream_.close();
  host_.Unregister(id_, peer_address_);
}

}  // namespace tessera::http
