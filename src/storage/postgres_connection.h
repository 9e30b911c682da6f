// storage/postgres_connection.h
//
// SqlConnection over one libpq connection. The URL is passed to libpq as given
// ("postgresql://user@host:port/db?..."), with a 3-second connect timeout and TCP keepalives
// unless the URL sets its own, so a stopped server fails a call quickly instead of hanging it.
// Failures whose SQLSTATE is a connection exception (class 08) or an administrator shutdown
// (57P01..57P03), or that leave the connection broken, are kConnectionLost.
#pragma once

#include "core/sql_placeholders.h"

#include <memory>
#include <string>
#include <string_view>

#include "storage/sql_connection.h"

struct pg_conn;  // libpq's PGconn

namespace tessera::storage {

// Throws SqlError(kConnectionLost) when the server cannot be reached or refuses the login.
std::unique_ptr<SqlConnection> OpenPostgresConnection(const std::string& url);

// The libpq connection under it, with the same timeouts, for a caller that drives libpq itself
// (storage/postgres_listener.h); the caller PQfinish()es it. Throws like OpenPostgresConnection.
::pg_conn* ConnectToPostgres(const std::string& url);

}  // namespace tessera::storage
