// tests/support/store_backend_test.h
//
// A GoogleTest fixture for tests that run once per storage backend:
//
//   class ProjectStore : public tessera::testing::StoreBackendTest {};
//   TEST_P(ProjectStore, ...) { auto store = OpenStore(); ... }
//   INSTANTIATE_TEST_SUITE_P(Backends, ProjectStore,
//                            ::testing::ValuesIn(tessera::testing::kAllStoreBackends),
//                            tessera::testing::BackendParamName);
//
// Each test gets a fresh database; on PostgreSQL without TESSERA_TEST_PG the test is skipped.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>

#include "storage/metadata_store.h"
#include "support/test_databases.h"

namespace tessera::testing {

inline void PrintTo(StoreBackend backend, std::ostream* out) { *out << BackendLabel(backend); }

inline std::string BackendParamName(const ::testing::TestParamInfo<StoreBackend>& info) {
  return std::string(BackendLabel(info.param));
}

class StoreBackendTest : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override {
    if (!IsBackendConfigured(GetParam())) {
      GTEST_SKIP() << "TESSERA_TEST_PG is not set (scripts/with-test-postgres.sh sets it)";
    }
    database_ = std::make_unique<TestDatabase>(GetParam());
  }

  TestDatabase& database() { return *database_; }

  storage::StoreOptions Options() const {
    storage::StoreOptions options;
    options.url = database_->url();
    return options;
  }

  std::unique_ptr<storage::MetadataStore> OpenStore() {
    return storage::MetadataStore::Open(Options());
  }

 private:
  std::unique_ptr<TestDatabase> database_;
};

}  // namespace tessera::testing
