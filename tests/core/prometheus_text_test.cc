#include "core/prometheus_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

#include "core/latency_histogram.h"

namespace tessera {
namespace {

TEST(PrometheusText, WritesFamiliesAndSamplesWithEscapedLabels) {
  PrometheusText out;
  out.Family("tessera_things", "gauge", "Things, with a \\ and a\nnewline.");
  out.Sample("tessera_things", {{"name", "a \"quoted\" \\ path\n"}}, 3);
  out.Sample("tessera_things", 0.25);
  out.Sample("tessera_things", {{"a", "1"}, {"b", "2"}}, INFINITY);
  EXPECT_EQ(out.text(),
            "# HELP tessera_things Things, with a \\\\ and a\\nnewline.\n"
            "# TYPE tessera_things gauge\n"
            "tessera_things{name=\"a \\\"quoted\\\" \\\\ path\\n\"} 3\n"
            "tessera_things 0.25\n"
            "tessera_things{a=\"1\",b=\"2\"} +Inf\n");
}

TEST(LatencyHistogram, BucketsAreCumulativeAndEndWithEveryObservation) {
  LatencyHistogram histogram;
  for (double seconds : {0.0005, 0.001, 0.003, 0.2, 7.0, 120.0}) histogram.Observe(seconds);
  PrometheusText out;
  histogram.WriteTo(out, "t", {{"route", "/x"}});
  const std::string& text = out.text();
  // A bound includes the observations equal to it (le = "less or equal").
  EXPECT_NE(text.find("t_bucket{route=\"/x\",le=\"0.001\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("t_bucket{route=\"/x\",le=\"0.005\"} 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("t_bucket{route=\"/x\",le=\"0.25\"} 4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("t_bucket{route=\"/x\",le=\"10\"} 5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("t_bucket{route=\"/x\",le=\"60\"} 5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("t_bucket{route=\"/x\",le=\"+Inf\"} 6\n"), std::string::npos) << text;
  EXPECT_NE(text.find("t_count{route=\"/x\"} 6\n"), std::string::npos) << text;
  EXPECT_NE(text.find("t_sum{route=\"/x\"} 127.2045\n"), std::string::npos) << text;
}

TEST(LatencyHistogram, CountsEveryObservationFromManyThreads) {
  LatencyHistogram histogram;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) histogram.Observe(0.002);
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(histogram.count(), 40000u);
}

}  // namespace
}  // namespace tessera
