#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "storage/metadata_store.h"
#include "storage/sample_records.h"
#include "support/pg_cluster.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace tessera::testing {
namespace {

using std::chrono::milliseconds;
using storage::MetadataStore;
using storage::MetadataTransaction;
using storage::StoreOptions;

bool IsUnavailableError(const std::function<void()>& call) {
  try {
    call();
    return false;
  } catch (const Error& error) {
    return error.code() == ErrorCode::kStorageUnavailable &&
           error.message() == kStorageUnavailableMessage;
  }
}

void WriteSession(MetadataStore& store, const std::string& token_hash) {
  store.Write([&](MetadataTransaction& tx) {
    tx.PutSession(SampleSession(token_hash, FromUnixMillis(1717243200000)));
  });
}

bool HasSession(MetadataStore& store, const std::string& token_hash) {
  bool found = false;
  store.Read([&](MetadataTransaction& tx) { found = tx.FindSession(token_hash).has_value(); });
  return found;
}

TEST(StoreAvailability, AUrlNamingNoBackendYieldsAStoreThatIsNeverAvailable) {
  for (const char* url : {"", "bogus://x", "mysql://localhost/db", "sqlite://relative/path.db",
                          "sqlite:", "sqlite:///"}) {
    auto store = MetadataStore::Open({.url = url});

    EXPECT_EQ(store->backend_name(), "invalid") << url;
    EXPECT_FALSE(store->IsAvailable()) << url;
    EXPECT_TRUE(IsUnavailableError([&] { store->Read([](MetadataTransaction&) {}); })) << url;
    EXPECT_TRUE(IsUnavailableError([&] { store->Write([](MetadataTransaction&) {}); })) << url;
  }
}

TEST(StoreAvailability, BackendNamesFollowTheUrl) {
  TempDir dir;
  EXPECT_EQ(
      MetadataStore::Open({.url = "sqlite://" + (dir.path() / "m.db").string()})->backend_name(),
      "sqlite");
  EXPECT_EQ(MetadataStore::Open({.url = "postgresql://u@127.0.0.1:1/db"})->backend_name(),
            "postgresql");
  EXPECT_EQ(MetadataStore::Open({.url = "postgres://u@127.0.0.1:1/db"})->backend_name(),
            "postgresql");
}

TEST(StoreAvailability, ARelativeSqlitePathIsAccepted) {
  TempDir dir;
  auto previous = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  auto store = MetadataStore::Open({.url = "sqlite:metadata.db"});
  WriteSession(*store, "ab12");
  std::filesystem::current_path(previous);

  EXPECT_TRUE(std::filesystem::exists(dir.path() / "metadata.db"));
}

TEST(StoreAvailability, AFileThatIsNotADatabaseIsUnavailable) {
  TempDir dir;
  auto path = dir.path() / "metadata.db";
  {
    std::ofstream out(path);
    out << "this is not an SQLite database, just some text that is long enough to hold a header";
  }
  auto store = MetadataStore::Open({.url = "sqlite://" + path.string()});

  EXPECT_TRUE(IsUnavailableError([&] { WriteSession(*store, "ab12"); }));
  EXPECT_FALSE(store->IsAvailable());
}

TEST(StoreAvailability, SqliteInAMissingDirectoryRecoversOnceTheDirectoryExists) {
  TempDir dir;
  auto missing = dir.path() / "not-yet";
  StoreOptions options{.url = "sqlite://" + (missing / "metadata.db").string(),
                       .retry_interval = milliseconds(100)};
  auto store = MetadataStore::Open(options);
  EXPECT_TRUE(IsUnavailableError([&] { WriteSession(*store, "ab12"); }));
  EXPECT_FALSE(store->IsAvailable());

  std::filesystem::create_directory(missing);

  EXPECT_TRUE(WaitUntil([&] { return store->IsAvailable(); }, std::chrono::seconds(10),
                        "the store was available"));
  WriteSession(*store, "ab12");
  EXPECT_TRUE(HasSession(*store, "ab12"));
}

TEST(StoreAvailability, WhileDownTheStoreDoesNotRetryInsideTheRetryInterval) {
  TempDir dir;
  auto missing = dir.path() / "not-yet";
  StoreOptions options{.url = "sqlite://" + (missing / "metadata.db").string(),
                       .retry_interval = std::chrono::hours(1)};
  auto store = MetadataStore::Open(options);
  EXPECT_TRUE(IsUnavailableError([&] { WriteSession(*store, "ab12"); }));

  std::filesystem::create_directory(missing);

  EXPECT_TRUE(IsUnavailableError([&] { WriteSession(*store, "ab12"); }));
  EXPECT_FALSE(std::filesystem::exists(missing / "metadata.db"));  // no attempt was made
}

TEST(StoreAvailability, AnUnreachablePostgresServerIsUnavailableWithoutHanging) {
  auto started = std::chrono::steady_clock::now();
  auto store = MetadataStore::Open({.url = "postgresql://postgres@127.0.0.1:1/postgres"});

  EXPECT_TRUE(IsUnavailableError([&] { WriteSession(*store, "ab12"); }));
  EXPECT_FALSE(store->IsAvailable());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
}

class PostgresOutage : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<PrivatePgCluster>();
    if (!cluster_->available()) GTEST_SKIP() << "no PostgreSQL server binaries";
    cluster_->Start();
  }

  std::unique_ptr<PrivatePgCluster> cluster_;
};

TEST_F(PostgresOutage, CallsFailWhileTheServerIsStoppedAndTheSameStoreRecoversAfterRestart) {
  StoreOptions options{.url = cluster_->url(), .retry_interval = milliseconds(200)};
  auto store = MetadataStore::Open(options);
  WriteSession(*store, "before");
  ASSERT_TRUE(HasSession(*store, "before"));

  cluster_->Stop();
  auto stopped = std::chrono::steady_clock::now();
  EXPECT_TRUE(IsUnavailableError([&] { WriteSession(*store, "during"); }));
  EXPECT_TRUE(IsUnavailableError([&] { HasSession(*store, "before"); }));
  EXPECT_FALSE(store->IsAvailable());
  EXPECT_LT(std::chrono::steady_clock::now() - stopped, std::chrono::seconds(10));

  cluster_->Start();

  EXPECT_TRUE(WaitUntil([&] { return store->IsAvailable(); }, std::chrono::seconds(10),
                        "the store was available"));
  WriteSession(*store, "after");
  EXPECT_TRUE(HasSession(*store, "before"));
  EXPECT_TRUE(HasSession(*store, "after"));
  EXPECT_FALSE(HasSession(*store, "during"));
}

TEST_F(PostgresOutage, IdleConnectionsBrokenByARestartAreReplacedTransparently) {
  StoreOptions options{.url = cluster_->url(), .retry_interval = milliseconds(200)};
  auto store = MetadataStore::Open(options);
  WriteSession(*store, "before");

  cluster_->Stop();
  cluster_->Start();  // no call in between: the pooled connection is stale, not the database

  EXPECT_TRUE(HasSession(*store, "before"));
}

}  // namespace
}  // namespace tessera::testing
