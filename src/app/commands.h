// app/commands.h
//
// The `tessera` command line: subcommands, their flags (CLI11), and what each runs.
// Run() returns the process exit code: 0 success, 1 failure at run time, 2 bad usage or
// configuration.
#pragma once

namespace tessera::app {

int Run(int argc, char** argv);

}  // namespace tessera::app
