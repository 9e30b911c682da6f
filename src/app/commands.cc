#include "app/commands.h"

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>
#include <csignal>
#include <iostream>

#include "app/config.h"
#include "app/node.h"
#include "core/error.h"
#include "model/well_known.h"
#include "service/directory_service.h"
#include "service/project_service.h"
#include "storage/metadata_store.h"

namespace tessera::app {

namespace {

// Flags shared by every subcommand that reads the configuration.
struct ConfigFlags {
  std::map<std::string, std::optional<std::string>> values;
  std::optional<std::string> config_file;

  void AddTo(CLI::App& command, const std::vector<std::string>& keys) {
    command.add_option("--config", config_file,
                       "configuration file (TOML; env TESSERA_CONFIG; default ./tessera.toml)");
    for (const auto& spec : SettingSpecs()) {
      if (!keys.empty() && std::find(keys.begin(), keys.end(), spec.key) == keys.end()) continue;
      std::string help =
          std::string(spec.help) + " [env " + spec.env + ", config " + spec.key + "]";
      command.add_option(spec.flag, values[spec.key], help);
    }
  }

  Config Load() const {
    std::map<std::string, std::string> given;
    for (const auto& [key, value] : values) {
      if (value) given[key] = *value;
    }
    return LoadConfig(given, config_file);
  }
};

void ConfigureLogging(const Config& config) {
  spdlog::set_level(spdlog::level::from_str(config.log_level));
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %^%l%$ %v");
}

int Serve(const ConfigFlags& flags) {
  Config config = flags.Load();
  ConfigureLogging(config);
  CheckServable(config);

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // threads started from here inherit the mask

  Node node(config);
  node.Start();
  int received = 0;
  sigwait(&signals, &received);
  spdlog::info("received signal {}; shutting down", received);
  node.Stop();
  return 0;
}

int CreateProject(const ConfigFlags& flags, const std::string& name,
                  const std::string& description) {
  Config config = flags.Load();
  ConfigureLogging(config);
  std::filesystem::create_directories(config.data_dir);
  storage::StoreOptions options;
  options.url = config.ResolvedStorageUrl();
  auto store = storage::MetadataStore::Open(options);
  service::DirectoryService directory(*store);
  directory.Bootstrap(config.admin_password);
  service::Principal administrator =
      directory.LoadPrincipal(std::string(model::kAdministratorUserId));
  service::ProjectService projects(*store);
  auto view = projects.Create(administrator, name, description);
  std::cout << view.project.object.id << "\n";
  return 0;
}

}  // namespace

int Run(int argc, char** argv) {
  CLI::App app{"Tessera: an analytics server speaking the Strategy Intelligence Server REST API"};
  app.require_subcommand(1);

  ConfigFlags serve_flags;
  CLI::App* serve = app.add_subcommand(
      "serve", "Run the server (embedded default: ./tessera-data, 127.0.0.1:8080)");
  serve_flags.AddTo(*serve, {});

  CLI::App* project = app.add_subcommand("project", "Manage projects");
  project->require_subcommand(1);
  ConfigFlags create_flags;
  std::string project_name;
  std::string project_description;
  CLI::App* create = project->add_subcommand("create", "Create an empty project with its folders");
  create->add_option("NAME", project_name, "project name")->required();
  create->add_option("--description", project_description, "project description");
  create_flags.AddTo(*create, {"data_dir", "storage.url", "auth.admin_password", "log.level"});

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    if (serve->parsed()) return Serve(serve_flags);
    if (create->parsed()) return CreateProject(create_flags, project_name, project_description);
  } catch (const std::invalid_argument& e) {
    std::cerr << "tessera: " << e.what() << "\n";
    return 2;
  } catch (const Error& e) {
    std::cerr << "tessera: " << e.message() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "tessera: " << e.what() << "\n";
    return 1;
  }
  return 2;
}

}  // namespace tessera::app
