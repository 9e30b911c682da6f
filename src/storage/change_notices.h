// storage/change_notices.h
//
// Notices that one node sends to every node on the same storage service, so that what a node
// keeps in memory (a loaded cube, a validated session) never outlives a change another node made.
//
// Contract:
//   - MetadataTransaction::Notify(channel, payload) sends a notice with the transaction: every
//     subscriber to `channel` hears it once the transaction commits, and nobody hears it when the
//     transaction rolls back. The node that sent it hears it too.
//   - MetadataStore::Subscribe() starts hearing notices on `channels` and returns the
//     subscription; the handler runs on the subscription's own thread, one notice at a time, and
//     must not block for long. Destroying the subscription stops it and waits for the handler.
//   - A subscription that loses its database connection connects again (once a second while the
//     database stays away). Notices sent meanwhile are lost, so each (re)connection delivers a
//     notice with an empty channel first: "forget what you kept, anything may have changed".
//   - Backends that serve one node only (SQLite) have no notices: Subscribe() returns null and
//     Notify() does nothing; a caller then checks for changes itself.
#pragma once

#include <functional>
#include <string>

namespace tessera::storage {

struct Notice {
  std::string channel;  // empty: notices may have been missed
  std::string payload;
};

using NoticeHandler = std::function<void(const Notice&)>;

class NoticeSubscription {
 public:
  virtual ~NoticeSubscription() = default;
};

}  // namespace tessera::storage
