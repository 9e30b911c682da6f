#include "storage/package/manifest.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "storage/package/package_samples.h"

namespace tessera::storage {
namespace {

using testing::SampleManifest;

// The message of the Error that parsing `json` throws, or "" when it parses.
std::string ParseError(const Json& json) {
  try {
    package::ParsePackageManifest(json);
    return "";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    return std::string(error.message());
  }
}

TEST(PackageManifest, WritesEveryKeyInTheDocumentedOrder) {
  Json json = package::ToJson(SampleManifest(3));
  std::vector<std::string> keys;
  for (const auto& [key, value] : json.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "format", "formatVersion", "kind", "platformVersion", "packageId", "importId",
                      "type", "purpose", "sourceEnvironment", "sourceProject", "targetProject",
                      "settings", "contentCount", "createdAt", "objectCount"}));
  EXPECT_EQ(json["format"], "tessera-mmp");
  EXPECT_EQ(json["formatVersion"], 2);
  EXPECT_EQ(json["kind"], "package");
  EXPECT_EQ(json["sourceProject"], (Json{{"id", "B19DEDCC11D4E0EFC000EB9495D0F44F"},
                                         {"name", "Tutorial"},
                                         {"schemaId", "B19DEDCC11D4E0EFC000EB9495D0F44F"}}));
  EXPECT_EQ(json["targetProject"], (Json{{"id", ""}, {"name", ""}}));
  EXPECT_EQ(json["objectCount"], 3);
}

TEST(PackageManifest, RoundTripsEveryField) {
  package::PackageManifest manifest = SampleManifest(7);
  manifest.kind = package::PackageFileKind::kUndo;
  manifest.import_id = "9D2E4F6A8B0C41D3E5F70819A2B3C4D5";
  manifest.target_project = {"F1E2D3C4B5A697887766554433221100", "Sales Prod", ""};
  manifest.content_count = 1234;

  package::PackageManifest back =
      package::ParsePackageManifest(ParseJson(DumpJson(package::ToJson(manifest))));

  EXPECT_EQ(back.kind, package::PackageFileKind::kUndo);
  EXPECT_EQ(back.platform_version, "11.6.0200.0001");
  EXPECT_EQ(back.package_id, "E7D6C5B4A39281706F5E4D3C2B1A0F9E");
  EXPECT_EQ(back.import_id, "9D2E4F6A8B0C41D3E5F70819A2B3C4D5");
  EXPECT_EQ(back.type, "project");
  EXPECT_EQ(back.purpose, "object_migration");
  EXPECT_EQ(back.source_environment.id, "https://bi-dev.example.com/TesseraLibrary/");
  EXPECT_EQ(back.source_environment.name, "https://bi-dev.example.com/TesseraLibrary/");
  EXPECT_EQ(back.source_project.id, "B19DEDCC11D4E0EFC000EB9495D0F44F");
  EXPECT_EQ(back.source_project.name, "Tutorial");
  EXPECT_EQ(back.source_project.schema_id, "B19DEDCC11D4E0EFC000EB9495D0F44F");
  EXPECT_EQ(back.target_project.id, "F1E2D3C4B5A697887766554433221100");
  EXPECT_EQ(back.target_project.name, "Sales Prod");
  EXPECT_EQ(back.settings, manifest.settings);
  EXPECT_EQ(back.content_count, 1234);
  EXPECT_EQ(back.created_at, "2025-06-02T10:15:30.250+0000");
  EXPECT_EQ(back.object_count, 7);
}

TEST(PackageManifest, RefusesAnotherFormatOrVersionOrKind) {
  Json json = package::ToJson(SampleManifest(1));
  json["format"] = "zip";
  EXPECT_EQ(ParseError(json), "manifest.format: 'zip' is not tessera-mmp");

  json = package::ToJson(SampleManifest(1));
  json["formatVersion"] = 1;  // the content list inside the manifest
  EXPECT_EQ(ParseError(json),
            "manifest.formatVersion: 1 is not a format version this server reads; expected 2");

  json = package::ToJson(SampleManifest(1));
  json["kind"] = "backup";
  EXPECT_EQ(ParseError(json),
            "manifest.kind: 'backup' is not a package kind; expected package or undo");
}

TEST(PackageManifest, RefusesEachMissingKey) {
  const Json complete = package::ToJson(SampleManifest(1));
  for (const auto& [key, value] : complete.items()) {
    Json json = complete;
    json.erase(key);
    EXPECT_EQ(ParseError(json), "manifest." + key + ": required key is missing");
  }
  Json json = complete;
  json["sourceProject"].erase("schemaId");
  EXPECT_EQ(ParseError(json), "manifest.sourceProject.schemaId: required key is missing");
}

TEST(PackageManifest, RefusesValuesOfTheWrongShape) {
  const Json complete = package::ToJson(SampleManifest(1));
  auto with = [&](const char* key, Json value) {
    Json json = complete;
    json[key] = std::move(value);
    return ParseError(json);
  };
  EXPECT_EQ(with("packageId", 42), "manifest.packageId: expected a string");
  EXPECT_EQ(with("objectCount", "3"), "manifest.objectCount: expected an integer");
  EXPECT_EQ(with("objectCount", -1), "manifest.objectCount: must not be negative");
  EXPECT_EQ(with("contentCount", Json::array()), "manifest.contentCount: expected an integer");
  EXPECT_EQ(with("contentCount", -2), "manifest.contentCount: must not be negative");
  EXPECT_EQ(with("settings", Json::array()), "manifest.settings: expected an object");
  EXPECT_EQ(with("createdAt", "yesterday"), "manifest.createdAt: 'yesterday' is not a timestamp");
  EXPECT_NE(with("platformVersion", "11.x")
                .find("manifest.platformVersion: '11.x' is not a "
                      "platform version"),
            std::string::npos);
  EXPECT_EQ(ParseError(Json::array()), "manifest: expected a JSON object");
}

}  // namespace
}  // namespace tessera::storage
