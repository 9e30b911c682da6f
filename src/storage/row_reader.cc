#include "storage/row_reader.h"

namespace tessera::storage {

const SqlValue& RowReader::Next() {
  if (next_ >= row_.size()) {
    throw SqlError(SqlError::Kind::kOther, "a row of " + std::to_string(row_.size()) +
                                               " columns has no column " +
                                               std::to_string(next_ + 1));
  }
  return row_[next_++];
}

void RowReader::ReadInto(std::string& field) { field = AsText(Next()); }

void RowReader::ReadInto(int& field) { field = static_cast<int>(AsInt(Next())); }

void RowReader::ReadInto(int64_t& field) { field = AsInt(Next()); }

void RowReader::ReadInto(bool& field) { field = AsInt(Next()) != 0; }

void RowReader::ReadInto(Timestamp& field) { field = FromUnixMillis(AsInt(Next())); }

Json RowReader::JsonText(std::string_view column) { return AsJson(Next(), column); }

}  // namespace tessera::storage
