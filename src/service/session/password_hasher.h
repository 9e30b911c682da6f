// service/session/password_hasher.h
//
// Argon2id password hashes in the standard encoded form ("$argon2id$v=19$m=...,t=...,p=...$...").
// An empty password is stored as an empty hash and matches only the empty password; that state
// exists only for the demo administrator on a loopback-bound server (a node refuses to listen
// beyond loopback without an administrator password, app/node.h).
#pragma once

#include <string>
#include <string_view>

namespace tessera::service::session {

std::string HashPassword(std::string_view password);
bool VerifyPassword(std::string_view encoded_hash, std::string_view password);

}  // namespace tessera::service::session
