// Which requests the server spools to disk rather than holding in memory (Api::SpoolsBody).
#include <gtest/gtest.h>

#include "api/api.h"

namespace tessera::api {
namespace {

TEST(SpoolsBody, PackageUploadsAndTheMigrationBodiesThatCarryAContentList) {
  for (const char* path :
       {"/api/mstrServices/library/storage/sharedFileStore/files/QUJD/binary",
        "/TesseraLibrary/api/mstrServices/library/storage/sharedFileStore/files/QUJD/binary"}) {
    EXPECT_TRUE(Api::SpoolsBody("PUT", path)) << path;
  }
  EXPECT_TRUE(Api::SpoolsBody("POST", "/api/migrations"));
  EXPECT_TRUE(Api::SpoolsBody("POST", "/TesseraLibrary/api/migrations"));
  for (const char* path : {"/api/migrations/AB:CD", "/api/migrations/AB:CD/validation",
                           "/api/migrations/AB:CD/packageInfo"}) {
    EXPECT_TRUE(Api::SpoolsBody("PUT", path)) << path;
  }
}

TEST(SpoolsBody, EverythingElseIsHeldInMemory) {
  EXPECT_FALSE(Api::SpoolsBody("GET", "/api/migrations"));
  EXPECT_FALSE(Api::SpoolsBody("PATCH", "/api/migrations/AB:CD"));
  EXPECT_FALSE(Api::SpoolsBody("PATCH", "/api/migrations/AB:CD/packageInfo/certification"));
  EXPECT_FALSE(Api::SpoolsBody("PUT", "/api/migrations//validation"));
  EXPECT_FALSE(Api::SpoolsBody("PUT", "/api/migrations/AB:CD/other"));
  EXPECT_FALSE(Api::SpoolsBody("PUT", "/api/migrations"));
  EXPECT_FALSE(Api::SpoolsBody("POST", "/api/migrations/AB:CD"));
  EXPECT_FALSE(Api::SpoolsBody("POST", "/api/migrationsX"));
  EXPECT_FALSE(Api::SpoolsBody("POST", "/api/mstrServices/library/storage/sharedFileStore/files"));
  EXPECT_FALSE(Api::SpoolsBody("POST", "/api/reports/R1/instances"));
}

}  // namespace
}  // namespace tessera::api
