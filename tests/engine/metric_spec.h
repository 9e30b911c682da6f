// tests/engine/metric_spec.h
//
// A metric of a test dataset by its id, name and aggregate, every other member at its default.
#pragma once

#include <string>
#include <utility>

#include "engine/sql/dataset_builder.h"
#include "model/semantic.h"

namespace tessera::engine {

inline sql::MetricSpec MetricSpecOf(std::string id, std::string name,
                                    model::AggregateFunction function) {
  sql::MetricSpec spec;
  spec.id = std::move(id);
  spec.name = std::move(name);
  spec.function = function;
  return spec;
}

}  // namespace tessera::engine
