// core/platform_version.h
//
// Platform versions such as "11.6.0200.0001" (major.minor.build.revision), as a server reports
// them and as a package manifest records the version that created it (a package is imported only
// into the same or a newer version). Parsing is total: 1 to 4 dot-separated non-negative decimal
// integers, missing trailing components are 0 ("11.6" == "11.6.0.0"), leading zeros are
// insignificant ("0200" == "200"); anything else throws Error(kInvalidInput) saying what is wrong.
// Versions compare component by component as integers, so "11.10" > "11.9".
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

namespace tessera {

struct PlatformVersion {
  std::array<uint64_t, 4> components{};  // major, minor, build, revision

  friend auto operator<=>(const PlatformVersion&, const PlatformVersion&) = default;
};

PlatformVersion ParsePlatformVersion(std::string_view text);

// All four components without leading zeros: "11.6.200.1".
std::string Format(const PlatformVersion& version);

}  // namespace tessera
