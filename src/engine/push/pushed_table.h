// engine/push/pushed_table.h
//
// The rows of one table of a pushed dataset: chunks of client JSON read into typed cells, and the
// update policies that merge a publish's rows into the rows already there.
//
// ParseChunk reads the decoded `data` of one chunk. ROW orientation: an array of rows, each an
// array of values in `column_headers` order. COLUMN orientation: an array of columns in
// `column_headers` order, each an array of values, all of one length. `column_headers` names a
// subset of the table's columns, each at most once, in any order (empty = all of the table's
// columns in the table's order); a column it leaves out is null in every row. The result has one
// row per input row, each with one cell per column of the table, in the table's column order.
//
// Values by column type (JSON null is a null cell for every type):
//   STRING            a string; a number or true/false is accepted and kept as its text ("12",
//                     "12.5", "true"), since a pandas object column may hold numbers.
//   INTEGER,          an integer in the 64-bit range (both types); a real with an integral value
//   BIGINTEGER        (12.0) and a string holding a whole decimal integer ("12") are accepted.
//   DOUBLE,           a number (integers become reals); a string holding a finite decimal number
//   BIGDECIMAL        ("12.5", "1e3") is accepted.
//   BOOL, BOOLEAN     true/false, the integers 0/1, or a string true/false/True/False/1/0; the
//                     cell is the integer 1 or 0.
//   DATE              "yyyy-MM-dd"; a datetime (what pandas writes for dates,
//                     "2024-05-01T00:00:00.000") is accepted and its time dropped. Cell text
//                     "yyyy-MM-dd".
//   DATETIME          "yyyy-MM-ddTHH:mm:ss", a space instead of "T", an optional fraction of 1 to
//                     9 digits and an optional "Z"; a plain date means midnight. Cell text
//                     "yyyy-MM-dd HH:mm:ss", with ".SSS" (milliseconds, truncated) when they are
//                     not zero, so cells sort by their bytes.
//   TIME              "HH:mm:ss" with an optional fraction. Cell text "HH:mm:ss[.SSS]" as above.
// Dates are checked against the calendar (no 2023-02-29), times against the clock (seconds up to
// 59); core/civil_time reads and writes them.
//
// Errors, all Error(kInvalidInput) and naming table, column, row (1-based within the chunk) and
// the value where there is one: malformed JSON; a top level, row or column that is not an array;
// a row or column of the wrong length; a value of the wrong type; an integer out of range; an
// unknown or repeated column header.
//
// ApplyUpdatePolicy merges one publish's rows of a table into the table's existing rows. A row's
// key is its cells at `key_columns` (the table's attribute columns, AttributeColumnsOf in
// engine/push/push_model.h); when `key_columns` is empty the key is the whole row. Null key cells
// equal each other. Within `incoming`, the first row with a given key wins and later ones are
// ignored (replace excepted).
//   replace  the incoming rows, all of them, as given;
//   add      the existing rows, then each incoming row whose key no existing row has;
//   update   the existing rows, each one whose key an incoming row has replaced by that row;
//            incoming rows with new keys are ignored;
//   upsert   update, then add.
// Row order: existing rows keep their positions; added rows follow in incoming order.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/dictionary.h"
#include "engine/push/push_model.h"

namespace tessera::engine::push {

using PushedRows = std::vector<std::vector<Cell>>;

PushedRows ParseChunk(const PushTable& table, const std::vector<std::string>& column_headers,
                      bool column_orientation, std::string_view json_text);
// ParseChunk's checks, and its errors, without keeping the rows.
void CheckChunk(const PushTable& table, const std::vector<std::string>& column_headers,
                bool column_orientation, std::string_view json_text);

enum class UpdatePolicy { kReplace, kAdd, kUpdate, kUpsert };

// "replace", "add", "update" or "upsert", case-insensitive; anything else throws
// Error(kInvalidInput) listing them.
UpdatePolicy ParseUpdatePolicy(std::string_view text);
std::string_view UpdatePolicyName(UpdatePolicy policy);  // lower case, as accepted

PushedRows ApplyUpdatePolicy(UpdatePolicy policy, PushedRows existing, PushedRows incoming,
                             const std::vector<size_t>& key_columns);

}  // namespace tessera::engine::push
