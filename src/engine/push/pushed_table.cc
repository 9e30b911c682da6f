#include "engine/push/pushed_table.h"

#include <charconv>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "core/civil_time.h"
#include "core/error.h"
#include "core/json_scanner.h"
#include "core/strings.h"

namespace tessera::engine::push {
namespace {

// ---------------------------------------------------------------------------------------------
// Values

enum class ValueKind { kInteger, kReal, kText, kBoolean, kDate, kDateTime, kTime };

ValueKind KindOf(const PushColumn& column) {
  switch (column.type) {
    case model::DataType::kInteger:
      return ValueKind::kInteger;
    case model::DataType::kReal:
      return ValueKind::kReal;
    case model::DataType::kBoolean:
      return ValueKind::kBoolean;
    case model::DataType::kDate:
      return ValueKind::kDate;
    case model::DataType::kDateTime:
      return ValueKind::kDateTime;
    case model::DataType::kText:
      break;
  }
  return column.type_name == "TIME" ? ValueKind::kTime : ValueKind::kText;
}

// One JSON scalar as the parser hands it over.
struct RawValue {
  enum class Type { kNull, kBoolean, kInteger, kUnsigned, kReal, kString } type = Type::kNull;
  bool boolean = false;
  int64_t integer = 0;
  uint64_t unsigned_integer = 0;
  double real = 0;
  std::string_view text;                // kString
  std::string* movable_text = nullptr;  // kString, when the parser's string may be taken
  std::string_view token;               // kReal: the number as written
};

std::string Shown(const RawValue& value) {
  constexpr size_t kMaxShown = 60;
  switch (value.type) {
    case RawValue::Type::kNull:
      return "null";
    case RawValue::Type::kBoolean:
      return value.boolean ? "true" : "false";
    case RawValue::Type::kInteger:
      return std::to_string(value.integer);
    case RawValue::Type::kUnsigned:
      return std::to_string(value.unsigned_integer);
    case RawValue::Type::kReal:
      return std::string(value.token);
    case RawValue::Type::kString: {
      std::string text = value.text.size() > kMaxShown
                             ? std::string(value.text.substr(0, kMaxShown)) + "..."
                             : std::string(value.text);
      return Json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
  }
  return "";
}

constexpr double kTwoTo63 = 9223372036854775808.0;

std::optional<Cell> IntegerCell(const RawValue& value) {
  switch (value.type) {
    case RawValue::Type::kInteger:
      return Cell(value.integer);
    case RawValue::Type::kUnsigned:
      if (value.unsigned_integer > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
      return Cell(static_cast<int64_t>(value.unsigned_integer));
    case RawValue::Type::kReal:
      // An integer literal the parser could only read as a real lies outside the 64-bit range
      // (rounding could bring it back in: -9223372036854775809 reads as -2^63).
      if (value.token.find_first_of(".eE") == std::string_view::npos) return std::nullopt;
      if (std::trunc(value.real) != value.real || value.real < -kTwoTo63 ||
          value.real >= kTwoTo63) {
        return std::nullopt;
      }
      return Cell(static_cast<int64_t>(value.real));
    case RawValue::Type::kString:
      if (auto integer = ParseInt(value.text)) return Cell(*integer);
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

std::optional<Cell> RealCell(const RawValue& value) {
  switch (value.type) {
    case RawValue::Type::kInteger:
      return Cell(static_cast<double>(value.integer));
    case RawValue::Type::kUnsigned:
      return Cell(static_cast<double>(value.unsigned_integer));
    case RawValue::Type::kReal:
      return Cell(value.real);
    case RawValue::Type::kString: {
      const std::string_view text = value.text;
      double real = 0;
      auto result = std::from_chars(text.data(), text.data() + text.size(), real);
      if (text.empty() || result.ec != std::errc() || result.ptr != text.data() + text.size() ||
          !std::isfinite(real)) {
        return std::nullopt;
      }
      return Cell(real);
    }
    default:
      return std::nullopt;
  }
}

std::optional<Cell> BooleanCell(const RawValue& value) {
  switch (value.type) {
    case RawValue::Type::kBoolean:
      return Cell(int64_t{value.boolean ? 1 : 0});
    case RawValue::Type::kInteger:
      if (value.integer == 0 || value.integer == 1) return Cell(value.integer);
      return std::nullopt;
    case RawValue::Type::kUnsigned:
      if (value.unsigned_integer <= 1) return Cell(static_cast<int64_t>(value.unsigned_integer));
      return std::nullopt;
    case RawValue::Type::kString:
      if (auto flag = ParseBool(value.text)) return Cell(int64_t{*flag ? 1 : 0});
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

std::optional<Cell> TextCell(RawValue& value) {
  switch (value.type) {
    case RawValue::Type::kString:
      if (value.movable_text) return Cell(std::move(*value.movable_text));
      return Cell(std::string(value.text));
    case RawValue::Type::kBoolean:
    case RawValue::Type::kInteger:
    case RawValue::Type::kUnsigned:
    case RawValue::Type::kReal:
      return Cell(Shown(value));
    default:
      return std::nullopt;
  }
}

std::optional<Cell> DateCell(const RawValue& value, ValueKind kind) {
  if (value.type != RawValue::Type::kString) return std::nullopt;
  if (kind == ValueKind::kTime) {
    const std::optional<ClockTime> time = ParseClockTime(value.text);
    if (!time) return std::nullopt;
    return Cell(FormatClockTime(*time));
  }
  const std::optional<CivilDateTime> parts = ParseCivilDateTime(value.text);
  if (!parts) return std::nullopt;
  if (kind == ValueKind::kDate) return Cell(FormatCivilDate(*parts));
  return Cell(FormatCivilDateTime(*parts));
}

std::optional<Cell> ConvertValue(RawValue& value, ValueKind kind) {
  if (value.type == RawValue::Type::kNull) return Cell();
  switch (kind) {
    case ValueKind::kInteger:
      return IntegerCell(value);
    case ValueKind::kReal:
      return RealCell(value);
    case ValueKind::kBoolean:
      return BooleanCell(value);
    case ValueKind::kText:
      return TextCell(value);
    case ValueKind::kDate:
    case ValueKind::kDateTime:
    case ValueKind::kTime:
      return DateCell(value, kind);
  }
  return std::nullopt;
}

// "yyyy-MM-dd", as FormatCivilDate writes a date it has parsed from such text.
bool IsFormattedDate(std::string_view text) {
  constexpr std::string_view kShape = "0000-00-00";
  if (text.size() != kShape.size()) return false;
  for (size_t i = 0; i < kShape.size(); ++i) {
    const bool matches = kShape[i] == '-' ? text[i] == '-' : text[i] >= '0' && text[i] <= '9';
    if (!matches) return false;
  }
  return true;
}

// ConvertValue into `cell`; false, leaving `value` intact, when it gives no cell. The pairs of
// value and kind a chunk is mostly made of are written in place, without ConvertValue's
// temporaries.
bool ConvertInto(RawValue& value, ValueKind kind, Cell& cell) {
  switch (value.type) {
    case RawValue::Type::kString:
      if (kind == ValueKind::kText && !value.movable_text) {
        cell.emplace<std::string>(value.text);
        return true;
      }
      if (kind == ValueKind::kDate && IsFormattedDate(value.text)) {
        if (!ParseCivilDateTime(value.text)) return false;
        cell.emplace<std::string>(value.text);
        return true;
      }
      break;
    case RawValue::Type::kUnsigned:
      if (kind == ValueKind::kInteger && value.unsigned_integer <= uint64_t{INT64_MAX}) {
        cell.emplace<int64_t>(static_cast<int64_t>(value.unsigned_integer));
        return true;
      }
      if (kind == ValueKind::kReal) {
        cell.emplace<double>(static_cast<double>(value.unsigned_integer));
        return true;
      }
      break;
    case RawValue::Type::kReal:
      if (kind == ValueKind::kReal) {
        cell.emplace<double>(value.real);
        return true;
      }
      break;
    default:
      break;
  }
  std::optional<Cell> converted = ConvertValue(value, kind);
  if (!converted) return false;
  cell = std::move(*converted);
  return true;
}

// Whether ConvertValue would give a cell, without making it.
bool IsConvertible(RawValue& value, ValueKind kind) {
  if (value.type == RawValue::Type::kNull) return true;
  switch (kind) {
    case ValueKind::kText:
      return true;  // every scalar has a text
    case ValueKind::kTime:
      return value.type == RawValue::Type::kString && ParseClockTime(value.text).has_value();
    case ValueKind::kDate:
    case ValueKind::kDateTime:
      return value.type == RawValue::Type::kString && ParseCivilDateTime(value.text).has_value();
    default:
      return ConvertValue(value, kind).has_value();
  }
}

std::string_view Expected(ValueKind kind) {
  switch (kind) {
    case ValueKind::kInteger:
      return "an integer between -9223372036854775808 and 9223372036854775807";
    case ValueKind::kReal:
      return "a number";
    case ValueKind::kBoolean:
      return "true or false";
    case ValueKind::kText:
      return "a string";
    case ValueKind::kDate:
      return "a date \"yyyy-MM-dd\"";
    case ValueKind::kDateTime:
      return "a datetime \"yyyy-MM-ddTHH:mm:ss[.SSS]\"";
    case ValueKind::kTime:
      return "a time \"HH:mm:ss\"";
  }
  return "";
}

// ---------------------------------------------------------------------------------------------
// The chunk reader: a SAX handler, so a chunk becomes cells without a JSON document in between.

class ChunkReader final : public nlohmann::json_sax<Json> {
 public:
  // Without `keeps_cells` the rows it gives have no cells: the chunk is only checked.
  ChunkReader(const PushTable& table, const std::vector<std::string>& column_headers,
              bool column_orientation, bool keeps_cells)
      : table_(table),
        column_orientation_(column_orientation),
        row_width_(keeps_cells ? table.columns.size() : 0) {
    for (const auto& column : table.columns) kinds_.push_back(KindOf(column));
    if (column_headers.empty()) {
      for (size_t i = 0; i < table.columns.size(); ++i) positions_.push_back(i);
      return;
    }
    std::vector<bool> seen(table.columns.size(), false);
    for (const auto& header : column_headers) {
      const int index = table.ColumnIndex(header);
      if (index < 0) {
        Fail("columnHeaders: table '" + table.name + "' has no column '" + header +
             "'; its columns are " + ColumnList());
      }
      if (seen[static_cast<size_t>(index)]) {
        Fail("columnHeaders: column '" + header + "' of table '" + table.name + "' is named twice");
      }
      seen[static_cast<size_t>(index)] = true;
      positions_.push_back(static_cast<size_t>(index));
    }
  }

  PushedRows TakeRows() {
    if (column_orientation_ && outer_count_ != 0 && outer_count_ != positions_.size()) {
      Fail("table '" + table_.name + "': the chunk has " + std::to_string(outer_count_) +
           " columns; " + std::to_string(positions_.size()) + " are expected");
    }
    return std::move(rows_);
  }

  bool null() override {
    RawValue value;
    return Value(value);
  }
  bool boolean(bool flag) override {
    RawValue value;
    value.type = RawValue::Type::kBoolean;
    value.boolean = flag;
    return Value(value);
  }
  bool number_integer(number_integer_t number) override {
    RawValue value;
    value.type = RawValue::Type::kInteger;
    value.integer = number;
    return Value(value);
  }
  bool number_unsigned(number_unsigned_t number) override {
    RawValue value;
    value.type = RawValue::Type::kUnsigned;
    value.unsigned_integer = number;
    return Value(value);
  }
  bool number_float(number_float_t number, const string_t& token) override {
    return Real(number, token);
  }
  bool string(string_t& text) override {
    RawValue value;
    value.type = RawValue::Type::kString;
    value.text = text;
    value.movable_text = &text;
    return Value(value);
  }
  // The events of ReadPlainChunk, which views the chunk's text rather than copying it.
  bool Real(double number, std::string_view token) {
    RawValue value;
    value.type = RawValue::Type::kReal;
    value.real = number;
    value.token = token;
    return Value(value);
  }
  bool Text(std::string_view text) {
    RawValue value;
    value.type = RawValue::Type::kString;
    value.text = text;
    return Value(value);
  }
  bool binary(binary_t&) override { return Misplaced("binary data"); }
  bool start_object(std::size_t) override { return Misplaced("an object"); }
  bool key(string_t&) override { return Misplaced("an object"); }
  bool end_object() override { return Misplaced("an object"); }

  bool start_array(std::size_t) override {
    if (depth_ == 2) return Misplaced("an array");
    if (depth_ == 1) StartInner();
    ++depth_;
    return true;
  }

  bool end_array() override {
    if (depth_ == 2) EndInner();
    --depth_;
    return true;
  }

  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& error) override {
    Fail("table '" + table_.name + "': the chunk is not valid JSON: " + error.what());
  }

 private:
  [[noreturn]] void Fail(const std::string& message) const {
    throw Error(ErrorCode::kInvalidInput, message);
  }

  std::string ColumnList() const {
    std::vector<std::string> names;
    for (const auto& column : table_.columns) names.push_back("'" + column.name + "'");
    return JoinStrings(names, ", ");
  }

  std::string_view OuterNoun() const { return column_orientation_ ? "columns" : "rows"; }

  bool Misplaced(std::string_view what) {
    if (depth_ == 0) {
      Fail("table '" + table_.name + "': the chunk must be a JSON array of " +
           std::string(OuterNoun()) + "; it is " + std::string(what));
    }
    if (depth_ == 1) {
      Fail("table '" + table_.name + "', " + (column_orientation_ ? "column " : "row ") +
           std::to_string(outer_count_ + 1) + ": expected an array of values; got " +
           std::string(what));
    }
    Fail(Where(inner_count_) + ": expected a value; got " + std::string(what));
  }

  // The cell being read: table, column and row.
  std::string Where(size_t position) const {
    const size_t row = column_orientation_ ? position + 1 : outer_count_;
    const size_t header = column_orientation_ ? outer_count_ - 1 : position;
    std::string where = "table '" + table_.name + "'";
    if (header < positions_.size())
      where += ", column '" + table_.columns[positions_[header]].name + "'";
    return where + ", row " + std::to_string(row);
  }

  void StartInner() {
    ++outer_count_;
    inner_count_ = 0;
    if (!column_orientation_) {
      rows_.emplace_back(row_width_);
    } else if (outer_count_ > positions_.size()) {
      Fail("table '" + table_.name + "': the chunk has more than " +
           std::to_string(positions_.size()) + " columns");
    }
  }

  void EndInner() {
    if (!column_orientation_) {
      if (inner_count_ != positions_.size()) {
        Fail("table '" + table_.name + "', row " + std::to_string(outer_count_) + ": " +
             std::to_string(inner_count_) + " values; " + std::to_string(positions_.size()) +
             " are expected");
      }
    } else if (inner_count_ != rows_.size()) {
      Fail("table '" + table_.name + "', column '" +
           table_.columns[positions_[outer_count_ - 1]].name +
           "': " + std::to_string(inner_count_) + " values; the first column has " +
           std::to_string(rows_.size()));
    }
  }

  // By reference: a copy of the value on every call was most of the cost of reading a chunk.
  bool Value(RawValue& value) {
    if (depth_ != 2) {
      std::string shown = Shown(value);
      return Misplaced(depth_ == 0 ? shown : "the value " + shown);
    }
    const size_t position = inner_count_++;
    size_t row_index = rows_.size() - 1;
    size_t header = position;
    if (column_orientation_) {
      header = outer_count_ - 1;
      row_index = position;
      if (header == 0) {
        rows_.emplace_back(row_width_);
      } else if (position >= rows_.size()) {
        Fail("table '" + table_.name + "', column '" + table_.columns[positions_[header]].name +
             "': more values than the first column's " + std::to_string(rows_.size()));
      }
    } else if (position >= positions_.size()) {
      Fail("table '" + table_.name + "', row " + std::to_string(outer_count_) + ": more than " +
           std::to_string(positions_.size()) + " values");
    }
    const size_t column = positions_[header];
    const ValueKind kind = kinds_[column];
    if (row_width_ == 0) {  // only checked
      if (!IsConvertible(value, kind)) FailValue(position, value, column);
      return true;
    }
    if (!ConvertInto(value, kind, rows_[row_index][column])) FailValue(position, value, column);
    return true;
  }

  [[noreturn]] void FailValue(size_t position, const RawValue& value, size_t column) const {
    Fail(Where(position) + ": " + Shown(value) + " is not " +
         std::string(Expected(kinds_[column])) + " (" + table_.columns[column].type_name + ")");
  }

  const PushTable& table_;
  bool column_orientation_;
  size_t row_width_;               // the table's width, or 0 when the cells are not kept
  std::vector<ValueKind> kinds_;   // per column of the table
  std::vector<size_t> positions_;  // per header: the table column
  PushedRows rows_;
  int depth_ = 0;
  size_t outer_count_ = 0;  // rows (ROW) or columns (COLUMN) started
  size_t inner_count_ = 0;  // values in the current row or column
};

// The scalar at the scanner's position, given to `reader` as nlohmann's SAX parser would give it.
// `storage` holds a string whose escapes were decoded.
bool ReadScalar(JsonScanner& scanner, ChunkReader& reader, std::string& storage) {
  switch (scanner.PeekAfterSpace()) {
    case '"': {
      std::string_view value;
      if (!scanner.ReadString(value, storage)) return false;
      return reader.Text(value);
    }
    case 't':
      return scanner.ReadLiteral("true") && reader.boolean(true);
    case 'f':
      return scanner.ReadLiteral("false") && reader.boolean(false);
    case 'n':
      return scanner.ReadLiteral("null") && reader.null();
    default:
      break;
  }
  JsonNumber number;
  if (!scanner.ReadNumber(number)) return false;
  switch (number.kind) {
    case JsonNumber::Kind::kInteger:
      return reader.number_integer(number.integer);
    case JsonNumber::Kind::kUnsigned:
      return reader.number_unsigned(number.unsigned_integer);
    case JsonNumber::Kind::kReal:
      return reader.Real(number.real, number.token);
  }
  return false;
}

// Reads a chunk that is an array of arrays of scalars into `reader` with JsonScanner, giving it
// the events nlohmann's SAX parser gives. False for any other text, which is then nlohmann's to
// read.
bool ReadPlainChunk(std::string_view json_text, ChunkReader& reader) {
  constexpr auto kUnknownSize = static_cast<std::size_t>(-1);
  JsonScanner scanner(json_text);
  std::string storage;
  if (!scanner.Consume('[')) return false;
  reader.start_array(kUnknownSize);
  if (!scanner.Consume(']')) {
    do {
      if (!scanner.Consume('[')) return false;
      reader.start_array(kUnknownSize);
      if (!scanner.Consume(']')) {
        do {
          if (!ReadScalar(scanner, reader, storage)) return false;
        } while (scanner.Consume(','));
        if (!scanner.Consume(']')) return false;
      }
      reader.end_array();
    } while (scanner.Consume(','));
    if (!scanner.Consume(']')) return false;
  }
  reader.end_array();
  return scanner.AtEnd();
}

// ---------------------------------------------------------------------------------------------
// Update policies

struct KeyOf {
  const std::vector<size_t>* columns;

  size_t operator()(const std::vector<Cell>* row) const {
    size_t hash = 0x9E3779B97F4A7C15ull;
    for (size_t column : *columns) {
      hash ^= std::hash<Cell>()((*row)[column]) + 0x9E3779B97F4A7C15ull + (hash << 6) + (hash >> 2);
    }
    return hash;
  }
  bool operator()(const std::vector<Cell>* a, const std::vector<Cell>* b) const {
    for (size_t column : *columns) {
      if ((*a)[column] != (*b)[column]) return false;
    }
    return true;
  }
};

using RowIndex = std::unordered_map<const std::vector<Cell>*, size_t, KeyOf, KeyOf>;
using RowSet = std::unordered_set<const std::vector<Cell>*, KeyOf, KeyOf>;

PushedRows ReadChunk(const PushTable& table, const std::vector<std::string>& column_headers,
                     bool column_orientation, std::string_view json_text, bool keeps_cells) {
  {
    ChunkReader reader(table, column_headers, column_orientation, keeps_cells);
    try {
      if (ReadPlainChunk(json_text, reader)) return reader.TakeRows();
    } catch (const Error&) {
      // nlohmann's parse below meets the same fault, or a syntax error before it, and says so.
    }
  }
  ChunkReader reader(table, column_headers, column_orientation, keeps_cells);
  Json::sax_parse(json_text.begin(), json_text.end(), &reader);
  return reader.TakeRows();
}

}  // namespace

PushedRows ParseChunk(const PushTable& table, const std::vector<std::string>& column_headers,
                      bool column_orientation, std::string_view json_text) {
  return ReadChunk(table, column_headers, column_orientation, json_text, /*keeps_cells=*/true);
}

void CheckChunk(const PushTable& table, const std::vector<std::string>& column_headers,
                bool column_orientation, std::string_view json_text) {
  ReadChunk(table, column_headers, column_orientation, json_text, /*keeps_cells=*/false);
}

UpdatePolicy ParseUpdatePolicy(std::string_view text) {
  for (UpdatePolicy policy :
       {UpdatePolicy::kReplace, UpdatePolicy::kAdd, UpdatePolicy::kUpdate, UpdatePolicy::kUpsert}) {
    if (EqualsIgnoreCase(text, UpdatePolicyName(policy))) return policy;
  }
  throw Error(ErrorCode::kInvalidInput, "updatePolicy: '" + std::string(text) +
                                            "' is not an update policy; expected one of add, "
                                            "update, upsert, replace");
}

std::string_view UpdatePolicyName(UpdatePolicy policy) {
  switch (policy) {
    case UpdatePolicy::kReplace:
      return "replace";
    case UpdatePolicy::kAdd:
      return "add";
    case UpdatePolicy::kUpdate:
      return "update";
    case UpdatePolicy::kUpsert:
      return "upsert";
  }
  return "replace";
}

PushedRows ApplyUpdatePolicy(UpdatePolicy policy, PushedRows existing, PushedRows incoming,
                             const std::vector<size_t>& key_columns) {
  if (policy == UpdatePolicy::kReplace) return incoming;
  std::vector<size_t> whole_row;
  const std::vector<size_t>* columns = &key_columns;
  if (key_columns.empty()) {
    const size_t width = !existing.empty() ? existing.front().size()
                                           : (!incoming.empty() ? incoming.front().size() : 0);
    for (size_t i = 0; i < width; ++i) whole_row.push_back(i);
    columns = &whole_row;
  }
  for (const PushedRows* rows : {&existing, &incoming}) {
    for (const auto& row : *rows) {
      for (size_t column : *columns) {
        if (column >= row.size()) {
          throw Error(ErrorCode::kInvalidInput,
                      "a key column is beyond the row's " + std::to_string(row.size()) + " cells");
        }
      }
    }
  }
  const KeyOf key{columns};
  RowIndex first_incoming(incoming.size(), key, key);
  for (size_t i = 0; i < incoming.size(); ++i) first_incoming.emplace(&incoming[i], i);

  if (policy == UpdatePolicy::kUpdate || policy == UpdatePolicy::kUpsert) {
    for (auto& row : existing) {
      auto it = first_incoming.find(&row);
      if (it != first_incoming.end()) row = incoming[it->second];
    }
  }
  if (policy == UpdatePolicy::kAdd || policy == UpdatePolicy::kUpsert) {
    std::vector<size_t> added;
    {
      RowSet existing_keys(existing.size(), key, key);
      for (const auto& row : existing) existing_keys.insert(&row);
      for (size_t i = 0; i < incoming.size(); ++i) {
        if (first_incoming.at(&incoming[i]) == i && !existing_keys.contains(&incoming[i])) {
          added.push_back(i);
        }
      }
    }
    existing.reserve(existing.size() + added.size());
    for (size_t i : added) existing.push_back(std::move(incoming[i]));
  }
  return existing;
}

}  // namespace tessera::engine::push
