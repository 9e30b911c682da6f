// Package creation at the service level (service/migration/package_builder.h) on the demo bundle:
// the content DescribeContent checks and stores, and the package file BuildPackage writes --
// exactly the listed objects, plus what they use when asked, plus the folders above them; in import
// order; a whole project for a project merge; its SHA-256 and size as the result says; and no
// file left by a cancelled build or one over the byte limit. Expected objects come from the demo
// bundle's YAML (literal names) or from the storage service, never from the builder -- on SQLite
// and PostgreSQL.
#include "service/migration/package_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/ids.h"
#include "core/sha256_stream.h"
#include "core/time.h"
#include "engine/warehouse_fixture.h"
#include "model/object_types.h"
#include "model/package/entry.h"
#include "model/package/settings.h"
#include "model/well_known.h"
#include "service/bundle/bundle_service.h"
#include "service/directory_service.h"
#include "storage/package/format.h"
#include "storage/package/reader.h"
#include "support/store_backend_test.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

using model::ObjectRecord;
using storage::MetadataTransaction;
using TypedName = std::pair<int, std::string>;

const std::filesystem::path kDemoBundle = TESSERA_SOURCE_DIR "/demo/tutorial";

// What a package file holds, read back with the package reader.
struct PackageContents {
  storage::package::PackageManifest manifest;
  Json content = Json::array();
  std::vector<model::package::PackageObject> objects;  // in file order
};

std::string FileSha256(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  Sha256Stream hash;
  std::vector<char> buffer(1 << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    hash.Update(std::string_view(buffer.data(), static_cast<size_t>(in.gcount())));
  }
  return hash.FinishHex();
}

std::vector<std::string> FilesIn(const std::filesystem::path& directory) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

class PackageBuilderTest : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
    service::DirectoryService directory(*store_);
    directory.Bootstrap(std::nullopt);
    auto administrator = directory.LoadPrincipal(std::string(model::kAdministratorUserId));
    project_id_ =
        service::bundle::BundleService(*store_).Import(administrator, kDemoBundle).project_id;
    store_->Read([&](MetadataTransaction& tx) { objects_ = tx.ListObjects(project_id_, {}); });
  }

  service::migration::PackageScope ProjectScope(
      model::package::PackagePurpose purpose =
          model::package::PackagePurpose::kObjectMigration) const {
    return {project_id_, model::package::PackageKind::kProject, purpose};
  }

  const ObjectRecord& Named(int type, const std::string& name) const {
    for (const auto& record : objects_) {
      if (record.type == type && record.name == name) return record;
    }
    throw std::runtime_error("no object named " + name);
  }

  model::package::ContentItem Item(int type, const std::string& name,
                                   bool include_dependents = false) {
    const ObjectRecord& record = Named(type, name);
    return {record.id, record.name, record.type, model::package::ConflictRule::kReplace,
            include_dependents};
  }

  // The content as DescribeContent stores it, entry by entry.
  std::vector<std::string> Describe(const service::migration::PackageScope& scope,
                                    const std::vector<model::package::ContentItem>& content) {
    std::vector<std::string> chunks;
    store_->Read([&](MetadataTransaction& tx) {
      service::migration::DescribeContent(
          tx, scope, content, [&](int64_t sequence, std::string chunk) {
            EXPECT_EQ(sequence, static_cast<int64_t>(chunks.size()) + 1);
            chunks.push_back(std::move(chunk));
          });
    });
    return chunks;
  }

  service::migration::BuildOptions Options(
      const service::migration::PackageScope& scope,
      const std::vector<model::package::ContentItem>& content) {
    service::migration::BuildOptions options;
    options.path = packages_.path() / "package.mmp";
    options.scratch_dir = scratch_.path();
    options.manifest.platform_version = "11.6.0200.0001";
    options.manifest.package_id = NewObjectId();
    options.manifest.type = std::string(model::package::PackageKindName(scope.kind));
    options.manifest.purpose = std::string(model::package::PackagePurposeName(scope.purpose));
    options.manifest.source_project = {project_id_, "Tutorial", project_id_};
    options.manifest.settings = model::package::ToJson(model::package::PackageSettings{});
    options.manifest.created_at = FormatTimestamp(Now());
    options.manifest.content_count = static_cast<int64_t>(content.size());
    auto chunks = std::make_shared<std::vector<std::string>>(Describe(scope, content));
    options.content_entry = [chunks](MetadataTransaction&, int64_t sequence) {
      return chunks->at(static_cast<size_t>(sequence - 1));
    };
    return options;
  }

  service::migration::BuiltPackage Build(const std::vector<model::package::ContentItem>& content,
                                         const service::migration::PackageScope& scope) {
    return service::migration::BuildPackage(*store_, scope, Options(scope, content));
  }
  service::migration::BuiltPackage Build(const std::vector<model::package::ContentItem>& content) {
    return Build(content, ProjectScope());
  }

  PackageContents Read(const std::filesystem::path& path) {
    PackageContents contents;
    storage::package::PackageReader reader(path);
    contents.manifest = reader.manifest();
    contents.content = storage::package::ReadContentList(reader);
    storage::package::PackageEntry entry;
    while (reader.Next(entry)) {
      contents.objects.push_back(model::package::EntryFromJson(ParseJson(entry.json), project_id_));
    }
    return contents;
  }
  PackageContents Read() { return Read(packages_.path() / "package.mmp"); }

  // The package's objects that are not implicit folders, as (type, name).
  static std::set<TypedName> Members(const PackageContents& contents) {
    std::set<TypedName> members;
    for (const auto& object : contents.objects) {
      if (!object.implicit_folder) members.insert({object.record.type, object.record.name});
    }
    return members;
  }

  static std::set<TypedName> Explicit(const PackageContents& contents) {
    std::set<TypedName> listed;
    for (const auto& object : contents.objects) {
      if (object.explicit_included) listed.insert({object.record.type, object.record.name});
    }
    return listed;
  }

  static std::set<std::string> ImplicitFolderIds(const PackageContents& contents) {
    std::set<std::string> ids;
    for (const auto& object : contents.objects) {
      if (object.implicit_folder) ids.insert(object.record.id);
    }
    return ids;
  }

  // The folders above the (type, name) objects that are not themselves among `members`, walked
  // up the storage service's folder ids.
  std::set<std::string> FoldersAbove(const std::set<TypedName>& members) {
    std::set<std::string> member_ids, folders;
    for (const auto& [type, name] : members) member_ids.insert(Named(type, name).id);
    store_->Read([&](MetadataTransaction& tx) {
      for (const auto& [type, name] : members) {
        std::string next = Named(type, name).folder_id;
        while (!next.empty() && !folders.count(next)) {
          auto folder = tx.FindObject(project_id_, next);
          if (!folder) break;
          if (!member_ids.count(next)) folders.insert(next);
          next = folder->folder_id;
        }
      }
    });
    return folders;
  }

  TempDir packages_;
  TempDir scratch_;
  std::unique_ptr<storage::MetadataStore> store_;
  std::string project_id_;
  std::vector<ObjectRecord> objects_;  // of the project, as imported
};

TEST_P(PackageBuilderTest, APackageHoldsExactlyTheListedObjectsAndTheFoldersAboveThem) {
  const std::vector<model::package::ContentItem> content = {
      Item(model::kTypeMetric, "Revenue"), Item(model::kTypeMetric, "Cost"),
      Item(model::kTypeFilter, "Western Europe")};
  service::migration::BuiltPackage built = Build(content);
  PackageContents package = Read();

  const std::set<TypedName> listed = {{model::kTypeMetric, "Revenue"},
                                      {model::kTypeMetric, "Cost"},
                                      {model::kTypeFilter, "Western Europe"}};
  EXPECT_EQ(Members(package), listed);
  EXPECT_EQ(Explicit(package), listed);
  EXPECT_EQ(ImplicitFolderIds(package), FoldersAbove(listed));
  for (const auto& object : package.objects) {
    if (object.implicit_folder) {
      EXPECT_EQ(object.record.type, model::kTypeFolder);
    }
  }
  EXPECT_EQ(built.object_count, static_cast<int64_t>(package.objects.size()));
  EXPECT_EQ(package.manifest.object_count, built.object_count);
  EXPECT_EQ(package.manifest.content_count, 3);

  // The objects are the source's, version included.
  for (const auto& object : package.objects) {
    const ObjectRecord* source = nullptr;
    for (const auto& record : objects_) {
      if (record.id == object.record.id) source = &record;
    }
    ASSERT_NE(source, nullptr) << object.record.name;
    EXPECT_EQ(object.record.version, source->version) << object.record.name;
    EXPECT_EQ(object.record.definition, source->definition) << object.record.name;
  }
}

TEST_P(PackageBuilderTest, DependentsAreAddedOnlyForTheItemsThatAskForThem) {
  // Profit is [Revenue] - [Cost]; those sum the facts Revenue and Cost, read from sales_fact
  // (demo/tutorial/metrics.yaml, facts.yaml).
  Build({Item(model::kTypeMetric, "Profit", true)});
  PackageContents package = Read();
  const std::set<TypedName> closure = {
      {model::kTypeMetric, "Profit"}, {model::kTypeMetric, "Revenue"},
      {model::kTypeMetric, "Cost"},   {model::kTypeFact, "Revenue"},
      {model::kTypeFact, "Cost"},     {model::kTypeTable, "sales_fact"}};
  EXPECT_EQ(Members(package), closure);
  EXPECT_EQ(Explicit(package), (std::set<TypedName>{{model::kTypeMetric, "Profit"}}));
  EXPECT_EQ(ImplicitFolderIds(package), FoldersAbove(closure));

  // Country's lookup table and its parent Region with its own (attributes.yaml); Profit without
  // its dependents comes alone.
  Build({Item(model::kTypeAttribute, "Country", true), Item(model::kTypeMetric, "Profit")});
  package = Read();
  const std::set<TypedName> expected = {{model::kTypeAttribute, "Country"},
                                        {model::kTypeTable, "lu_country"},
                                        {model::kTypeAttribute, "Region"},
                                        {model::kTypeTable, "lu_region"},
                                        {model::kTypeMetric, "Profit"}};
  EXPECT_EQ(Members(package), expected);
  EXPECT_EQ(Explicit(package), (std::set<TypedName>{{model::kTypeAttribute, "Country"},
                                                    {model::kTypeMetric, "Profit"}}));
  EXPECT_EQ(ImplicitFolderIds(package), FoldersAbove(expected));
}

TEST_P(PackageBuilderTest, ObjectsComeInImportOrderThenById) {
  Build({Item(model::kTypeMetric, "Profit", true), Item(model::kTypeAttribute, "City", true),
         Item(model::kTypeFilter, "Western Europe", true)});
  PackageContents package = Read();
  // Folders, tables, attributes, facts, filters, metrics (model/package/import_order.h).
  const std::map<int, int> rank = {{model::kTypeFolder, 0},    {model::kTypeTable, 1},
                                   {model::kTypeAttribute, 2}, {model::kTypeFact, 3},
                                   {model::kTypeFilter, 4},    {model::kTypeMetric, 5}};
  std::set<std::string> seen;
  for (size_t i = 0; i < package.objects.size(); ++i) {
    const ObjectRecord& record = package.objects[i].record;
    ASSERT_TRUE(rank.count(record.type)) << record.name << " of type " << record.type;
    if (record.type == model::kTypeFolder && !record.folder_id.empty()) {
      // A folder comes after its parent when the package holds the parent.
      bool parent_held = false;
      for (const auto& other : package.objects) parent_held |= other.record.id == record.folder_id;
      if (parent_held) {
        EXPECT_TRUE(seen.count(record.folder_id)) << record.name;
      }
    }
    seen.insert(record.id);
    if (i == 0) continue;
    const ObjectRecord& previous = package.objects[i - 1].record;
    EXPECT_LE(rank.at(previous.type), rank.at(record.type))
        << previous.name << " before " << record.name;
    if (previous.type == record.type && record.type != model::kTypeFolder) {
      EXPECT_LT(previous.id, record.id) << previous.name << " before " << record.name;
    }
  }
}

TEST_P(PackageBuilderTest, TheFileIsAnIntactPackageWhoseDigestAndSizeAreTheResults) {
  const std::vector<model::package::ContentItem> content = {
      Item(model::kTypeMetric, "Profit", true), Item(model::kTypeAttribute, "Item")};
  service::migration::BuiltPackage built = Build(content);
  const std::filesystem::path path = packages_.path() / "package.mmp";
  EXPECT_EQ(built.file.size_bytes, static_cast<int64_t>(std::filesystem::file_size(path)));
  EXPECT_EQ(built.file.sha256, FileSha256(path));
  EXPECT_EQ(built.file.sha256.size(), 64u);
  EXPECT_EQ(storage::package::VerifyPackage(path).object_count, built.object_count);
  EXPECT_EQ(FilesIn(packages_.path()), std::vector<std::string>{"package.mmp"});
  EXPECT_TRUE(std::filesystem::is_empty(scratch_.path()));

  // The content list as given, each item with the source object's name, version and level.
  PackageContents package = Read(path);
  ASSERT_EQ(package.content.size(), content.size());
  for (size_t i = 0; i < content.size(); ++i) {
    const Json& item = package.content[i];
    const ObjectRecord& source = Named(*content[i].type, content[i].name);
    EXPECT_EQ(item["id"], source.id);
    EXPECT_EQ(item["name"], source.name);
    EXPECT_EQ(item["version"], source.version);
    EXPECT_EQ(item["type"], source.type);
    EXPECT_EQ(item["includeDependents"], content[i].include_dependents);
    EXPECT_EQ(item["level"], "project_object");
  }
}

TEST_P(PackageBuilderTest, AProjectMergeHoldsEveryObjectOfTheProject) {
  const service::migration::PackageScope scope =
      ProjectScope(model::package::PackagePurpose::kProjectMerge);
  service::migration::BuiltPackage built = Build({}, scope);
  PackageContents package = Read();
  std::set<std::string> expected, held;
  for (const auto& record : objects_) expected.insert(record.id);
  for (const auto& object : package.objects) held.insert(object.record.id);
  EXPECT_EQ(held, expected);
  EXPECT_EQ(package.objects.size(), objects_.size()) << "an object twice";
  EXPECT_EQ(built.object_count, static_cast<int64_t>(objects_.size()));
  EXPECT_TRUE(package.content.empty());
}

TEST_P(PackageBuilderTest, ProgressRisesToAHundredPercent) {
  service::migration::BuildOptions options =
      Options(ProjectScope(model::package::PackagePurpose::kProjectMerge), {});
  std::vector<int> reported;
  options.on_progress = [&](int percent) { reported.push_back(percent); };
  service::migration::BuildPackage(
      *store_, ProjectScope(model::package::PackagePurpose::kProjectMerge), options);
  ASSERT_FALSE(reported.empty());
  EXPECT_TRUE(std::is_sorted(reported.begin(), reported.end()));
  EXPECT_EQ(reported.back(), 100);
}

TEST_P(PackageBuilderTest, ACancelledBuildLeavesNoFile) {
  const service::migration::PackageScope scope =
      ProjectScope(model::package::PackagePurpose::kProjectMerge);
  service::migration::BuildOptions options = Options(scope, {});
  int checks = 0;
  options.check_cancelled = [&] {
    ++checks;
    throw Error(ErrorCode::kInvalidInput, "cancelled by the test");
  };
  auto error = ErrorFrom([&] { service::migration::BuildPackage(*store_, scope, options); });
  ASSERT_TRUE(error);
  EXPECT_EQ(std::string(error->message()), "cancelled by the test");
  EXPECT_EQ(checks, 1);
  EXPECT_FALSE(std::filesystem::exists(options.path));
  EXPECT_TRUE(FilesIn(packages_.path()).empty()) << "a temporary file was left";
  EXPECT_TRUE(std::filesystem::is_empty(scratch_.path()));
}

TEST_P(PackageBuilderTest, APackageOverTheByteLimitIsRefusedAndLeavesNoFile) {
  const service::migration::PackageScope scope =
      ProjectScope(model::package::PackagePurpose::kProjectMerge);
  service::migration::BuildOptions options = Options(scope, {});
  options.max_package_bytes = 4096;
  try {
    service::migration::BuildPackage(*store_, scope, options);
    ADD_FAILURE() << "a package over the limit was written";
  } catch (const storage::package::PackageTooLarge& too_large) {
    EXPECT_LT(too_large.objects_written(), static_cast<int64_t>(objects_.size()));
  }
  EXPECT_FALSE(std::filesystem::exists(options.path));
  EXPECT_TRUE(FilesIn(packages_.path()).empty()) << "a temporary file was left";
}

TEST_P(PackageBuilderTest, ContentNamingObjectsOutsideThePackagesLevelIsRefused) {
  const std::string unknown = "0123456789ABCDEF0123456789ABCDEF";
  model::package::ContentItem missing = Item(model::kTypeMetric, "Revenue");
  missing.id = unknown;
  int stored = 0;
  auto describe = [&](const service::migration::PackageScope& scope,
                      const std::vector<model::package::ContentItem>& content) {
    return ErrorFrom([&] {
      store_->Read([&](MetadataTransaction& tx) {
        service::migration::DescribeContent(tx, scope, content,
                                            [&](int64_t, std::string) { ++stored; });
      });
    });
  };
  auto unknown_id = describe(ProjectScope(), {Item(model::kTypeMetric, "Cost"), missing});
  ASSERT_TRUE(unknown_id);
  EXPECT_EQ(unknown_id->code(), ErrorCode::kInvalidInput);
  EXPECT_NE(std::string(unknown_id->message()).find(unknown), std::string::npos)
      << unknown_id->message();
  EXPECT_EQ(std::string(unknown_id->message()).find(Named(model::kTypeMetric, "Cost").id),
            std::string::npos)
      << "names a valid id: " << unknown_id->message();

  // A metric is no user or group, nor a configuration object.
  const std::string revenue = Named(model::kTypeMetric, "Revenue").id;
  auto security = describe({project_id_, model::package::PackageKind::kProjectSecurity,
                            model::package::PackagePurpose::kObjectMigration},
                           {Item(model::kTypeMetric, "Revenue")});
  ASSERT_TRUE(security);
  EXPECT_EQ(security->code(), ErrorCode::kInvalidInput);
  EXPECT_NE(std::string(security->message()).find(revenue), std::string::npos);
  auto configuration = describe({"", model::package::PackageKind::kConfiguration,
                                 model::package::PackagePurpose::kObjectMigration},
                                {Item(model::kTypeMetric, "Revenue")});
  ASSERT_TRUE(configuration);
  EXPECT_EQ(configuration->code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(stored, 0) << "refused content was stored";
}

TEST_P(PackageBuilderTest, ASecurityPackageHoldsTheListedUserWithoutWhatItUses) {
  const service::migration::PackageScope scope = {project_id_,
                                                  model::package::PackageKind::kProjectSecurity,
                                                  model::package::PackagePurpose::kObjectMigration};
  model::package::ContentItem administrator{std::string(model::kAdministratorUserId), "",
                                            model::kTypeUser,
                                            model::package::ConflictRule::kReplace, true};
  service::migration::BuiltPackage built = Build({administrator}, scope);
  PackageContents package = Read();
  std::vector<std::string> held;
  for (const auto& object : package.objects) {
    if (!object.implicit_folder) held.push_back(object.record.id);
  }
  EXPECT_EQ(held, std::vector<std::string>{std::string(model::kAdministratorUserId)});
  EXPECT_EQ(built.object_count, static_cast<int64_t>(package.objects.size()));
}

INSTANTIATE_TEST_SUITE_P(Backends, PackageBuilderTest, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
