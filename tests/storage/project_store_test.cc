#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "storage/metadata_store.h"
#include "storage/sample_records.h"
#include "support/store_backend_test.h"

namespace tessera::testing {
namespace {

using storage::MetadataTransaction;
using storage::ProjectRecord;

class ProjectStore : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
  }

  void Put(const ProjectRecord& project) {
    store_->Write([&](MetadataTransaction& tx) { tx.PutProject(project); });
  }

  std::vector<ProjectRecord> List() {
    std::vector<ProjectRecord> projects;
    store_->Read([&](MetadataTransaction& tx) { projects = tx.ListProjects(); });
    return projects;
  }

  std::vector<std::string> ListedNames() {
    std::vector<std::string> names;
    for (const auto& project : List()) names.push_back(project.object.name);
    return names;
  }

  std::unique_ptr<storage::MetadataStore> store_;
};

TEST_P(ProjectStore, PutProjectWritesTheProjectAndItsConfigurationObject) {
  ProjectRecord written = SampleProject(kProject, "Tutorial");
  written.status = 1;
  Put(written);

  std::optional<ProjectRecord> project;
  std::optional<model::ObjectRecord> object;
  store_->Read([&](MetadataTransaction& tx) {
    project = tx.FindProject(kProject);
    object = tx.FindObject("", kProject);
  });

  ASSERT_TRUE(project.has_value());
  EXPECT_EQ(project->object.id, kProject);
  EXPECT_EQ(project->object.name, "Tutorial");
  EXPECT_EQ(project->object.type, 32);
  EXPECT_EQ(project->object.subtype, 8192);
  EXPECT_EQ(project->status, 1);
  EXPECT_EQ(project->alias, "Tutorial alias");
  ASSERT_TRUE(object.has_value());
  EXPECT_EQ(object->name, "Tutorial");
  EXPECT_EQ(object->project_id, "");
}

TEST_P(ProjectStore, FindProjectByNameMatchesTheExactName) {
  Put(SampleProject(kProject, "Tutorial"));

  std::optional<ProjectRecord> found;
  std::optional<ProjectRecord> other_case;
  store_->Read([&](MetadataTransaction& tx) {
    found = tx.FindProjectByName("Tutorial");
    other_case = tx.FindProjectByName("Missing");
  });

  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->object.id, kProject);
  EXPECT_FALSE(other_case.has_value());
}

TEST_P(ProjectStore, ListProjectsIsOrderedByName) {
  Put(SampleProject(Id(1), "Sales"));
  Put(SampleProject(Id(2), "Analytics"));
  Put(SampleProject(Id(3), "Marketing"));

  EXPECT_THAT(ListedNames(), ::testing::ElementsAre("Analytics", "Marketing", "Sales"));
}

TEST_P(ProjectStore, ASecondProjectWithATakenNameIsAlreadyExistsAndWritesNothing) {
  Put(SampleProject(Id(1), "Tutorial"));

  try {
    Put(SampleProject(Id(2), "Tutorial"));
    FAIL() << "expected Error(kAlreadyExists)";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kAlreadyExists);
    EXPECT_EQ(error.message(), "A project named 'Tutorial' already exists");
  }

  std::optional<model::ObjectRecord> object;
  store_->Read([&](MetadataTransaction& tx) { object = tx.FindObject("", Id(2)); });
  EXPECT_FALSE(object.has_value());
  EXPECT_EQ(List().size(), 1u);
}

TEST_P(ProjectStore, RenamingAProjectToAFreeNameUpdatesIt) {
  Put(SampleProject(Id(1), "Tutorial"));
  Put(SampleProject(Id(1), "Tutorial 2024"));

  EXPECT_THAT(ListedNames(), ::testing::ElementsAre("Tutorial 2024"));
}

TEST_P(ProjectStore, RenamingAProjectToAnotherProjectsNameIsAlreadyExists) {
  Put(SampleProject(Id(1), "Tutorial"));
  Put(SampleProject(Id(2), "Sales"));

  try {
    Put(SampleProject(Id(2), "Tutorial"));
    FAIL() << "expected Error(kAlreadyExists)";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kAlreadyExists);
  }

  EXPECT_THAT(ListedNames(), ::testing::ElementsAre("Sales", "Tutorial"));
}

TEST_P(ProjectStore, DeletingTheProjectObjectRemovesTheProject) {
  Put(SampleProject(Id(1), "Tutorial"));

  store_->Write([](MetadataTransaction& tx) { tx.DeleteObject("", Id(1)); });

  EXPECT_TRUE(List().empty());
  Put(SampleProject(Id(2), "Tutorial"));  // the name is free again
  EXPECT_EQ(List().size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Backends, ProjectStore, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
