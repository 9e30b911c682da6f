// storage/postgres_listener.h
//
// A NoticeSubscription on PostgreSQL: one connection of its own that LISTENs on the channels and
// a thread that waits on its socket (storage/change_notices.h states the contract). The thread
// wakes at least every 200 ms to see whether it should stop, so destruction takes at most that.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "storage/change_notices.h"

namespace tessera::storage {

std::unique_ptr<NoticeSubscription> ListenOnPostgres(std::string url,
                                                     std::vector<std::string> channels,
                                                     NoticeHandler handler);

}  // namespace tessera::storage
