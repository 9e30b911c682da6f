#include "core/json_scanner.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace tessera {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

void AppendUtf8(std::string& out, uint32_t code_point) {
  if (code_point < 0x80) {
    out.push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

// The length of the well-formed UTF-8 sequence (RFC 3629) at the start of `text`, or 0.
size_t Utf8SequenceLength(std::string_view text) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  size_t length = 0;
  unsigned char second_low = 0x80, second_high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_low = 0xA0;
    if (lead == 0xED) second_high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_low = 0x90;
    if (lead == 0xF4) second_high = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (text.size() < length || byte(1) < second_low || byte(1) > second_high) return 0;
  for (size_t i = 2; i < length; ++i) {
    if (!IsContinuation(byte(i))) return 0;
  }
  return length;
}

// A mask whose lowest set bit lies in the first of the eight bytes of `word` (in memory order)
// that is a quote, a backslash, a control character or not ASCII: a byte a string's plain run
// stops at. Zero when there is none. Bits above the lowest may be set by borrows; the lowest is
// exact.
static_assert(std::endian::native == std::endian::little, "the first byte is the lowest");
uint64_t SpecialBytes(uint64_t word) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHighs = 0x8080808080808080ull;
  const auto has_zero = [](uint64_t v) { return (v - kOnes) & ~v & kHighs; };
  const uint64_t below_space = (word - kOnes * 0x20) & ~word & kHighs;
  return has_zero(word ^ (kOnes * '"')) | has_zero(word ^ (kOnes * '\\')) | below_space |
         (word & kHighs);
}

// Every integer up to this one is exactly a double.
constexpr uint64_t kExactSignificandLimit = uint64_t{1} << 53;

// The number whose decimal digits, without a point, are `significand` (up to 2^53), times ten to
// `exponent` (within +-22), or nullopt outside those bounds. Both factors are exact doubles, so
// the one multiplication or division rounds correctly, to the double from_chars reads.
std::optional<double> ExactlyRounded(uint64_t significand, int exponent) {
  static constexpr double kPowersOfTen[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                            1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                            1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  constexpr int kLargestPower = 22;
  if (significand > kExactSignificandLimit || exponent < -kLargestPower ||
      exponent > kLargestPower) {
    return std::nullopt;
  }
  const auto value = static_cast<double>(significand);
  return exponent < 0 ? value / kPowersOfTen[-exponent] : value * kPowersOfTen[exponent];
}

}  // namespace

void JsonScanner::SkipSpace() {
  while (at_ < text_.size()) {
    const char c = text_[at_];
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
    ++at_;
  }
}

bool JsonScanner::Consume(char c) {
  SkipSpace();
  if (at_ >= text_.size() || text_[at_] != c) return false;
  ++at_;
  return true;
}

char JsonScanner::PeekAfterSpace() {
  SkipSpace();
  return at_ < text_.size() ? text_[at_] : '\0';
}

bool JsonScanner::AtEnd() {
  SkipSpace();
  return at_ == text_.size();
}

bool JsonScanner::ReadString(std::string_view& value, std::string& storage) {
  if (!Consume('"')) return false;
  const size_t begin = at_;
  bool escaped = false;
  size_t run = begin;  // escaped: where the text not yet copied to `storage` begins
  while (at_ < text_.size()) {
    while (text_.size() - at_ >= sizeof(uint64_t)) {
      uint64_t word = 0;
      std::memcpy(&word, text_.data() + at_, sizeof word);
      if (const uint64_t special = SpecialBytes(word); special != 0) {
        at_ += static_cast<size_t>(std::countr_zero(special)) / 8;
        break;
      }
      at_ += sizeof word;
    }
    if (at_ >= text_.size()) break;
    const auto c = static_cast<unsigned char>(text_[at_]);
    if (c == '"') {
      if (escaped) {
        storage.append(text_.data() + run, at_ - run);
        value = storage;
      } else {
        value = text_.substr(begin, at_ - begin);
      }
      ++at_;
      return true;
    }
    if (c == '\\') {
      if (!escaped) storage.clear();
      escaped = true;
      storage.append(text_.data() + run, at_ - run);
      ++at_;
      if (!ReadEscape(storage)) return false;
      run = at_;
    } else if (c < 0x20) {
      return false;
    } else if (c < 0x80) {
      ++at_;
    } else {
      const size_t length = Utf8SequenceLength(text_.substr(at_));
      if (length == 0) return false;
      at_ += length;
    }
  }
  return false;
}

bool JsonScanner::ReadHex4(uint32_t& value) {
  if (text_.size() - at_ < 4) return false;
  value = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = text_[at_++];
    uint32_t digit = 0;
    if (IsDigit(c)) {
      digit = static_cast<uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      digit = static_cast<uint32_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      digit = static_cast<uint32_t>(c - 'A' + 10);
    } else {
      return false;
    }
    value = (value << 4) | digit;
  }
  return true;
}

// After the backslash.
bool JsonScanner::ReadEscape(std::string& out) {
  if (at_ >= text_.size()) return false;
  const char c = text_[at_++];
  switch (c) {
    case '"':
    case '\\':
    case '/':
      out.push_back(c);
      return true;
    case 'b':
      out.push_back('\b');
      return true;
    case 'f':
      out.push_back('\f');
      return true;
    case 'n':
      out.push_back('\n');
      return true;
    case 'r':
      out.push_back('\r');
      return true;
    case 't':
      out.push_back('\t');
      return true;
    case 'u':
      break;
    default:
      return false;
  }
  uint32_t code_point = 0;
  if (!ReadHex4(code_point)) return false;
  if (code_point >= 0xDC00 && code_point <= 0xDFFF) return false;  // a lone low surrogate
  if (code_point >= 0xD800 && code_point <= 0xDBFF) {
    uint32_t low = 0;
    if (text_.substr(at_, 2) != "\\u") return false;
    at_ += 2;
    if (!ReadHex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
    code_point = 0x10000 + ((code_point - 0xD800) << 10) + (low - 0xDC00);
  }
  AppendUtf8(out, code_point);
  return true;
}

bool JsonScanner::ReadNumber(JsonNumber& number) {
  SkipSpace();
  const size_t begin = at_;
  const bool negative = at_ < text_.size() && text_[at_] == '-';
  if (negative) ++at_;
  if (at_ >= text_.size() || !IsDigit(text_[at_])) return false;
  uint64_t magnitude = 0;
  bool overflows = false;
  if (text_[at_] == '0') {
    ++at_;
  } else {
    while (at_ < text_.size() && IsDigit(text_[at_])) {
      const auto digit = static_cast<uint64_t>(text_[at_++] - '0');
      if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 10) overflows = true;
      magnitude = magnitude * 10 + digit;
    }
  }
  bool is_integral = true;
  // For ExactlyRounded: the digits read so far while they fit, and the power of ten they take.
  uint64_t significand = magnitude;
  bool significand_fits = !overflows && magnitude <= kExactSignificandLimit;
  int decimal_exponent = 0;
  if (at_ < text_.size() && text_[at_] == '.') {
    is_integral = false;
    ++at_;
    if (at_ >= text_.size() || !IsDigit(text_[at_])) return false;
    while (at_ < text_.size() && IsDigit(text_[at_])) {
      const auto digit = static_cast<uint64_t>(text_[at_++] - '0');
      significand = significand * 10 + digit;
      significand_fits = significand_fits && significand <= kExactSignificandLimit;
      if (!significand_fits) break;
      --decimal_exponent;
    }
    while (at_ < text_.size() && IsDigit(text_[at_])) ++at_;
  }
  if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
    is_integral = false;
    ++at_;
    const bool negative_exponent = at_ < text_.size() && text_[at_] == '-';
    if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
    if (at_ >= text_.size() || !IsDigit(text_[at_])) return false;
    int written_exponent = 0;
    while (at_ < text_.size() && IsDigit(text_[at_])) {
      written_exponent = std::min(written_exponent * 10 + (text_[at_++] - '0'), 100000);
    }
    decimal_exponent += negative_exponent ? -written_exponent : written_exponent;
  }
  number.token = text_.substr(begin, at_ - begin);
  constexpr uint64_t kMinInt64Magnitude = uint64_t{1} << 63;
  if (is_integral && !overflows) {
    if (!negative) {
      number.kind = JsonNumber::Kind::kUnsigned;
      number.unsigned_integer = magnitude;
      return true;
    }
    if (magnitude <= kMinInt64Magnitude) {
      number.kind = JsonNumber::Kind::kInteger;
      number.integer = magnitude == kMinInt64Magnitude ? std::numeric_limits<int64_t>::min()
                                                       : -static_cast<int64_t>(magnitude);
      return true;
    }
  }
  number.kind = JsonNumber::Kind::kReal;
  if (significand_fits) {
    if (const std::optional<double> exact = ExactlyRounded(significand, decimal_exponent)) {
      number.real = negative ? -*exact : *exact;
      return true;
    }
  }
  const char* end = number.token.data() + number.token.size();
  auto [stop, error] = std::from_chars(number.token.data(), end, number.real);
  return error == std::errc() && stop == end && std::isfinite(number.real);
}

bool JsonScanner::ReadLiteral(std::string_view word) {
  SkipSpace();
  if (text_.substr(at_, word.size()) != word) return false;
  at_ += word.size();
  return true;
}

}  // namespace tessera
