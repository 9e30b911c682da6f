// The file part of a spooled multipart body (api/multipart_file.h), found in bodies whose parts
// and delimiters straddle the 1 MiB read chunks, checked against the bytes that were written.
#include "api/multipart_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "core/error.h"
#include "support/temp_dir.h"

namespace tessera::api {
namespace {

constexpr char kType[] = "multipart/form-data; boundary=XyZ0123";
constexpr size_t kChunk = 1 << 20;

std::string Part(const std::string& name, const std::string& content) {
  return "--XyZ0123\r\nContent-Disposition: form-data; name=\"" + name +
         "\"; filename=\"x.mmp\"\r\nContent-Type: application/octet-stream\r\n\r\n" + content +
         "\r\n";
}

std::string RandomBytes(size_t size, unsigned seed) {
  std::mt19937 random(seed);
  std::string bytes(size, '\0');
  for (char& c : bytes) c = static_cast<char>(random() & 0xFF);
  return bytes;
}

class MultipartFile : public ::testing::Test {
 protected:
  // Writes `body` and returns the content FindFormFile() points at.
  std::string Found(const std::string& body, const std::string& field = "file",
                    const std::string& type = kType) {
    std::string path = (dir_.path() / "body").string();
    std::ofstream(path, std::ios::binary) << body;
    FileRange range = FindFormFile(path, body.size(), type, field);
    EXPECT_LE(range.offset + range.length, body.size());
    return body.substr(range.offset, range.length);
  }

  tessera::testing::TempDir dir_;
};

TEST_F(MultipartFile, FindsTheNamedPartAmongOthers) {
  std::string content = RandomBytes(1000, 1);
  std::string body = Part("name", "Cost") + Part("file", content) + "--XyZ0123--\r\n";
  EXPECT_EQ(Found(body), content);
  EXPECT_EQ(Found(body, "name"), "Cost");
}

TEST_F(MultipartFile, FindsDelimitersThatStraddleReadChunks) {
  for (size_t shift : {0u, 1u, 5u, 11u, 13u}) {
    // The search for the closing delimiter "\r\n--XyZ0123" (11 bytes) reads from the content's
    // start; the delimiter starts `shift` bytes before the end of its first chunk.
    std::string head = Part("file", "");
    head.resize(head.size() - 2);  // the part's content starts here
    std::string content = RandomBytes(kChunk - shift, static_cast<unsigned>(shift));
    std::string body = head + content + "\r\n--XyZ0123--\r\n";
    EXPECT_EQ(Found(body), content) << "shift " << shift;
  }
}

TEST_F(MultipartFile, ContentThatAlmostHoldsTheDelimiterIsKept) {
  std::string content = "a\r\n--XyZ012b\r\n--XyZ01\r\n-" + RandomBytes(3 * kChunk, 7);
  std::string body = Part("file", content) + "--XyZ0123--\r\n";
  EXPECT_EQ(Found(body), content);
}

TEST_F(MultipartFile, MalformedBodiesAreRefusedSayingWhy) {
  std::string good = Part("file", "abc") + "--XyZ0123--\r\n";
  auto refused = [&](const std::string& body, const std::string& type, const std::string& why) {
    try {
      Found(body, "file", type);
      ADD_FAILURE() << "accepted: " << why;
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
      EXPECT_NE(std::string(error.message()).find(why), std::string::npos) << error.message();
    }
  };
  refused(good, "application/json", "not multipart/form-data");
  refused(good, "multipart/form-data", "boundary is missing");
  refused("no delimiter here", kType, "no boundary delimiter");
  refused(Part("file", "abc"), kType, "no closing boundary delimiter");
  refused("--XyZ0123\r\n" + std::string(20000, 'h'), kType, "headers are unterminated");
  refused("--XyZ0123junk", kType, "not followed by a line break");
  refused(Part("other", "abc") + "--XyZ0123--\r\n", kType, "no part named 'file'");
}

}  // namespace
}  // namespace tessera::api
