// Operations: liveness and readiness for load balancers, and Prometheus metrics.
#include <chrono>

#include "api/routes.h"
#include "core/error.h"
#include "core/prometheus_text.h"
#include "core/strings.h"
#include "service/node_stats.h"

namespace tessera::api::ops {

namespace {

const auto kStarted = std::chrono::steady_clock::now();

double UptimeSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - kStarted).count();
}

http::Response Live(RequestContext& context) {
  return context.Reply(200, {{"status", "live"},
                             {"version", context.options().tessera_version},
                             {"node", context.options().node_name},
                             {"uptimeSeconds", static_cast<int64_t>(UptimeSeconds())}});
}

Json CheckJson(const service::HealthCheck& check) {
  return {{"name", check.name},
          {"status", !check.configured ? "unset"
                     : check.ok        ? "up"
                                       : "down"},
          {"detail", check.detail},
          {"milliseconds", std::round(check.milliseconds * 100) / 100}};
}

http::Response Ready(RequestContext& context) {
  const service::Readiness readiness = context.services().readiness.Current();
  Json checks = Json::array();
  for (const auto& check : readiness.checks) checks.push_back(CheckJson(check));
  const char* status = !readiness.ready ? "unavailable" : readiness.degraded ? "degraded" : "ready";
  return context.Reply(readiness.ready ? 200 : 503, {{"status", status},
                                                     {"version", context.options().tessera_version},
                                                     {"node", context.options().node_name},
                                                     {"checks", std::move(checks)}});
}

void Gauge(PrometheusText& out, std::string_view name, std::string_view help, double value) {
  out.Family(name, "gauge", help);
  out.Sample(name, value);
}

void WritePoolUse(PrometheusText& out, std::string_view name, const PrometheusText::Labels& labels,
                  const PoolUsage& usage) {
  PrometheusText::Labels in_use = labels;
  in_use.emplace_back("state", "in_use");
  PrometheusText::Labels idle = labels;
  idle.emplace_back("state", "idle");
  out.Sample(name, in_use, static_cast<double>(usage.in_use));
  out.Sample(name, idle, static_cast<double>(usage.open - usage.in_use));
}

void WriteServiceStats(PrometheusText& out, const service::NodeStats& stats) {
  Gauge(out, "tessera_storage_up", "1 when the storage service answered this scrape.",
        stats.storage_counts ? 1 : 0);
  if (stats.storage_counts) {
    Gauge(out, "tessera_sessions", "Sessions in the storage service (every node's).",
          static_cast<double>(stats.sessions));
    out.Family("tessera_jobs", "gauge", "Jobs in the storage service, by kind and state.");
    for (const auto& [key, count] : stats.jobs) {
      out.Sample("tessera_jobs", {{"kind", key.first}, {"state", key.second}},
                 static_cast<double>(count));
    }
  }
  Gauge(out, "tessera_instances", "Report, cube and dashboard instances held by this node.",
        static_cast<double>(stats.instances));
  Gauge(out, "tessera_instance_result_bytes", "Memory of the instance results cached here.",
        static_cast<double>(stats.instance_result_bytes));
  Gauge(out, "tessera_instance_result_budget_bytes", "The budget of cached instance results.",
        static_cast<double>(stats.instance_result_budget_bytes));
  Gauge(out, "tessera_cubes_loaded", "Published cubes and datasets held in memory here.",
        static_cast<double>(stats.cubes.cubes));
  Gauge(out, "tessera_cube_bytes", "Memory of the cubes and datasets held here.",
        static_cast<double>(stats.cubes.bytes));
  Gauge(out, "tessera_cube_rollup_bytes",
        "Memory of the roll-ups of the cubes held here, on top of tessera_cube_bytes.",
        static_cast<double>(stats.cubes.rollup_bytes));
  Gauge(out, "tessera_cube_publishes_running", "Cube publishes running on this node.",
        static_cast<double>(stats.cubes.publishing));
  out.Family("tessera_storage_pool_connections", "gauge",
             "Connections of the storage service's pool, by state.");
  WritePoolUse(out, "tessera_storage_pool_connections", {}, stats.storage_pool);
  Gauge(out, "tessera_storage_pool_max_connections", "The most the storage pool opens.",
        static_cast<double>(stats.storage_pool.max));
  out.Family("tessera_warehouse_pool_connections", "gauge",
             "Connections of each warehouse's pool (warehouses opened so far), by state.");
  for (const auto& [name, usage] : stats.warehouse_pools) {
    WritePoolUse(out, "tessera_warehouse_pool_connections", {{"warehouse", name}}, usage);
  }
  out.Family("tessera_warehouse_pool_max_connections", "gauge",
             "The most each warehouse's pool opens.");
  for (const auto& [name, usage] : stats.warehouse_pools) {
    out.Sample("tessera_warehouse_pool_max_connections", {{"warehouse", name}},
               static_cast<double>(usage.max));
  }
}

void RequireMetricsToken(const RequestContext& context) {
  const std::string& token = context.options().metrics_token;
  if (token.empty()) return;
  auto given = context.Header("Authorization");
  if (given && Trim(*given) == "Bearer " + token) return;
  throw Error(ErrorCode::kSessionInvalid,
              "/metrics requires the metrics token of this server's configuration: send "
              "'Authorization: Bearer <token>'");
}

http::Response Metrics(RequestContext& context) {
  RequireMetricsToken(context);
  const ApiOptions& options = context.options();
  PrometheusText out;
  out.Family("tessera_build_info", "gauge",
             "Always 1; labels give this server's version and the platform version it reports.");
  out.Sample("tessera_build_info",
             {{"version", options.tessera_version}, {"reported_version", options.version}}, 1);
  Gauge(out, "tessera_uptime_seconds", "Seconds since this node started.", UptimeSeconds());
  WriteServiceStats(out, service::CollectNodeStats(context.services()));
  if (options.node_metrics) options.node_metrics(out);
  return http::Response::Text(200, std::string(PrometheusText::kContentType), out.text());
}

}  // namespace

void RegisterOpsRoutes(Endpoints& endpoints) {
  const EndpointSpec kOps{Access::kPublic, FieldsDialect::kNone};
  endpoints.Add("GET", "/health/live", kOps, Live);
  endpoints.Add("GET", "/health/ready", kOps, Ready);
  endpoints.Add("GET", "/metrics", kOps, Metrics);
}

}  // namespace tessera::api::ops
