#include "storage/store_url.h"

#include <gtest/gtest.h>

#include "storage/postgres_connection.h"

namespace tessera::storage {
namespace {

TEST(StoreUrl, SqliteUrlsNameAFile) {
  EXPECT_EQ(ParseStoreUrl("sqlite:///var/lib/tessera/metadata.db")->target,
            "/var/lib/tessera/metadata.db");
  EXPECT_EQ(ParseStoreUrl("sqlite:data/metadata.db")->target, "data/metadata.db");
  EXPECT_EQ(ParseStoreUrl("sqlite:data/metadata.db")->backend, Backend::kSqlite);
}

TEST(StoreUrl, PostgresUrlsAreKeptWhole) {
  auto url = ParseStoreUrl("postgres://tessera:secret@db:5432/meta?sslmode=disable");
  ASSERT_TRUE(url.has_value());
  EXPECT_EQ(url->backend, Backend::kPostgres);
  EXPECT_EQ(url->target, "postgres://tessera:secret@db:5432/meta?sslmode=disable");
  EXPECT_EQ(ParseStoreUrl("postgresql://u@h/db")->backend, Backend::kPostgres);
}

TEST(StoreUrl, OtherUrlsNameNoBackend) {
  for (const char* url : {"", "bogus://", "sqlite:", "sqlite://", "sqlite:///", "sqlite://host/x",
                          "SQLITE:///x", "mysql://h/db", "/plain/path.db"}) {
    EXPECT_FALSE(ParseStoreUrl(url).has_value()) << url;
  }
}

}  // namespace
}  // namespace tessera::storage
