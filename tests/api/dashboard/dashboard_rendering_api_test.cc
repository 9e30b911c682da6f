// Parallel rendering of a dashboard's visualizations, proved by behaviour rather than timing: the
// node's render hook holds one visualization's computation, and the test observes which other
// results can be read meanwhile.
#include <future>

#include "api/dashboard/dashboard_api.h"

namespace tessera::testing {
namespace {

class DashboardRenderingApi : public DashboardApi {
 protected:
  // Reads a visualization on a thread of its own.
  std::future<int> ReadLater(const std::string& dashboard, const std::string& mid,
                             const std::string& key) {
    return std::async(std::launch::async, [this, dashboard, mid, key] {
      ApiClient own(port());
      return own
          .Get("/api/v2/dossiers/" + dashboard + "/instances/" + mid +
                   "/chapters/K1/visualizations/" + key,
               AuthHeaders(token()))
          .status;
    });
  }

  static bool Finished(std::future<int>& read) {
    return read.wait_for(std::chrono::milliseconds(0)) == std::future_status::ready;
  }

  const std::vector<std::string> page_{"W1", "W2", "W3", "W4", "W5", "W6"};
};

TEST_P(DashboardRenderingApi, WithTheFlagAHeldVisualizationDoesNotBlockTheOthers) {
  gate_->Hold("W1");
  const std::string mid = CreateInstance(overview_, {{"enableParallelRendering", true}});
  ASSERT_EQ(Status(overview_, mid)["parallelRendering"], true);
  ASSERT_TRUE(gate_->WaitFor([&] { return gate_->HasComputed("W1"); }));
  std::future<int> held = ReadLater(overview_, mid, "W1");
  for (size_t i = 1; i < page_.size(); ++i) {
    EXPECT_EQ(GetViz(overview_, mid, page_[i]).status, 200) << page_[i];
  }
  EXPECT_FALSE(Finished(held));
  gate_->Release("W1");
  EXPECT_EQ(held.get(), 200);
}

TEST_P(DashboardRenderingApi, WithoutTheFlagVisualizationsWaitTheirTurn) {
  gate_->Hold("W1");
  const std::string mid = CreateInstance(overview_, {{"enableParallelRendering", false}});
  ASSERT_EQ(Status(overview_, mid)["parallelRendering"], false);
  std::future<int> third = ReadLater(overview_, mid, "W3");
  ASSERT_TRUE(gate_->WaitFor([&] { return gate_->HasWaited("W3", "W1"); }));
  EXPECT_EQ(gate_->Computed(), std::vector<std::string>{"W1"});
  EXPECT_FALSE(Finished(third));
  gate_->Release("W1");
  EXPECT_EQ(third.get(), 200);
  for (const auto& key : page_) EXPECT_EQ(GetViz(overview_, mid, key).status, 200);
  const std::vector<std::string> computed = gate_->Computed();
  ASSERT_GE(computed.size(), page_.size());
  EXPECT_EQ(std::vector<std::string>(computed.begin(), computed.begin() + page_.size()), page_);
}

TEST_P(DashboardRenderingApi, ADashboardWithoutThePropertyNeverRendersInParallel) {
  const std::string mid = CreateInstance(regional_, {{"enableParallelRendering", true}});
  EXPECT_EQ(Status(regional_, mid)["parallelRendering"], false);
}

TEST_P(DashboardRenderingApi, AManipulationClearsTheFlagUnlessItAsksForIt) {
  const std::string mid = CreateInstance(overview_);
  EXPECT_EQ(Status(overview_, mid)["parallelRendering"], true);
  const Json clear = {{{"key", "W10"}}};
  ASSERT_EQ(PutFilters(overview_, mid, clear).status, 204);
  EXPECT_EQ(Status(overview_, mid)["parallelRendering"], false);

  // Asked for, the render after the manipulation is parallel again, and a held visualization
  // does not block the others.
  gate_->Hold("W1");
  gate_->Reset();
  ASSERT_EQ(PutFilters(overview_, mid, clear, "?parallelRenderingAfterManipulation=true").status,
            204);
  EXPECT_EQ(Status(overview_, mid)["parallelRendering"], true);
  ASSERT_TRUE(gate_->WaitFor([&] { return gate_->HasComputed("W1"); }));
  EXPECT_EQ(GetViz(overview_, mid, "W5").status, 200);
  gate_->Release("W1");
  EXPECT_EQ(GetViz(overview_, mid, "W1").status, 200);

  ASSERT_EQ(client().Send("PUT", Instances(overview_) + "/" + mid + "/refresh", Headers()).status,
            204);
  EXPECT_EQ(Status(overview_, mid)["parallelRendering"], false);
}

TEST_P(DashboardRenderingApi, ParallelAndSequentialRenderingGiveTheSameResults) {
  const std::string parallel = CreateInstance(overview_, {{"enableParallelRendering", true}});
  const std::string sequential = CreateInstance(overview_, {{"enableParallelRendering", false}});
  for (const auto& key : page_) {
    auto a = GetViz(overview_, parallel, key);
    auto b = GetViz(overview_, sequential, key);
    ASSERT_EQ(a.status, 200);
    EXPECT_EQ(a.body, b.body) << key;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, DashboardRenderingApi, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
