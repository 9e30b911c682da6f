// tests/support/free_port.h
//
// A loopback TCP port that was free when asked, for a server a test starts as a separate process
// (which cannot report the port it picked itself).
#pragma once

namespace tessera::testing {

int FreeLoopbackPort();

}  // namespace tessera::testing
