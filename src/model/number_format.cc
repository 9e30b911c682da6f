#include "model/number_format.h"

#include <array>
#include <charconv>
#include <cmath>
#include <string>

#include "core/error.h"

namespace tessera::model {
namespace {

using Section = NumberFormat::Section;

constexpr int kMaxFractionDigits = 15;
constexpr std::array<std::string_view, 4> kCurrencySymbols = {"$", "€", "£", "¥"};

[[noreturn]] void Refuse(std::string_view format_string, const std::string& why) {
  throw Error(ErrorCode::kInvalidInput,
              "number format '" + std::string(format_string) + "': " + why);
}

bool IsPlaceholder(char c) { return c == '0' || c == '#' || c == ',' || c == '.'; }

bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Reads one `;`-free section of `whole`.
class SectionParser {
 public:
  SectionParser(std::string_view text, std::string_view whole) : text_(text), whole_(whole) {}

  Section Parse() {
    for (size_t i = 0; i < text_.size();) i = Step(i);
    if (phase_ == Phase::kPrefix) Refuse(whole_, "no digit placeholder (0 or #)");
    return section_;
  }

 private:
  enum class Phase { kPrefix, kNumber, kSuffix };

  size_t Step(size_t i) {
    const char c = text_[i];
    if (c == '"') {
      const size_t close = text_.find('"', i + 1);
      if (close == std::string_view::npos) Refuse(whole_, "a quoted literal is not closed");
      Literal(text_.substr(i + 1, close - i - 1));
      return close + 1;
    }
    if (c == '\\') {
      if (i + 1 >= text_.size()) Refuse(whole_, "a backslash ends the format");
      Literal(text_.substr(i + 1, 1));
      return i + 2;
    }
    if (c == '[') {
      const size_t close = text_.find(']', i + 1);
      if (close == std::string_view::npos) Refuse(whole_, "a [tag] is not closed");
      return close + 1;
    }
    if (IsPlaceholder(c)) {
      Placeholder(c);
      return i + 1;
    }
    if (c == '%') section_.percent = true;
    if (IsLetter(c)) Refuse(whole_, std::string("unsupported character '") + c + "'");
    Literal(text_.substr(i, 1));
    return i + 1;
  }

  void Literal(std::string_view literal) {
    if (phase_ == Phase::kNumber) phase_ = Phase::kSuffix;
    (phase_ == Phase::kPrefix ? section_.prefix : section_.suffix).append(literal);
  }

  void Placeholder(char c) {
    if (phase_ == Phase::kSuffix) Refuse(whole_, "a digit placeholder after the number's end");
    phase_ = Phase::kNumber;
    if (c == '.') {
      if (in_fraction_) Refuse(whole_, "two decimal points");
      in_fraction_ = true;
    } else if (c == ',') {
      section_.grouping = section_.grouping || !in_fraction_;
    } else if (in_fraction_) {
      if (++section_.max_fraction_digits > kMaxFractionDigits) {
        Refuse(whole_, "more than 15 decimal places");
      }
      if (c == '0') ++section_.min_fraction_digits;
    } else if (c == '0') {
      ++section_.min_integer_digits;
    }
  }

  std::string_view text_;
  std::string_view whole_;
  Section section_;
  Phase phase_ = Phase::kPrefix;
  bool in_fraction_ = false;
};

// Splits on `;` outside quotes, escapes and tags.
std::vector<std::string_view> Sections(std::string_view format_string) {
  std::vector<std::string_view> sections;
  size_t start = 0;
  bool quoted = false;
  bool tagged = false;
  for (size_t i = 0; i < format_string.size(); ++i) {
    const char c = format_string[i];
    if (c == '\\' && !quoted) {
      ++i;
    } else if (c == '"' && !tagged) {
      quoted = !quoted;
    } else if (!quoted && (c == '[' || c == ']')) {
      tagged = c == '[';
    } else if (c == ';' && !quoted && !tagged) {
      sections.push_back(format_string.substr(start, i - start));
      start = i + 1;
    }
  }
  sections.push_back(format_string.substr(start));
  return sections;
}

std::string ShortestText(double value, std::chars_format format) {
  std::array<char, 400> buffer;
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, format);
  return std::string(buffer.data(), result.ptr);
}

std::string GeneralText(double value) {
  if (value == 0) return "0";
  const double magnitude = std::fabs(value);
  const bool plain = magnitude >= 1e-6 && magnitude < 1e21;
  return ShortestText(value, plain ? std::chars_format::fixed : std::chars_format::scientific);
}

// Adds one unit in the last place of a string of decimal digits; returns the carry.
bool Increment(std::string& digits) {
  for (size_t i = digits.size(); i-- > 0;) {
    if (digits[i] != '9') {
      ++digits[i];
      return false;
    }
    digits[i] = '0';
  }
  return true;
}

struct Digits {
  std::string integer;  // no leading zeros; "" for zero
  std::string fraction;
};

// `magnitude` (>= 0) rounded half away from zero to `places` fraction digits, on the decimal
// value its shortest text shows.
Digits Round(double magnitude, int places) {
  const std::string text = ShortestText(magnitude, std::chars_format::fixed);
  const size_t point = text.find('.');
  Digits digits{text.substr(0, point), point == std::string::npos ? "" : text.substr(point + 1)};
  const bool round_up = digits.fraction.size() > static_cast<size_t>(places) &&
                        digits.fraction[static_cast<size_t>(places)] >= '5';
  if (digits.fraction.size() > static_cast<size_t>(places)) digits.fraction.resize(places);
  if (round_up) {
    std::string all = digits.integer + digits.fraction;
    if (Increment(all)) all.insert(all.begin(), '1');
    digits.integer = all.substr(0, all.size() - digits.fraction.size());
    digits.fraction = all.substr(digits.integer.size());
  }
  const size_t first = digits.integer.find_first_not_of('0');
  digits.integer = first == std::string::npos ? "" : digits.integer.substr(first);
  return digits;
}

bool IsZero(const Digits& digits) {
  return digits.integer.empty() && digits.fraction.find_first_not_of('0') == std::string::npos;
}

std::string Grouped(const std::string& integer) {
  std::string grouped;
  for (size_t i = 0; i < integer.size(); ++i) {
    if (i > 0 && (integer.size() - i) % 3 == 0) grouped.push_back(',');
    grouped.push_back(integer[i]);
  }
  return grouped;
}

std::string Render(const Section& section, Digits digits) {
  while (digits.fraction.size() > static_cast<size_t>(section.min_fraction_digits) &&
         digits.fraction.back() == '0') {
    digits.fraction.pop_back();
  }
  if (digits.fraction.size() < static_cast<size_t>(section.min_fraction_digits)) {
    digits.fraction.append(section.min_fraction_digits - digits.fraction.size(), '0');
  }
  if (digits.integer.size() < static_cast<size_t>(section.min_integer_digits)) {
    digits.integer.insert(0, section.min_integer_digits - digits.integer.size(), '0');
  }
  std::string text = section.prefix;
  text += section.grouping ? Grouped(digits.integer) : digits.integer;
  if (!digits.fraction.empty()) text += "." + digits.fraction;
  return text + section.suffix;
}

std::string_view CurrencyOf(const Section& section) {
  for (std::string_view symbol : kCurrencySymbols) {
    if (section.prefix.find(symbol) != std::string::npos ||
        section.suffix.find(symbol) != std::string::npos) {
      return symbol;
    }
  }
  return {};
}

}  // namespace

NumberFormat NumberFormat::Parse(std::string_view format_string) {
  NumberFormat format;
  if (format_string.empty() || format_string == "General") return format;
  const std::vector<std::string_view> sections = Sections(format_string);
  if (sections.size() > 2) Refuse(format_string, "more than two sections");
  format.format_string_ = std::string(format_string);
  format.general_ = false;
  format.positive_ = SectionParser(sections[0], format_string).Parse();
  format.has_negative_section_ = sections.size() == 2;
  if (format.has_negative_section_) {
    format.negative_ = SectionParser(sections[1], format_string).Parse();
  }
  return format;
}

std::string NumberFormat::Format(double value) const {
  if (!std::isfinite(value)) return "";
  if (general_) return GeneralText(value);
  const bool negative = value < 0;
  const Section& section = negative && has_negative_section_ ? negative_ : positive_;
  const double magnitude = std::fabs(value) * (section.percent ? 100 : 1);
  const Digits digits = Round(magnitude, section.max_fraction_digits);
  if (negative && IsZero(digits)) return Format(0.0);
  const std::string text = Render(section, digits);
  return negative && !has_negative_section_ ? "-" + text : text;
}

Json NumberFormat::Describe() const {
  if (general_) return {{"category", 9}, {"formatString", format_string_}};
  const std::string_view currency = CurrencyOf(positive_);
  const int category = positive_.percent ? 4 : !currency.empty() ? 1 : 0;
  Json described = {{"category", category}, {"decimalPlaces", positive_.max_fraction_digits}};
  if (category == 1) {
    described["thousandSeparator"] = positive_.grouping;
    described["currencySymbol"] = std::string(currency);
    described["currencyPosition"] = positive_.prefix.find(currency) != std::string::npos ? 0 : 1;
  }
  described["formatString"] = format_string_;
  const bool parentheses = has_negative_section_ && negative_.prefix.find('(') != std::string::npos;
  described["negativeType"] = parentheses ? 3 : 1;
  return described;
}

}  // namespace tessera::model
