#include "http/server.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cerrno>
#include <condition_variable>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/ids.h"
#include "core/json.h"
#include "core/strings.h"
#include "http/client_address.h"

namespace tessera::http {
namespace {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

constexpr uint32_t kHeaderLimitBytes = 64 * 1024;
// After refusing a request, what the client still sends is read and discarded for this long, so
// closing does not reset the connection before the client has read the refusal.
constexpr std::chrono::seconds kLingerTime{2};
// Once every connection is closed, the I/O threads normally finish at once; this bounds the wait.
constexpr std::chrono::seconds kDrainTime{5};
constexpr std::chrono::milliseconds kAcceptRetryDelay{100};

std::string ToString(beast::string_view text) { return std::string(text.data(), text.size()); }

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

// What writing a spooled body to disk fails with (a socket never does).
bool IsStorageError(const beast::error_code& ec) {
  if (ec.category() != boost::system::system_category()) return false;
  int value = ec.value();
  return value == ENOSPC || value == EDQUOT || value == EFBIG || value == EIO;
}

bool HasNoBody(int status) { return status < 200 || status == 204 || status == 304; }

using HeaderParser = bhttp::request_parser<bhttp::empty_body>;
using StringParser = bhttp::request_parser<bhttp::string_body>;
using FileParser = bhttp::request_parser<bhttp::file_body>;
using BodyParser = std::variant<StringParser, FileParser>;

// A spool file being written. It is removed with this object unless Release() handed its path on
// (to the BodyFile of a complete request).
class SpoolFile {
 public:
  explicit SpoolFile(std::string path) : path_(std::move(path)) {}
  ~SpoolFile() {
    if (path_.empty()) return;
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  SpoolFile(const SpoolFile&) = delete;
  SpoolFile& operator=(const SpoolFile&) = delete;

  std::string Release() { return std::exchange(path_, {}); }

 private:
  std::string path_;
};

struct NewSpoolFile {
  std::string path;
  beast::file file;  // open for writing
};

// A new, empty file only its owner can read, "<dir>/tessera-body-<random hex>.tmp"; nullopt with
// the failure logged.
std::optional<NewSpoolFile> CreateSpoolFile(const std::string& spool_dir) {
  std::error_code ec;
  std::filesystem::path dir = spool_dir.empty() ? std::filesystem::temp_directory_path(ec)
                                                : std::filesystem::path(spool_dir);
  if (ec) {
    spdlog::error("Cannot find the temporary directory to spool a request body: {}", ec.message());
    return std::nullopt;
  }
  NewSpoolFile spool{(dir / ("tessera-body-" + NewTicketId() + ".tmp")).string(), {}};
  int fd = ::open(spool.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    spdlog::error("Cannot create the spool file {}: {}", spool.path,
                  std::error_code(errno, std::generic_category()).message());
    return std::nullopt;
  }
  spool.file.native_handle(fd);
  return spool;
}

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

// A response being written: the message and the serializer that refers to it.
template <class Body>
struct Outgoing {
  explicit Outgoing(bhttp::response<Body> response) : message(std::move(response)) {}
  Outgoing(const Outgoing&) = delete;
  Outgoing& operator=(const Outgoing&) = delete;

  bhttp::response<Body> message;
  bhttp::response_serializer<Body> serializer{message};
};
using OutgoingResponse = std::variant<Outgoing<bhttp::string_body>, Outgoing<bhttp::file_body>>;

// Lets the server refuse responses once its I/O threads are gone (see ServerCore::Stop).
struct ResponseGate {
  std::mutex mutex;
  bool is_open = true;
};

class Session;

// Everything a Server owns. Sessions reference it; it outlives every session that can still run.
class ServerCore {
 public:
  ServerCore(ServerOptions options, Dispatch dispatch);
  ~ServerCore();

  void Start();
  uint16_t port() const { return bound_port_; }
  void Stop();
  void Wait();

  const ServerOptions& options() const { return options_; }
  const Dispatch& dispatch() const { return dispatch_; }
  const std::shared_ptr<ResponseGate>& gate() const { return gate_; }
  bool is_stopping() const { return is_stopping_.load(); }

  // A dispatched request keeps its session alive until it is answered; false once stopping.
  bool TryBeginInFlight(uint64_t session_id, std::shared_ptr<Session> session);
  void EndInFlight(uint64_t session_id);
  void Unregister(uint64_t session_id, const std::string& remote_address);
  size_t OpenConnections() const {
    std::lock_guard lock(mutex_);
    return sessions_.size();
  }

 private:
  enum class State { kNew, kRunning, kStopping, kStopped };

  tcp::endpoint ResolveEndpoint();
  void Listen(const tcp::endpoint& endpoint);
  void Accept();
  void OnAccept(const beast::error_code& ec, tcp::socket socket);
  void RetryAcceptLater();
  // Why a new connection from `address` is refused ("" when it is welcome); mutex_ held.
  std::string RefusalOf(const std::string& address) const;
  std::vector<std::shared_ptr<Session>> LiveSessions();
  void WaitForInFlight();
  void StopIoThreads();
  void RunIoThread();

  ServerOptions options_;
  Dispatch dispatch_;
  std::shared_ptr<ResponseGate> gate_ = std::make_shared<ResponseGate>();

  // Declared before the session maps so that sessions are released while it still exists.
  net::io_context io_context_;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work_;
  tcp::acceptor acceptor_;
  net::steady_timer accept_retry_timer_;
  uint16_t bound_port_ = 0;
  std::vector<std::thread> threads_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  State state_ = State::kNew;
  std::atomic<bool> is_stopping_{false};
  int running_io_threads_ = 0;
  uint64_t next_session_id_ = 1;
  std::map<uint64_t, std::weak_ptr<Session>> sessions_;
  std::map<std::string, size_t> connections_by_address_;
  size_t max_connections_ = 0;
  std::map<uint64_t, std::shared_ptr<Session>> in_flight_;
};

// One connection: reads a request, dispatches it, writes the answer, and repeats while the
// connection is kept alive. Every member function except the public ones runs on the
// connection's strand.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(ServerCore& core, uint64_t id, tcp::socket socket);

  void Start();
  void Deliver(Response response);  // any thread
  void CloseIfIdle();               // any thread
  void ForceClose();                // any thread
  void CloseNow();                  // only while no I/O thread runs

 private:
  enum class Phase { kReading, kInFlight, kRefusing, kClosed };

  void WaitForNextRequest();
  void OnFirstBytes(const beast::error_code& ec, size_t bytes);
  void ReadHeader();
  void OnHeader(const beast::error_code& ec, size_t bytes);
  bool AnnouncesBody() const;
  RequestHead Head() const;
  std::string ClientAddressOfHeader() const;
  void OnAdmission(Admission admission);
  bool StartSpool();
  void SendContinue();
  bool IsBodyDone();
  void ReadBody();
  void OnBody(const beast::error_code& ec, size_t bytes);
  void FinishBody();
  void OnReadError(const beast::error_code& ec);
  void DiscardBody();
  Request TakeRequest();
  void DispatchRequest();
  Respond MakeRespond();
  void Refuse(int status, std::string_view code, std::string_view message);
  void Refuse(Response response);
  void StartWrite(Response response, bool keep_alive);
  bhttp::response_header<> MakeHeader(const Response& response);
  template <class Body>
  void StartSending(bhttp::response<Body> message, uint64_t content_length);
  void WriteSome();
  void OnWriteSome(const beast::error_code& ec, size_t bytes);
  void FinishExchange(bool written);
  void LogAccess();
  void ReportExchange();
  void Linger();
  void OnLingerRead(const beast::error_code& ec);
  void Close();

  ServerCore& core_;
  const uint64_t id_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
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

// Shared by the copies of one Respond callback: the first answer wins; dropping every copy
// without answering answers 500, so a connection never waits forever on a lost callback.
class Responder {
 public:
  Responder(std::weak_ptr<Session> session, std::shared_ptr<ResponseGate> gate,
            std::string request_id)
      : session_(std::move(session)), gate_(std::move(gate)), request_id_(std::move(request_id)) {}
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
    if (std::shared_ptr<Session> session = session_.lock()) session->Deliver(std::move(response));
  }

  std::weak_ptr<Session> session_;
  std::shared_ptr<ResponseGate> gate_;
  std::string request_id_;
  std::atomic<bool> is_answered_{false};
};

// ---- Session ----

Session::Session(ServerCore& core, uint64_t id, tcp::socket socket)
    : core_(core), id_(id), stream_(std::move(socket)) {
  beast::error_code ec;
  tcp::endpoint remote = stream_.socket().remote_endpoint(ec);
  peer_address_ = ec ? "-" : remote.address().to_string();
  client_address_ = peer_address_;
}

void Session::Start() {
  net::post(stream_.get_executor(), [self = shared_from_this()] { self->ReadHeader(); });
}

void Session::Deliver(Response response) {
  net::post(stream_.get_executor(), [self = shared_from_this(), response = std::move(response)] {
    self->StartWrite(std::move(response), self->keep_alive_);
  });
}

void Session::CloseIfIdle() {
  net::post(stream_.get_executor(), [self = shared_from_this()] {
    if (self->phase_ != Phase::kInFlight) self->Close();
  });
}

void Session::ForceClose() {
  net::post(stream_.get_executor(), [self = shared_from_this()] { self->Close(); });
}

void Session::CloseNow() {
  phase_ = Phase::kClosed;
  beast::error_code ec;
  stream_.socket().close(ec);
}

void Session::WaitForNextRequest() {
  phase_ = Phase::kReading;
  if (core_.is_stopping()) return Close();
  if (buffer_.size() > 0) return ReadHeader();
  stream_.expires_after(core_.options().idle_timeout);
  stream_.async_read_some(buffer_.prepare(4096),
                          beast::bind_front_handler(&Session::OnFirstBytes, shared_from_this()));
}

void Session::OnFirstBytes(const beast::error_code& ec, size_t bytes) {
  if (phase_ == Phase::kClosed) return;
  if (ec) return Close();
  buffer_.commit(bytes);
  ReadHeader();
}

void Session::ReadHeader() {
  if (phase_ == Phase::kClosed) return;
  phase_ = Phase::kReading;
  DiscardBody();
  header_parser_.emplace();
  header_parser_->header_limit(kHeaderLimitBytes);
  // The body's limit depends on the request (see OnHeader); not limited while reading the header.
  // (boost::none would not do: Beast 1.74 refuses every declared length against it.)
  header_parser_->body_limit(std::numeric_limits<uint64_t>::max());
  body_limit_bytes_ = core_.options().max_body_bytes;
  expects_continue_ = false;
  request_id_ = NewTicketId();
  method_ = "-";
  target_ = "-";
  version_ = 11;
  keep_alive_ = false;
  started_ = Clock::now();
  stream_.expires_after(core_.options().read_timeout);
  bhttp::async_read_header(stream_, buffer_, *header_parser_,
                           beast::bind_front_handler(&Session::OnHeader, shared_from_this()));
}

void Session::OnHeader(const beast::error_code& ec, size_t) {
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
  if (core_.is_stopping()) return Close();
  const Admit& admit = core_.options().admit;
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

bool Session::AnnouncesBody() const {
  const auto& header = header_parser_->get();
  if (header.chunked()) return true;
  auto length = header_parser_->content_length();
  return length && *length > 0;
}

std::string Session::ClientAddressOfHeader() const {
  const auto& trusted = core_.options().trusted_proxies;
  if (!IsTrustedProxy(peer_address_, trusted)) return peer_address_;
  Headers headers;
  for (const auto& field : header_parser_->get()) {
    if (EqualsIgnoreCase(ToString(field.name_string()), "X-Forwarded-For")) {
      headers.Add("X-Forwarded-For", ToString(field.value()));
    }
  }
  return ClientAddressOf(peer_address_, headers, trusted);
}

RequestHead Session::Head() const {
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

void Session::OnAdmission(Admission admission) {
  if (phase_ == Phase::kClosed) return;
  if (admission.refusal) return Refuse(std::move(*admission.refusal));
  body_limit_bytes_ =
      admission.max_body_bytes > 0 ? admission.max_body_bytes : core_.options().max_body_bytes;
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
bool Session::StartSpool() {
  std::optional<NewSpoolFile> created = CreateSpoolFile(core_.options().spool_dir);
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

void Session::SendContinue() {
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

bool Session::IsBodyDone() {
  return std::visit([](auto& parser) { return parser.is_done(); }, *body_parser_);
}

void Session::ReadBody() {
  if (IsBodyDone()) return FinishBody();
  stream_.expires_after(core_.options().read_timeout);
  std::visit(
      [&](auto& parser) {
        bhttp::async_read(stream_, buffer_, parser,
                          beast::bind_front_handler(&Session::OnBody, shared_from_this()));
      },
      *body_parser_);
}

void Session::OnBody(const beast::error_code& ec, size_t) {
  if (phase_ == Phase::kClosed) return;
  if (ec) return OnReadError(ec);
  if (core_.is_stopping()) {
    DiscardBody();
    return Close();
  }
  FinishBody();
}

// A spooled body's file is closed, so that the handler reads all of it, and becomes the request's.
void Session::FinishBody() {
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

void Session::OnReadError(const beast::error_code& ec) {
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
void Session::DiscardBody() {
  body_parser_.reset();
  spool_.reset();
  spooled_body_.reset();
}

Request Session::TakeRequest() {
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

void Session::DispatchRequest() {
  Request request = TakeRequest();
  if (!core_.TryBeginInFlight(id_, shared_from_this())) return Close();
  is_in_flight_ = true;
  phase_ = Phase::kInFlight;
  stream_.expires_never();
  Respond respond = MakeRespond();
  try {
    core_.dispatch()(std::move(request), respond);
  } catch (const std::exception& e) {
    spdlog::error("Request {}: dispatch threw: {}", request_id_, e.what());
    respond(ErrorResponse(500, "ERR001", "Internal error", request_id_));
  } catch (...) {
    spdlog::error("Request {}: dispatch threw a non-standard exception", request_id_);
    respond(ErrorResponse(500, "ERR001", "Internal error", request_id_));
  }
}

Respond Session::MakeRespond() {
  auto responder = std::make_shared<Responder>(weak_from_this(), core_.gate(), request_id_);
  return [responder](Response response) { responder->Answer(std::move(response)); };
}

void Session::Refuse(int status, std::string_view code, std::string_view message) {
  Refuse(ErrorResponse(status, code, message, request_id_));
}

void Session::Refuse(Response response) {
  phase_ = Phase::kRefusing;
  StartWrite(std::move(response), /*keep_alive=*/false);
}

void Session::StartWrite(Response response, bool keep_alive) {
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
  keep_alive_after_write_ = keep_alive && !core_.is_stopping();
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

bhttp::response_header<> Session::MakeHeader(const Response& response) {
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
void Session::StartSending(bhttp::response<Body> message, uint64_t content_length) {
  response_body_bytes_ = content_length;
  message.content_length(content_length);
  message.keep_alive(keep_alive_after_write_);
  outgoing_.emplace(std::in_place_type<Outgoing<Body>>, std::move(message));
  WriteSome();
}

void Session::WriteSome() {
  // Re-armed for every chunk: a slow reader gets idle_timeout per chunk, not for the whole body.
  stream_.expires_after(core_.options().idle_timeout);
  std::visit(
      [&](auto& outgoing) {
        bhttp::async_write_some(
            stream_, outgoing.serializer,
            beast::bind_front_handler(&Session::OnWriteSome, shared_from_this()));
      },
      *outgoing_);
}

void Session::OnWriteSome(const beast::error_code& ec, size_t) {
  if (ec || phase_ == Phase::kClosed) return FinishExchange(/*written=*/false);
  bool is_done =
      std::visit([](auto& outgoing) { return outgoing.serializer.is_done(); }, *outgoing_);
  if (!is_done) return WriteSome();
  FinishExchange(/*written=*/true);
}

void Session::FinishExchange(bool written) {
  if (written) {
    LogAccess();
    ReportExchange();
  }
  outgoing_.reset();
  if (is_in_flight_) {
    is_in_flight_ = false;
    core_.EndInFlight(id_);
  }
  if (!written || phase_ == Phase::kClosed) return Close();
  if (phase_ == Phase::kRefusing) return Linger();
  if (keep_alive_after_write_) return WaitForNextRequest();
  Close();
}

void Session::LogAccess() {
  if (!core_.options().access_log) return;
  auto duration = std::chrono::duration<double, std::milli>(Clock::now() - started_);
  // What the client sent is cut short: a log line must not grow with an attacker's input.
  spdlog::info("{} {} {} {} {} {}B {:.1f}ms", request_id_, client_address_, Abbreviate(method_, 16),
               Abbreviate(target_, 512), response_status_, response_body_bytes_, duration.count());
}

void Session::ReportExchange() {
  const auto& observe = core_.options().on_exchange;
  if (!observe) return;
  observe(Exchange{method_, response_route_, response_status_,
                   std::chrono::duration<double>(Clock::now() - started_).count(),
                   response_body_bytes_});
}

void Session::Linger() {
  beast::error_code ec;
  stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  if (ec) return Close();
  stream_.expires_after(std::min<Clock::duration>(kLingerTime, core_.options().read_timeout));
  stream_.async_read_some(net::buffer(discard_),
                          [self = shared_from_this()](beast::error_code read_ec, size_t) {
                            self->OnLingerRead(read_ec);
                          });
}

void Session::OnLingerRead(const beast::error_code& ec) {
  if (ec || phase_ == Phase::kClosed) return Close();
  stream_.async_read_some(
      net::buffer(discard_),
      [self = shared_from_this()](beast::error_code ec, size_t) { self->OnLingerRead(ec); });
}

void Session::Close() {
  if (phase_ == Phase::kClosed) return;
  phase_ = Phase::kClosed;
  beast::error_code ec;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
  stream_.close();
  core_.Unregister(id_, peer_address_);
}

// ---- ServerCore ----

ServerCore::ServerCore(ServerOptions options, Dispatch dispatch)
    : options_(std::move(options)),
      dispatch_(std::move(dispatch)),
      io_context_(std::max(1, options_.io_threads)),
      acceptor_(net::make_strand(io_context_)),
      accept_retry_timer_(acceptor_.get_executor()) {}

ServerCore::~ServerCore() { Stop(); }

// Descriptors kept free of connections for what the node opens itself: storage and warehouse
// connections, snapshots, spooled bodies, package files.
constexpr size_t kReservedDescriptors = 64;

size_t DefaultMaxConnections() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 10000;
  const size_t descriptors = static_cast<size_t>(limit.rlim_cur);
  return descriptors > 2 * kReservedDescriptors ? descriptors - kReservedDescriptors
                                                : descriptors / 2;
}

// Written as it is to a connection refused at once; tiny, so one write never blocks.
std::string RawRefusal(std::string_view message) {
  std::string body = ErrorBody("ERR001", message, NewTicketId());
  return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
         "Connection: close\r\nRetry-After: 1\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

void ServerCore::Start() {
  std::lock_guard lock(mutex_);
  if (state_ != State::kNew)
    throw std::runtime_error("Server::Start: the server was already started");
  max_connections_ =
      options_.max_connections > 0 ? options_.max_connections : DefaultMaxConnections();
  Listen(ResolveEndpoint());
  work_.emplace(io_context_.get_executor());
  int thread_count = std::max(1, options_.io_threads);
  running_io_threads_ = thread_count;
  for (int i = 0; i < thread_count; ++i) threads_.emplace_back([this] { RunIoThread(); });
  state_ = State::kRunning;
  net::post(acceptor_.get_executor(), [this] { Accept(); });
}

tcp::endpoint ServerCore::ResolveEndpoint() {
  beast::error_code ec;
  tcp::resolver resolver(io_context_.get_executor());
  auto results = resolver.resolve(options_.host, std::to_string(options_.port),
                                  tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) {
    throw std::runtime_error("Cannot listen on " + options_.host + ":" +
                             std::to_string(options_.port) + ": cannot resolve the host (" +
                             ec.message() + ")");
  }
  return results.begin()->endpoint();
}

void ServerCore::Listen(const tcp::endpoint& endpoint) {
  auto fail = [&](std::string_view step, const beast::error_code& ec) {
    beast::error_code ignored;
    acceptor_.close(ignored);
    throw std::runtime_error("Cannot listen on " + options_.host + ":" +
                             std::to_string(options_.port) + ": " + std::string(step) +
                             " failed (" + ec.message() + ")");
  };
  beast::error_code ec;
  acceptor_.open(endpoint.protocol(), ec);
  if (ec) fail("open", ec);
  acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (ec) fail("setsockopt", ec);
  acceptor_.bind(endpoint, ec);
  if (ec) fail("bind", ec);
  acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) fail("listen", ec);
  bound_port_ = acceptor_.local_endpoint().port();
}

void ServerCore::Accept() {
  acceptor_.async_accept(net::make_strand(io_context_),
                         beast::bind_front_handler(&ServerCore::OnAccept, this));
}

void ServerCore::OnAccept(const beast::error_code& ec, tcp::socket socket) {
  if (!acceptor_.is_open() || is_stopping()) return;
  if (ec) {
    spdlog::warn("Accepting a connection failed: {}", ec.message());
    return RetryAcceptLater();  // e.g. out of file descriptors: do not spin
  }
  beast::error_code address_ec;
  tcp::endpoint remote = socket.remote_endpoint(address_ec);
  const std::string address = address_ec ? "-" : remote.address().to_string();
  std::shared_ptr<Session> session;
  std::string refusal;
  {
    std::lock_guard lock(mutex_);
    if (is_stopping_) return;
    refusal = RefusalOf(address);
    if (refusal.empty()) {
      uint64_t id = next_session_id_++;
      session = std::make_shared<Session>(*this, id, std::move(socket));
      sessions_.emplace(id, session);
      ++connections_by_address_[address];
    }
  }
  if (session) {
    session->Start();
  } else {
    spdlog::warn("Refusing a connection from {}: {}", address, refusal);
    beast::error_code ignored;
    socket.non_blocking(true, ignored);
    socket.write_some(net::buffer(RawRefusal(refusal)), ignored);
    socket.shutdown(tcp::socket::shutdown_both, ignored);
    socket.close(ignored);
  }
  Accept();
}

std::string ServerCore::RefusalOf(const std::string& address) const {
  if (sessions_.size() >= max_connections_) {
    return "The server has reached its limit of " + std::to_string(max_connections_) +
           " open connections; try again shortly";
  }
  if (IsTrustedProxy(address, options_.trusted_proxies)) return "";  // it speaks for many clients
  auto it = connections_by_address_.find(address);
  if (it != connections_by_address_.end() && it->second >= options_.max_connections_per_address) {
    return "This client address has reached its limit of " +
           std::to_string(options_.max_connections_per_address) +
           " open connections; close some or try again shortly";
  }
  return "";
}

void ServerCore::RetryAcceptLater() {
  accept_retry_timer_.expires_after(kAcceptRetryDelay);
  accept_retry_timer_.async_wait([this](const beast::error_code& ec) {
    if (!ec && acceptor_.is_open() && !is_stopping()) Accept();
  });
}

bool ServerCore::TryBeginInFlight(uint64_t session_id, std::shared_ptr<Session> session) {
  std::lock_guard lock(mutex_);
  if (is_stopping_) return false;
  in_flight_.emplace(session_id, std::move(session));
  return true;
}

void ServerCore::EndInFlight(uint64_t session_id) {
  std::shared_ptr<Session> released;  // destroyed outside the lock
  {
    std::lock_guard lock(mutex_);
    auto it = in_flight_.find(session_id);
    if (it == in_flight_.end()) return;
    released = std::move(it->second);
    in_flight_.erase(it);
  }
  changed_.notify_all();
}

void ServerCore::Unregister(uint64_t session_id, const std::string& remote_address) {
  std::lock_guard lock(mutex_);
  if (sessions_.erase(session_id) == 0) return;
  auto it = connections_by_address_.find(remote_address);
  if (it != connections_by_address_.end() && --it->second == 0) connections_by_address_.erase(it);
}

std::vector<std::shared_ptr<Session>> ServerCore::LiveSessions() {
  std::vector<std::shared_ptr<Session>> live;
  std::lock_guard lock(mutex_);
  for (const auto& [id, weak] : sessions_) {
    if (std::shared_ptr<Session> session = weak.lock()) live.push_back(std::move(session));
  }
  return live;
}

void ServerCore::Stop() {
  {
    std::unique_lock lock(mutex_);
    if (state_ == State::kNew) state_ = State::kStopped;
    if (state_ == State::kStopped) {
      changed_.notify_all();
      return;
    }
    if (state_ == State::kStopping) {
      changed_.wait(lock, [&] { return state_ == State::kStopped; });
      return;
    }
    state_ = State::kStopping;
    is_stopping_ = true;
  }
  net::post(acceptor_.get_executor(), [this] {
    beast::error_code ec;
    acceptor_.close(ec);
    accept_retry_timer_.cancel();
  });
  for (const auto& session : LiveSessions()) session->CloseIfIdle();
  WaitForInFlight();
  for (const auto& session : LiveSessions()) session->ForceClose();
  StopIoThreads();

  std::map<uint64_t, std::shared_ptr<Session>> in_flight;
  std::map<uint64_t, std::weak_ptr<Session>> sessions;
  {
    std::lock_guard gate_lock(gate_->mutex);
    gate_->is_open = false;
  }
  {
    std::lock_guard lock(mutex_);
    in_flight.swap(in_flight_);
    sessions.swap(sessions_);
  }
  for (const auto& [id, weak] : sessions) {
    if (std::shared_ptr<Session> session = weak.lock()) session->CloseNow();
  }
  in_flight.clear();
  {
    std::lock_guard lock(mutex_);
    state_ = State::kStopped;
  }
  changed_.notify_all();
}

void ServerCore::WaitForInFlight() {
  std::unique_lock lock(mutex_);
  bool finished =
      changed_.wait_for(lock, options_.shutdown_grace, [&] { return in_flight_.empty(); });
  if (!finished) {
    spdlog::warn("Stopping with {} request(s) still in flight after the grace period",
                 in_flight_.size());
  }
}

void ServerCore::StopIoThreads() {
  work_.reset();
  {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, kDrainTime, [&] { return running_io_threads_ == 0; });
  }
  io_context_.stop();
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

void ServerCore::RunIoThread() {
  for (;;) {
    try {
      io_context_.run();
      break;
    } catch (const std::exception& e) {
      spdlog::error("An I/O handler threw: {}", e.what());
    }
  }
  {
    std::lock_guard lock(mutex_);
    --running_io_threads_;
  }
  changed_.notify_all();
}

void ServerCore::Wait() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return state_ == State::kStopped; });
}

}  // namespace

class Server::Impl : public ServerCore {
 public:
  using ServerCore::ServerCore;
};

Server::Server(ServerOptions options, Dispatch dispatch)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(dispatch))) {}

Server::~Server() { impl_->Stop(); }

void Server::Start() { impl_->Start(); }
uint16_t Server::port() const { return impl_->port(); }
size_t Server::OpenConnections() const { return impl_->OpenConnections(); }
void Server::Stop() { impl_->Stop(); }
void Server::Wait() { impl_->Wait(); }

}  // namespace tessera::http
