// Fuzz harness: the TOML configuration file (app/config.h), read by `tessera serve --config`.
//
// Contract checked: LoadConfig() either returns a Config or throws std::invalid_argument naming
// what is wrong; nothing else escapes. A Config it returns answers every accessor (host, port,
// URLs, directories) without throwing, except WarehouseUrl() for a name that is not configured
// (std::invalid_argument), and CheckServable() refuses with std::runtime_error only.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "app/config.h"
#include "app/node.h"
#include "fuzz/fuzz_support.h"

namespace {

void UseEveryAccessor(const tessera::app::Config& config) {
  (void)config.host();
  (void)config.port();
  (void)config.is_loopback();
  (void)config.ResolvedStorageUrl();
  (void)config.ResolvedPublicUrl();
  (void)config.ResolvedPackagesDir();
  (void)config.ResolvedDemoBundleDir();
  (void)config.WarehouseUrl("demo");
  for (const auto& [name, url] : config.warehouses) {
    if (config.WarehouseUrl(name) != url) tessera::fuzz::Finding("warehouse url differs", name);
  }
  try {
    (void)config.WarehouseUrl("no such warehouse \x01");
  } catch (const std::invalid_argument&) {
  }
  try {
    tessera::app::CheckServable(config);
  } catch (const std::runtime_error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Only the file may speak: settings from the environment would hide its values.
  for (const auto& spec : tessera::app::SettingSpecs()) ::unsetenv(spec.env);
  ::unsetenv("TESSERA_CONFIG");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = (tessera::fuzz::ScratchDir() / "tessera.toml").string();
  tessera::fuzz::WriteBytes(path, std::string_view(reinterpret_cast<const char*>(data), size));
  tessera::app::Config config;
  try {
    config = tessera::app::LoadConfig({}, path);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  UseEveryAccessor(config);
  return 0;
}
