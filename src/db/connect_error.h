// db/connect_error.h
//
// A database that cannot be opened or reached. what() says why, on one line and without naming
// the backend, so each caller words it its own way ("sqlite: cannot open '/data/x.db': unable to
// open database file", "postgresql: connection to server ... failed: Connection refused").
#pragma once

#include <stdexcept>
#include <string>

namespace tessera::db {

class ConnectError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tessera::db
