#include "http/server.h"

#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <atomic>
#include <boost/asio.hpp>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "http/beast_names.h"
#include "http/client_address.h"
#include "http/connection.h"

namespace tessera::http {
namespace {

// Once every connection is closed, the I/O threads normally finish at once; this bounds the wait.
constexpr std::chrono::seconds kDrainTime{5};
constexpr std::chrono::milliseconds kAcceptRetryDelay{100};

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

// Everything a Server owns: the listening socket, the I/O threads, the connections and their
// caps. It outlives every connection that can still run.
class ServerCore : public ConnectionHost {
 public:
  ServerCore(ServerOptions options, Dispatch dispatch);
  ~ServerCore() override;

  void Start();
  uint16_t port() const { return bound_port_; }
  void Stop();
  void Wait();
  size_t OpenConnections() const {
    std::lock_guard lock(mutex_);
    return connections_.size();
  }

  // ConnectionHost
  const ServerOptions& options() const override { return options_; }
  const Dispatch& dispatch() const override { return dispatch_; }
  const std::shared_ptr<ResponseGate>& gate() const override { return gate_; }
  bool is_stopping() const override { return is_stopping_.load(); }
  bool TryBeginInFlight(uint64_t connection_id, std::shared_ptr<Connection> connection) override;
  void EndInFlight(uint64_t connection_id) override;
  void Unregister(uint64_t connection_id, const std::string& peer_address) override;

 private:
  enum class State { kNew, kRunning, kStopping, kStopped };

  tcp::endpoint ResolveEndpoint();
  void Listen(const tcp::endpoint& endpoint);
  void Accept();
  void OnAccept(const beast::error_code& ec, tcp::socket socket);
  void RetryAcceptLater();
  // Why a new connection from `address` is refused ("" when it is welcome); mutex_ held.
  std::string RefusalOf(const std::string& address) const;
  std::vector<std::shared_ptr<Connection>> LiveConnections();
  void WaitForInFlight();
  void StopIoThreads();
  void RunIoThread();

  ServerOptions options_;
  Dispatch dispatch_;
  std::shared_ptr<ResponseGate> gate_ = std::make_shared<ResponseGate>();

  // Declared before the connection maps so that connections are released while it still exists.
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
  uint64_t next_connection_id_ = 1;
  std::map<uint64_t, std::weak_ptr<Connection>> connections_;
  std::map<std::string, size_t> connections_by_address_;
  size_t max_connections_ = 0;
  std::map<uint64_t, std::shared_ptr<Connection>> in_flight_;
};

ServerCore::ServerCore(ServerOptions options, Dispatch dispatch)
    : options_(std::move(options)),
      dispatch_(std::move(dispatch)),
      io_context_(std::max(1, options_.io_threads)),
      acceptor_(net::make_strand(io_context_)),
      accept_retry_timer_(acceptor_.get_executor()) {}

ServerCore::~ServerCore() { Stop(); }

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
  std::shared_ptr<Connection> connection;
  std::string refusal;
  {
    std::lock_guard lock(mutex_);
    if (is_stopping_) return;
    refusal = RefusalOf(address);
    if (refusal.empty()) {
      uint64_t id = next_connection_id_++;
      connection = std::make_shared<Connection>(*this, id, std::move(socket));
      connections_.emplace(id, connection);
      ++connections_by_address_[address];
    }
  }
  if (connection) {
    connection->Start();
  } else {
    spdlog::warn("Refusing a connection from {}: {}", address, refusal);
    RefuseConnection(socket, refusal);
  }
  Accept();
}

std::string ServerCore::RefusalOf(const std::string& address) const {
  if (connections_.size() >= max_connections_) {
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

bool ServerCore::TryBeginInFlight(uint64_t connection_id, std::shared_ptr<Connection> connection) {
  std::lock_guard lock(mutex_);
  if (is_stopping_) return false;
  in_flight_.emplace(connection_id, std::move(connection));
  return true;
}

void ServerCore::EndInFlight(uint64_t connection_id) {
  std::shared_ptr<Connection> released;  // destroyed outside the lock
  {
    std::lock_guard lock(mutex_);
    auto it = in_flight_.find(connection_id);
    if (it == in_flight_.end()) return;
    released = std::move(it->second);
    in_flight_.erase(it);
  }
  changed_.notify_all();
}

void ServerCore::Unregister(uint64_t connection_id, const std::string& peer_address) {
  std::lock_guard lock(mutex_);
  if (connections_.erase(connection_id) == 0) return;
  auto it = connections_by_address_.find(peer_address);
  if (it != connections_by_address_.end() && --it->second == 0) connections_by_address_.erase(it);
}

std::vector<std::shared_ptr<Connection>> ServerCore::LiveConnections() {
  std::vector<std::shared_ptr<Connection>> live;
  std::lock_guard lock(mutex_);
  for (const auto& [id, weak] : connections_) {
    if (std::shared_ptr<Connection> connection = weak.lock()) live.push_back(std::move(connection));
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
  for (const auto& connection : LiveConnections()) connection->CloseIfIdle();
  WaitForInFlight();
  for (const auto& connection : LiveConnections()) connection->ForceClose();
  StopIoThreads();

  std::map<uint64_t, std::shared_ptr<Connection>> in_flight;
  std::map<uint64_t, std::weak_ptr<Connection>> connections;
  {
    std::lock_guard gate_lock(gate_->mutex);
    gate_->is_open = false;
  }
  {
    std::lock_guard lock(mutex_);
    in_flight.swap(in_flight_);
    connections.swap(connections_);
  }
  for (const auto& [id, weak] : connections) {
    if (std::shared_ptr<Connection> connection = weak.lock()) connection->CloseNow();
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
