// engine/huge_pages.h
//
// The buffers of a large dataset's columns ask the kernel for transparent huge pages before they
// are first written: aggregation streams whole columns, and 2 MiB pages take most of the address
// translation out of that stream. It is a hint only. Buffers under kHugePageBufferBytes stay as
// they are, and so does every buffer where the kernel offers no huge pages (transparent huge pages
// "never", or another system); the contents are the same either way.
#pragma once

#include <cstddef>
#include <vector>

namespace tessera::engine {

constexpr size_t kHugePageBufferBytes = size_t{8} << 20;

// Advises the whole 2 MiB pages inside [data, data + bytes), which nothing may have written yet.
void AdviseHugePages(const void* data, size_t bytes);

// `count` value-initialised elements, in storage advised before it was written.
template <typename T>
std::vector<T> NewColumnBuffer(size_t count) {
  std::vector<T> buffer;
  buffer.reserve(count);
  if (count * sizeof(T) >= kHugePageBufferBytes) AdviseHugePages(buffer.data(), count * sizeof(T));
  buffer.resize(count);
  return buffer;
}

// `values` at its size: itself when small, else a copy of it in storage advised before it was
// written.
template <typename T>
std::vector<T> IntoColumnBuffer(std::vector<T> values) {
  if (values.size() * sizeof(T) < kHugePageBufferBytes) {
    values.shrink_to_fit();
    return values;
  }
  std::vector<T> buffer;
  buffer.reserve(values.size());
  AdviseHugePages(buffer.data(), values.size() * sizeof(T));
  buffer.assign(values.begin(), values.end());
  return buffer;
}

}  // namespace tessera::engine
