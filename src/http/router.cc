#include "http/router.h"

#include <algorithm>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include "core/strings.h"

namespace tessera::http {
namespace {

// A registered route at a trie leaf: parameter names in path order, so templates that share a
// prefix may name their parameters differently ("/a/{id}" and "/a/{name}/b").
struct Route {
  std::string path_template;
  std::vector<std::string> param_names;
  Handler handler;
  uint32_t tags = 0;
};

// Path segments after the leading '/'. One trailing slash after a segment is dropped ("/x/" ==
// "/x"); "/" has no segments while "//" has one empty segment, which only an empty literal matches.
std::vector<std::string_view> PathSegments(std::string_view path) {
  std::vector<std::string_view> segments;
  path.remove_prefix(1);
  if (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (path.empty()) return segments;
  size_t start = 0;
  while (true) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) {
      segments.push_back(path.substr(start));
      return segments;
    }
    segments.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
}

bool IsParameterSegment(std::string_view segment) {
  return segment.find('{') != std::string_view::npos || segment.find('}') != std::string_view::npos;
}

// The name inside "{name}"; throws for anything else that contains a brace.
std::string ParameterName(std::string_view segment, std::string_view path_template) {
  bool well_formed = segment.size() > 2 && segment.front() == '{' && segment.back() == '}' &&
                     !IsParameterSegment(segment.substr(1, segment.size() - 2));
  if (!well_formed) {
    throw std::invalid_argument("Malformed route template '" + std::string(path_template) +
                                "': segment '" + std::string(segment) +
                                "' must be a literal or exactly '{name}'");
  }
  return std::string(segment.substr(1, segment.size() - 2));
}

std::optional<std::vector<std::string>> DecodeSegments(std::string_view path) {
  std::vector<std::string> decoded;
  for (std::string_view segment : PathSegments(path)) {
    std::optional<std::string> text = PercentDecode(segment, /*plus_is_space=*/false);
    if (!text) return std::nullopt;
    decoded.push_back(std::move(*text));
  }
  return decoded;
}

}  // namespace

struct Router::Node {
  std::map<std::string, std::unique_ptr<Node>, std::less<>> literals;
  std::unique_ptr<Node> parameter;
  std::map<std::string, Route, std::less<>> routes;  // by method
};

Router::Router() : root_(std::make_unique<Node>()) {}
Router::~Router() = default;
Router::Router(Router&&) noexcept = default;
Router& Router::operator=(Router&&) noexcept = default;

void Router::Add(std::string_view method, std::string_view path_template, Handler handler,
                 uint32_t tags) {
  if (method.empty()) throw std::invalid_argument("A route needs a method");
  if (path_template.empty() || path_template.front() != '/') {
    throw std::invalid_argument("Malformed route template '" + std::string(path_template) +
                                "': it must start with '/'");
  }
  Node* node = root_.get();
  std::vector<std::string> param_names;
  for (std::string_view segment : PathSegments(path_template)) {
    if (segment.empty()) {
      throw std::invalid_argument("Malformed route template '" + std::string(path_template) +
                                  "': empty segment");
    }
    std::unique_ptr<Node>* child;
    if (IsParameterSegment(segment)) {
      std::string name = ParameterName(segment, path_template);
      if (std::find(param_names.begin(), param_names.end(), name) != param_names.end()) {
        throw std::invalid_argument("Malformed route template '" + std::string(path_template) +
                                    "': parameter '" + name + "' appears twice");
      }
      param_names.push_back(std::move(name));
      child = &node->parameter;
    } else {
      child = &node->literals[std::string(segment)];
    }
    if (!*child) *child = std::make_unique<Node>();
    node = child->get();
  }
  std::string method_key = ToUpper(method);
  if (node->routes.contains(method_key)) {
    throw std::invalid_argument("Duplicate route " + method_key + " " + std::string(path_template));
  }
  node->routes.emplace(
      std::move(method_key),
      Route{std::string(path_template), std::move(param_names), std::move(handler), tags});
}

namespace {

struct Candidate {
  const std::map<std::string, Route, std::less<>>* routes;
  std::vector<std::string_view> values;  // the segments bound to parameters, in order
};

// Every leaf that `segments` reaches, literal branches before the parameter branch at each
// position, so the first candidate is the most specific.
template <typename NodeT>
void CollectCandidates(const NodeT& node, const std::vector<std::string>& segments, size_t index,
                       std::vector<std::string_view>& values, std::vector<Candidate>& out) {
  if (index == segments.size()) {
    if (!node.routes.empty()) out.push_back(Candidate{&node.routes, values});
    return;
  }
  const std::string& segment = segments[index];
  if (auto literal = node.literals.find(segment); literal != node.literals.end()) {
    CollectCandidates(*literal->second, segments, index + 1, values, out);
  }
  if (node.parameter && !segment.empty()) {
    values.push_back(segment);
    CollectCandidates(*node.parameter, segments, index + 1, values, out);
    values.pop_back();
  }
}

const Route* FindRoute(const std::map<std::string, Route, std::less<>>& routes,
                       const std::string& method) {
  if (auto it = routes.find(method); it != routes.end()) return &it->second;
  if (method == "HEAD") return FindRoute(routes, "GET");
  return nullptr;
}

}  // namespace

RouteMatch Router::Match(std::string_view method, std::string_view path) const {
  RouteMatch match;
  if (path.empty() || path.front() != '/') return match;
  std::optional<std::vector<std::string>> segments = DecodeSegments(path);
  if (!segments) return match;

  std::vector<Candidate> candidates;
  std::vector<std::string_view> values;
  CollectCandidates(*root_, *segments, 0, values, candidates);

  std::string method_key = ToUpper(method);
  std::set<std::string> allowed;
  for (const Candidate& candidate : candidates) {
    if (const Route* route = FindRoute(*candidate.routes, method_key)) {
      match.kind = RouteMatch::Kind::kFound;
      match.handler = &route->handler;
      match.tags = route->tags;
      match.route = route->path_template;
      for (size_t i = 0; i < route->param_names.size(); ++i) {
        match.params.emplace(route->param_names[i], std::string(candidate.values[i]));
      }
      return match;
    }
    for (const auto& [route_method, route] : *candidate.routes) allowed.insert(route_method);
  }
  if (!allowed.empty()) {
    match.kind = RouteMatch::Kind::kMethodNotAllowed;
    match.allowed_methods.assign(allowed.begin(), allowed.end());
  }
  return match;
}

namespace {

template <typename NodeT>
void CollectRoutes(const NodeT& node, std::vector<RouteEntry>& out) {
  for (const auto& [method, route] : node.routes) out.push_back({method, route.path_template});
  for (const auto& [segment, child] : node.literals) CollectRoutes(*child, out);
  if (node.parameter) CollectRoutes(*node.parameter, out);
}

}  // namespace

std::vector<RouteEntry> Router::Routes() const {
  std::vector<RouteEntry> routes;
  CollectRoutes(*root_, routes);
  std::sort(routes.begin(), routes.end(), [](const RouteEntry& a, const RouteEntry& b) {
    return std::tie(a.path_template, a.method) < std::tie(b.path_template, b.method);
  });
  return routes;
}

}  // namespace tessera::http
