#include "storage/package/package_samples.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "core/hash.h"
#include "core/json.h"

namespace tessera::testing {

storage::package::PackageManifest SampleManifest(int64_t object_count) {
  storage::package::PackageManifest manifest;
  manifest.kind = storage::package::PackageFileKind::kPackage;
  manifest.platform_version = "11.6.0200.0001";
  manifest.package_id = "E7D6C5B4A39281706F5E4D3C2B1A0F9E";
  manifest.import_id = "";
  manifest.type = "project";
  manifest.purpose = "object_migration";
  manifest.source_environment = {"https://bi-dev.example.com/TesseraLibrary/",
                                 "https://bi-dev.example.com/TesseraLibrary/"};
  manifest.source_project = {"B19DEDCC11D4E0EFC000EB9495D0F44F", "Tutorial",
                             "B19DEDCC11D4E0EFC000EB9495D0F44F"};
  manifest.target_project = {"", "", ""};
  manifest.settings = Json{{"defaultAction", "replace"}, {"validateDependencies", true}};
  manifest.content_count = 0;
  manifest.created_at = "2025-06-02T10:15:30.250+0000";
  manifest.object_count = object_count;
  return manifest;
}

std::string SampleObjectId(int64_t i) {
  return HexEncode(Sha256("object " + std::to_string(i)), true).substr(0, 32);
}

std::string SampleObjectJson(int64_t i, size_t bytes, bool incompressible) {
  std::string padding;
  if (incompressible) {
    // A slice of one pool of random characters: each entry is deflated on its own, so slices
    // that overlap between entries stay incompressible.
    static const std::string pool = [] {
      std::mt19937_64 random(20250602);
      const std::string alphabet =
          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+=-_.,;:!?#$%&*()[]{}<>";
      std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
      std::string text;
      for (size_t k = 0; k < (size_t{1} << 20); ++k) text.push_back(alphabet[pick(random)]);
      return text;
    }();
    size_t start = static_cast<size_t>(i) * 7919 % (pool.size() - bytes);
    padding = pool.substr(start, bytes);
  } else {
    while (padding.size() < bytes) padding += "Revenue by region and quarter. ";
    padding.resize(bytes);
  }
  // Written as text: the padding needs no escaping, and 50,000 objects through a JSON DOM in a
  // Debug build would take most of a streaming test's time.
  return "{\"id\":\"" + SampleObjectId(i) + "\",\"type\":4,\"subtype\":1024,\"name\":\"Metric " +
         std::to_string(i) + "\",\"description\":\"" + padding + "\"}";
}

std::vector<SamplePackageObject> SampleObjects(int64_t count, size_t bytes) {
  std::vector<SamplePackageObject> objects;
  for (int64_t i = 1; i <= count; ++i) {
    objects.push_back({SampleObjectId(i), SampleObjectJson(i, bytes, false)});
  }
  return objects;
}

storage::package::PackageFileInfo WriteSamplePackage(
    const std::filesystem::path& path, const std::vector<SamplePackageObject>& objects) {
  storage::package::PackageWriter writer(path, int64_t{1} << 31);
  writer.WriteManifest(SampleManifest(static_cast<int64_t>(objects.size())));
  for (const SamplePackageObject& object : objects) writer.AddObject(object.id, object.json);
  return writer.Commit();
}

void WriteRawZip(const std::filesystem::path& path,
                 const std::vector<std::pair<std::string, std::string>>& entries) {
  archive* zip = archive_write_new();
  archive_write_set_format_zip(zip);
  archive_write_zip_set_compression_deflate(zip);
  archive_write_set_bytes_in_last_block(zip, 1);
  if (archive_write_open_filename(zip, path.c_str()) != ARCHIVE_OK) {
    throw std::runtime_error("cannot open " + path.string());
  }
  for (const auto& [name, content] : entries) {
    archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, name.c_str());
    archive_entry_set_filetype(entry, AE_IFREG);
    archive_entry_set_perm(entry, 0644);
    archive_entry_set_size(entry, static_cast<la_int64_t>(content.size()));
    const bool written = archive_write_header(zip, entry) == ARCHIVE_OK &&
                         archive_write_data(zip, content.data(), content.size()) ==
                             static_cast<la_ssize_t>(content.size());
    archive_entry_free(entry);
    if (!written) {
      const char* reason = archive_error_string(zip);  // may be null
      std::string message = std::string("libarchive cannot write entry '") + name +
                            "': " + (reason ? reason : "no reason given");
      archive_write_free(zip);
      throw std::runtime_error(message);
    }
  }
  archive_write_close(zip);
  archive_write_free(zip);
}

std::string ChecksumTrailer(const std::vector<std::pair<std::string, std::string>>& entries,
                            int64_t object_count) {
  std::string text;
  for (const auto& [name, content] : entries) text += Sha256Hex(content) + "  " + name + "\n";
  return text + "# objects " + std::to_string(object_count) + "\n";
}

std::string ReadWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void WriteWholeFile(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace tessera::testing
