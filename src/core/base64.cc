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
  for (; at + 4 <= text.size(); at += 4) {
    const int8_t a = kDecode[static_cast<unsigned char>(text[at])];
    const int8_t b = kDecode[static_cast<unsigned char>(text[at + 1])];
    const int8_t c = kDecode[static_cast<unsigned char>(text[at + 2])];
    const int8_t d = kDecode[static_cast<unsigned char>(text[at + 3])];
    if ((a | b | c | d) < 0) break;
    const uint32_t whole = (static_cast<uint32_t>(a) << 18) | (static_cast<uint32_t>(b) << 12) |
                           (static_cast<uint32_t>(c) << 6) | static_cast<uint32_t>(d);
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
