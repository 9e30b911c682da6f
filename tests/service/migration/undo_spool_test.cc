#include "service/migration/undo_spool.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "model/object.h"
#include "storage/package/reader.h"
#include "support/temp_dir.h"

namespace tessera::testing {
namespace {

using service::migration::UndoSpool;

model::ObjectRecord Object(const std::string& id) {
  model::ObjectRecord record;
  record.id = id;
  record.name = "object " + id.substr(0, 4);
  record.type = 4;
  return record;
}

storage::package::PackageManifest UndoManifest() {
  storage::package::PackageManifest manifest;
  manifest.kind = storage::package::PackageFileKind::kUndo;
  manifest.import_id = "FEDCBA9876543210FEDCBA9876543210";
  manifest.platform_version = "11.6.0200.0001";
  manifest.package_id = "0123456789ABCDEF0123456789ABCDEF";
  manifest.type = "project";
  manifest.purpose = "object_migration";
  manifest.created_at = "2026-11-27T10:00:00.000+0000";
  return manifest;
}

TEST(UndoSpool, WritingThePackageLeavesOnlyThePackageBeforeTheSpoolIsDestroyed) {
  TempDir dir;
  const auto undo_path = dir.path() / "undo" / "FEDCBA9876543210FEDCBA9876543210.mmp";
  UndoSpool spool(undo_path);
  spool.RecordRestore(Object("11111111111111111111111111111111"));
  spool.RecordDelete(Object("22222222222222222222222222222222"));
  EXPECT_EQ(FileNames(undo_path.parent_path()),
            std::vector<std::string>{".FEDCBA9876543210FEDCBA9876543210.mmp.spool"});

  spool.WritePackage(UndoManifest());

  EXPECT_EQ(FileNames(undo_path.parent_path()),
            std::vector<std::string>{"FEDCBA9876543210FEDCBA9876543210.mmp"});
  EXPECT_EQ(storage::package::VerifyPackage(undo_path).object_count, 2);
}

TEST(UndoSpool, RemoveFilesClearsWhatAKilledImportLeft) {
  TempDir dir;
  const auto undo_path = dir.path() / "FEDCBA9876543210FEDCBA9876543210.mmp";
  {
    UndoSpool spool(undo_path);
    spool.RecordDelete(Object("22222222222222222222222222222222"));
    spool.WritePackage(UndoManifest());
  }
  UndoSpool unfinished(dir.path() / "00000000000000000000000000000001.mmp");
  unfinished.RecordDelete(Object("33333333333333333333333333333333"));

  UndoSpool::RemoveFiles(undo_path);
  UndoSpool::RemoveFiles(dir.path() / "00000000000000000000000000000001.mmp");

  EXPECT_TRUE(FileNames(dir.path()).empty());
}

}  // namespace
}  // namespace tessera::testing
