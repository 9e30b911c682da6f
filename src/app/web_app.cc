#include "app/web_app.h"

#include <utility>

#include "api/error_response.h"
#include "core/error.h"

namespace tessera::app {

namespace {

constexpr std::string_view kAppPrefix = "/app";
constexpr std::string_view kAssetsPrefix = "/app/assets/";
constexpr std::string_view kChartLibrary = "vendor/chart.min.js";
// Debian's libjs-chart.js (scripts/install-deps.sh installs it).
constexpr std::string_view kDebianChartLibrary = "/usr/share/javascript/chart.js/chart.min.js";

// The path after the context path, or nullopt when the request is outside it.
std::optional<std::string_view> PathInContext(std::string_view path, std::string_view context) {
  if (!path.starts_with(context)) return std::nullopt;
  path.remove_prefix(context.size());
  if (path.empty()) return "/";
  if (path.front() != '/') return std::nullopt;
  return path;
}

bool IsAppPath(std::string_view path) {
  return path == "/" || path == kAppPrefix || path.starts_with("/app/");
}

}  // namespace

WebApp::WebApp(std::string web_dir, std::string context_path)
    : web_dir_(std::move(web_dir)),
      context_path_(std::move(context_path)),
      assets_(std::filesystem::path(web_dir_) / "assets") {}

std::optional<http::Response> WebApp::Handle(const http::Request& request) const {
  std::optional<std::string_view> path = PathInContext(request.path, context_path_);
  if (!path || !IsAppPath(*path)) return std::nullopt;
  if (request.method != "GET" && request.method != "HEAD") {
    return api::MethodNotAllowedResponse(request.request_id);
  }
  if (web_dir_.empty()) {
    return NotFound(request,
                    "The web app is not installed: no web directory was found; set "
                    "--web-dir (TESSERA_WEB_DIR, web.dir) to the folder of index.html.");
  }
  if (path->starts_with(kAssetsPrefix)) {
    return ServeAsset(path->substr(kAssetsPrefix.size()), request);
  }
  auto index =
      http::StaticFiles::ServeFile(std::filesystem::path(web_dir_) / "index.html", request);
  if (!index) return NotFound(request, "The web app's index.html is missing from " + web_dir_);
  return std::move(*index);
}

http::Response WebApp::ServeAsset(std::string_view asset, const http::Request& request) const {
  std::optional<http::Response> answer;
  if (asset == kChartLibrary) {
    answer = http::StaticFiles::ServeFile(std::filesystem::path(web_dir_) / kChartLibrary, request);
    if (!answer) answer = http::StaticFiles::ServeFile(kDebianChartLibrary, request);
  } else {
    answer = assets_.Serve(asset, request);
  }
  if (!answer) return NotFound(request, "No asset '" + std::string(asset) + "' in the web app.");
  return std::move(*answer);
}

http::Response WebApp::NotFound(const http::Request& request, const std::string& what) const {
  return api::ErrorResponse(Error(ErrorCode::kNotFound, what), request.request_id);
}

}  // namespace tessera::app
