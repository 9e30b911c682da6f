#include "storage/postgres_listener.h"

#include <libpq-fe.h>
#include <poll.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <thread>

#include "storage/postgres_connection.h"
#include "storage/sql_connection.h"

namespace tessera::storage {
namespace {

constexpr int kPollMilliseconds = 200;
constexpr auto kReconnectDelay = std::chrono::seconds(1);

struct ConnectionCloser {
  void operator()(PGconn* conn) const { PQfinish(conn); }
};
using Connection = std::unique_ptr<PGconn, ConnectionCloser>;

class PostgresListener : public NoticeSubscription {
 public:
  PostgresListener(std::string url, std::vector<std::string> channels, NoticeHandler handler)
      : url_(std::move(url)), channels_(std::move(channels)), handler_(std::move(handler)) {
    thread_ = std::thread([this] { Run(); });
  }
  ~PostgresListener() override {
    stopping_ = true;
    thread_.join();
  }

 private:
  void Run() {
    bool reported_down = false;
    while (!stopping_) {
      Connection conn = Listen();
      if (conn) {
        reported_down = false;
        Deliver(Notice{});  // whatever was sent before this connection was missed
        Hear(conn.get());
      } else if (!reported_down) {
        spdlog::warn("storage: cannot listen for other nodes' changes yet; retrying");
        reported_down = true;
      }
      SleepUnlessStopping(kReconnectDelay);
    }
  }

  // A connection LISTENing on every channel, or null.
  Connection Listen() {
    Connection conn;
    try {
      conn.reset(ConnectToPostgres(url_));
    } catch (const SqlError&) {
      return nullptr;
    }
    for (const std::string& channel : channels_) {
      char* quoted = PQescapeIdentifier(conn.get(), channel.c_str(), channel.size());
      if (quoted == nullptr) return nullptr;
      std::string sql = std::string("LISTEN ") + quoted;
      PQfreemem(quoted);
      PGresult* result = PQexec(conn.get(), sql.c_str());
      bool ok = result != nullptr && PQresultStatus(result) == PGRES_COMMAND_OK;
      PQclear(result);
      if (!ok) return nullptr;
    }
    return conn;
  }

  // Delivers notices until the connection breaks or the listener stops.
  void Hear(PGconn* conn) {
    while (!stopping_) {
      pollfd socket{PQsocket(conn), POLLIN, 0};
      if (socket.fd < 0) return;
      int ready = ::poll(&socket, 1, kPollMilliseconds);
      if (ready < 0 && errno != EINTR) return;
      if (ready <= 0) continue;
      if (PQconsumeInput(conn) == 0) {
        spdlog::warn("storage: lost the connection that hears other nodes' changes");
        return;
      }
      while (PGnotify* notify = PQnotifies(conn)) {
        Notice notice{notify->relname, notify->extra};
        PQfreemem(notify);
        Deliver(notice);
      }
    }
  }

  void Deliver(const Notice& notice) {
    try {
      handler_(notice);
    } catch (const std::exception& e) {
      spdlog::warn("storage: a change notice on {} could not be applied: {}", notice.channel,
                   e.what());
    }
  }

  void SleepUnlessStopping(std::chrono::milliseconds delay) {
    auto until = std::chrono::steady_clock::now() + delay;
    while (!stopping_ && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(kPollMilliseconds));
    }
  }

  const std::string url_;
  const std::vector<std::string> channels_;
  const NoticeHandler handler_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace

std::unique_ptr<NoticeSubscription> ListenOnPostgres(std::string url,
                                                     std::vector<std::string> channels,
                                                     NoticeHandler handler) {
  return std::make_unique<PostgresListener>(std::move(url), std::move(channels),
                                            std::move(handler));
}

}  // namespace tessera::storage
