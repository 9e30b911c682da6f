#include "app/commands.h"

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>
#include <csignal>
#include <iostream>

#include "app/cli_lookup.h"
#include "app/config.h"
#include "app/cube_publishing.h"
#include "app/data_directory.h"
#include "app/demo_bundle_dir.h"
#include "app/json_log_formatter.h"
#include "app/migrate_command.h"
#include "app/node.h"
#include "app/progress_bar.h"
#include "app/remote_cubes.h"
#include "app/web_dir.h"
#include "core/error.h"
#include "core/private_files.h"
#include "core/version.h"
#include "engine/cube_publisher.h"
#include "engine/sql/report_sql.h"
#include "model/bundle/bundle.h"
#include "model/object_types.h"
#include "model/well_known.h"
#include "service/bundle/bundle_service.h"
#include "service/bundle/demo_loader.h"
#include "service/cube/cube_service.h"
#include "service/directory_service.h"
#include "service/instance/dataset_definition_service.h"
#include "service/job_runner.h"
#include "service/project/project_model.h"
#include "service/project/project_service.h"
#include "service/project/warehouse_registry.h"
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
  if (config.log_format == "json") {
    spdlog::set_formatter(std::make_unique<JsonLogFormatter>());
  } else {
    spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %^%l%$ %v");
  }
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

// What a command does with the data directory: a command that writes creates it when missing
// (and says so on stderr); one that only reads refuses to run without it.
enum class DataUse { kWrite, kReadOnly };

std::unique_ptr<storage::MetadataStore> OpenStore(const Config& config, DataUse use) {
  if (use == DataUse::kReadOnly) {
    RequireExistingData(config);
  } else if (CreateDataDirectory(config)) {
    std::cerr << "created the data directory " << DataDirectoryPath(config) << "\n";
  }
  storage::StoreOptions options;
  options.url = config.ResolvedStorageUrl();
  return storage::MetadataStore::Open(options);
}

// The storage service of the configured data directory, bootstrapped, and its administrator.
struct Administration {
  std::unique_ptr<storage::MetadataStore> store;
  service::session::Principal administrator;
};

Administration OpenAdministration(const Config& config, DataUse use) {
  Administration administration{OpenStore(config, use), {}};
  service::DirectoryService directory(*administration.store);
  directory.Bootstrap(config.admin_password);
  administration.administrator = directory.LoadPrincipal(std::string(model::kAdministratorUserId));
  return administration;
}

void PrintSummary(const service::bundle::ImportSummary& summary) {
  std::cout << "project '" << summary.project_name << "' (" << summary.project_id
            << "): " << summary.created << " created, " << summary.updated << " updated, "
            << summary.unchanged << " unchanged\n";
}

// What `project import` did, or would do: the counts, then one line per object it creates,
// updates or deletes.
void PrintImport(const service::bundle::ImportSummary& summary, bool prune) {
  std::cout << "project '" << summary.project_name << "' (" << summary.project_id
            << "): " << summary.created << " created, " << summary.updated << " updated, "
            << summary.unchanged << " unchanged";
  if (prune) std::cout << ", " << summary.deleted << " deleted";
  std::cout << (summary.written ? "" : " (dry run: nothing was written)") << "\n";
  auto list = [](const char* change, const std::vector<service::bundle::ImportedObject>& objects) {
    for (const auto& object : objects) {
      std::cout << "  " << change << " " << object.kind << " '" << object.name << "' (" << object.id
                << ")\n";
    }
  };
  list("created", summary.created_objects);
  list("updated", summary.updated_objects);
  list("deleted", summary.deleted_objects);
}

int CreateProject(const ConfigFlags& flags, const std::string& name,
                  const std::string& description) {
  Config config = flags.Load();
  ConfigureLogging(config);
  Administration administration = OpenAdministration(config, DataUse::kWrite);
  service::project::ProjectService projects(*administration.store);
  auto view = projects.Create(administration.administrator, name, description);
  std::cout << view.project.object.id << "\n";
  return 0;
}

// Every warehouse the configuration names, and the demo warehouse, which always has a URL.
service::project::WarehouseRegistry ConfiguredWarehouses(const Config& config) {
  std::map<std::string, std::string> urls = config.warehouses;
  urls.emplace("demo", config.WarehouseUrl("demo"));
  return service::project::WarehouseRegistry(std::move(urls));
}

int ImportProject(const ConfigFlags& flags, const std::string& directory,
                  const service::bundle::BundleImportOptions& options) {
  Config config = flags.Load();
  ConfigureLogging(config);
  // A dry run writes nothing, so it needs the data directory to exist already.
  Administration administration =
      OpenAdministration(config, options.dry_run ? DataUse::kReadOnly : DataUse::kWrite);
  const service::project::WarehouseRegistry warehouses = ConfiguredWarehouses(config);
  service::bundle::BundleService bundles(*administration.store, &warehouses);
  ProgressBar bar(options.dry_run ? "reading the bundle" : "importing the bundle");
  const service::bundle::ImportSummary summary = TickWhile(
      bar, [&] { return bundles.Import(administration.administrator, directory, options); });
  bar.Finish("done");
  PrintImport(summary, options.prune);
  return 0;
}

int ExportProject(const ConfigFlags& flags, const std::string& project,
                  const std::string& directory) {
  Config config = flags.Load();
  ConfigureLogging(config);
  Administration administration = OpenAdministration(config, DataUse::kReadOnly);
  const ProjectRef found = FindProject(*administration.store, project);
  service::bundle::BundleService bundles(*administration.store);
  ProgressBar bar("exporting the project");
  TickWhile(bar, [&] { bundles.Export(administration.administrator, found.id, directory); });
  bar.Finish("done");
  std::cout << "wrote " << directory << "\n";
  return 0;
}

// The demo's cubes, to publish one after another so that a server started on this data
// directory answers every dashboard at once.
std::vector<FoundReport> DemoCubes(storage::MetadataStore& store,
                                   const service::bundle::ImportSummary& summary) {
  const model::SemanticModel semantic =
      service::project::LoadSemanticModel(store, summary.project_id);
  std::vector<FoundReport> cubes;
  for (const auto& id : service::bundle::DemoCubeIds(store, summary.project_id)) {
    FoundReport cube{{summary.project_id, summary.project_name}, {}};
    cube.object.id = id;
    cube.object.name = semantic.cube(id).name;
    cubes.push_back(std::move(cube));
  }
  return cubes;
}

int RunDemo(const ConfigFlags& flags, const std::string& rows_text, uint64_t seed,
            const std::string& warehouse_name) {
  const int64_t rows = ParseDemoRows("--rows", rows_text);
  Config config = flags.Load();
  ConfigureLogging(config);
  const DemoBundleSearch bundle = FindDemoBundle(config, ExecutablePath());
  if (bundle.dir.empty()) throw std::invalid_argument(bundle.problem);
  Administration administration = OpenAdministration(config, DataUse::kWrite);
  engine::warehouse::WarehouseOptions options;
  options.name = warehouse_name;
  options.url = config.WarehouseUrl(warehouse_name);
  auto warehouse = engine::warehouse::Warehouse::Open(options);
  service::bundle::DemoRequest request;
  request.data.rows = rows;
  request.data.seed = seed;
  request.warehouse_name = warehouse_name;
  request.bundle_dir = bundle.dir;
  ProgressBar generating("generating the demo warehouse");
  request.progress = [&](const engine::demo::DemoProgress& progress) {
    if (progress.table == "sales_fact") {
      generating.Update(progress.rows_loaded, progress.rows_total);
    } else {
      generating.Tick();
    }
  };
  auto summary = service::bundle::LoadDemo(*administration.store, *warehouse, request,
                                           administration.administrator);
  generating.Finish("done");
  PrintSummary(summary);
  PublishCubes(config, *administration.store, DemoCubes(*administration.store, summary));
  return 0;
}

int PublishCube(const ConfigFlags& flags, const std::vector<std::string>& names,
                const std::string& project) {
  Config config = flags.Load();
  ConfigureLogging(config);
  auto store = OpenStore(config, DataUse::kReadOnly);
  std::vector<FoundReport> cubes;
  for (const auto& name : names) cubes.push_back(FindCube(*store, name, project));
  PublishCubes(config, *store, cubes);
  return 0;
}

// `tessera cube publish|status --server URL`.
int RemoteCubeCommand(const ServerLogin& login, const std::vector<std::string>& names,
                      const std::string& project, bool publish) {
  RemoteServer server(ParseServerUrl(login.url, "--server"), login.user, login.password);
  std::vector<RemoteCube> cubes;
  for (const auto& name : names) cubes.push_back(FindRemoteCube(server, name, project));
  if (publish) {
    PublishRemoteCubes(server, cubes);
  } else {
    for (const auto& cube : cubes) std::cout << DescribeRemoteCubeStatus(server, cube) << "\n";
  }
  return 0;
}

int PrintCubeStatus(const ConfigFlags& flags, const std::vector<std::string>& names,
                    const std::string& project) {
  Config config = flags.Load();
  ConfigureLogging(config);
  auto store = OpenStore(config, DataUse::kReadOnly);
  for (const auto& name : names) {
    std::cout << DescribeCubeStatus(config, *store, FindCube(*store, name, project)) << "\n";
  }
  return 0;
}

// A report that reads a cube has no SQL of its own: the error says which command prints its rows'.
void RequireOwnSql(const model::SemanticModel& semantic, const std::string& report_id) {
  const model::Report& report = semantic.report(report_id);
  if (report.source != model::ReportSource::kWarehouse) {
    const std::string cube = semantic.cube(report.cube_id).name;
    throw std::invalid_argument("report '" + report.name + "' reads the cube '" + cube +
                                "', not the warehouse: it has no SQL of its own; `tessera sql '" +
                                cube + "'` prints the query that publishes the cube");
  }
}

int PrintReportSql(const ConfigFlags& flags, const std::string& report,
                   const std::string& project) {
  Config config = flags.Load();
  ConfigureLogging(config);
  auto store = OpenStore(config, DataUse::kReadOnly);
  const FoundReport found = FindReportOrCube(*store, report, project);
  const model::ObjectRecord& object = found.object;
  if (model::IsPushedDataset(object)) {
    throw std::invalid_argument("'" + object.name +
                                "' is a pushed dataset: its rows were uploaded, not queried "
                                "from a warehouse, so it has no SQL");
  }
  const model::SemanticModel semantic =
      service::project::LoadSemanticModel(*store, found.project.id);
  const std::string warehouse_name = service::project::LoadWarehouseName(*store, found.project.id);
  service::project::WarehouseRegistry warehouses(
      std::map<std::string, std::string>{{warehouse_name, config.WarehouseUrl(warehouse_name)}});
  const engine::warehouse::Dialect dialect = warehouses.Get(warehouse_name).dialect();
  const bool is_cube = model::IsCube(object);
  if (!is_cube) RequireOwnSql(semantic, object.id);
  const engine::sql::GeneratedSql generated =
      service::instance::QueryOf(semantic, object.id, dialect);
  std::cout << "-- " << object.name << " (" << object.id << "), "
            << (is_cube ? "the query that publishes this cube, " : "") << "warehouse '"
            << warehouse_name << "'\n"
            << generated.statement.text << ";\n";
  for (size_t i = 0; i < generated.statement.parameters.size(); ++i) {
    std::cout << "-- parameter " << i + 1 << ": "
              << engine::sql::DisplaySql({"?", {generated.statement.parameters[i]}}) << "\n";
  }
  return 0;
}

}  // namespace

int Run(int argc, char** argv) {
  RestrictNewFilesToOwner();  // the data directory and packages are the server user's alone
  CLI::App app{"Tessera: an analytics server speaking the Strategy Intelligence Server REST API"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tessera " + std::string(TesseraVersion()));

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

  ConfigFlags import_flags;
  std::string import_dir;
  service::bundle::BundleImportOptions import_options;
  CLI::App* import_command = project->add_subcommand("import", "Load or update a project bundle");
  import_command->add_option("DIR", import_dir, "bundle folder")->required();
  import_command->add_flag("--dry-run", import_options.dry_run,
                           "print what the import would create, update and delete; write nothing");
  import_command->add_flag(
      "--prune", import_options.prune,
      "also delete the project's tables, attributes, facts, metrics, filters, cubes, reports and "
      "dashboards the bundle does not have (refused while an object that stays uses one)");
  import_flags.AddTo(*import_command,
                     {"data_dir", "storage.url", "auth.admin_password", "log.level"});

  ConfigFlags export_flags;
  std::string export_project, export_dir;
  CLI::App* export_command = project->add_subcommand("export", "Write a project as a bundle");
  export_command->add_option("PROJECT", export_project, "project id or name (ignoring case)")
      ->required();
  export_command->add_option("DIR", export_dir, "bundle folder to write")->required();
  export_flags.AddTo(*export_command,
                     {"data_dir", "storage.url", "auth.admin_password", "log.level"});

  ConfigFlags demo_flags;
  std::string demo_rows = "100000";
  uint64_t demo_seed = 42;
  std::string demo_warehouse = "demo";
  CLI::App* demo =
      app.add_subcommand("demo", "Generate the demo warehouse and load the Tutorial project");
  demo->add_option("--rows", demo_rows,
                   "fact rows, " + std::to_string(kMinDemoRows) + " to " +
                       std::to_string(kMaxDemoRows) + " (default 100000)");
  demo->add_option("--seed", demo_seed, "random seed (default 42)");
  demo->add_option("--warehouse", demo_warehouse, "warehouse connection name (default demo)");
  demo_flags.AddTo(
      *demo, {"data_dir", "storage.url", "auth.admin_password", "demo.bundle_dir", "log.level"});

  ConfigFlags sql_flags;
  std::string sql_report, sql_project;
  CLI::App* sql = app.add_subcommand(
      "sql", "Print the SQL a warehouse report runs, or the query that publishes a cube");
  sql->add_option("REPORT", sql_report, "report or cube: id or name (ignoring case)")->required();
  sql->add_option("--project", sql_project,
                  "project id or name, ignoring case (default: search every project)");
  sql_flags.AddTo(*sql, {"data_dir", "storage.url", "log.level"});

  CLI::App* cube = app.add_subcommand("cube", "Publish cubes and show their state");
  cube->require_subcommand(1);
  ConfigFlags cube_flags;
  std::vector<std::string> cube_names;
  std::string cube_project;
  ServerLogin cube_server;
  CLI::App* publish = cube->add_subcommand(
      "publish",
      "Publish cubes now, one after another: on a running server with --server (it serves the "
      "new data at once), else in the data directory");
  CLI::App* status = cube->add_subcommand("status", "Print the state of cubes");
  for (CLI::App* command : {publish, status}) {
    command->add_option("CUBE", cube_names, "cube: id or name (ignoring case)")->required();
    command->add_option("--project", cube_project,
                        "project id or name, ignoring case (default: search every project)");
    command->add_option("--server", cube_server.url,
                        "a running server's URL, http://HOST:PORT/ (the data directory options "
                        "are then not used)");
    command->add_option("--user", cube_server.user,
                        "user name on --server (default administrator)");
    command
        ->add_option("--password", cube_server.password,
                     "password on --server (default empty) [env TESSERA_PASSWORD]")
        ->envname("TESSERA_PASSWORD");
    cube_flags.AddTo(*command, {"data_dir", "storage.url", "log.level"});
  }

  MigrateRequest migrate_request;
  std::vector<std::string> migrate_arguments;
  std::string undo_id;
  CLI::App* migrate = app.add_subcommand(
      "migrate",
      "Move objects, or a whole project, from one running server to another (migration "
      "packages; both servers share their --packages-dir)");
  migrate->add_option("PROJECT", migrate_arguments,
                      "the source project (id or name), then the ids of the objects to move");
  auto add_login = [](CLI::App& command, ServerLogin& login, const std::string& side) {
    const std::string upper = side == "source" ? "SOURCE" : "TARGET";
    // Required, but checked when the command runs: `migrate undo` has no --source.
    command.add_option("--" + side, login.url,
                       "the " + side + " server's URL, http://HOST:PORT/ (required)");
    command.add_option("--" + side + "-user", login.user, "user name (default administrator)");
    command
        .add_option("--" + side + "-password", login.password,
                    "password (default empty) [env TESSERA_" + upper + "_PASSWORD]")
        ->envname("TESSERA_" + upper + "_PASSWORD");
  };
  add_login(*migrate, migrate_request.source, "source");
  add_login(*migrate, migrate_request.target, "target");
  migrate->add_option("--target-project", migrate_request.target_project,
                      "target project, id or name (default: the source project's name)");
  migrate->add_flag("--whole-project", migrate_request.whole_project,
                    "move every object of the project (a project merge)");
  migrate->add_option(
      "--rule", migrate_request.rule,
      "conflict rule of the named objects, or of every object with --whole-project: "
      "use_existing, replace, keep_both, use_newer, use_older, force_replace or "
      "delete (default replace); the objects they use are created when missing, "
      "else kept");
  migrate->add_option("--name", migrate_request.name, "package name");
  migrate->add_flag("--dry-run", migrate_request.dry_run,
                    "stop after showing what the import would change; import nothing");
  ServerLogin undo_login;
  CLI::App* undo = migrate->add_subcommand("undo", "Undo an import on its target server");
  undo->add_option("IMPORT_ID", undo_id, "the import id, or the migration id PACKAGE:IMPORT")
      ->required();
  add_login(*undo, undo_login, "target");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    if (serve->parsed()) return Serve(serve_flags);
    if (create->parsed()) return CreateProject(create_flags, project_name, project_description);
    if (import_command->parsed()) return ImportProject(import_flags, import_dir, import_options);
    if (export_command->parsed()) return ExportProject(export_flags, export_project, export_dir);
    if (demo->parsed()) return RunDemo(demo_flags, demo_rows, demo_seed, demo_warehouse);
    if (sql->parsed()) return PrintReportSql(sql_flags, sql_report, sql_project);
    if (!cube_server.url.empty() && (publish->parsed() || status->parsed())) {
      return RemoteCubeCommand(cube_server, cube_names, cube_project, publish->parsed());
    }
    if (publish->parsed()) return PublishCube(cube_flags, cube_names, cube_project);
    if (status->parsed()) return PrintCubeStatus(cube_flags, cube_names, cube_project);
    if (undo->parsed()) return UndoMigration(undo_login, undo_id);
    if (migrate->parsed()) {
      if (migrate_arguments.empty())
        throw std::invalid_argument("migrate: name the source project");
      migrate_request.project = migrate_arguments.front();
      migrate_request.object_ids.assign(migrate_arguments.begin() + 1, migrate_arguments.end());
      return Migrate(migrate_request);
    }
  } catch (const model::bundle::BundleError& e) {
    for (const auto& problem : e.problems()) std::cerr << problem << "\n";
    std::cerr << "tessera: the bundle was not imported (" << e.problems().size()
              << " problem(s))\n";
    return 1;
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
