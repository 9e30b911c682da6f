// model/object_types.h
//
// Object type and subtype codes. A subtype is always type * 256 + n, so SubtypeToType(subtype)
// recovers the type; clients rely on it.
#pragma once

namespace tessera::model {

inline constexpr int kTypeFilter = 1;
inline constexpr int kTypeTemplate = 2;
inline constexpr int kTypeReportDefinition = 3;
inline constexpr int kTypeMetric = 4;
inline constexpr int kTypeFolder = 8;
inline constexpr int kTypePrompt = 10;
inline constexpr int kTypeFunction = 11;
inline constexpr int kTypeAttribute = 12;
inline constexpr int kTypeFact = 13;
inline constexpr int kTypeDimension = 14;  // dimensions and hierarchies
inline constexpr int kTypeTable = 15;
inline constexpr int kTypeShortcut = 18;
inline constexpr int kTypeAttributeForm = 21;
inline constexpr int kTypeColumn = 26;
inline constexpr int kTypeProject = 32;
inline constexpr int kTypeUser = 34;  // users and user groups
inline constexpr int kTypeTransformation = 43;
inline constexpr int kTypeSecurityRole = 44;
inline constexpr int kTypeConsolidation = 47;
inline constexpr int kTypeWarehouseTable = 53;
inline constexpr int kTypeDocumentDefinition = 55;
inline constexpr int kTypeDrillMap = 56;
inline constexpr int kTypeSecurityFilter = 58;

inline constexpr int kSubtypeFolder = 2048;
inline constexpr int kSubtypeProject = 8192;
inline constexpr int kSubtypeUser = 8704;
inline constexpr int kSubtypeUserGroup = 8705;
inline constexpr int kSubtypeSecurityRole = 11264;
inline constexpr int kSubtypeReportGrid = 768;
inline constexpr int kSubtypeOlapCube = 776;
inline constexpr int kSubtypeSuperCube = 779;
inline constexpr int kSubtypeDashboard = 14081;

inline constexpr int SubtypeToType(int subtype) { return subtype >> 8; }

// Intelligent cubes and super cubes (a report grid is not a cube).
inline constexpr bool IsCubeSubtype(int subtype) {
  return subtype == kSubtypeOlapCube || subtype == kSubtypeSuperCube;
}

// Whether objects of `type` live only inside a project -- filters, templates, reports and cubes,
// metrics, prompts, functions, attributes, facts, hierarchies, tables, shortcuts, attribute
// forms, columns, transformations, consolidations, warehouse tables, documents and dashboards,
// drill maps, security filters -- so that finding one needs the project. Folders live at both
// levels; projects, users, groups, security roles, datasources and schedules at the configuration
// level.
inline constexpr bool IsProjectOnlyType(int type) {
  switch (type) {
    case kTypeFilter:
    case kTypeTemplate:
    case kTypeReportDefinition:
    case kTypeMetric:
    case kTypePrompt:
    case kTypeFunction:
    case kTypeAttribute:
    case kTypeFact:
    case kTypeDimension:
    case kTypeTable:
    case kTypeShortcut:
    case kTypeAttributeForm:
    case kTypeColumn:
    case kTypeTransformation:
    case kTypeConsolidation:
    case kTypeWarehouseTable:
    case kTypeDocumentDefinition:
    case kTypeDrillMap:
    case kTypeSecurityFilter:
      return true;
    default:
      return false;
  }
}

// A code in a search's `type` list: below 256 it is a type matching all its subtypes, otherwise a
// subtype matching exactly.
inline constexpr bool IsSubtypeCode(int code) { return code >= 256; }

// `viewMedia` for type 55 when its definition has none: dashboards pass
// (v & 0xE8000000) == 0x60000000.
inline constexpr long long kViewMediaDashboard = 1610612736;  // 0x60000000
inline constexpr long long kViewMediaDocument = 134217728;    // 0x08000000

}  // namespace tessera::model
