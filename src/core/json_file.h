// core/json_file.h
//
// JSON documents read from a file as it streams from disk -- request bodies the HTTP server
// spooled -- so that the text is never held whole. Results and errors are those of ParseJson and
// ParseJsonStreamingArray (core/json.h) on the file's text; a file that cannot be read is
// Error(kInternal). IsBlankFile tells a body of nothing but whitespace, which is no document.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/json.h"

namespace tessera {

bool IsBlankFile(const std::string& path);

Json ParseJsonFile(const std::string& path);

StreamedArray ParseJsonFileStreamingArray(const std::string& path,
                                          const std::vector<std::string>& array_path,
                                          const std::function<void(Json element)>& on_element);

}  // namespace tessera
