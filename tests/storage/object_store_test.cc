#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "storage/metadata_store.h"
#include "storage/sample_records.h"
#include "support/store_backend_test.h"

namespace tessera::testing {
namespace {

using model::ObjectRecord;
using storage::MetadataTransaction;
using storage::ObjectFilter;

class ObjectStore : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
  }

  void Put(const std::vector<ObjectRecord>& objects) {
    store_->Write([&](MetadataTransaction& tx) {
      for (const auto& object : objects) tx.PutObject(object);
    });
  }

  template <typename T, typename F>
  T ReadValue(F read) {
    T value{};
    store_->Read([&](MetadataTransaction& tx) { value = read(tx); });
    return value;
  }

  std::vector<std::string> NamesOf(const std::vector<ObjectRecord>& objects) {
    std::vector<std::string> names;
    for (const auto& object : objects) names.push_back(object.name);
    return names;
  }

  std::unique_ptr<storage::MetadataStore> store_;
};

TEST_P(ObjectStore, PutThenFindReturnsEveryField) {
  ObjectRecord written = SampleObject(kProject, Id(1), 4, "Revenue Metric");
  written.hidden = true;
  written.certified = true;
  written.acl = {{kOwner, 255, false, true}, {"C82C6B1011D2894CC0009D9F29718E4F", 1, true, false}};
  written.definition = Json::parse(R"({"z":1,"a":[1.5,"x",null,{"nested":true}],"unicode":"ü€"})");
  Put({written});

  auto read = ReadValue<std::optional<ObjectRecord>>(
      [](MetadataTransaction& tx) { return tx.FindObject(kProject, Id(1)); });

  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->project_id, kProject);
  EXPECT_EQ(read->id, Id(1));
  EXPECT_EQ(read->type, 4);
  EXPECT_EQ(read->subtype, 4 * 256 + 1);
  EXPECT_EQ(read->ext_type, 3);
  EXPECT_EQ(read->name, "Revenue Metric");
  EXPECT_EQ(read->description, "Description of Revenue Metric");
  EXPECT_EQ(read->abbreviation, "Rev");
  EXPECT_EQ(read->folder_id, kRootFolder);
  EXPECT_EQ(read->owner_id, kOwner);
  EXPECT_EQ(read->version, "A1B2C3D4E5F60718293A4B5C6D7E8F90");
  EXPECT_EQ(ToUnixMillis(read->created), 1704067200123);
  EXPECT_EQ(ToUnixMillis(read->modified), 1717243199999);
  EXPECT_TRUE(read->hidden);
  EXPECT_TRUE(read->certified);
  ASSERT_EQ(read->acl.size(), 2u);
  EXPECT_EQ(read->acl[0].trustee_id, kOwner);
  EXPECT_EQ(read->acl[0].rights, 255);
  EXPECT_FALSE(read->acl[0].denied);
  EXPECT_TRUE(read->acl[0].inheritable);
  EXPECT_EQ(read->acl[1].trustee_id, "C82C6B1011D2894CC0009D9F29718E4F");
  EXPECT_EQ(read->acl[1].rights, 1);
  EXPECT_TRUE(read->acl[1].denied);
  EXPECT_FALSE(read->acl[1].inheritable);
  EXPECT_EQ(DumpJson(read->definition),
            R"({"z":1,"a":[1.5,"x",null,{"nested":true}],"unicode":"ü€"})");
}

TEST_P(ObjectStore, FindObjectOfAnUnknownIdIsEmpty) {
  Put({SampleObject(kProject, Id(1), 4, "Revenue")});

  EXPECT_FALSE(ReadValue<std::optional<ObjectRecord>>([](MetadataTransaction& tx) {
                 return tx.FindObject(kProject, Id(2));
               }).has_value());
  EXPECT_FALSE(ReadValue<std::optional<ObjectRecord>>([](MetadataTransaction& tx) {
                 return tx.FindObject(kOtherProject, Id(1));
               }).has_value());
}

TEST_P(ObjectStore, PutReplacesTheObjectWithTheSameProjectAndId) {
  Put({SampleObject(kProject, Id(1), 4, "Revenue")});
  ObjectRecord renamed = SampleObject(kProject, Id(1), 4, "Net Revenue");
  renamed.version = "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF";
  Put({renamed});

  auto all = ReadValue<std::vector<ObjectRecord>>(
      [](MetadataTransaction& tx) { return tx.ListObjects(kProject, {}); });

  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].name, "Net Revenue");
  EXPECT_EQ(all[0].version, "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF");
}

TEST_P(ObjectStore, TheSameIdInTwoProjectsNamesTwoObjects) {
  Put({SampleObject(kProject, kRootFolder, 8, "Public Objects", ""),
       SampleObject(kOtherProject, kRootFolder, 8, "Shared Reports", ""),
       SampleObject("", Id(9), 34, "Administrator", "")});

  auto first = ReadValue<std::optional<ObjectRecord>>(
      [](MetadataTransaction& tx) { return tx.FindObject(kProject, kRootFolder); });
  auto second = ReadValue<std::optional<ObjectRecord>>(
      [](MetadataTransaction& tx) { return tx.FindObject(kOtherProject, kRootFolder); });
  auto configuration = ReadValue<std::optional<ObjectRecord>>(
      [](MetadataTransaction& tx) { return tx.FindObject("", Id(9)); });

  EXPECT_EQ(first->name, "Public Objects");
  EXPECT_EQ(second->name, "Shared Reports");
  EXPECT_EQ(configuration->name, "Administrator");
}

TEST_P(ObjectStore, FindObjectsKeepsTheOrderOfTheIdsAndSkipsUnknownOnes) {
  Put({SampleObject(kProject, Id(1), 4, "A"), SampleObject(kProject, Id(2), 4, "B"),
       SampleObject(kProject, Id(3), 4, "C")});

  auto found = ReadValue<std::vector<ObjectRecord>>([](MetadataTransaction& tx) {
    return tx.FindObjects(kProject, {Id(3), Id(99), Id(1), Id(2)});
  });

  EXPECT_THAT(NamesOf(found), ::testing::ElementsAre("C", "A", "B"));
}

TEST_P(ObjectStore, FindObjectsAcceptsMoreIdsThanOneStatementBinds) {
  std::vector<ObjectRecord> objects;
  std::vector<std::string> ids;
  for (int i = 1200; i >= 1; --i) {
    objects.push_back(SampleObject(kProject, Id(i), 4, "Metric " + std::to_string(i)));
    ids.push_back(Id(i));
  }
  Put(objects);

  auto found = ReadValue<std::vector<ObjectRecord>>(
      [&](MetadataTransaction& tx) { return tx.FindObjects(kProject, ids); });

  ASSERT_EQ(found.size(), 1200u);
  EXPECT_EQ(found.front().name, "Metric 1200");
  EXPECT_EQ(found[700].name, "Metric 500");
  EXPECT_EQ(found.back().name, "Metric 1");
}

TEST_P(ObjectStore, ListChildrenReturnsTheFolderContentsByTypeThenName) {
  Put({SampleObject(kProject, Id(1), 4, "Profit"), SampleObject(kProject, Id(2), 8, "Sales"),
       SampleObject(kProject, Id(3), 4, "Cost"), SampleObject(kProject, Id(4), 3, "Zeta Report"),
       SampleObject(kProject, Id(5), 4, "Elsewhere", kOtherFolder),
       SampleObject(kOtherProject, Id(6), 4, "Other project")});

  auto children = ReadValue<std::vector<ObjectRecord>>(
      [](MetadataTransaction& tx) { return tx.ListChildren(kProject, kRootFolder); });

  EXPECT_THAT(NamesOf(children), ::testing::ElementsAre("Zeta Report", "Cost", "Profit", "Sales"));
}

TEST_P(ObjectStore, FindChildrenNamedIgnoresAsciiCaseAndOtherFolders) {
  Put({SampleObject(kProject, Id(1), 4, "Profit"), SampleObject(kProject, Id(2), 8, "PROFIT"),
       SampleObject(kProject, Id(3), 4, "Profits"), SampleObject(kProject, Id(4), 4, "Äpfel"),
       SampleObject(kProject, Id(5), 4, "Profit", kOtherFolder),
       SampleObject(kOtherProject, Id(6), 4, "profit")});

  auto named = ReadValue<std::vector<ObjectRecord>>([](MetadataTransaction& tx) {
    return tx.FindChildrenNamed(kProject, kRootFolder, "pRoFiT");
  });
  EXPECT_THAT(NamesOf(named), ::testing::ElementsAre("Profit", "PROFIT"));
  // Only ASCII letters fold, as everywhere else names are compared.
  auto umlaut = ReadValue<std::vector<ObjectRecord>>(
      [](MetadataTransaction& tx) { return tx.FindChildrenNamed(kProject, kRootFolder, "äpfel"); });
  EXPECT_TRUE(umlaut.empty());
  EXPECT_TRUE(ReadValue<bool>(
      [](MetadataTransaction& tx) { return tx.HasChildren(kProject, kRootFolder); }));
  EXPECT_FALSE(ReadValue<bool>(
      [](MetadataTransaction& tx) { return tx.HasChildren(kProject, std::string(32, 'E')); }));
}

class ObjectStoreFilters : public ObjectStore {
 protected:
  void SetUp() override {
    ObjectStore::SetUp();
    if (IsSkipped()) return;
    ObjectRecord metric = SampleObject(kProject, Id(1), 4, "Metric");
    metric.subtype = 1024;
    ObjectRecord report = SampleObject(kProject, Id(2), 3, "Report");
    report.subtype = 768;
    ObjectRecord cube = SampleObject(kProject, Id(3), 3, "Cube");
    cube.subtype = 776;
    ObjectRecord folder = SampleObject(kProject, Id(4), 8, "Folder");
    folder.subtype = 2048;
    ObjectRecord elsewhere = SampleObject(kOtherProject, Id(5), 4, "Other project metric");
    elsewhere.subtype = 1024;
    Put({metric, report, cube, folder, elsewhere});
  }

  std::vector<std::string> Matching(ObjectFilter filter) {
    return NamesOf(ReadValue<std::vector<ObjectRecord>>(
        [&](MetadataTransaction& tx) { return tx.ListObjects(kProject, filter); }));
  }
};

TEST_P(ObjectStoreFilters, NoFilterListsEveryObjectOfTheProject) {
  EXPECT_THAT(Matching({}), ::testing::ElementsAre("Cube", "Report", "Metric", "Folder"));
}

TEST_P(ObjectStoreFilters, TypesSelectObjectsOfThoseTypes) {
  EXPECT_THAT(Matching({.types = {3, 8}, .subtypes = {}}),
              ::testing::ElementsAre("Cube", "Report", "Folder"));
}

TEST_P(ObjectStoreFilters, SubtypesSelectObjectsOfThoseSubtypes) {
  EXPECT_THAT(Matching({.types = {}, .subtypes = {776, 1024}}),
              ::testing::ElementsAre("Cube", "Metric"));
}

TEST_P(ObjectStoreFilters, TypesAndSubtypesTogetherMatchEither) {
  EXPECT_THAT(Matching({.types = {8}, .subtypes = {768}}),
              ::testing::ElementsAre("Report", "Folder"));
}

TEST_P(ObjectStore, DeleteObjectRemovesItAndSaysWhetherItExisted) {
  Put({SampleObject(kProject, Id(1), 4, "Revenue"), SampleObject(kProject, Id(2), 4, "Cost")});

  bool deleted = false;
  store_->Write([&](MetadataTransaction& tx) { deleted = tx.DeleteObject(kProject, Id(1)); });
  bool deleted_again = true;
  store_->Write([&](MetadataTransaction& tx) { deleted_again = tx.DeleteObject(kProject, Id(1)); });

  EXPECT_TRUE(deleted);
  EXPECT_FALSE(deleted_again);
  auto remaining = ReadValue<std::vector<ObjectRecord>>(
      [](MetadataTransaction& tx) { return tx.ListObjects(kProject, {}); });
  EXPECT_THAT(NamesOf(remaining), ::testing::ElementsAre("Cost"));
}

INSTANTIATE_TEST_SUITE_P(Backends, ObjectStore, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);
INSTANTIATE_TEST_SUITE_P(Backends, ObjectStoreFilters, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
