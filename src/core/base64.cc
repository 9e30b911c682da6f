#include "core/base64.h"

#include <array>
#include <cstdint>

namespace tessera {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr int8_t kInvalid = -1;
constexpr int8_t kSpace = -2;
constexpr int8_t kPad = -3;

constexpr std::array<int8_t, 256> DecodeTable() {
  std::array<int8_t, 256> table{};
  for (auto& entry : table) entry = kInvalid;
  for (size_t i = 0; i < kAlphabet.size(); ++i) {
    table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
  }
  for (char c : {' ', '\t', '\r', '\n', '\f', '\v'}) table[static_cast<unsigned char>(c)] = kSpace;
  table[static_cast<unsigned char>('=')] = kPad;
  return table;
}

constexpr std::array<int8_t, 256> kDecode = DecodeTable();

// The fast path's tables, one per position in a group of four: the symbol's six bits already
// shifted into their place in the group's 24 bits, or kNotASymbol (outside those bits) for any
// byte that is not an alphabet character.
constexpr uint32_t kNotASymbol = 1u << 24;

constexpr std::array<uint32_t, 256> ShiftedTable(int shift) {
  std::array<uint32_t, 256> table{};
  for (size_t byte = 0; byte < table.size(); ++byte) {
    const int8_t value = kDecode[byte];
    table[byte] = value < 0 ? kNotASymbol : static_cast<uint32_t>(value) << shift;
  }
  return table;
}

constexpr std::array<uint32_t, 256> kFirst = ShiftedTable(18);
constexpr std::array<uint32_t, 256> kSecond = ShiftedTable(12);
constexpr std::array<uint32_t, 256> kThird = ShiftedTable(6);
constexpr std::array<uint32_t, 256> kFourth = ShiftedTable(0);

}  // namespace

std::optional<std::string> DecodeBase64(std::string_view text) {
  std::string bytes;
  bytes.resize(text.size() / 4 * 3 + 3);
  char* out = bytes.data();
  uint32_t group = 0;  // up to four 6-bit values
  int group_size = 0;
  size_t symbols = 0;  // alphabet characters seen
  size_t padding = 0;
  size_t at = 0;
  // Fast path: whole groups of four alphabet characters, as long as there are any.
  const auto* in = reinterpret_cast<const unsigned char*>(text.data());
  for (; at + 4 <= text.size(); at += 4) {
    const uint32_t whole =
        kFirst[in[at]] | kSecond[in[at + 1]] | kThird[in[at + 2]] | kFourth[in[at + 3]];
    if (whole & kNotASymbol) break;
    out[0] = static_cast<char>(whole >> 16);
    out[1] = static_cast<char>((whole >> 8) & 0xFF);
    out[2] = static_cast<char>(whole & 0xFF);
    out += 3;
    symbols += 4;
  }
  bytes.resize(static_cast<size_t>(out - bytes.data()));
  for (char c : text.substr(at)) {
    const int8_t value = kDecode[static_cast<unsigned char>(c)];
    if (value == kSpace) continue;
    if (value == kInvalid) return std::nullopt;
    if (value == kPad) {
      ++padding;
      continue;
    }
    if (padding > 0) return std::nullopt;  // data after padding
    ++symbols;
    group = (group << 6) | static_cast<uint32_t>(value);
    if (++group_size == 4) {
      bytes.push_back(static_cast<char>((group >> 16) & 0xFF));
      bytes.push_back(static_cast<char>((group >> 8) & 0xFF));
      bytes.push_back(static_cast<char>(group & 0xFF));
      group = 0;
      group_size = 0;
    }
  }
  if (group_size == 1) return std::nullopt;  // 6 bits cannot make a byte
  if (padding > 2) return std::nullopt;
  if (padding > 0 && (symbols + padding) % 4 != 0) return std::nullopt;
  if (group_size == 2) {
    bytes.push_back(static_cast<char>((group >> 4) & 0xFF));
  } else if (group_size == 3) {
    bytes.push_back(static_cast<char>((group >> 10) & 0xFF));
    bytes.push_back(static_cast<char>((group >> 2) & 0xFF));
  }
  return bytes;
}

std::string EncodeBase64(std::string_view bytes) {
  std::string text;
  text.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  auto byte = [&](size_t at) {
    return static_cast<uint32_t>(static_cast<unsigned char>(bytes[at]));
  };
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t group = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
    text.push_back(kAlphabet[(group >> 18) & 63]);
    text.push_back(kAlphabet[(group >> 12) & 63]);
    text.push_back(kAlphabet[(group >> 6) & 63]);
    text.push_back(kAlphabet[group & 63]);
  }
  const size_t left = bytes.size() - i;
  if (left == 1) {
    const uint32_t group = byte(i) << 16;
    text.push_back(kAlphabet[(group >> 18) & 63]);
    text.push_back(kAlphabet[(group >> 12) & 63]);
    text += "==";
  } else if (left == 2) {
    const uint32_t group = (byte(i) << 16) | (byte(i + 1) << 8);
    text.push_back(kAlphabet[(group >> 18) & 63]);
    text.push_back(kAlphabet[(group >> 12) & 63]);
    text.push_back(kAlphabet[(group >> 6) & 63]);
    text.push_back('=');
  }
  return text;
}

}  // namespace tessera
