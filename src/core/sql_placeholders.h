// core/sql_placeholders.h
//
// SQL in Tessera is written once with "?" placeholders; PostgreSQL wants "$1, $2, ...". This
// numbers every "?" outside string literals ('...') and quoted identifiers ("..."), in order.
// Shared by the storage service and the warehouses, which each build their own SQL.
#pragma once

#include <string>
#include <string_view>

namespace tessera {

std::string NumberPostgresPlaceholders(std::string_view sql);

}  // namespace tessera
