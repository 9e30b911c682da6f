#include "storage/package/format.h"

#include <cstdio>

namespace tessera::storage::package {

namespace {

constexpr std::string_view kObjectsPrefix = "objects/";
constexpr std::string_view kObjectsSuffix = ".json";
constexpr std::string_view kContentPrefix = "content/";

bool IsAsciiAlphanumeric(char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

// "<n> GB" for a whole number of gigabytes (the default limit, 2^31 bytes, is "2 GB"); an exact
// byte count for any other limit.
std::string DescribeLimit(int64_t max_package_bytes) {
  constexpr int64_t kGigabyte = int64_t{1} << 30;
  if (max_package_bytes > 0 && max_package_bytes % kGigabyte == 0) {
    return std::to_string(max_package_bytes / kGigabyte) + " GB";
  }
  return std::to_string(max_package_bytes) + " bytes";
}

std::string SequenceText(int64_t sequence) {
  char number[32];
  std::snprintf(number, sizeof number, "%06lld", static_cast<long long>(sequence));
  return number;
}

}  // namespace

int64_t ContentEntryCount(int64_t content_count) {
  if (content_count <= 0) return 0;
  // Rounded up without adding first: a manifest may announce any count, up to INT64_MAX.
  return content_count / kContentItemsPerEntry + (content_count % kContentItemsPerEntry != 0);
}

std::string ContentEntryName(int64_t sequence) {
  return std::string(kContentPrefix) + SequenceText(sequence) + std::string(kObjectsSuffix);
}

std::string ObjectEntryName(int64_t sequence, std::string_view id) {
  std::string name(kObjectsPrefix);
  name += SequenceText(sequence);
  name += '-';
  name += id;
  name += kObjectsSuffix;
  return name;
}

std::optional<std::string> ObjectIdOfEntry(std::string_view name, int64_t sequence) {
  if (!name.starts_with(kObjectsPrefix) || !name.ends_with(kObjectsSuffix)) return std::nullopt;
  std::string_view middle = name.substr(
      kObjectsPrefix.size(), name.size() - kObjectsPrefix.size() - kObjectsSuffix.size());
  size_t dash = middle.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  std::string id(middle.substr(dash + 1));
  if (!IsValidEntryId(id) || ObjectEntryName(sequence, id) != name) return std::nullopt;
  return id;
}

bool IsValidEntryId(std::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id) {
    if (!IsAsciiAlphanumeric(c)) return false;
  }
  return true;
}

std::string ChecksumLine(std::string_view sha256_hex, std::string_view entry_name) {
  std::string line(sha256_hex);
  line += "  ";
  line += entry_name;
  line += '\n';
  return line;
}

PackageTooLarge::PackageTooLarge(int64_t max_package_bytes, int64_t objects_written,
                                 int64_t object_count)
    : Error(ErrorCode::kInvalidInput, "The package exceeds the " +
                                          DescribeLimit(max_package_bytes) + " limit (" +
                                          std::to_string(objects_written) + " of " +
                                          std::to_string(object_count) + " objects written)"),
      objects_written_(objects_written) {}

}  // namespace tessera::storage::package
