// Projects without the HTTP stack, on SQLite and PostgreSQL: the snapshot every call reads, and
// when it is read again -- at once after this node's own change, after a directory notice from
// another node, after `cache_ttl` otherwise -- and what it answers under a MemoryOnlyScope.
#include "service/project/project_service.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/strings.h"
#include "model/well_known.h"
#include "service/directory_service.h"
#include "storage/memory_only.h"
#include "support/store_backend_test.h"

namespace tessera::testing {
namespace {

using service::project::ProjectService;
using std::chrono::hours;
using std::chrono::milliseconds;
using Names = std::vector<std::string>;

constexpr char kUnknown[] = "0123456789ABCDEF0123456789ABCDEF";

class ProjectServiceTest : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
    other_node_store_ = OpenStore();
    service::DirectoryService directory(*store_);
    directory.Bootstrap(std::nullopt);
    admin_ = directory.LoadPrincipal(std::string(model::kAdministratorUserId));
  }

  static std::vector<std::string> Listed(ProjectService& projects,
                                         const service::session::Principal& principal) {
    std::vector<std::string> names;
    for (const auto& view : projects.List(principal, false)) {
      names.push_back(view.project.object.name);
    }
    return names;
  }

  std::unique_ptr<storage::MetadataStore> store_;
  std::unique_ptr<storage::MetadataStore> other_node_store_;
  service::session::Principal admin_;
};

TEST_P(ProjectServiceTest, ThisNodesOwnChangeIsListedAtOnce) {
  ProjectService projects(*store_, hours(1));
  projects.Create(admin_, "Sales", "");
  EXPECT_EQ(Listed(projects, admin_), Names({"Sales"}));
  projects.Create(admin_, "Finance", "");
  EXPECT_EQ(Listed(projects, admin_), Names({"Finance", "Sales"}));
  auto view = projects.Get(admin_, "Finance");
  EXPECT_EQ(view.owner_name, "Administrator");
  EXPECT_NE(view.acg, 0);
  EXPECT_EQ(projects.Get(admin_, ToLower(view.project.object.id)).project.object.name, "Finance");
}

TEST_P(ProjectServiceTest, AnotherNodesChangeIsListedAfterItsNoticeOrOnceTheSnapshotIsOld) {
  ProjectService projects(*store_, hours(1));
  ProjectService uncached(*store_, milliseconds(0));
  ProjectService other_node(*other_node_store_, hours(1));
  projects.Create(admin_, "Sales", "");
  ASSERT_EQ(Listed(projects, admin_), Names({"Sales"}));

  other_node.Create(admin_, "Finance", "");
  EXPECT_EQ(Listed(projects, admin_), Names({"Sales"})) << "no notice heard yet";
  EXPECT_EQ(Listed(uncached, admin_), Names({"Finance", "Sales"}));
  EXPECT_EQ(projects.Get(admin_, "Finance").project.object.name, "Finance")
      << "a project asked for by name is looked for again";
  projects.HearNotice({storage::kDirectoryNoticeChannel, ""});
  EXPECT_EQ(Listed(projects, admin_), Names({"Finance", "Sales"}));

  const std::string marketing = other_node.Create(admin_, "Marketing", "").project.object.id;
  projects.HearNotice({"tessera_sessions", "token:abc"});
  EXPECT_EQ(Listed(projects, admin_), Names({"Finance", "Sales"})) << "not a directory notice";
  EXPECT_EQ(projects.ResolveHeader(admin_, marketing), marketing);
  EXPECT_EQ(Listed(projects, admin_), Names({"Finance", "Marketing", "Sales"}))
      << "looking for it read the projects again";
  other_node.Create(admin_, "Support", "");
  projects.HearNotice({"", ""});  // notices may have been missed
  EXPECT_EQ(Listed(projects, admin_), Names({"Finance", "Marketing", "Sales", "Support"}));
}

TEST_P(ProjectServiceTest, UnderAMemoryOnlyScopeOnlyACurrentSnapshotAnswers) {
  ProjectService projects(*store_, hours(1));
  const std::string sales = projects.Create(admin_, "Sales", "").project.object.id;
  {
    storage::MemoryOnlyScope memory_only;
    EXPECT_THROW(projects.List(admin_, false), storage::StoreNeeded) << "nothing read yet";
  }
  ASSERT_EQ(Listed(projects, admin_), Names({"Sales"}));
  {
    storage::MemoryOnlyScope memory_only;
    EXPECT_EQ(Listed(projects, admin_), Names({"Sales"}));
    EXPECT_EQ(projects.ResolveHeader(admin_, sales), sales);
    EXPECT_THROW(projects.ResolveHeader(admin_, kUnknown), storage::StoreNeeded)
        << "a project the snapshot lacks is looked for in the store";
  }
  try {
    projects.ResolveHeader(admin_, kUnknown);
    ADD_FAILURE() << "an unknown project header was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
  }
  projects.Create(admin_, "Finance", "");
  storage::MemoryOnlyScope memory_only;
  EXPECT_THROW(projects.List(admin_, false), storage::StoreNeeded)
      << "this node changed the directory: the snapshot is read again";
}

INSTANTIATE_TEST_SUITE_P(Backends, ProjectServiceTest, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
