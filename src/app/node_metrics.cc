#include "app/node_metrics.h"

#include "core/process_stats.h"

namespace tessera::app {
namespace {

// One family, both pools, so the family's lines stay together as the format requires.
void WritePoolFamily(PrometheusText& out, const NodeMetricSources& sources, std::string_view name,
                     std::string_view help, size_t (*figure)(const ThreadPool&)) {
  out.Family(name, "gauge", help);
  for (const auto& [pool, threads] :
       {std::pair<std::string_view, const ThreadPool*>{"compute", sources.compute},
        {"metadata", sources.metadata}}) {
    if (threads != nullptr)
      out.Sample(name, {{"pool", pool}}, static_cast<double>(figure(*threads)));
  }
}

void WritePools(PrometheusText& out, const NodeMetricSources& sources) {
  WritePoolFamily(out, sources, "tessera_pool_threads", "Threads of each request pool.",
                  [](const ThreadPool& pool) { return pool.size(); });
  WritePoolFamily(out, sources, "tessera_pool_busy_threads",
                  "Threads of each request pool at work now.",
                  [](const ThreadPool& pool) { return pool.BusyWorkers(); });
  WritePoolFamily(
      out, sources, "tessera_pool_queued_tasks",
      "Requests waiting for a thread of each pool (compute: data work; metadata: the rest).",
      [](const ThreadPool& pool) { return pool.QueueLength(); });
}

void WriteProcess(PrometheusText& out) {
  const ProcessStats stats = ReadProcessStats();
  out.Family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.");
  out.Sample("process_resident_memory_bytes", static_cast<double>(stats.resident_bytes));
  out.Family("process_cpu_seconds_total", "counter", "User and system CPU time in seconds.");
  out.Sample("process_cpu_seconds_total", stats.cpu_seconds);
  out.Family("process_open_fds", "gauge", "Open file descriptors.");
  out.Sample("process_open_fds", static_cast<double>(stats.open_fds));
  out.Family("process_max_fds", "gauge", "The limit of open file descriptors.");
  out.Sample("process_max_fds", static_cast<double>(stats.max_fds));
  out.Family("process_start_time_seconds", "gauge", "Start time since the Unix epoch, seconds.");
  out.Sample("process_start_time_seconds", stats.start_time_seconds);
}

}  // namespace

void WriteNodeMetrics(PrometheusText& out, const NodeMetricSources& sources) {
  if (sources.exchanges != nullptr) sources.exchanges->WriteTo(out);
  if (sources.server != nullptr) {
    out.Family("tessera_http_open_connections", "gauge", "Client connections open now.");
    out.Sample("tessera_http_open_connections",
               static_cast<double>(sources.server->OpenConnections()));
  }
  WritePools(out, sources);
  WriteProcess(out);
}

}  // namespace tessera::app
