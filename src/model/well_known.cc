#include "model/well_known.h"

#include <array>

#include "core/ids.h"

namespace tessera::model {

namespace {

constexpr std::array<PredefinedFolder, 17> kProjectFolders = {{
    {kFolderTypeRoot, "", 0},  // named after the project
    {kFolderTypePublicObjects, "Public Objects", kFolderTypeRoot},
    {2, "Consolidations", kFolderTypePublicObjects},
    {3, "Custom Groups", kFolderTypePublicObjects},
    {4, "Filters", kFolderTypePublicObjects},
    {5, "Metrics", kFolderTypePublicObjects},
    {6, "Prompts", kFolderTypePublicObjects},
    {kFolderTypeSharedReports, "Reports", kFolderTypePublicObjects},
    {8, "Searches", kFolderTypePublicObjects},
    {9, "Templates", kFolderTypePublicObjects},
    {24, "Schema Objects", kFolderTypeRoot},
    {26, "Attributes", 24},
    {29, "Facts", 24},
    {35, "Tables", 24},
    {kFolderTypeProfiles, "Profiles", kFolderTypeRoot},
    {90, "Dashboard Templates", kFolderTypePublicObjects},
    {97, "Shared Dashboards", kFolderTypePublicObjects},
}};

}  // namespace

std::span<const PredefinedFolder> ProjectFolderTree() { return kProjectFolders; }

std::optional<PredefinedFolder> FindPredefinedFolder(int folder_type) {
  for (const auto& folder : kProjectFolders) {
    if (folder.folder_type == folder_type) return folder;
  }
  return std::nullopt;
}

std::string PredefinedFolderId(int folder_type) {
  switch (folder_type) {
    case kFolderTypeRoot:
      return std::string(kRootFolderId);
    case kFolderTypePublicObjects:
      return std::string(kPublicObjectsFolderId);
    case kFolderTypeSharedReports:
      return std::string(kSharedReportsFolderId);
    default:
      return DeterministicObjectId("tessera:predefined-folder:" + std::to_string(folder_type));
  }
}

std::string ConfigurationRootFolderId() {
  return DeterministicObjectId("tessera:configuration-folder:root");
}
std::string UsersFolderId() { return DeterministicObjectId("tessera:configuration-folder:Users"); }
std::string UserGroupsFolderId() {
  return DeterministicObjectId("tessera:configuration-folder:User Groups");
}
std::string SecurityRolesFolderId() {
  return DeterministicObjectId("tessera:configuration-folder:Security Roles");
}

std::string ProfileFolderId(std::string_view user_id) {
  return DeterministicObjectId("tessera:profile:" + std::string(user_id));
}

std::string PersonalFolderId(std::string_view user_id, int folder_type) {
  return DeterministicObjectId("tessera:profile:" + std::string(user_id) + ":" +
                               std::to_string(folder_type));
}

}  // namespace tessera::model
