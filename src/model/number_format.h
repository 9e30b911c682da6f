// model/number_format.h
//
// A metric's number format: parsed once from the metric's format string, then used to write the
// `formatted` value of every cell and the `numberFormatting` object of result definitions.
//
// Format strings are this subset of the spreadsheet-style codes:
//   ""  or "General"      category 9: the shortest text that reads back as the same double,
//                         no grouping ("1250.4", "40", "-0.5", "10000000"); in scientific
//                         notation below 1e-6 and from 1e21 ("1e+21").
//   digit placeholders    `0` (a digit always shown) and `#` (a digit shown when significant) in
//                         an integer part and an optional fraction after `.`; a `,` anywhere in
//                         the integer part groups thousands.
//   literals              text in double quotes, a backslash-escaped character, and the
//                         characters $ € £ ¥ - + ( ) : / and space as themselves, before or after
//                         the number.
//   `%`                   multiplies the value by 100 and is shown where it stands.
//   `[...]`               colour tags such as [Red]; ignored.
//   `;`                   a second section, for negative values, written without a minus sign;
//                         without one, negatives get a leading `-` before the whole text.
// Rounding is half away from zero on the decimal value as its shortest text shows it (so 2.675
// with "0.00" is "2.68"). A value that rounds to zero loses its minus sign. Non-finite values
// format as "" (results never hold them: such metric values are null).
//
// Category of the numberFormatting object: 4 Percent when the format has `%`, 1 Currency when
// its literals hold a currency symbol, 9 General, else 0 Fixed. decimalPlaces is the number of
// fraction placeholders; negativeType 1 = leading minus, 3 = parentheses in the negative section
// (decision: the public samples only show 1).
//
// Parse() throws Error(kInvalidInput) naming the format for anything else: no digit
// placeholder, a placeholder after the number's end, an unterminated quote or tag, more than two
// sections, more than 15 fraction placeholders.
#pragma once

#include <string>
#include <string_view>

#include "core/json.h"

namespace tessera::model {

class NumberFormat {
 public:
  NumberFormat() = default;  // General
  static NumberFormat Parse(std::string_view format_string);

  std::string Format(double value) const;
  Json Describe() const;  // {category, decimalPlaces, thousandSeparator, currencySymbol, ...}
  bool is_general() const { return general_; }

  struct Section {
    std::string prefix;
    std::string suffix;
    int min_integer_digits = 0;
    int min_fraction_digits = 0;
    int max_fraction_digits = 0;
    bool grouping = false;
    bool percent = false;
  };

 private:
  std::string format_string_ = "General";
  bool general_ = true;
  Section positive_;
  Section negative_;
  bool has_negative_section_ = false;
};

}  // namespace tessera::model
