// SemanticModels on the Tutorial project, on SQLite and PostgreSQL: a project's model is built
// once and shared while no object changes, and an object changed anywhere -- through this store,
// another node's or another process's -- is in the very next model; a project whose objects do
// not make a model is refused every time, never kept.
#include "service/project/project_model.h"

#include "service/tutorial_project.h"

namespace tessera::testing {
namespace {

class SemanticModelsTest : public TutorialProjectTest {
 protected:
  // A metric of the project, picked by the storage service.
  std::string AnyMetricId() {
    std::vector<model::ObjectRecord> metrics;
    store_->Read([&](storage::MetadataTransaction& tx) {
      storage::ObjectFilter filter;
      filter.types = {4};
      metrics = tx.ListObjects(project_id_, filter);
    });
    EXPECT_FALSE(metrics.empty());
    return metrics.empty() ? "" : metrics.front().id;
  }
};

TEST_P(SemanticModelsTest, AModelIsSharedUntilAnObjectChangesAnywhere) {
  service::project::SemanticModels models(*store_);
  auto first = models.Get(project_id_);
  EXPECT_EQ(models.Get(project_id_), first) << "nothing changed: the same model";

  const std::string metric = AnyMetricId();
  auto other_node = OpenStore();
  other_node->Write([&](storage::MetadataTransaction& tx) {
    auto record = tx.FindObject(project_id_, metric);
    ASSERT_TRUE(record);
    record->name = "Renamed Elsewhere";
    tx.PutObject(*record);
  });
  auto second = models.Get(project_id_);
  EXPECT_NE(second, first);
  EXPECT_EQ(second->metric(metric).name, "Renamed Elsewhere");
  EXPECT_NE(first->metric(metric).name, "Renamed Elsewhere") << "a model handed out never changes";
  EXPECT_EQ(models.Get(project_id_), second);
}

TEST_P(SemanticModelsTest, AProjectWhoseObjectsMakeNoModelIsRefusedEveryTime) {
  service::project::SemanticModels models(*store_);
  const std::string metric = AnyMetricId();
  ChangeStored(metric, [](model::ObjectRecord& record) { record.definition = Json::object(); });
  EXPECT_THROW(models.Get(project_id_), Error);
  EXPECT_THROW(models.Get(project_id_), Error);
}

INSTANTIATE_TEST_SUITE_P(Backends, SemanticModelsTest, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
