// app/config_file.h
//
// The configuration file, tessera.toml, read strictly: a mistake in it stops the start with a
// message that points at the line, never a setting silently ignored.
//
// Contract:
//   - ParseConfigFile() throws std::invalid_argument "PATH:LINE:COLUMN: <what the TOML parser
//     found>" for a syntax error, and "cannot read configuration file PATH: <reason>" for a file
//     that cannot be read.
//   - CheckKnownKeys() accepts exactly the dotted keys it is given (e.g. "server.listen"), the
//     tables on the way to them ([server]), and [warehouses.NAME] tables holding `url`. Anything
//     else throws std::invalid_argument
//       "PATH:LINE: unknown key 'server.lisen'; accepted keys in [server]: listen, ..."
//     listing what that table accepts in the order given; a known table written as a value
//     ("server = 1") is refused the same way. The accepted keys are passed in, so they come from
//     the one list of settings (app/config.h) and cannot drift from it.
//   - Where() gives "PATH:LINE" of a node, for messages about values.
#pragma once

#include <toml++/toml.h>

#include <string>
#include <vector>

namespace tessera::app {

struct ConfigFile {
  std::string path;  // as given; "" when there is no configuration file
  toml::table table;
};

ConfigFile ParseConfigFile(const std::string& path);

void CheckKnownKeys(const ConfigFile& file, const std::vector<std::string>& setting_keys);

std::string Where(const ConfigFile& file, const toml::source_region& source);

}  // namespace tessera::app
