// Package files written by PackageWriter and read by PackageReader: round trip, byte limit,
// truncation, corruption and the trailer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>

#include "core/hash.h"
#include "core/json.h"
#include "storage/package/format.h"
#include "storage/package/package_samples.h"
#include "storage/package/reader.h"
#include "storage/package/writer.h"
#include "support/temp_dir.h"

namespace tessera::storage {
namespace {

using testing::ChecksumTrailer;
using testing::FileNames;
using testing::ReadWholeFile;
using testing::SampleManifest;
using testing::SampleObjects;
using testing::SamplePackageObject;
using testing::WriteRawZip;
using testing::WriteSamplePackage;
using testing::WriteWholeFile;
using Entries = std::vector<std::pair<std::string, std::string>>;

// The message of the PackageCorrupt that `action` throws; fails the test when it throws nothing
// or something else.
std::string CorruptMessage(const std::function<void()>& action) {
  try {
    action();
  } catch (const package::PackageCorrupt& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    return std::string(error.message());
  } catch (const std::exception& error) {
    ADD_FAILURE() << "expected package::PackageCorrupt, got: " << error.what();
    return "";
  }
  ADD_FAILURE() << "expected package::PackageCorrupt, nothing was thrown";
  return "";
}

std::vector<package::PackageEntry> ReadAll(package::PackageReader& reader) {
  std::vector<package::PackageEntry> entries;
  package::PackageEntry entry;
  while (reader.Next(entry)) entries.push_back(entry);
  return entries;
}

// The byte offset of the local header of the entry called `name` (its first occurrence in the
// file is in its local header, which precedes the ZIP directory).
size_t LocalHeaderOffset(const std::string& file, const std::string& name) {
  size_t at = file.find(name);
  EXPECT_NE(at, std::string::npos) << name;
  EXPECT_EQ(file.compare(at - 30, 4, "PK\x03\x04"), 0) << name;
  return at - 30;
}

// Where the data of the entry whose local header is at `header` starts.
size_t EntryDataOffset(const std::string& file, size_t header) {
  auto u16 = [&](size_t at) {
    return static_cast<size_t>(static_cast<unsigned char>(file[at])) |
           static_cast<size_t>(static_cast<unsigned char>(file[at + 1])) << 8;
  };
  return header + 30 + u16(header + 26) + u16(header + 28);
}

// Makes the ZIP end record of a file without comment say "see the Zip64 record" for its entry
// counts, as it does in packages of more than 65535 entries: the reader cannot compare counts
// with the directory then and must find every inconsistency in the stream.
void HideDirectoryCount(const std::filesystem::path& path) {
  std::string bytes = ReadWholeFile(path);
  size_t end_record = bytes.size() - 22;
  ASSERT_EQ(bytes.compare(end_record, 4, "PK\x05\x06"), 0);
  for (size_t i = 8; i < 12; ++i) bytes[end_record + i] = '\xFF';
  WriteWholeFile(path, bytes);
}

Entries ValidEntries(int objects) {
  Entries entries{{"manifest.json", DumpJson(package::ToJson(SampleManifest(objects)))}};
  for (int i = 1; i <= objects; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "objects/%06d-%s.json", i, testing::SampleObjectId(i).c_str());
    entries.emplace_back(name, testing::SampleObjectJson(i, 300, false));
  }
  return entries;
}

TEST(PackageFile, ReadsBackTheManifestAndEveryObjectInOrder) {
  testing::TempDir dir;
  std::vector<SamplePackageObject> objects = SampleObjects(25, 700);
  WriteSamplePackage(dir.path() / "p.mmp", objects);

  package::PackageReader reader(dir.path() / "p.mmp");
  EXPECT_EQ(DumpJson(package::ToJson(reader.manifest())),
            DumpJson(package::ToJson(SampleManifest(25))));
  std::vector<package::PackageEntry> entries = ReadAll(reader);

  ASSERT_EQ(entries.size(), objects.size());
  for (size_t i = 0; i < objects.size(); ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "objects/%06zu-%s.json", i + 1, objects[i].id.c_str());
    EXPECT_EQ(entries[i].name, name);
    EXPECT_EQ(entries[i].id, objects[i].id);
    EXPECT_EQ(entries[i].json, objects[i].json);
  }
  EXPECT_EQ(ParseJson(entries[24].json)["name"], "Metric 25");
  package::PackageEntry after;
  EXPECT_FALSE(reader.Next(after));
}

TEST(PackageFile, StoresEntriesInTheDocumentedOrderWithTheChecksumTrailer) {
  testing::TempDir dir;
  std::vector<SamplePackageObject> objects = SampleObjects(3, 100);
  WriteSamplePackage(dir.path() / "p.mmp", objects);

  // Read with a plain ZIP reading of the raw bytes: entry names in file order.
  std::string file = ReadWholeFile(dir.path() / "p.mmp");
  EXPECT_EQ(file.compare(30, 13, "manifest.json"), 0) << "manifest.json is the first entry";
  size_t first = LocalHeaderOffset(file, "objects/000001-" + objects[0].id + ".json");
  size_t second = LocalHeaderOffset(file, "objects/000002-" + objects[1].id + ".json");
  size_t third = LocalHeaderOffset(file, "objects/000003-" + objects[2].id + ".json");
  size_t trailer = LocalHeaderOffset(file, "checksums.tsv");
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  EXPECT_LT(third, trailer);
}

TEST(PackageFile, TrailerListsEverySha256AndTheObjectCount) {
  testing::TempDir dir;
  Entries entries = ValidEntries(2);
  // A package written by hand with the trailer this test expects verifies...
  Entries with_trailer = entries;
  with_trailer.emplace_back("checksums.tsv", ChecksumTrailer(entries, 2));
  WriteRawZip(dir.path() / "hand.mmp", with_trailer);
  EXPECT_EQ(package::VerifyPackage(dir.path() / "hand.mmp").object_count, 2);

  // ...and the writer produces byte-identical entries, so it writes that same trailer.
  std::vector<SamplePackageObject> objects;
  for (int i = 1; i <= 2; ++i) {
    objects.push_back({testing::SampleObjectId(i), testing::SampleObjectJson(i, 300, false)});
  }
  WriteSamplePackage(dir.path() / "written.mmp", objects);
  package::PackageReader reader(dir.path() / "written.mmp");
  std::vector<package::PackageEntry> read = ReadAll(reader);
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].name, entries[1].first);
  EXPECT_EQ(read[1].json, entries[2].second);
}

TEST(PackageFile, CommitReportsTheFileSizeAndSha256AndLeavesNoTemporaryFile) {
  testing::TempDir dir;
  package::PackageFileInfo info = WriteSamplePackage(dir.path() / "p.mmp", SampleObjects(10, 500));

  std::string bytes = ReadWholeFile(dir.path() / "p.mmp");
  EXPECT_EQ(info.size_bytes, static_cast<int64_t>(bytes.size()));
  EXPECT_EQ(info.sha256, Sha256Hex(bytes));
  EXPECT_EQ(FileNames(dir.path()), std::vector<std::string>{"p.mmp"});
}

TEST(PackageFile, WritesTheTemporaryFileBesideTheFinalOneUntilCommit) {
  testing::TempDir dir;
  package::PackageWriter writer(dir.path() / "sub" / "p.mmp", 1 << 20);
  EXPECT_EQ(writer.temporary_path(), dir.path() / "sub" / ".p.mmp.tmp");
  writer.WriteManifest(SampleManifest(0));
  EXPECT_EQ(FileNames(dir.path() / "sub"), std::vector<std::string>{".p.mmp.tmp"});
  writer.Commit();
  EXPECT_EQ(FileNames(dir.path() / "sub"), std::vector<std::string>{"p.mmp"});
  EXPECT_EQ(package::VerifyPackage(dir.path() / "sub" / "p.mmp").object_count, 0);
}

TEST(PackageFile, AWriterDestroyedWithoutCommitLeavesNothing) {
  testing::TempDir dir;
  {
    package::PackageWriter writer(dir.path() / "p.mmp", 1 << 20);
    writer.WriteManifest(SampleManifest(2));
    writer.AddObject(testing::SampleObjectId(1), "{}");
  }
  EXPECT_TRUE(FileNames(dir.path()).empty());
}

TEST(PackageFile, RemovingAPackageAlsoRemovesWhatAKilledWriterOfItLeft) {
  testing::TempDir dir;
  WriteSamplePackage(dir.path() / "p.mmp", SampleObjects(2, 10));
  WriteSamplePackage(dir.path() / "q.mmp", SampleObjects(2, 10));
  for (const char* left : {".p.mmp.tmp", ".p.mmp.0A1B.sums.tmp", ".p.mmp.2C3D.dir.tmp",
                           ".q.mmp.tmp", ".q.mmp.4E5F.sums.tmp", ".p.mmp.6A7B.other"}) {
    WriteWholeFile(dir.path() / left, "left by a killed writer");
  }

  package::RemovePackageFileQuietly(dir.path() / "p.mmp");

  EXPECT_EQ(FileNames(dir.path()),
            (std::vector<std::string>{".p.mmp.6A7B.other", ".q.mmp.4E5F.sums.tmp", ".q.mmp.tmp",
                                      "q.mmp"}));
}

TEST(PackageFile, TheManifestComesFirstAndTheAnnouncedCountIsKept) {
  testing::TempDir dir;
  {
    package::PackageWriter writer(dir.path() / "p.mmp", 1 << 20);
    EXPECT_THROW(writer.AddObject(testing::SampleObjectId(1), "{}"), Error);
  }
  {
    package::PackageWriter writer(dir.path() / "p.mmp", 1 << 20);
    writer.WriteManifest(SampleManifest(2));
    writer.AddObject(testing::SampleObjectId(1), "{}");
    EXPECT_THROW(writer.Commit(), Error);
    EXPECT_TRUE(FileNames(dir.path()).empty()) << "a failed call removes the temporary file";
  }
  {
    package::PackageWriter writer(dir.path() / "p.mmp", 1 << 20);
    writer.WriteManifest(SampleManifest(1));
    EXPECT_THROW(writer.AddObject("../../etc", "{}"), Error);
  }
  EXPECT_TRUE(FileNames(dir.path()).empty());
}

TEST(PackageFile, StopsAtTheByteLimitAndSaysHowManyObjectsItWrote) {
  testing::TempDir dir;
  const int64_t kLimit = 64 * 1024;
  const int kObjects = 100;
  package::PackageWriter writer(dir.path() / "p.mmp", kLimit);
  writer.WriteManifest(SampleManifest(kObjects));
  try {
    for (int i = 1; i <= kObjects; ++i) {
      writer.AddObject(testing::SampleObjectId(i), testing::SampleObjectJson(i, 4096, true));
    }
    writer.Commit();
    FAIL() << "100 incompressible objects of 4 KiB fit in 64 KiB";
  } catch (const package::PackageTooLarge& error) {
    // Random text from an 85-character alphabet deflates to at least 6.4/8 of its size, so each
    // object takes more than 3.2 KiB and no more than 4.2 KiB (with its headers): 15 to 20 fit.
    EXPECT_GE(error.objects_written(), 15);
    EXPECT_LE(error.objects_written(), 20);
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    EXPECT_EQ(std::string(error.message()), "The package exceeds the 65536 bytes limit (" +
                                                std::to_string(error.objects_written()) +
                                                " of 100 objects written)");
  }
  EXPECT_TRUE(FileNames(dir.path()).empty()) << "neither a temporary nor a final file is left";
  EXPECT_THROW(writer.Commit(), Error);
}

TEST(PackageFile, TheTwoGigabyteLimitIsNamedInGigabytes) {
  package::PackageTooLarge error(int64_t{1} << 31, 12, 40);
  EXPECT_EQ(std::string(error.message()),
            "The package exceeds the 2 GB limit (12 of 40 objects written)");
}

TEST(PackageFile, ATruncatedFileIsCorrupt) {
  testing::TempDir dir;
  std::vector<SamplePackageObject> objects = SampleObjects(40, 800);
  package::PackageFileInfo info = WriteSamplePackage(dir.path() / "p.mmp", objects);
  const std::string bytes = ReadWholeFile(dir.path() / "p.mmp");
  const size_t after_manifest =
      LocalHeaderOffset(bytes, "objects/000001-" + objects[0].id + ".json");

  for (size_t length : {bytes.size() / 2, bytes.size() - 10, after_manifest, size_t{100}}) {
    SCOPED_TRACE("truncated to " + std::to_string(length) + " of " + std::to_string(bytes.size()));
    std::filesystem::path path = dir.path() / "truncated.mmp";
    WriteWholeFile(path, bytes.substr(0, length));
    EXPECT_NE(CorruptMessage([&] { package::CheckPackageStructure(path, info.size_bytes); }), "");
    EXPECT_NE(CorruptMessage([&] { package::CheckPackageStructure(path, -1); }), "");
    EXPECT_NE(CorruptMessage([&] { package::VerifyPackage(path); }), "");
  }
}

TEST(PackageFile, CheckStructureNamesTheSizeMismatch) {
  testing::TempDir dir;
  package::PackageFileInfo info = WriteSamplePackage(dir.path() / "p.mmp", SampleObjects(3, 100));
  EXPECT_EQ(package::CheckPackageStructure(dir.path() / "p.mmp", info.size_bytes).object_count, 3);
  EXPECT_EQ(CorruptMessage(
                [&] { package::CheckPackageStructure(dir.path() / "p.mmp", info.size_bytes + 1); }),
            "Package file is corrupt: the file has " + std::to_string(info.size_bytes) +
                " bytes, expected " + std::to_string(info.size_bytes + 1));
}

TEST(PackageFile, AFlippedByteInAnObjectNeverYieldsWrongData) {
  testing::TempDir dir;
  std::vector<SamplePackageObject> objects = SampleObjects(5, 1500);
  WriteSamplePackage(dir.path() / "p.mmp", objects);
  const std::string bytes = ReadWholeFile(dir.path() / "p.mmp");
  const size_t data =
      EntryDataOffset(bytes, LocalHeaderOffset(bytes, "objects/000002-" + objects[1].id + ".json"));

  for (size_t offset = 0; offset < 60; offset += 3) {
    SCOPED_TRACE("byte " + std::to_string(offset) + " of the second object's data flipped");
    std::string damaged = bytes;
    damaged[data + offset] = static_cast<char>(damaged[data + offset] ^ 0x10);
    std::filesystem::path path = dir.path() / "damaged.mmp";
    WriteWholeFile(path, damaged);

    EXPECT_NE(CorruptMessage([&] { package::VerifyPackage(path); }), "");
    // Reading entry by entry: whatever Next() hands out before it throws is what was written
    // (libarchive checks each entry's CRC before the entry is handed out).
    EXPECT_NE(CorruptMessage([&] {
                package::PackageReader reader(path);
                package::PackageEntry entry;
                for (size_t i = 0; reader.Next(entry); ++i) {
                  ASSERT_LT(i, objects.size());
                  EXPECT_EQ(entry.json, objects[i].json) << "object " << i + 1;
                }
              }),
              "");
  }
}

TEST(PackageFile, AFileWhoseFirstEntryIsNotTheManifestIsCorrupt) {
  testing::TempDir dir;
  Entries entries = ValidEntries(1);
  std::swap(entries[0], entries[1]);
  entries.emplace_back("checksums.tsv", ChecksumTrailer(entries, 1));
  WriteRawZip(dir.path() / "p.mmp", entries);
  EXPECT_EQ(
      CorruptMessage([&] { package::PackageReader reader(dir.path() / "p.mmp"); }),
      "Package file is corrupt: the first entry is '" + entries[0].first + "', not manifest.json");
}

TEST(PackageFile, AnUnreadableManifestIsCorrupt) {
  testing::TempDir dir;
  WriteRawZip(dir.path() / "p.mmp", {{"manifest.json", "{\"format\": \"tessera-mmp\""}});
  EXPECT_NE(CorruptMessage([&] {
              package::CheckPackageStructure(dir.path() / "p.mmp", -1);
            }).find("Package file is corrupt: Invalid JSON"),
            std::string::npos);

  Json manifest = package::ToJson(SampleManifest(0));
  manifest["formatVersion"] = 9;
  WriteRawZip(dir.path() / "p.mmp", {{"manifest.json", DumpJson(manifest)}});
  EXPECT_EQ(CorruptMessage([&] { package::CheckPackageStructure(dir.path() / "p.mmp", -1); }),
            "Package file is corrupt: manifest.formatVersion: 9 is not a format version this "
            "server reads; expected 2");
}

TEST(PackageFile, AMissingTrailerIsCorrupt) {
  testing::TempDir dir;
  WriteRawZip(dir.path() / "p.mmp", ValidEntries(2));
  EXPECT_EQ(CorruptMessage([&] { package::VerifyPackage(dir.path() / "p.mmp"); }),
            "Package file is corrupt: the ZIP directory lists 3 entries, the manifest announces 2 "
            "objects and 0 content items");

  // The same, with a ZIP directory that cannot tell: the stream ends without the trailer.
  HideDirectoryCount(dir.path() / "p.mmp");
  EXPECT_EQ(CorruptMessage([&] { package::VerifyPackage(dir.path() / "p.mmp"); }),
            "Package file is corrupt: checksums.tsv is missing (the file is truncated)");
}

TEST(PackageFile, AnEntryAfterTheTrailerIsCorrupt) {
  testing::TempDir dir;
  Entries entries = ValidEntries(2);
  entries.emplace_back("checksums.tsv", ChecksumTrailer(entries, 2));
  entries.emplace_back("objects/000003-" + testing::SampleObjectId(3) + ".json", "{}");
  WriteRawZip(dir.path() / "p.mmp", entries);
  EXPECT_EQ(CorruptMessage([&] { package::VerifyPackage(dir.path() / "p.mmp"); }),
            "Package file is corrupt: the ZIP directory lists 5 entries, the manifest announces 2 "
            "objects and 0 content items");

  HideDirectoryCount(dir.path() / "p.mmp");
  EXPECT_EQ(CorruptMessage([&] { package::VerifyPackage(dir.path() / "p.mmp"); }),
            "Package file is corrupt: entry '" + entries.back().first + "' follows checksums.tsv");
}

TEST(PackageFile, ATrailerListingAnotherHashIsCorrupt) {
  testing::TempDir dir;
  Entries entries = ValidEntries(3);
  std::string trailer = ChecksumTrailer(entries, 3);
  size_t second_line = trailer.find('\n') + 1;
  trailer[second_line] = trailer[second_line] == '0' ? '1' : '0';
  entries.emplace_back("checksums.tsv", trailer);
  WriteRawZip(dir.path() / "p.mmp", entries);
  EXPECT_EQ(CorruptMessage([&] { package::VerifyPackage(dir.path() / "p.mmp"); }),
            "Package file is corrupt: an entry's SHA-256 or name differs from checksums.tsv");
}

TEST(PackageFile, ATrailerWithAnotherCountOrEntryListIsCorrupt) {
  testing::TempDir dir;
  Entries entries = ValidEntries(3);
  Entries with_trailer = entries;
  with_trailer.emplace_back("checksums.tsv", ChecksumTrailer(entries, 4));
  WriteRawZip(dir.path() / "p.mmp", with_trailer);
  EXPECT_EQ(CorruptMessage([&] { package::VerifyPackage(dir.path() / "p.mmp"); }),
            "Package file is corrupt: checksums.tsv counts 4 objects, the file has 3");

  Entries listed(entries.begin(), entries.end() - 1);
  with_trailer = entries;
  with_trailer.emplace_back("checksums.tsv", ChecksumTrailer(listed, 3));
  WriteRawZip(dir.path() / "p.mmp", with_trailer);
  EXPECT_EQ(CorruptMessage([&] { package::VerifyPackage(dir.path() / "p.mmp"); }),
            "Package file is corrupt: checksums.tsv lists 3 entries, the file has 4");
}

TEST(PackageFile, ObjectsOutOfSequenceAreCorrupt) {
  testing::TempDir dir;
  Entries entries = ValidEntries(3);
  std::swap(entries[1], entries[2]);
  entries.emplace_back("checksums.tsv", ChecksumTrailer(entries, 3));
  WriteRawZip(dir.path() / "p.mmp", entries);
  EXPECT_EQ(CorruptMessage([&] { package::VerifyPackage(dir.path() / "p.mmp"); }),
            "Package file is corrupt: entry '" + entries[1].first +
                "' is not objects/000001-<id>.json, "
                "the next one expected");
}

// A content list of `count` items, each naming its position.
Json SampleContent(int64_t begin, int64_t end) {
  Json items = Json::array();
  for (int64_t i = begin; i < end; ++i) {
    items.push_back(Json{{"id", testing::SampleObjectId(i)}, {"action", "replace"}, {"n", i}});
  }
  return items;
}

// Writes a package of `objects` with a content list of `content_count` items.
void WritePackageWithContent(const std::filesystem::path& path,
                             const std::vector<SamplePackageObject>& objects,
                             int64_t content_count) {
  package::PackageManifest manifest = SampleManifest(static_cast<int64_t>(objects.size()));
  manifest.content_count = content_count;
  package::PackageWriter writer(path, int64_t{1} << 31);
  writer.WriteManifest(manifest);
  for (int64_t begin = 0; begin < content_count; begin += package::kContentItemsPerEntry) {
    writer.AddContent(DumpJson(
        SampleContent(begin, std::min(content_count, begin + package::kContentItemsPerEntry))));
  }
  for (const SamplePackageObject& object : objects) writer.AddObject(object.id, object.json);
  writer.Commit();
}

TEST(PackageFile, KeepsTheContentListInEntriesOfItsOwnBetweenManifestAndObjects) {
  testing::TempDir dir;
  std::vector<SamplePackageObject> objects = SampleObjects(3, 100);
  WritePackageWithContent(dir.path() / "p.mmp", objects, 2500);

  std::string file = ReadWholeFile(dir.path() / "p.mmp");
  size_t first = LocalHeaderOffset(file, "content/000001.json");
  size_t third = LocalHeaderOffset(file, "content/000003.json");
  EXPECT_EQ(file.find("content/000004.json"), std::string::npos);
  EXPECT_LT(first, third);
  EXPECT_LT(third, LocalHeaderOffset(file, "objects/000001-" + objects[0].id + ".json"));

  package::PackageReader reader(dir.path() / "p.mmp");
  EXPECT_EQ(reader.manifest().content_count, 2500);
  EXPECT_EQ(package::ReadContentList(reader), SampleContent(0, 2500));
  EXPECT_EQ(ReadAll(reader).size(), 3u);
  EXPECT_EQ(package::VerifyPackage(dir.path() / "p.mmp").content_count, 2500);
}

TEST(PackageFile, ObjectsCanBeReadWithoutReadingTheContentList) {
  testing::TempDir dir;
  std::vector<SamplePackageObject> objects = SampleObjects(2, 100);
  WritePackageWithContent(dir.path() / "p.mmp", objects, 1001);
  package::PackageReader reader(dir.path() / "p.mmp");
  std::vector<package::PackageEntry> entries =
      ReadAll(reader);  // the trailer checks the content too
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].id, objects[0].id);
  std::string content;
  EXPECT_FALSE(reader.NextContent(content));
}

TEST(PackageFile, TheWriterRefusesContentEntriesOtherThanAnnounced) {
  testing::TempDir dir;
  std::vector<SamplePackageObject> objects = SampleObjects(1, 100);
  auto internal_error = [](const std::function<void()>& action) {
    try {
      action();
    } catch (const Error& error) {
      return error.code() == ErrorCode::kInternal;
    }
    return false;
  };
  package::PackageManifest manifest = SampleManifest(1);
  manifest.content_count = 1500;  // two entries
  {
    package::PackageWriter writer(dir.path() / "few.mmp", int64_t{1} << 31);
    writer.WriteManifest(manifest);
    writer.AddContent(DumpJson(SampleContent(0, 1000)));
    EXPECT_TRUE(internal_error([&] { writer.AddObject(objects[0].id, objects[0].json); }));
  }
  {
    package::PackageWriter writer(dir.path() / "many.mmp", int64_t{1} << 31);
    writer.WriteManifest(manifest);
    writer.AddContent(DumpJson(SampleContent(0, 1000)));
    writer.AddContent(DumpJson(SampleContent(1000, 1500)));
    EXPECT_TRUE(internal_error([&] { writer.AddContent("[]"); }));
  }
  EXPECT_EQ(FileNames(dir.path()), std::vector<std::string>{});
}

TEST(PackageFile, AMissingOrMalformedContentEntryIsCorrupt) {
  testing::TempDir dir;
  package::PackageManifest manifest = SampleManifest(1);
  manifest.content_count = 1500;
  Entries entries{{"manifest.json", DumpJson(package::ToJson(manifest))},
                  {"content/000001.json", DumpJson(SampleContent(0, 1000))},
                  {"objects/000001-" + testing::SampleObjectId(1) + ".json", "{}"}};
  entries.emplace_back("checksums.tsv", ChecksumTrailer(entries, 1));
  WriteRawZip(dir.path() / "p.mmp", entries);
  HideDirectoryCount(dir.path() / "p.mmp");
  EXPECT_EQ(CorruptMessage([&] { package::VerifyPackage(dir.path() / "p.mmp"); }),
            "Package file is corrupt: entry '" + entries[2].first +
                "' is not content/000002.json, the next one expected");

  manifest.content_count = 1;
  entries = {{"manifest.json", DumpJson(package::ToJson(manifest))},
             {"content/000001.json", "{\"id\": 1}"},
             {"objects/000001-" + testing::SampleObjectId(1) + ".json", "{}"}};
  entries.emplace_back("checksums.tsv", ChecksumTrailer(entries, 1));
  WriteRawZip(dir.path() / "q.mmp", entries);
  package::PackageReader reader(dir.path() / "q.mmp");
  EXPECT_EQ(CorruptMessage([&] { package::ReadContentList(reader); }),
            "Package file is corrupt: content/000001.json is not an array");
}

TEST(PackageFile, AMissingFileCannotBeAccessed) {
  testing::TempDir dir;
  for (auto check : std::vector<std::function<void()>>{
           [&] { package::CheckPackageStructure(dir.path() / "absent.mmp", 100); },
           [&] { package::VerifyPackage(dir.path() / "absent.mmp"); },
           [&] { package::PackageReader reader(dir.path()); }}) {
    try {
      check();
      ADD_FAILURE() << "a missing file was read";
    } catch (const package::PackageNotAccessible& error) {
      EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
      EXPECT_EQ(std::string(error.message()),
                "The shared file cannot be accessed. It may be deleted or the storage location "
                "cannot be accessed.");
    }
  }
}

}  // namespace
}  // namespace tessera::storage
