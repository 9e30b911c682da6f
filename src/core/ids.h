// core/ids.h
//
// Identifiers. Metadata object ids and version ids are 32 hexadecimal characters,
// always emitted upper case and compared case-insensitively on input. Ticket ids are 32 lower-case
// hex; auth tokens are 26 lower-case base-32 characters (130 bits from the CSPRNG).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tessera {

bool IsObjectId(std::string_view text);  // 32 hex digits, either case

// The canonical (upper-case) form of an object id, or nullopt when `text` is not one.
std::optional<std::string> CanonicalObjectId(std::string_view text);

// The canonical form of the object id `text`, or Error(kInvalidInput) "<where>: '<text>' is not an
// object id; expected 32 hexadecimal characters" (a long text cut to a short prefix). `where`
// names the input: a body path, a query parameter, a header.
std::string RequireObjectId(std::string_view text, std::string_view where);

std::string NewObjectId();  // random, upper case
std::string NewTicketId();  // random, lower case
std::string NewAuthToken();

// The first 16 bytes of SHA-256 of `seed`, as 32 upper-case hex: objects named by a seed (bundle
// objects by project and name, well-known folders) have the same id on every node and in every run.
std::string DeterministicObjectId(std::string_view seed);

}  // namespace tessera
