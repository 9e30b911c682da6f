#include "app/config.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "support/temp_dir.h"

namespace tessera::app {
namespace {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

std::string WriteToml(const testing::TempDir& dir, const std::string& text) {
  std::string path = (dir.path() / "tessera.toml").string();
  std::ofstream(path) << text;
  return path;
}

TEST(Config, DefaultsGiveTheEmbeddedDeployment) {
  Config config = LoadConfig({}, std::nullopt);
  EXPECT_EQ(config.listen, "127.0.0.1:8080");
  EXPECT_EQ(config.data_dir, "./tessera-data");
  EXPECT_TRUE(config.is_loopback());
  EXPECT_EQ(config.ResolvedStorageUrl().rfind("sqlite:///", 0), 0u);
  EXPECT_NE(config.ResolvedStorageUrl().find("tessera-data/metadata.db"), std::string::npos);
  EXPECT_EQ(config.session_idle_timeout_seconds, 1800);
}

TEST(Config, FlagBeatsEnvironmentBeatsFileBeatsDefault) {
  testing::TempDir dir;
  std::string file = WriteToml(dir, R"(
data_dir = "/from/file"
[server]
listen = "127.0.0.1:7001"
io_threads = 3
[auth]
session_idle_timeout_seconds = 600
)");
  ScopedEnv env("TESSERA_LISTEN", "127.0.0.1:7002");
  Config config = LoadConfig({{"data_dir", "/from/flag"}}, file);
  EXPECT_EQ(config.data_dir, "/from/flag");    // flag over file
  EXPECT_EQ(config.listen, "127.0.0.1:7002");  // environment over file
  EXPECT_EQ(config.io_threads, 3);             // file over default
  EXPECT_EQ(config.session_idle_timeout_seconds, 600);
  EXPECT_EQ(config.port(), 7002);
}

TEST(Config, AdminPasswordComesFromTheEnvironment) {
  ScopedEnv env("TESSERA_ADMIN_PASSWORD", "s3cret");
  EXPECT_EQ(LoadConfig({}, std::nullopt).admin_password, "s3cret");
}

TEST(Config, InvalidValuesNameTheSettingAndItsSource) {
  try {
    LoadConfig({{"server.io_threads", "many"}}, std::nullopt);
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--io-threads"), std::string::npos) << e.what();
  }
  EXPECT_THROW(LoadConfig({{"server.listen", "nohost"}}, std::nullopt), std::invalid_argument);
  EXPECT_THROW(LoadConfig({{"server.listen", "127.0.0.1:99999"}}, std::nullopt),
               std::invalid_argument);
  ScopedEnv env("TESSERA_ACCESS_LOG", "perhaps");
  EXPECT_THROW(LoadConfig({}, std::nullopt), std::invalid_argument);
}

TEST(Config, JobLeasesAndTargetSilenceAreSecondsWithinBounds) {
  Config defaults = LoadConfig({}, std::nullopt);
  EXPECT_EQ(defaults.job_lease_seconds, 30);
  EXPECT_EQ(defaults.migration_target_silence_seconds, 120);
  testing::TempDir dir;
  std::string file = WriteToml(dir, "[jobs]\nlease_seconds = 5\n");
  ScopedEnv env("TESSERA_MIGRATION_TARGET_SILENCE_SECONDS", "45");
  Config config = LoadConfig({}, file);
  EXPECT_EQ(config.job_lease_seconds, 5);
  EXPECT_EQ(config.migration_target_silence_seconds, 45);
  EXPECT_THROW(LoadConfig({{"jobs.lease_seconds", "0"}}, std::nullopt), std::invalid_argument);
  EXPECT_THROW(LoadConfig({{"migrations.target_silence_seconds", "soon"}}, std::nullopt),
               std::invalid_argument);
}

TEST(Config, UploadSessionsTtlAndParseAheadBudgetAreBounded) {
  Config defaults = LoadConfig({}, std::nullopt);
  EXPECT_EQ(defaults.upload_session_ttl_seconds, 3600);
  EXPECT_EQ(defaults.upload_parse_ahead_mb, 256);
  testing::TempDir dir;
  std::string file = WriteToml(dir, "[uploads]\nsession_ttl_seconds = 600\n");
  ScopedEnv env("TESSERA_UPLOAD_PARSE_AHEAD_MB", "0");
  Config config = LoadConfig({}, file);
  EXPECT_EQ(config.upload_session_ttl_seconds, 600);
  EXPECT_EQ(config.upload_parse_ahead_mb, 0) << "0 turns the parse ahead off";
  try {
    LoadConfig({{"uploads.session_ttl_seconds", "0"}}, std::nullopt);
    FAIL() << "a TTL of 0 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--upload-session-ttl"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("from 1 to 604800"), std::string::npos) << e.what();
  }
  EXPECT_THROW(LoadConfig({{"uploads.parse_ahead_mb", "-1"}}, std::nullopt), std::invalid_argument);
  EXPECT_THROW(LoadConfig({{"uploads.parse_ahead_mb", "lots"}}, std::nullopt),
               std::invalid_argument);
}

TEST(Config, AMalformedFileIsRejected) {
  testing::TempDir dir;
  std::string file = WriteToml(dir, "[server\nlisten = ");
  EXPECT_THROW(LoadConfig({}, file), std::invalid_argument);
}

TEST(Config, LoopbackIsRecognised) {
  Config config;
  for (const char* listen : {"127.0.0.1:1", "localhost:1", "[::1]:1", "127.1.2.3:1"}) {
    config.listen = listen;
    EXPECT_TRUE(config.is_loopback()) << listen;
  }
  config.listen = "0.0.0.0:1";
  EXPECT_FALSE(config.is_loopback());
}

}  // namespace
}  // namespace tessera::app
