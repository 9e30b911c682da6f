// app/web_app.h
//
// The browser app (the repository's web/) served by the node itself, under the context path:
//   GET /, /app, /app/...            -> <web dir>/index.html: the app routes in the browser
//   GET /app/assets/vendor/chart.min.js
//                                    -> the chart library: <web dir>/vendor/chart.min.js when the
//                                       installation ships one, else Debian's libjs-chart.js
//   GET /app/assets/...              -> <web dir>/assets/...
// with the caching and path rules of http::StaticFiles. Handle() answers nullopt for every
// other path (they belong to the REST API). On the app's paths, a missing asset, or any path when
// no web directory was found, answers 404 ERR004 in the API's error shape; a method other than
// GET or HEAD answers 405 ERR001. Thread-safe; reads files only.
#pragma once

#include <optional>
#include <string>

#include "http/message.h"
#include "http/static_files.h"

namespace tessera::app {

class WebApp {
 public:
  // `web_dir` may be "" (not installed); `context_path` is "" or "/Name" without a trailing '/'.
  WebApp(std::string web_dir, std::string context_path);

  std::optional<http::Response> Handle(const http::Request& request) const;

 private:
  http::Response ServeAsset(std::string_view asset, const http::Request& request) const;
  http::Response NotFound(const http::Request& request, const std::string& what) const;

  std::string web_dir_;
  std::string context_path_;
  http::StaticFiles assets_;
};

}  // namespace tessera::app
