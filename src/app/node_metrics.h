// app/node_metrics.h
//
// The part of /metrics that the node itself holds, below the services' figures: HTTP requests by
// route (http::ExchangeMetrics), open connections, the compute and metadata thread pools (busy
// threads, queued tasks) and the process (resident memory, CPU, file descriptors) in the standard
// process_* names.
#pragma once

#include "core/prometheus_text.h"
#include "core/thread_pool.h"
#include "http/exchange_metrics.h"
#include "http/server.h"

namespace tessera::app {

struct NodeMetricSources {
  const http::ExchangeMetrics* exchanges = nullptr;
  const http::Server* server = nullptr;  // null until it is started
  const ThreadPool* compute = nullptr;
  const ThreadPool* metadata = nullptr;
};

void WriteNodeMetrics(PrometheusText& out, const NodeMetricSources& sources);

}  // namespace tessera::app
