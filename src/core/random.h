// core/random.h
//
// Randomness for secrets and identifiers, always from the OS CSPRNG (getrandom(2)); never a
// seeded pseudo-random generator. Throws Error(kInternal) only if the kernel refuses.
#pragma once

#include <cstddef>
#include <string>

namespace tessera {

std::string RandomBytes(size_t count);

// `count` random characters drawn from `alphabet` without modulo bias.
std::string RandomString(size_t count, std::string_view alphabet);

}  // namespace tessera
