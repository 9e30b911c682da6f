#include "http/server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iterator>
#include <latch>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/thread_pool.h"
#include "http/client.h"
#include "http/http_fixture.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace tessera::http {
namespace {

using std::chrono::seconds;
using ::tessera::testing::WaitUntil;
using testing::BodyJson;
using testing::RawConnection;
using testing::RoutedServer;
using testing::TestOptions;

// GET and POST /api/echo/{value} answer {"value", "method", "query", "body"} of the request;
// GET /api/status answers {"ok":true}; DELETE /api/nothing answers 204.
Router EchoRouter() {
  Router router;
  auto echo = [](const Request& request, const PathParams& params) {
    Json query = Json::object();
    for (const auto& [name, value] : request.query.fields()) query[name] = value;
    Json body;
    body["value"] = params.at("value");
    body["method"] = request.method;
    body["query"] = query;
    body["body"] = request.body;
    body["remote"] = request.remote_address;
    return Response::Json(200, DumpJson(body));
  };
  router.Add("GET", "/api/echo/{value}", echo);
  router.Add("POST", "/api/echo/{value}", echo);
  router.Add("GET", "/api/status", [](const Request&, const PathParams&) {
    return Response::Json(200, R"({"ok":true})");
  });
  router.Add("DELETE", "/api/nothing",
             [](const Request&, const PathParams&) { return Response::Empty(204); });
  return router;
}

bool IsTicketId(const Json& value) {
  if (!value.is_string()) return false;
  std::string text = value.get<std::string>();
  return text.size() == 32 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::string RequestText(std::string_view method, std::string_view target,
                        std::string_view extra_headers = "") {
  return std::string(method) + " " + std::string(target) + " HTTP/1.1\r\nHost: test\r\n" +
         std::string(extra_headers) + "\r\n";
}

TEST(Server, AnswersRoutedRequestWithDecodedParamsAndQuery) {
  ServerOptions options = TestOptions();
  options.access_log = true;
  RoutedServer server(EchoRouter(), options);
  auto client = server.NewClient();

  Response response = client->Send("GET", "/api/echo/My%20Project?type=776&name=a+b");

  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.headers.Get("Content-Type"), "application/json; charset=utf-8");
  Json body = BodyJson(response);
  EXPECT_EQ(body["value"], "My Project");
  EXPECT_EQ(body["method"], "GET");
  EXPECT_EQ(body["query"]["type"], "776");
  EXPECT_EQ(body["query"]["name"], "a b");
}

TEST(Server, PassesTheRequestBodyThrough) {
  RoutedServer server(EchoRouter());
  auto client = server.NewClient();
  Headers headers;
  headers.Add("Content-Type", "application/json");

  Response response = client->Send("POST", "/api/echo/x", headers, R"({"a":1})");

  EXPECT_EQ(BodyJson(response)["body"], R"({"a":1})");
}

TEST(Server, ResponsesCarryServerAndContentLength) {
  RoutedServer server(EchoRouter());
  auto client = server.NewClient();

  Response json = client->Send("GET", "/api/echo/x");
  Response empty = client->Send("DELETE", "/api/nothing");

  EXPECT_EQ(json.headers.Get("Server"), "Tessera");
  EXPECT_EQ(json.headers.Get("Content-Length"), std::to_string(json.body.size()));
  EXPECT_EQ(empty.status, 204);
  EXPECT_TRUE(empty.body.empty());
}

TEST(Server, UnknownPathIs404Err004AndWrongMethodIs405Err001) {
  RoutedServer server(EchoRouter());
  auto client = server.NewClient();

  Response not_found = client->Send("GET", "/api/unknown");
  Response not_allowed = client->Send("PUT", "/api/echo/x");

  EXPECT_EQ(not_found.status, 404);
  EXPECT_EQ(BodyJson(not_found)["code"], "ERR004");
  EXPECT_EQ(BodyJson(not_found)["message"], "HTTP 404 Not Found");
  EXPECT_EQ(not_allowed.status, 405);
  EXPECT_EQ(BodyJson(not_allowed)["code"], "ERR001");
  EXPECT_EQ(BodyJson(not_allowed)["message"], "HTTP 405 Method Not Allowed");
}

TEST(Server, HeadAnswersWithoutBody) {
  RoutedServer server(EchoRouter());
  auto client = server.NewClient();

  Response head = client->Send("HEAD", "/api/status");
  Response after = client->Send("GET", "/api/echo/y");

  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
  EXPECT_EQ(head.headers.Get("Content-Length"), "11");  // of {"ok":true}
  EXPECT_EQ(BodyJson(after)["value"], "y");
}

TEST(Server, KeepsTheConnectionOpenAcrossRequests) {
  RoutedServer server(EchoRouter());
  RawConnection connection(server.port());

  for (std::string value : {"a", "b", "c"}) {
    connection.Write(RequestText("GET", "/api/echo/" + value));
    std::optional<Response> response = connection.ReadResponse();
    ASSERT_TRUE(response.has_value()) << value;
    EXPECT_EQ(BodyJson(*response)["value"], value);
  }
}

TEST(Server, AnswersPipelinedRequestsInOrder) {
  RoutedServer server(EchoRouter());
  RawConnection connection(server.port());

  connection.Write(RequestText("GET", "/api/echo/first") + RequestText("GET", "/api/echo/second"));

  std::optional<Response> first = connection.ReadResponse();
  std::optional<Response> second = connection.ReadResponse();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(BodyJson(*first)["value"], "first");
  EXPECT_EQ(BodyJson(*second)["value"], "second");
}

// Bytes that differ from one position to the next, so a piece lost, repeated or moved shows.
std::string PatternedBody(size_t size) {
  std::string body(size, ' ');
  std::mt19937 random(7);
  for (char& c : body) c = static_cast<char>('a' + random() % 26);
  return body;
}

// POST /upload answers the size of the body and whether it equals `expected`.
class LargeBody : public ::testing::Test {
 protected:
  LargeBody()
      : server_(
            [this](Request request, Respond respond) {
              ++dispatched_;
              const bool same = request.body == expected_;
              respond(Response::Json(
                  200, std::to_string(request.body.size()) + (same ? " same" : " different")));
            },
            TestOptions()) {}

  std::string expected_ = PatternedBody(5 * 1024 * 1024 + 17);
  std::atomic<int> dispatched_{0};
  RoutedServer server_;
};

TEST_F(LargeBody, ArrivesWholeWhateverPiecesItIsSentIn) {
  RawConnection connection(server_.port());
  const std::string head =
      "POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: " + std::to_string(expected_.size()) +
      "\r\n\r\n";
  // The header with the body's first bytes, then pieces below and above a read's size.
  connection.Write(head + expected_.substr(0, 100));
  size_t sent = 100;
  for (size_t piece : {size_t{1}, size_t{70000}, size_t{3 << 20}, size_t{5}}) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    connection.Write(expected_.substr(sent, piece));
    sent += piece;
  }
  // The rest, with the next request pipelined in the same write.
  connection.Write(expected_.substr(sent) + RequestText("GET", "/upload"));

  std::optional<Response> first = connection.ReadResponse();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->body, std::to_string(expected_.size()) + " same");
  std::optional<Response> second = connection.ReadResponse();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->body, "0 different");
}

TEST_F(LargeBody, ChunkedArrivesWhole) {
  RawConnection connection(server_.port());
  std::string request = "POST /upload HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (size_t at = 0; at < expected_.size(); at += 700000) {
    const std::string piece = expected_.substr(at, 700000);
    std::ostringstream size;
    size << std::hex << piece.size();
    request += size.str() + "\r\n" + piece + "\r\n";
  }
  request += "0\r\n\r\n";
  connection.Write(request);

  std::optional<Response> response = connection.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->body, std::to_string(expected_.size()) + " same");
}

TEST_F(LargeBody, AClientThatLeavesMidBodyIsNeverDispatched) {
  {
    RawConnection connection(server_.port());
    connection.Write("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: " +
                     std::to_string(expected_.size()) + "\r\n\r\n" + expected_.substr(0, 2 << 20));
  }
  auto client = server_.NewClient();
  Response response = client->Send("POST", "/upload", {}, expected_);
  EXPECT_EQ(response.body, std::to_string(expected_.size()) + " same");
  EXPECT_EQ(dispatched_.load(), 1);
}

TEST(Server, ClosesAfterAnsweringConnectionClose) {
  RoutedServer server(EchoRouter());
  RawConnection connection(server.port());

  connection.Write(RequestText("GET", "/api/echo/x", "Connection: close\r\n"));

  std::optional<std::string> received = connection.ReadUntilClosed();
  ASSERT_TRUE(received.has_value());
  EXPECT_NE(received->find("HTTP/1.1 200"), std::string::npos);
  EXPECT_NE(received->find("\"value\":\"x\""), std::string::npos);
}

TEST(Server, ClosesAfterAnsweringHttp10WithoutKeepAlive) {
  RoutedServer server(EchoRouter());
  RawConnection connection(server.port());

  connection.Write("GET /api/echo/x HTTP/1.0\r\n\r\n");

  std::optional<std::string> received = connection.ReadUntilClosed();
  ASSERT_TRUE(received.has_value());
  EXPECT_NE(received->find("HTTP/1.0 200"), std::string::npos);
}

TEST(Server, ServesConcurrentClients) {
  ServerOptions options = TestOptions();
  RoutedServer server(EchoRouter(), options);
  constexpr int kThreads = 8;
  constexpr int kRequestsPerThread = 200;
  std::atomic<int> correct{0};

  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto client = server.NewClient();
      for (int i = 0; i < kRequestsPerThread; ++i) {
        std::string value = std::to_string(t) + "-" + std::to_string(i);
        Response response = client->Send("GET", "/api/echo/" + value);
        if (response.status == 200 && BodyJson(response)["value"] == value) ++correct;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  EXPECT_EQ(correct.load(), kThreads * kRequestsPerThread);
}

TEST(Server, AcceptsAnswersFromAnotherThread) {
  ThreadPool pool(3);
  RoutedServer server(
      [&pool](Request request, Respond respond) {
        pool.Post([request = std::move(request), respond = std::move(respond)] {
          // The work a handler does: the answer comes after dispatch has returned, while the I/O
          // threads serve the other connections.
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
          respond(Response::Json(200, "\"" + request.path + "\""));
        });
      },
      TestOptions());
  std::vector<std::thread> threads;
  std::atomic<int> correct{0};

  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto client = server.NewClient();
      for (int i = 0; i < 20; ++i) {
        std::string path = "/p/" + std::to_string(t) + "/" + std::to_string(i);
        if (client->Send("GET", path).body == "\"" + path + "\"") ++correct;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  server.server().Stop();

  EXPECT_EQ(correct.load(), 80);
}

TEST(Server, DispatchThatThrowsIsAnswered500) {
  RoutedServer server([](Request, Respond) { throw std::runtime_error("boom"); }, TestOptions());
  auto client = server.NewClient();

  Response response = client->Send("GET", "/anything");

  EXPECT_EQ(response.status, 500);
  EXPECT_EQ(BodyJson(response)["code"], "ERR001");
}

TEST(Server, DroppedRespondIsAnswered500) {
  RoutedServer server([](Request, Respond) {}, TestOptions());
  auto client = server.NewClient();

  Response response = client->Send("GET", "/anything");

  EXPECT_EQ(response.status, 500);
  EXPECT_TRUE(IsTicketId(BodyJson(response)["ticketId"]));
}

TEST(Server, SecondAnswerToOneRequestIsIgnored) {
  RoutedServer server(
      [](Request, Respond respond) {
        respond(Response::Json(200, "1"));
        respond(Response::Json(200, "2"));
      },
      TestOptions());
  auto client = server.NewClient();

  EXPECT_EQ(client->Send("GET", "/a").body, "1");
  EXPECT_EQ(client->Send("GET", "/b").body, "1");
}

class BodyLimit : public ::testing::Test {
 protected:
  BodyLimit()
      : server_(
            [this](Request request, Respond respond) {
              ++dispatched_;
              respond(Response::Json(200, std::to_string(request.body.size())));
            },
            Options()) {}

  static ServerOptions Options() {
    ServerOptions options = TestOptions();
    options.max_body_bytes = 1024;
    return options;
  }

  static void ExpectTooLarge(const Response& response) {
    EXPECT_EQ(response.status, 413);
    EXPECT_EQ(response.headers.Get("Content-Type"), "application/json; charset=utf-8");
    Json body = BodyJson(response);
    EXPECT_EQ(body["code"], "ERR006");
    EXPECT_EQ(body["message"], "The request body is larger than the limit of 1024 bytes");
    EXPECT_TRUE(IsTicketId(body["ticketId"]));
  }

  std::atomic<int> dispatched_{0};
  RoutedServer server_;
};

TEST_F(BodyLimit, BodyAtTheLimitIsAccepted) {
  auto client = server_.NewClient();

  Response response = client->Send("POST", "/upload", {}, std::string(1024, 'x'));

  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "1024");
}

TEST_F(BodyLimit, LargerBodyIsAnswered413AndNeverDispatched) {
  auto client = server_.NewClient();

  Response response = client->Send("POST", "/upload", {}, std::string(64 * 1024, 'x'));

  ExpectTooLarge(response);
  EXPECT_EQ(response.headers.Get("Connection"), "close");
  EXPECT_EQ(dispatched_.load(), 0);
}

TEST_F(BodyLimit, DeclaredLengthIsRefusedBeforeTheBodyIsSent) {
  RawConnection connection(server_.port());

  connection.Write("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 1000000000\r\n\r\n");

  std::optional<Response> response = connection.ReadResponse();
  ASSERT_TRUE(response.has_value());
  ExpectTooLarge(*response);
  EXPECT_TRUE(connection.ReadUntilClosed().has_value());
}

TEST_F(BodyLimit, ChunkedBodyOverTheLimitIsAnswered413) {
  RawConnection connection(server_.port());

  connection.Write("POST /upload HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n" +
                   std::string("800\r\n") + std::string(2048, 'x') + "\r\n0\r\n\r\n");

  std::optional<Response> response = connection.ReadResponse();
  ASSERT_TRUE(response.has_value());
  ExpectTooLarge(*response);
  EXPECT_EQ(dispatched_.load(), 0);
}

TEST_F(BodyLimit, ClientReconnectsAfterTheServerClosedTheConnection) {
  auto client = server_.NewClient();
  ASSERT_EQ(client->Send("POST", "/upload", {}, std::string(4096, 'x')).status, 413);

  Response response = client->Send("POST", "/upload", {}, "abc");

  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "3");
}

TEST(Server, MalformedRequestIsAnswered400AndClosed) {
  RoutedServer server(EchoRouter());
  RawConnection connection(server.port());

  connection.Write("THIS IS NOT HTTP\r\n\r\n");

  std::optional<std::string> received = connection.ReadUntilClosed();
  ASSERT_TRUE(received.has_value());
  EXPECT_NE(received->find("HTTP/1.1 400"), std::string::npos);
  Json body = ParseJson(received->substr(received->find("\r\n\r\n") + 4));
  EXPECT_EQ(body["code"], "ERR006");
  EXPECT_EQ(body["message"], "Malformed HTTP request");
  EXPECT_TRUE(IsTicketId(body["ticketId"]));
}

// A server whose admission is decided on threads of its own, as the node decides it on a pool.
// The deciding threads hold the connection until they end, so they are joined before the server
// goes.
class AdmittingServer {
 public:
  AdmittingServer(std::function<Admission(const RequestHead&)> decide_now, Dispatch dispatch,
                  ServerOptions options) {
    options.admit = [this, decide_now](const RequestHead& head,
                                       std::function<void(Admission)> decide) {
      std::lock_guard lock(mutex_);
      deciders_.emplace_back([decide_now, head, decide] { decide(decide_now(head)); });
    };
    server_.emplace(std::move(dispatch), std::move(options));
  }
  ~AdmittingServer() {
    std::lock_guard lock(mutex_);
    for (auto& decider : deciders_) decider.join();
  }

  uint16_t port() const { return server_->port(); }
  std::unique_ptr<Client> NewClient() const { return server_->NewClient(); }

 private:
  std::mutex mutex_;
  std::vector<std::thread> deciders_;
  std::optional<RoutedServer> server_;
};

TEST(Server, ARefusedRequestIsAnsweredBeforeItsBodyIsSent) {
  std::atomic<int> dispatched{0};
  AdmittingServer server(
      [](const RequestHead& head) {
        Admission admission;
        if (!head.headers.Get("X-Token")) {
          admission.refusal = Response::Json(401, R"({"code":"ERR009","message":"no token"})");
        }
        return admission;
      },
      [&](Request request, Respond respond) {
        ++dispatched;
        respond(Response::Json(200, std::to_string(request.body.size())));
      },
      TestOptions());
  RawConnection connection(server.port());

  // A 100 MB body is announced and never sent: the answer must not wait for it.
  connection.Write(RequestText("POST", "/upload", "Content-Length: 104857600\r\n"));
  std::optional<Response> refused = connection.ReadResponse(std::chrono::seconds(5));

  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 401);
  EXPECT_EQ(BodyJson(*refused)["code"], "ERR009");
  EXPECT_EQ(dispatched, 0);
  auto client = server.NewClient();
  Headers token;
  token.Set("X-Token", "t");
  Response admitted = client->Send("POST", "/upload", token, "abc");
  EXPECT_EQ(admitted.status, 200);
  EXPECT_EQ(admitted.body, "3");
}

TEST(Server, AdmissionChoosesEachRequestsBodyLimit) {
  ServerOptions options = TestOptions();
  options.max_body_bytes = 1 << 20;
  AdmittingServer server(
      [](const RequestHead& head) {
        Admission admission;
        admission.max_body_bytes = head.path == "/small" ? 8 : 0;
        return admission;
      },
      [](Request request, Respond respond) {
        respond(Response::Json(200, std::to_string(request.body.size())));
      },
      options);

  EXPECT_EQ(server.NewClient()->Send("POST", "/small", {}, "123456789").status, 413);
  EXPECT_EQ(server.NewClient()->Send("POST", "/small", {}, "12345678").status, 200);
  EXPECT_EQ(server.NewClient()->Send("POST", "/large", {}, std::string(4096, 'x')).status, 200);
}

TEST(Server, RequestsWithoutABodyAreNotShownToAdmission) {
  ServerOptions options = TestOptions();
  std::atomic<int> admissions{0};
  options.admit = [&](const RequestHead&, std::function<void(Admission)> decide) {
    ++admissions;
    decide({});
  };
  RoutedServer server(EchoRouter(), options);
  auto client = server.NewClient();
  EXPECT_EQ(client->Send("GET", "/api/echo/x").status, 200);
  EXPECT_EQ(admissions, 0);
  EXPECT_EQ(client->Send("POST", "/api/echo/x", {}, "abc").status, 200);
  EXPECT_EQ(admissions, 1);
}

TEST(Server, ConnectionsBeyondTheCapOfOneAddressAreAnswered503) {
  ServerOptions options = TestOptions();
  options.max_connections_per_address = 2;
  RoutedServer server(EchoRouter(), options);
  auto first = std::make_unique<RawConnection>(server.port());
  RawConnection second(server.port());
  first->Write(RequestText("GET", "/api/echo/a", ""));
  ASSERT_TRUE(first->ReadResponse());  // both are registered once one has been answered
  second.Write(RequestText("GET", "/api/echo/b", ""));
  ASSERT_TRUE(second.ReadResponse());

  RawConnection third(server.port());
  std::optional<std::string> refused = third.ReadUntilClosed();
  ASSERT_TRUE(refused.has_value());
  EXPECT_NE(refused->find("HTTP/1.1 503"), std::string::npos) << *refused;
  EXPECT_NE(refused->find("limit of 2 open connections"), std::string::npos) << *refused;

  first.reset();  // a slot frees up
  std::optional<Response> answered;
  ASSERT_TRUE(WaitUntil(
      [&] {
        RawConnection fourth(server.port());
        fourth.Write(RequestText("GET", "/api/echo/c", ""));
        answered = fourth.ReadResponse(seconds(2));
        return answered.has_value() && answered->status != 503;
      },
      seconds(10), "a new connection was answered, not refused, once the first had closed"));
  EXPECT_EQ(answered->status, 200);
}

TEST(Server, ARequestThroughATrustedProxyIsFromTheClientItForwards) {
  Headers forwarded;
  forwarded.Add("X-Forwarded-For", "198.51.100.20, 203.0.113.9");
  {
    RoutedServer untrusting(EchoRouter());
    auto client = untrusting.NewClient();
    EXPECT_EQ(BodyJson(client->Send("GET", "/api/echo/a", forwarded))["remote"], "127.0.0.1");
  }
  ServerOptions options = TestOptions();
  options.trusted_proxies = {"127.0.0.1"};
  RoutedServer server(EchoRouter(), options);
  auto client = server.NewClient();
  EXPECT_EQ(BodyJson(client->Send("GET", "/api/echo/a", forwarded))["remote"], "203.0.113.9");
  // The next request on the same connection is judged by its own header.
  EXPECT_EQ(BodyJson(client->Send("GET", "/api/echo/b"))["remote"], "127.0.0.1");
}

TEST(Server, ATrustedProxysConnectionsAreNotCappedPerAddress) {
  ServerOptions options = TestOptions();
  options.max_connections_per_address = 1;
  options.trusted_proxies = {"127.0.0.1"};
  RoutedServer server(EchoRouter(), options);
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < 3; ++i) {
    held.push_back(std::make_unique<RawConnection>(server.port()));
    held.back()->Write(RequestText("GET", "/api/echo/a", ""));
    auto answered = held.back()->ReadResponse();
    ASSERT_TRUE(answered.has_value());
    EXPECT_EQ(answered->status, 200);
  }
}

TEST(Server, TheGlobalConnectionCapRefusesEveryAddress) {
  ServerOptions options = TestOptions();
  options.max_connections = 1;
  RoutedServer server(EchoRouter(), options);
  RawConnection held(server.port());
  held.Write(RequestText("GET", "/api/echo/a", ""));
  ASSERT_TRUE(held.ReadResponse());
  RawConnection refused(server.port());
  std::optional<std::string> text = refused.ReadUntilClosed();
  ASSERT_TRUE(text.has_value());
  EXPECT_NE(text->find("HTTP/1.1 503"), std::string::npos) << *text;
}

TEST(Server, AnswersExpectContinueBeforeReadingTheBody) {
  RoutedServer server(EchoRouter());
  RawConnection connection(server.port());

  connection.Write(
      RequestText("POST", "/api/echo/x", "Content-Length: 3\r\nExpect: 100-continue\r\n"));
  std::optional<Response> interim = connection.ReadResponse();
  connection.Write("abc");
  std::optional<Response> final_response = connection.ReadResponse();

  ASSERT_TRUE(interim && final_response);
  EXPECT_EQ(interim->status, 100);
  EXPECT_EQ(BodyJson(*final_response)["body"], "abc");
}

TEST(Server, ReadTimeoutClosesAConnectionThatSendsHalfARequest) {
  ServerOptions options = TestOptions();
  options.read_timeout = seconds(1);
  RoutedServer server(EchoRouter(), options);
  RawConnection connection(server.port());

  connection.Write("GET /api/echo/x HTTP/1.1\r\nHost: te");

  std::optional<std::string> received = connection.ReadUntilClosed(seconds(20));
  ASSERT_TRUE(received.has_value()) << "the server kept the connection open";
  EXPECT_EQ(*received, "");
}

TEST(Server, IdleTimeoutClosesAnIdleKeepAliveConnection) {
  ServerOptions options = TestOptions();
  options.idle_timeout = seconds(1);
  RoutedServer server(EchoRouter(), options);
  RawConnection connection(server.port());
  connection.Write(RequestText("GET", "/api/echo/x"));
  ASSERT_TRUE(connection.ReadResponse().has_value());

  EXPECT_TRUE(connection.ReadUntilClosed(seconds(20)).has_value());
}

TEST(Server, ClientReconnectsAfterIdleTimeout) {
  ServerOptions options = TestOptions();
  options.idle_timeout = seconds(1);
  RoutedServer server(EchoRouter(), options);
  auto client = server.NewClient();
  ASSERT_EQ(client->Send("GET", "/api/echo/a").status, 200);
  ASSERT_TRUE(WaitUntil([&] { return server.server().OpenConnections() == 0; }, seconds(20),
                        "the server closed the client's idle connection"));

  Response response = client->Send("GET", "/api/echo/b");

  EXPECT_EQ(BodyJson(response)["value"], "b");
}

TEST(Server, StopLetsAnInFlightRequestFinish) {
  std::promise<void> dispatched;
  std::thread worker;
  auto server = std::make_unique<RoutedServer>(
      [&](Request, Respond respond) {
        worker = std::thread([respond = std::move(respond)] {
          // Answered 300 ms after dispatch, so still in flight when Stop() runs. Nothing the test
          // thread does after Stop() can release the answer: Stop() returns only once it is sent.
          std::this_thread::sleep_for(std::chrono::milliseconds(300));
          respond(Response::Json(200, "\"slow\""));
        });
        dispatched.set_value();
      },
      TestOptions());
  uint16_t port = server->port();
  std::future<Response> answer = std::async(
      std::launch::async, [port] { return Client("127.0.0.1", port).Send("GET", "/slow"); });
  dispatched.get_future().wait();

  server->server().Stop();

  Response response = answer.get();
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "\"slow\"");
  EXPECT_EQ(response.headers.Get("Connection"), "close");
  EXPECT_THROW(Client("127.0.0.1", port).Send("GET", "/after"), std::runtime_error);
  worker.join();
}

TEST(Server, StopGivesUpOnAnUnansweredRequestAfterTheGracePeriod) {
  std::promise<void> dispatched;
  Respond kept;
  ServerOptions options = TestOptions();
  options.shutdown_grace = seconds(1);
  auto server = std::make_unique<RoutedServer>(
      [&](Request, Respond respond) {
        kept = std::move(respond);
        dispatched.set_value();
      },
      options);
  uint16_t port = server->port();
  std::future<Response> answer = std::async(
      std::launch::async, [port] { return Client("127.0.0.1", port).Send("GET", "/never"); });
  dispatched.get_future().wait();

  server->server().Stop();
  server.reset();

  EXPECT_THROW(answer.get(), std::runtime_error);
  kept(Response::Json(200, "\"too late\""));  // ignored, after the server is gone
}

TEST(Server, StopClosesIdleConnectionsWithoutWaitingForTheGracePeriod) {
  ServerOptions options = TestOptions();
  options.shutdown_grace = seconds(300);
  RoutedServer server(EchoRouter(), options);
  RawConnection idle(server.port());
  idle.Write(RequestText("GET", "/api/echo/x"));
  ASSERT_TRUE(idle.ReadResponse().has_value());
  RawConnection silent(server.port());

  std::future<void> stopped = std::async(std::launch::async, [&] { server.server().Stop(); });

  EXPECT_EQ(stopped.wait_for(seconds(60)), std::future_status::ready);
  EXPECT_TRUE(idle.ReadUntilClosed().has_value());
  EXPECT_TRUE(silent.ReadUntilClosed().has_value());
}

TEST(Server, StopIsIdempotentAndWaitReturnsAfterIt) {
  RoutedServer server(EchoRouter());
  std::future<void> waited = std::async(std::launch::async, [&] { server.server().Wait(); });

  server.server().Stop();
  server.server().Stop();

  EXPECT_EQ(waited.wait_for(seconds(60)), std::future_status::ready);
}

TEST(Server, StartOnAPortInUseThrows) {
  RoutedServer first(EchoRouter());
  ServerOptions options = TestOptions();
  options.port = first.port();
  Server second(options, [](Request, Respond respond) { respond(Response::Empty(204)); });

  EXPECT_THROW(second.Start(), std::runtime_error);
}

TEST(Server, NeverStartedServerStopsCleanly) {
  Server server(TestOptions(), [](Request, Respond) {});

  server.Stop();
  server.Wait();
}

// ---- Spooled request bodies ----

// Deterministic bytes that are not all alike, so a misplaced or lost chunk shows.
std::string PseudoRandomBytes(size_t size, uint32_t seed) {
  std::mt19937 generator(seed);
  std::string bytes(size, '\0');
  for (char& byte : bytes) byte = static_cast<char>(generator() & 0xFF);
  return bytes;
}

std::string ReadWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// What the dispatch of a SpooledBody server saw of the last request.
struct SeenRequest {
  std::string body;
  bool has_body_file = false;
  std::string body_file_path;
  uint64_t body_file_size = 0;
  std::string body_file_content;  // read by the dispatch, while the request held the file
};

// PUT /upload/... is spooled to a fresh spool_dir under a 4 MiB limit; every other request is read
// into memory under a 64 KiB limit. Every request is answered 200.
class SpooledBody : public ::testing::Test {
 protected:
  static constexpr uint64_t kMemoryLimit = 64 * 1024;
  static constexpr uint64_t kSpoolLimit = 4 * 1024 * 1024;

  SpooledBody()
      : server_([this](Request request, Respond respond) { See(request, respond); },
                Options(spool_dir_.path().string())) {}

  static ServerOptions Options(std::string spool_dir) {
    ServerOptions options = TestOptions();
    options.max_body_bytes = kMemoryLimit;
    options.admit = [](const RequestHead& head, std::function<void(Admission)> decide) {
      Admission admission;
      admission.spools_body = head.method == "PUT" && head.path.starts_with("/upload/");
      if (admission.spools_body) admission.max_body_bytes = kSpoolLimit;
      decide(std::move(admission));
    };
    options.spool_dir = std::move(spool_dir);
    return options;
  }

  void See(const Request& request, const Respond& respond) {
    SeenRequest seen;
    seen.body = request.body;
    if (request.body_file) {
      seen.has_body_file = true;
      seen.body_file_path = request.body_file->path();
      seen.body_file_size = request.body_file->size();
      seen.body_file_content = ReadWholeFile(request.body_file->path());
    }
    {
      std::lock_guard lock(mutex_);
      seen_ = std::move(seen);
      ++dispatched_;
    }
    respond(Response::Json(200, "{}"));
  }

  SeenRequest Seen() {
    std::lock_guard lock(mutex_);
    return seen_;
  }

  int Dispatched() {
    std::lock_guard lock(mutex_);
    return dispatched_;
  }

  bool SpoolDirIsEmpty() const { return std::filesystem::is_empty(spool_dir_.path()); }

  static void ExpectTooLarge(const Response& response, uint64_t limit) {
    EXPECT_EQ(response.status, 413);
    EXPECT_EQ(BodyJson(response)["code"], "ERR006");
    EXPECT_EQ(BodyJson(response)["message"],
              "The request body is larger than the limit of " + std::to_string(limit) + " bytes");
  }

  ::tessera::testing::TempDir spool_dir_;
  std::mutex mutex_;
  SeenRequest seen_;
  int dispatched_ = 0;
  RoutedServer server_;
};

TEST_F(SpooledBody, ReachesTheDispatchAsAFileWithTheExactBytes) {
  std::string sent = PseudoRandomBytes(3 * 1024 * 1024, 1);
  auto client = server_.NewClient();

  Response response = client->Send("PUT", "/upload/package?name=p", {}, sent);

  ASSERT_EQ(response.status, 200);
  SeenRequest seen = Seen();
  EXPECT_TRUE(seen.body.empty());
  ASSERT_TRUE(seen.has_body_file);
  EXPECT_EQ(std::filesystem::path(seen.body_file_path).parent_path(), spool_dir_.path());
  EXPECT_EQ(seen.body_file_size, sent.size());
  EXPECT_TRUE(seen.body_file_content == sent) << "the spooled bytes differ from the sent ones";
}

TEST_F(SpooledBody, FileIsRemovedOnceTheRequestIsReleased) {
  auto client = server_.NewClient();

  ASSERT_EQ(client->Send("PUT", "/upload/x", {}, PseudoRandomBytes(100 * 1024, 2)).status, 200);

  std::string path = Seen().body_file_path;
  ASSERT_FALSE(path.empty());
  EXPECT_TRUE(WaitUntil([&] { return !std::filesystem::exists(path); }, seconds(10),
                        "the spooled file was removed"));
  EXPECT_TRUE(SpoolDirIsEmpty());
}

TEST_F(SpooledBody, AnEmptyBodyIsNotSpooled) {
  auto client = server_.NewClient();

  ASSERT_EQ(client->Send("PUT", "/upload/empty").status, 200);

  SeenRequest seen = Seen();
  EXPECT_FALSE(seen.has_body_file);
  EXPECT_EQ(seen.body, "");
}

TEST_F(SpooledBody, UnselectedRequestStaysInMemoryUnderTheSmallLimit) {
  auto client = server_.NewClient();

  Response small = client->Send("POST", "/upload/x", {}, "abc");
  SeenRequest seen = Seen();
  Response large = client->Send("POST", "/upload/x", {}, std::string(kMemoryLimit + 1, 'x'));

  EXPECT_EQ(small.status, 200);
  EXPECT_EQ(seen.body, "abc");
  EXPECT_FALSE(seen.has_body_file);
  ExpectTooLarge(large, kMemoryLimit);
}

TEST_F(SpooledBody, DeclaredLengthOverTheSpoolLimitIs413AndLeavesNoFile) {
  RawConnection connection(server_.port());

  connection.Write(RequestText("PUT", "/upload/x",
                               "Content-Length: " + std::to_string(kSpoolLimit + 1) + "\r\n"));

  std::optional<Response> response = connection.ReadResponse();
  ASSERT_TRUE(response.has_value());
  ExpectTooLarge(*response, kSpoolLimit);
  EXPECT_TRUE(SpoolDirIsEmpty());
  EXPECT_EQ(Dispatched(), 0);
}

TEST_F(SpooledBody, ChunkedBodyOverTheSpoolLimitIs413AndLeavesNoFile) {
  RawConnection connection(server_.port());
  constexpr size_t kChunk = 1024 * 1024;
  std::string chunk = "100000\r\n" + std::string(kChunk, 'x') + "\r\n";  // 0x100000 bytes

  connection.Write(RequestText("PUT", "/upload/x", "Transfer-Encoding: chunked\r\n"));
  for (uint64_t sent = 0; sent < kSpoolLimit; sent += kChunk) connection.Write(chunk);
  connection.Write("1\r\nx\r\n0\r\n\r\n");  // one byte over

  std::optional<Response> response = connection.ReadResponse();
  ASSERT_TRUE(response.has_value());
  ExpectTooLarge(*response, kSpoolLimit);
  EXPECT_TRUE(SpoolDirIsEmpty()) << "the partly written file outlived the refusal";
  EXPECT_EQ(Dispatched(), 0);
}

TEST_F(SpooledBody, ChunkedBodyAtTheSpoolLimitIsAccepted) {
  RawConnection connection(server_.port());
  std::string sent = PseudoRandomBytes(kSpoolLimit, 3);

  connection.Write(RequestText("PUT", "/upload/x", "Transfer-Encoding: chunked\r\n"));
  connection.Write("400000\r\n" + sent + "\r\n0\r\n\r\n");  // 0x400000 bytes: 4 MiB

  std::optional<Response> response = connection.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  EXPECT_TRUE(Seen().body_file_content == sent);
}

TEST_F(SpooledBody, ExpectContinueIsAnsweredBeforeTheBodyIsSent) {
  RawConnection connection(server_.port());

  connection.Write(
      RequestText("PUT", "/upload/x", "Content-Length: 5\r\nExpect: 100-continue\r\n"));
  std::optional<Response> interim = connection.ReadResponse();
  connection.Write("hello");
  std::optional<Response> final_response = connection.ReadResponse();

  ASSERT_TRUE(interim && final_response);
  EXPECT_EQ(interim->status, 100);
  EXPECT_EQ(final_response->status, 200);
  EXPECT_EQ(Seen().body_file_content, "hello");
}

TEST_F(SpooledBody, ClientThatLeavesMidBodyLeavesNoFile) {
  {
    RawConnection connection(server_.port());
    connection.Write(RequestText("PUT", "/upload/x", "Content-Length: 1000000\r\n"));
    connection.Write(std::string(300 * 1024, 'x'));
    ASSERT_TRUE(
        WaitUntil([&] { return !SpoolDirIsEmpty(); }, seconds(10), "the body was being spooled"));
  }

  EXPECT_TRUE(WaitUntil([&] { return SpoolDirIsEmpty(); }, seconds(10),
                        "the partly spooled file was removed"));
  EXPECT_EQ(Dispatched(), 0);
}

TEST_F(SpooledBody, KeepAliveContinuesAfterASpooledRequest) {
  auto client = server_.NewClient();
  ASSERT_EQ(client->Send("PUT", "/upload/x", {}, "first").status, 200);

  Response second = client->Send("PUT", "/upload/y", {}, "second");

  EXPECT_EQ(second.status, 200);
  EXPECT_EQ(Seen().body_file_content, "second");
}

TEST(Server, SpoolDirThatCannotBeWrittenIsAnswered500) {
  ::tessera::testing::TempDir dir;
  ServerOptions options = TestOptions();
  options.admit = [](const RequestHead&, std::function<void(Admission)> decide) {
    Admission admission;
    admission.spools_body = true;
    decide(std::move(admission));
  };
  options.spool_dir = (dir.path() / "missing").string();
  std::atomic<int> dispatched{0};
  RoutedServer server(
      [&](Request, Respond respond) {
        ++dispatched;
        respond(Response::Empty(204));
      },
      options);
  auto client = server.NewClient();

  Response response = client->Send("PUT", "/upload/x", {}, "abc");

  EXPECT_EQ(response.status, 500);
  EXPECT_EQ(BodyJson(response)["code"], "ERR001");
  EXPECT_EQ(BodyJson(response)["message"], "The request body cannot be stored");
  EXPECT_EQ(response.headers.Get("Connection"), "close");
  EXPECT_EQ(dispatched.load(), 0);
}

// ---- File responses ----

// GET /file answers a 5 MiB file; GET /missing a file that does not exist; GET /api/status JSON.
class FileResponse : public ::testing::Test {
 protected:
  FileResponse()
      : content_(PseudoRandomBytes(5 * 1024 * 1024, 4)), server_(FileRouter(), TestOptions()) {}

  Router FileRouter() {
    std::string path = (dir_.path() / "data.bin").string();
    std::ofstream(path, std::ios::binary) << content_;
    std::string missing = (dir_.path() / "missing.bin").string();
    Router router;
    router.Add("GET", "/file", [path](const Request&, const PathParams&) {
      return Response::File(200, path, "application/octet-stream");
    });
    router.Add("GET", "/missing", [missing](const Request&, const PathParams&) {
      return Response::File(200, missing, "application/octet-stream");
    });
    router.Add("GET", "/api/status", [](const Request&, const PathParams&) {
      return Response::Json(200, R"({"ok":true})");
    });
    return router;
  }

  ::tessera::testing::TempDir dir_;
  std::string content_;
  RoutedServer server_;
};

TEST_F(FileResponse, StreamsTheExactBytesWithLengthAndType) {
  auto client = server_.NewClient();

  Response response = client->Send("GET", "/file");

  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.headers.Get("Content-Type"), "application/octet-stream");
  EXPECT_EQ(response.headers.Get("Content-Length"), std::to_string(content_.size()));
  EXPECT_EQ(response.body.size(), content_.size());
  EXPECT_TRUE(response.body == content_) << "the streamed bytes differ from the file's";
}

TEST_F(FileResponse, HeadGivesTheLengthWithoutABody) {
  auto client = server_.NewClient();

  Response head = client->Send("HEAD", "/file");
  Response after = client->Send("GET", "/api/status");

  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.headers.Get("Content-Length"), std::to_string(content_.size()));
  EXPECT_TRUE(head.body.empty());
  EXPECT_EQ(after.body, R"({"ok":true})");
}

TEST_F(FileResponse, MissingFileIsAnswered500Err001) {
  auto client = server_.NewClient();

  Response response = client->Send("GET", "/missing");

  EXPECT_EQ(response.status, 500);
  EXPECT_EQ(response.headers.Get("Content-Type"), "application/json; charset=utf-8");
  Json body = BodyJson(response);
  EXPECT_EQ(body["code"], "ERR001");
  EXPECT_EQ(body["message"], "Internal error");
  EXPECT_TRUE(IsTicketId(body["ticketId"]));
}

TEST_F(FileResponse, ConnectionStaysOpenAfterAFileResponse) {
  RawConnection connection(server_.port());

  connection.Write(RequestText("GET", "/file"));
  std::optional<Response> file = connection.ReadResponse();
  connection.Write(RequestText("GET", "/api/status"));
  std::optional<Response> after = connection.ReadResponse();

  ASSERT_TRUE(file && after);
  EXPECT_EQ(file->body.size(), content_.size());
  EXPECT_EQ(after->body, R"({"ok":true})");
}

}  // namespace
}  // namespace tessera::http
