#include "core/version.h"

namespace tessera {

std::string_view TesseraVersion() { return TESSERA_VERSION; }

}  // namespace tessera
