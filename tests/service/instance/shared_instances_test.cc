// SharedInstances over one storage service and two nodes' instance stores, on SQLite and
// PostgreSQL: a node finds another node's instance only for its session, object and kind; a
// change recorded on one node makes the other's copy stale; a change made from a stale copy is
// refused (409) and drops that copy; an instance a node drops for its session's cap loses its
// record on every node.
#include "service/instance/shared_instances.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "support/store_backend_test.h"

namespace tessera::testing {
namespace {

using namespace std::chrono_literals;

struct Nothing : service::instance::InstanceDefinition {};

constexpr char kSession[] = "SESSION-1";
constexpr char kCube[] = "C0FFEE00C0FFEE00C0FFEE00C0FFEE00";

class SharedInstancesTest : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
    node_a_ = std::make_unique<service::instance::SharedInstances>(*store_, instances_a_, 30min);
    node_b_ = std::make_unique<service::instance::SharedInstances>(*store_, instances_b_, 30min);
  }

  std::shared_ptr<service::instance::Instance> MadeOnA(const Json& data) {
    auto instance = instances_a_.Create({kSession, kCube}, std::make_shared<const Nothing>());
    node_a_->Create(*instance, "PROJECT", "dataset", data);
    return instance;
  }

  // What node B does for an id it does not hold: find the record, adopt the instance.
  std::shared_ptr<service::instance::Instance> RebuiltOnB(const std::string& id) {
    auto record = node_b_->Find({kSession, kCube}, id, "dataset");
    if (!record) return nullptr;
    auto instance =
        instances_b_.Adopt(record->id, {kSession, kCube}, std::make_shared<const Nothing>());
    node_b_->Adopted(*instance, *record);
    return instance;
  }

  std::unique_ptr<storage::MetadataStore> store_;
  service::instance::InstanceStore instances_a_{{.per_session_cap = 2}};
  service::instance::InstanceStore instances_b_;
  std::unique_ptr<service::instance::SharedInstances> node_a_;
  std::unique_ptr<service::instance::SharedInstances> node_b_;
};

TEST_P(SharedInstancesTest, AnotherNodeFindsTheRecordOnlyForItsSessionObjectAndKind) {
  auto instance = MadeOnA({{"sorting", "by year"}});
  auto record = node_b_->Find({kSession, kCube}, instance->id(), "dataset");
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->project_id, "PROJECT");
  EXPECT_EQ(record->data["sorting"], "by year");
  EXPECT_EQ(record->revision, 1);

  std::string lower = instance->id();
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  EXPECT_TRUE(node_b_->Find({kSession, kCube}, lower, "dataset").has_value());
  EXPECT_FALSE(node_b_->Find({"SESSION-2", kCube}, instance->id(), "dataset").has_value());
  EXPECT_FALSE(
      node_b_->Find({kSession, std::string(32, 'A')}, instance->id(), "dataset").has_value());
  EXPECT_FALSE(node_b_->Find({kSession, kCube}, instance->id(), "dashboard").has_value());
  EXPECT_FALSE(node_b_->Find({kSession, kCube}, "not an id", "dataset").has_value());
}

TEST_P(SharedInstancesTest, AChangeOnOneNodeMakesTheOthersCopyStale) {
  auto on_a = MadeOnA({{"sorting", "by year"}});
  auto on_b = RebuiltOnB(on_a->id());
  ASSERT_NE(on_b, nullptr);
  EXPECT_TRUE(node_a_->IsCurrent(*on_a));
  EXPECT_TRUE(node_b_->IsCurrent(*on_b));

  node_b_->Revise(*on_b, {{"sorting", "by region"}});
  EXPECT_TRUE(node_b_->IsCurrent(*on_b));
  EXPECT_FALSE(node_a_->IsCurrent(*on_a)) << "node A would show the sorting before the change";
  EXPECT_EQ(node_a_->Find({kSession, kCube}, on_a->id(), "dataset")->data["sorting"], "by region");
}

TEST_P(SharedInstancesTest, AChangeFromAStaleCopyIsRefusedAndDropsTheCopy) {
  auto on_a = MadeOnA({{"sorting", "by year"}});
  auto on_b = RebuiltOnB(on_a->id());
  ASSERT_NE(on_b, nullptr);
  node_b_->Revise(*on_b, {{"sorting", "by region"}});
  try {
    node_a_->Revise(*on_a, {{"sorting", "by month"}});
    FAIL() << "a change from a stale copy was recorded";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kAlreadyExists);
    EXPECT_NE(error.message().find("Apply this change again"), std::string::npos)
        << error.message();
  }
  EXPECT_EQ(node_b_->Find({kSession, kCube}, on_a->id(), "dataset")->data["sorting"], "by region");
  EXPECT_EQ(instances_a_.InstanceCount(), 0u) << "node A kept its stale copy";

  node_b_->Remove(on_b->id());
  try {
    node_b_->Revise(*on_b, {{"sorting", "by day"}});
    FAIL() << "a change of a removed instance was recorded";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kNotFound);
  }
}

TEST_P(SharedInstancesTest, AnInstanceDroppedForTheSessionsCapEndsOnEveryNode) {
  auto oldest = MadeOnA({{"n", 1}});
  auto second = MadeOnA({{"n", 2}});
  auto third = MadeOnA({{"n", 3}});  // the cap is 2: the oldest goes
  EXPECT_EQ(instances_a_.InstanceCount(), 2u);
  EXPECT_FALSE(node_b_->Find({kSession, kCube}, oldest->id(), "dataset").has_value());
  EXPECT_TRUE(node_b_->Find({kSession, kCube}, second->id(), "dataset").has_value());
  EXPECT_TRUE(node_b_->Find({kSession, kCube}, third->id(), "dataset").has_value());
}

INSTANTIATE_TEST_SUITE_P(Backends, SharedInstancesTest, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
