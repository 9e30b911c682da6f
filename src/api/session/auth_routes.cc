// Login and logout: POST /api/auth/login and POST /api/auth/logout.
#include <string>

#include "api/routes.h"
#include "core/error.h"
#include "core/ids.h"
#include "core/strings.h"

namespace tessera::api::session {

namespace {

constexpr EndpointSpec kPublicNoFields{Access::kPublic, FieldsDialect::kNone};

bool IsFormBody(const http::Request& request) {
  auto type = request.headers.Get("Content-Type");
  if (type) return ContainsIgnoreCase(*type, "application/x-www-form-urlencoded");
  std::string_view body = Trim(request.body);
  return !body.empty() && body.front() != '{';
}

int ParseLoginMode(std::optional<std::string> text) {
  if (!text || text->empty()) return service::session::kLoginModeStandard;
  auto mode = ParseInt(*text);
  if (!mode || *mode < INT32_MIN || *mode > INT32_MAX) {
    throw Error(ErrorCode::kInvalidInput, "loginMode: '" + *text + "' is not an integer");
  }
  return static_cast<int>(*mode);
}

std::optional<std::string> JsonText(const Json& body, const char* key) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<int64_t>());
  throw Error(ErrorCode::kInvalidInput, std::string(key) + ": expected a string or an integer");
}

service::session::LoginRequest ParseLogin(const RequestContext& context) {
  const http::Request& request = context.request();
  std::function<std::optional<std::string>(const char*)> field;
  http::QueryParams form;
  Json json;
  if (IsFormBody(request)) {
    form = http::QueryParams::Parse(request.body);
    field = [&form](const char* key) -> std::optional<std::string> {
      auto value = form.Get(key);
      return value ? std::optional<std::string>(std::string(*value)) : std::nullopt;
    };
  } else {
    json = context.BodyJson();
    field = [&json](const char* key) { return JsonText(json, key); };
  }
  service::session::LoginRequest login;
  login.client_address = request.remote_address;
  login.login_mode = ParseLoginMode(field("loginMode"));
  login.username = field("username").value_or("");
  login.password = field("password").value_or("");
  if (auto application_type = field("applicationType")) {
    auto parsed = ParseInt(*application_type);
    if (!parsed) {
      throw Error(ErrorCode::kInvalidInput,
                  "applicationType: '" + *application_type + "' is not an integer");
    }
    login.application_type = static_cast<int>(*parsed);
  }
  return login;
}

http::Response Login(RequestContext& context) {
  service::session::LoginRequest login = ParseLogin(context);
  if (login.login_mode == service::session::kLoginModeStandard && login.username.empty()) {
    throw Error(ErrorCode::kAuthenticationFailed, "Login failed");
  }
  std::string token = context.services().sessions.Login(login);
  http::Response response = RequestContext::NoContent();
  response.headers.Set("X-MSTR-AuthToken", token);
  response.headers.Set("X-SVC-AuthToken", token);
  response.headers.Set("Set-Cookie", "JSESSIONID=" + NewObjectId() + "; Path=" +
                                         context.options().context_path + "/; HttpOnly");
  return response;
}

http::Response Logout(RequestContext& context) {
  auto token = context.Header("X-MSTR-AuthToken");
  if (!token) token = context.Header("X-SVC-AuthToken");
  service::Services& services = context.services();
  const std::string session_id =
      services.sessions.Logout(token ? Trim(*token) : std::string_view());
  services.instances.RemoveSession(session_id);
  return RequestContext::NoContent();
}

}  // namespace

void RegisterAuthRoutes(Endpoints& endpoints) {
  endpoints.Add("POST", "/api/auth/login", kPublicNoFields, Login);
  endpoints.Add("POST", "/api/auth/logout", kPublicNoFields, Logout);
}

}  // namespace tessera::api::session
