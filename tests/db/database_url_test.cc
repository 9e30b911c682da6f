#include "db/database_url.h"

#include <gtest/gtest.h>

namespace tessera::db {
namespace {

TEST(DatabaseUrl, SqliteUrlsNameAFile) {
  EXPECT_EQ(ParseDatabaseUrl("sqlite:///var/lib/tessera/metadata.db")->target,
            "/var/lib/tessera/metadata.db");
  EXPECT_EQ(ParseDatabaseUrl("sqlite:data/metadata.db")->target, "data/metadata.db");
  EXPECT_EQ(ParseDatabaseUrl("sqlite:data/metadata.db")->backend, Backend::kSqlite);
}

TEST(DatabaseUrl, PostgresUrlsAreKeptWhole) {
  const std::optional<DatabaseUrl> url =
      ParseDatabaseUrl("postgres://tessera:secret@db:5432/meta?sslmode=disable");
  ASSERT_TRUE(url.has_value());
  EXPECT_EQ(url->backend, Backend::kPostgres);
  EXPECT_EQ(url->target, "postgres://tessera:secret@db:5432/meta?sslmode=disable");
  EXPECT_EQ(ParseDatabaseUrl("postgresql://u@h/db")->backend, Backend::kPostgres);
}

TEST(DatabaseUrl, OtherUrlsNameNoDatabase) {
  for (const char* url : {"", "bogus://", "sqlite:", "sqlite://", "sqlite:///", "sqlite://host/x",
                          "sqlite:dir/", "SQLITE:///x", "mysql://h/db", "/plain/path.db"}) {
    EXPECT_FALSE(ParseDatabaseUrl(url).has_value()) << url;
  }
}

TEST(DatabaseUrl, BackendsHaveTheNamesMessagesUse) {
  EXPECT_EQ(BackendName(Backend::kSqlite), "sqlite");
  EXPECT_EQ(BackendName(Backend::kPostgres), "postgresql");
}

}  // namespace
}  // namespace tessera::db
