#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "engine/warehouse/warehouse.h"
#include "engine/warehouse_fixture.h"
#include "support/pg_cluster.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace tessera::testing {
namespace {

using engine::warehouse::Warehouse;

bool IsUnreachable(const std::function<void()>& call) {
  std::optional<Error> error = ErrorFrom(call);
  return error.has_value() && error->code() == ErrorCode::kEngineUnreachable &&
         error->message() == "The warehouse 'Sales' cannot be reached";
}

TEST(WarehouseAvailability, AUrlNamingNoDatabaseIsRefusedAtOpen) {
  for (const char* url : {"", "bogus://x", "mysql://localhost/db", "sqlite://relative/path.db",
                          "sqlite:", "sqlite:///"}) {
    auto error = ErrorFrom([&] { Warehouse::Open({.name = "Sales", .url = url}); });

    ASSERT_TRUE(error.has_value()) << url;
    EXPECT_EQ(error->code(), ErrorCode::kInvalidInput) << url;
  }
}

TEST(WarehouseAvailability, SqliteInAMissingDirectoryIsUnreachableUntilTheDirectoryExists) {
  TempDir dir;
  auto missing = dir.path() / "not-yet";
  auto warehouse =
      Warehouse::Open({.name = "Sales", .url = "sqlite://" + (missing / "w.db").string()});

  EXPECT_TRUE(IsUnreachable([&] { QueryRows(*warehouse, "SELECT 1"); }));
  EXPECT_TRUE(IsUnreachable([&] { QueryRows(*warehouse, "SELECT 1"); }));

  std::filesystem::create_directory(missing);

  EXPECT_EQ(QueryInt(*warehouse, "SELECT 1"), 1);
}

TEST(WarehouseAvailability, AFileThatIsNotADatabaseIsUnreachable) {
  TempDir dir;
  auto path = dir.path() / "w.db";
  std::ofstream(path) << "this is not an SQLite database, just text long enough to hold a header";
  auto warehouse = Warehouse::Open({.name = "Sales", .url = "sqlite://" + path.string()});

  EXPECT_TRUE(IsUnreachable([&] { QueryRows(*warehouse, "SELECT 1"); }));
}

TEST(WarehouseAvailability, APostgresServerThatRefusesConnectionsIsUnreachable) {
  auto warehouse = Warehouse::Open({.name = "Sales", .url = "postgresql://u@127.0.0.1:1/db"});

  EXPECT_TRUE(IsUnreachable([&] { QueryRows(*warehouse, "SELECT 1"); }));
}

class PostgresWarehouseOutage : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<PrivatePgCluster>();
    if (!cluster_->available()) GTEST_SKIP() << "no PostgreSQL server binaries";
    cluster_->Start();
  }

  std::unique_ptr<PrivatePgCluster> cluster_;
};

TEST_F(PostgresWarehouseOutage, QueriesFailWhileStoppedAndTheSameWarehouseRecoversAfterStart) {
  auto warehouse = Warehouse::Open({.name = "Sales", .url = cluster_->url(), .max_connections = 2});
  ASSERT_EQ(QueryInt(*warehouse, "SELECT 1"), 1);

  cluster_->Stop();
  auto stopped = std::chrono::steady_clock::now();
  EXPECT_TRUE(IsUnreachable([&] { QueryRows(*warehouse, "SELECT 1"); }));
  EXPECT_TRUE(IsUnreachable([&] { QueryRows(*warehouse, "SELECT 1"); }));
  EXPECT_LT(std::chrono::steady_clock::now() - stopped, std::chrono::seconds(10));

  cluster_->Start();

  EXPECT_EQ(QueryInt(*warehouse, "SELECT 2"), 2);
}

TEST_F(PostgresWarehouseOutage, IdleConnectionsBrokenByARestartAreReplacedTransparently) {
  auto warehouse = Warehouse::Open({.name = "Sales", .url = cluster_->url()});
  ASSERT_EQ(QueryInt(*warehouse, "SELECT 1"), 1);

  cluster_->Stop();
  cluster_->Start();

  EXPECT_EQ(QueryInt(*warehouse, "SELECT 2"), 2);
}

TEST_F(PostgresWarehouseOutage, AQueryRunningWhenTheServerStopsIsUnreachable) {
  auto warehouse = Warehouse::Open({.name = "Sales", .url = cluster_->url()});
  std::thread stopper([&] {
    {
      auto observer = Warehouse::Open({.name = "Observer", .url = cluster_->url()});
      EXPECT_TRUE(WaitUntil(
          [&] {
            return QueryInt(*observer,
                            "SELECT count(*) FROM pg_stat_activity "
                            "WHERE state = 'active' AND query = 'SELECT pg_sleep(30)'") == 1;
          },
          std::chrono::seconds(30), "the server ran the query"));
    }
    cluster_->Stop();
  });
  CountingSink sink;

  bool unreachable = IsUnreachable([&] { warehouse->Query({"SELECT pg_sleep(30)", {}}, sink); });
  stopper.join();

  EXPECT_TRUE(unreachable);
  cluster_->Start();
  EXPECT_EQ(QueryInt(*warehouse, "SELECT 3"), 3);
}

}  // namespace
}  // namespace tessera::testing
