// tests/support/free_port.h
//
// A loopback TCP port that was free when asked: an address where nothing is expected to listen.
// Another process may take it at any time, so a server a test starts does not get one of these
// (support/listening_port.h says how it learns its port instead).
#pragma once

namespace tessera::testing {

int FreeLoopbackPort();

}  // namespace tessera::testing
