// model/well_known.h
//
// Well-known system ids and the predefined folders every project has. Predefined folders carry the
// same id in every project: the root, Public Objects and Shared Reports the reference server's ids,
// the others ids derived deterministically from their folder type.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace tessera::model {

inline constexpr std::string_view kRootFolderId = "D43364C684E34A5F9B2F9AD7108F7828";
inline constexpr std::string_view kPublicObjectsFolderId = "98FE182C2A10427EACE0CD30B6768258";
inline constexpr std::string_view kSharedReportsFolderId = "D3C7D461F69C4610AA6BAA5EF51F4125";
inline constexpr std::string_view kAdministratorUserId = "54F3D26011D2896560009A8E67019608";
inline constexpr std::string_view kEveryoneGroupId = "C82C6B1011D2894CC0009D9F29718E4F";
inline constexpr std::string_view kPublicGuestGroupId = "294DEDC011D2F1D56000D98E67019608";

inline constexpr int kFolderTypeRoot = 39;
inline constexpr int kFolderTypePublicObjects = 1;
inline constexpr int kFolderTypeSharedReports = 7;
inline constexpr int kFolderTypeMyPersonalObjects = 19;
inline constexpr int kFolderTypeMyReports = 20;
inline constexpr int kFolderTypeMyAnswers = 21;
inline constexpr int kFolderTypeProfiles = 22;

struct PredefinedFolder {
  int folder_type;
  std::string_view name;
  int parent_folder_type;  // 0 for the root
};

// Folders created with every project, parents before children. Per-user folders (19, 20, 21)
// are not listed: they live under each user's profile folder (see ProfileFolderId).
std::span<const PredefinedFolder> ProjectFolderTree();

std::optional<PredefinedFolder> FindPredefinedFolder(int folder_type);
std::string PredefinedFolderId(int folder_type);

// Configuration-level folders (no project): the root, which answers folder type 39 when no
// project is named, and the folders of users, user groups and security roles in it.
inline constexpr std::string_view kConfigurationRootName = "CASTOR_SERVER_CONFIGURATION";
std::string ConfigurationRootFolderId();
std::string UsersFolderId();
std::string UserGroupsFolderId();
std::string SecurityRolesFolderId();

// A user's profile folder (under "Profiles") and the personal folders inside it.
std::string ProfileFolderId(std::string_view user_id);
std::string PersonalFolderId(std::string_view user_id, int folder_type);

}  // namespace tessera::model
