#include "http/static_files.h"

#include <gtest/gtest.h>

#include <fstream>

#include "support/temp_dir.h"

namespace tessera::http {
namespace {

class StaticFilesTest : public ::testing::Test {
 protected:
  StaticFilesTest() : files_(dir_.path() / "web") {
    std::filesystem::create_directories(dir_.path() / "web" / "js");
    std::ofstream(dir_.path() / "web" / "js" / "main.js") << "export {};\n";
    std::ofstream(dir_.path() / "web" / "app.css") << "body {}\n";
    std::ofstream(dir_.path() / "secret.txt") << "outside the root\n";
  }

  Request Get(std::string if_none_match = "") {
    Request request;
    request.method = "GET";
    if (!if_none_match.empty()) request.headers.Set("If-None-Match", if_none_match);
    return request;
  }

  tessera::testing::TempDir dir_;
  StaticFiles files_;
};

TEST_F(StaticFilesTest, ServesAFileWithItsContentTypeAndValidators) {
  auto answer = files_.Serve("js/main.js", Get());
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200);
  EXPECT_EQ(answer->body_file, (dir_.path() / "web" / "js" / "main.js").string());
  EXPECT_EQ(answer->headers.Get("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(answer->headers.Get("Cache-Control"), "no-cache");
  EXPECT_EQ(answer->headers.Get("X-Content-Type-Options"), "nosniff");
  EXPECT_TRUE(answer->headers.Get("ETag").has_value());
}

TEST_F(StaticFilesTest, AnswersNotModifiedToTheCurrentETag) {
  std::string etag(*files_.Serve("app.css", Get())->headers.Get("ETag"));
  auto again = files_.Serve("app.css", Get(etag));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 304);
  EXPECT_TRUE(again->body_file.empty());
  EXPECT_EQ(files_.Serve("app.css", Get("\"other\""))->status, 200);
}

TEST_F(StaticFilesTest, DecodesPercentEscapes) { EXPECT_TRUE(files_.Serve("js/main%2Ejs", Get())); }

TEST_F(StaticFilesTest, NeverLeavesTheRootWhateverTheEncoding) {
  for (const char* path :
       {"../secret.txt", "js/../../secret.txt", "%2E%2E/secret.txt", "js%2F..%2F..%2Fsecret.txt",
        "..%5Csecret.txt", "./app.css", "js//main.js", "", "/etc/passwd", "app.css%00.js"}) {
    EXPECT_FALSE(files_.Serve(path, Get())) << path;
  }
}

TEST_F(StaticFilesTest, MissingFilesAndDirectoriesAreNotServed) {
  EXPECT_FALSE(files_.Serve("nope.js", Get()));
  EXPECT_FALSE(files_.Serve("js", Get()));
}

TEST(ContentTypeOf, FollowsTheExtension) {
  EXPECT_EQ(ContentTypeOf("index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(ContentTypeOf("APP.CSS"), "text/css; charset=utf-8");
  EXPECT_EQ(ContentTypeOf("logo.svg"), "image/svg+xml");
  EXPECT_EQ(ContentTypeOf("shot.png"), "image/png");
  EXPECT_EQ(ContentTypeOf("archive.bin"), "application/octet-stream");
}

}  // namespace
}  // namespace tessera::http
