// model/bundle/layout.h
//
// Where each kind of object lives in a bundle folder (model/bundle/bundle.h): the list files, one
// YAML list under a key, and the folders holding one object per file. Reader and writer share it,
// so the two cannot disagree about the layout.
#pragma once

#include "model/bundle/index.h"

namespace tessera::model::bundle {

struct ListFile {
  const char* file;
  const char* key;
  BundleKind kind;
};

inline constexpr ListFile kListFiles[] = {
    {"tables.yaml", "tables", BundleKind::kTable},
    {"attributes.yaml", "attributes", BundleKind::kAttribute},
    {"facts.yaml", "facts", BundleKind::kFact},
    {"metrics.yaml", "metrics", BundleKind::kMetric},
    {"filters.yaml", "filters", BundleKind::kFilter},
};

struct ObjectFolder {
  const char* folder;
  BundleKind kind;
};

inline constexpr ObjectFolder kObjectFolders[] = {
    {"cubes", BundleKind::kCube},
    {"reports", BundleKind::kReport},
    {"dashboards", BundleKind::kDashboard},
};

}  // namespace tessera::model::bundle
