#include "model/package/import_order.h"

#include "model/object_types.h"

namespace tessera::model::package {

namespace {

// The order of import_order.h; every subtype of a type shares its rank.
int ProjectRank(int type) {
  switch (type) {
    case kTypeFolder:
      return 0;
    case kTypeTable:
    case kTypeColumn:
      return 1;
    case kTypeAttribute:
      return 2;
    case kTypeFact:
      return 3;
    case kTypeDimension:  // hierarchies
      return 4;
    case kTypeTransformation:
      return 5;
    case kTypeFunction:
      return 6;
    case kTypeFilter:  // filters and custom groups
      return 7;
    case kTypePrompt:
      return 8;
    case kTypeMetric:
      return 9;
    case kTypeTemplate:
      return 10;
    case kTypeReportDefinition:  // reports and cubes
      return 11;
    case kTypeDocumentDefinition:  // documents and dashboards
      return 12;
    default:
      return 13;
  }
}

int ConfigurationRank(int type, int subtype) {
  if (type == kTypeSecurityRole) return 0;
  if (type == kTypeUser && subtype == kSubtypeUser) return 1;
  if (type == kTypeUser && subtype == kSubtypeUserGroup) return 2;
  return 3;
}

}  // namespace

int ImportRank(PackageKind kind, int type, int subtype) {
  if (kind == PackageKind::kProject) return ProjectRank(type);
  return ConfigurationRank(type, subtype);
}

ImportOrderKey MakeImportOrderKey(PackageKind kind, int type, int subtype, int folder_depth) {
  return {ImportRank(kind, type, subtype), type == kTypeFolder ? folder_depth : 0};
}

}  // namespace tessera::model::package
