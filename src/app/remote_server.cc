#include "app/remote_server.h"

#include <charconv>
#include <stdexcept>

#include "http/client.h"

namespace tessera::app {

namespace {

[[noreturn]] void RefuseUrl(const std::string& url, const std::string& flag,
                            const std::string& why) {
  throw std::invalid_argument(flag + " '" + url + "': " + why +
                              "; expected http://HOST[:PORT][/PATH], e.g. http://127.0.0.1:8080/");
}

// The server's message and code from an error body ({"code", "message"}), or the body itself.
std::string ErrorText(const http::Response& response) {
  try {
    const Json body = Json::parse(response.body);
    if (body.is_object() && body.contains("message")) {
      return body.value("message", "") + " (HTTP " + std::to_string(response.status) + ", " +
             body.value("code", "no code") + ")";
    }
  } catch (const std::exception&) {
  }
  return (response.body.empty() ? "no message" : response.body) + " (HTTP " +
         std::to_string(response.status) + ")";
}

}  // namespace

std::string StringField(const Json& object, const char* key) {
  if (!object.is_object()) return "";
  auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

ServerUrl ParseServerUrl(const std::string& url, const std::string& flag) {
  const std::string scheme = "http://";
  if (url.rfind("https://", 0) == 0) RefuseUrl(url, flag, "https is not supported");
  if (url.rfind(scheme, 0) != 0) RefuseUrl(url, flag, "not an http:// URL");
  const std::string rest = url.substr(scheme.size());
  const size_t slash = rest.find('/');
  const std::string authority = rest.substr(0, slash);
  ServerUrl parsed;
  if (slash != std::string::npos) parsed.base_path = rest.substr(slash);
  while (!parsed.base_path.empty() && parsed.base_path.back() == '/') parsed.base_path.pop_back();
  const size_t colon = authority.rfind(':');
  parsed.host = authority.substr(0, colon);
  if (colon != std::string::npos) {
    const std::string port = authority.substr(colon + 1);
    int value = 0;
    auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (error != std::errc() || end != port.data() + port.size() || value < 1 || value > 65535) {
      RefuseUrl(url, flag, "the port '" + port + "' is not a number from 1 to 65535");
    }
    parsed.port = static_cast<uint16_t>(value);
  }
  if (parsed.host.empty()) RefuseUrl(url, flag, "no host");
  parsed.text = scheme + parsed.host + ":" + std::to_string(parsed.port) + parsed.base_path + "/";
  return parsed;
}

RemoteServer::RemoteServer(ServerUrl url, const std::string& username, const std::string& password)
    : url_(std::move(url)), client_(std::make_unique<http::Client>(url_.host, url_.port)) {
  http::Headers headers;
  headers.Set("Content-Type", "application/json");
  const Json body = {{"username", username}, {"password", password}, {"loginMode", 1}};
  http::Response response;
  try {
    response = client_->Send("POST", url_.base_path + "/api/auth/login", headers, body.dump());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("cannot reach " + url_.text + ": " + e.what());
  }
  auto token = response.headers.Get("X-MSTR-AuthToken");
  if (response.status / 100 != 2 || !token) {
    throw std::runtime_error(url_.text + " refused the login of '" + username +
                             "': " + ErrorText(response));
  }
  token_ = std::string(*token);
}

RemoteServer::~RemoteServer() {
  try {
    http::Headers headers;
    headers.Set("X-MSTR-AuthToken", token_);
    client_->Send("POST", url_.base_path + "/api/auth/logout", headers);
  } catch (const std::exception&) {
  }
}

Json RemoteServer::Call(std::string_view method, const std::string& target, const Json& body,
                        const std::string& project_id) {
  http::Headers headers;
  headers.Set("X-MSTR-AuthToken", token_);
  if (!project_id.empty()) headers.Set("X-MSTR-ProjectID", project_id);
  std::string text;
  if (!body.is_null()) {
    headers.Set("Content-Type", "application/json");
    text = body.dump();
  }
  http::Response response;
  try {
    response = client_->Send(method, url_.base_path + target, headers, text);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("cannot reach " + url_.text + ": " + e.what());
  }
  if (response.status / 100 != 2) {
    throw std::runtime_error(url_.text + ": " + ErrorText(response));
  }
  if (response.body.empty()) return nullptr;
  try {
    return Json::parse(response.body);
  } catch (const std::exception&) {
    throw std::runtime_error(url_.text + ": the answer to " + std::string(method) + " " + target +
                             " is not JSON");
  }
}

}  // namespace tessera::app
