// tests/fuzz/driver.cc
//
// The main() of a fuzz harness in the normal GCC build, where libFuzzer is not available (`make
// test` runs each harness this way; `make fuzz` links the same harnesses with libFuzzer instead).
//
//   fuzz_<name> [-runs=N] [-seed=S] [-max_len=L] [-dict=FILE] [-artifact_prefix=P] CORPUS...
//
// It calls LLVMFuzzerInitialize() when the harness defines it, replays every file of the corpus
// directories (or files) given, in name order, and then runs N (default 2000) pseudo-random
// mutations of them: bit flips, byte changes, insertions and deletions, copies of a range,
// dictionary tokens, interesting numbers, and splices of two corpus inputs. The mutations depend
// only on the seed and the corpus, so a run is repeatable. Flags it does not know (libFuzzer's)
// are ignored, so one command line serves both builds.
//
// A crash is the sanitizer's or the harness's abort: before the process dies, the input being
// run is written to <artifact_prefix>crash-<hash> (default: the current directory) and its name
// printed, so `fuzz_<name> that-file` replays it. Exit status 0 means every input returned.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

namespace fs = std::filesystem;
using Bytes = std::string;

struct Options {
  uint64_t runs = 2000;
  uint64_t seed = 1;
  size_t max_len = 4096;
  std::string dictionary;
  std::string artifact_prefix = "./";
  std::vector<std::string> inputs;
};

// --- The input being run, written out if the process dies --------------------------------------

const Bytes* current_input = nullptr;
char crash_path[4096];

uint64_t Fnv1a(std::string_view bytes) {
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : bytes) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

// Async-signal-safe: open, write and close only.
void WriteCurrentInput() {
  const Bytes* input = current_input;
  if (input == nullptr) return;
  current_input = nullptr;
  int fd = ::open(crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  size_t done = 0;
  while (done < input->size()) {
    ssize_t wrote = ::write(fd, input->data() + done, input->size() - done);
    if (wrote <= 0) break;
    done += static_cast<size_t>(wrote);
  }
  ::close(fd);
  const char note[] = "\nfuzz driver: the input that crashed was written to ";
  (void)!::write(STDERR_FILENO, note, sizeof note - 1);
  (void)!::write(STDERR_FILENO, crash_path, std::strlen(crash_path));
  (void)!::write(STDERR_FILENO, "\n", 1);
}

void OnFatalSignal(int signal_number) {
  WriteCurrentInput();
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

void InstallCrashHandlers() {
  for (int signal_number : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) {
    ::signal(signal_number, OnFatalSignal);
  }
#if defined(__SANITIZE_ADDRESS__)
  // The sanitizers report and exit without a signal; they call this first.
  __sanitizer_set_death_callback(WriteCurrentInput);
#endif
}

void Run(const Bytes& input, const Options& options) {
  std::snprintf(crash_path, sizeof crash_path, "%scrash-%016llx", options.artifact_prefix.c_str(),
                static_cast<unsigned long long>(Fnv1a(input)));
  current_input = &input;
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  current_input = nullptr;
}

// --- Command line and corpus -----------------------------------------------------------------

bool TakeFlag(std::string_view arg, std::string_view name, std::string& value) {
  std::string prefix = "-" + std::string(name) + "=";
  if (!arg.starts_with(prefix)) return false;
  value = std::string(arg.substr(prefix.size()));
  return true;
}

Options ParseOptions(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string value;
    if (TakeFlag(arg, "runs", value)) {
      options.runs = std::strtoull(value.c_str(), nullptr, 10);
    } else if (TakeFlag(arg, "seed", value)) {
      options.seed = std::strtoull(value.c_str(), nullptr, 10);
    } else if (TakeFlag(arg, "max_len", value)) {
      options.max_len = std::max<size_t>(1, std::strtoull(value.c_str(), nullptr, 10));
    } else if (TakeFlag(arg, "dict", value)) {
      options.dictionary = value;
    } else if (TakeFlag(arg, "artifact_prefix", value)) {
      options.artifact_prefix = value;
    } else if (!arg.starts_with("-")) {
      options.inputs.emplace_back(arg);
    }  // other flags are libFuzzer's
  }
  return options;
}

Bytes ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<Bytes> ReadCorpus(const std::vector<std::string>& inputs) {
  std::vector<fs::path> files;
  for (const std::string& input : inputs) {
    if (fs::is_directory(input)) {
      for (const auto& entry : fs::recursive_directory_iterator(input)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
    } else if (fs::is_regular_file(input)) {
      files.emplace_back(input);
    } else {
      std::fprintf(stderr, "fuzz driver: %s is neither a file nor a directory\n", input.c_str());
      std::exit(2);
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<Bytes> corpus;
  for (const fs::path& file : files) corpus.push_back(ReadFile(file));
  return corpus;
}

// libFuzzer's dictionary format: one token per line, `name="value"` or `"value"`, with \\, \" and
// \xAB escapes; lines starting with '#' are comments.
std::vector<Bytes> ReadDictionary(const std::string& path) {
  std::vector<Bytes> tokens;
  if (path.empty()) return tokens;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    size_t open = line.find('"');
    size_t close = line.rfind('"');
    if (line.starts_with("#") || open == std::string::npos || close <= open) continue;
    Bytes token;
    for (size_t i = open + 1; i < close; ++i) {
      if (line[i] != '\\' || i + 1 >= close) {
        token.push_back(line[i]);
      } else if (line[i + 1] == 'x' && i + 3 < close) {
        token.push_back(static_cast<char>(std::stoi(line.substr(i + 2, 2), nullptr, 16)));
        i += 3;
      } else {
        token.push_back(line[++i]);
      }
    }
    tokens.push_back(token);
  }
  return tokens;
}

// --- Mutations -------------------------------------------------------------------------------

class Mutator {
 public:
  Mutator(uint64_t seed, std::vector<Bytes> corpus, std::vector<Bytes> dictionary, size_t max_len)
      : random_(seed),
        corpus_(std::move(corpus)),
        dictionary_(std::move(dictionary)),
        max_len_(max_len) {
    if (corpus_.empty()) corpus_.emplace_back();
  }

  Bytes Next() {
    Bytes input = corpus_[Below(corpus_.size())];
    const uint64_t steps = 1 + Below(4);
    for (uint64_t i = 0; i < steps; ++i) MutateOnce(input);
    if (input.size() > max_len_) input.resize(max_len_);
    return input;
  }

 private:
  uint64_t Below(uint64_t bound) { return bound == 0 ? 0 : random_() % bound; }

  char RandomByte() {
    static constexpr std::string_view kInteresting("\0\x01\x7f\x80\xff{}[]\":,'\\%&=;/\r\n ", 20);
    return Below(2) ? static_cast<char>(Below(256)) : kInteresting[Below(kInteresting.size())];
  }

  void MutateOnce(Bytes& input) {
    switch (Below(9)) {
      case 0:  // flip one bit
        if (!input.empty()) input[Below(input.size())] ^= static_cast<char>(1u << Below(8));
        break;
      case 1:  // change one byte
        if (!input.empty()) input[Below(input.size())] = RandomByte();
        break;
      case 2:  // insert a few bytes
        for (uint64_t n = 1 + Below(4); n > 0; --n) {
          input.insert(input.begin() + static_cast<std::ptrdiff_t>(Below(input.size() + 1)),
                       RandomByte());
        }
        break;
      case 3:  // delete a range
        if (!input.empty()) {
          size_t at = Below(input.size());
          input.erase(at, 1 + Below(std::min<size_t>(16, input.size() - at)));
        }
        break;
      case 4:  // copy a range elsewhere (repeats structure: nesting, lists)
        if (!input.empty()) {
          size_t at = Below(input.size());
          Bytes piece = input.substr(at, 1 + Below(std::min<size_t>(64, input.size() - at)));
          input.insert(Below(input.size() + 1), piece);
        }
        break;
      case 5:  // insert or overwrite with a dictionary token
        if (!dictionary_.empty()) {
          const Bytes& token = dictionary_[Below(dictionary_.size())];
          size_t at = Below(input.size() + 1);
          if (Below(2) && at + token.size() <= input.size()) {
            input.replace(at, token.size(), token);
          } else {
            input.insert(at, token);
          }
        }
        break;
      case 6:  // replace a run of digits with an interesting number
        ReplaceNumber(input);
        break;
      case 7:  // splice: this input's head with another's tail
        if (corpus_.size() > 1) {
          const Bytes& other = corpus_[Below(corpus_.size())];
          input = input.substr(0, Below(input.size() + 1)) + other.substr(Below(other.size() + 1));
        }
        break;
      default:  // truncate
        if (!input.empty()) input.resize(Below(input.size()));
        break;
    }
  }

  void ReplaceNumber(Bytes& input) {
    static const char* const kNumbers[] = {"0",
                                           "-1",
                                           "1",
                                           "255",
                                           "65536",
                                           "2147483648",
                                           "4294967296",
                                           "9223372036854775807",
                                           "-9223372036854775808",
                                           "18446744073709551616",
                                           "1e999",
                                           "-1e999",
                                           "0.5",
                                           "1e-400",
                                           "NaN"};
    std::vector<size_t> starts;
    for (size_t i = 0; i < input.size(); ++i) {
      bool digit = input[i] >= '0' && input[i] <= '9';
      if (digit && (i == 0 || input[i - 1] < '0' || input[i - 1] > '9')) starts.push_back(i);
    }
    if (starts.empty()) return;
    size_t at = starts[Below(starts.size())];
    size_t end = at;
    while (end < input.size() && input[end] >= '0' && input[end] <= '9') ++end;
    input.replace(at, end - at, kNumbers[Below(std::size(kNumbers))]);
  }

  std::mt19937_64 random_;
  std::vector<Bytes> corpus_;
  std::vector<Bytes> dictionary_;
  size_t max_len_;
};

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  const Options options = ParseOptions(argc, argv);
  InstallCrashHandlers();
  const auto start = std::chrono::steady_clock::now();

  std::vector<Bytes> corpus = ReadCorpus(options.inputs);
  for (const Bytes& input : corpus) Run(input, options);
  Mutator mutator(options.seed, corpus, ReadDictionary(options.dictionary), options.max_len);
  for (uint64_t i = 0; i < options.runs; ++i) Run(mutator.Next(), options);

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("fuzz driver: %zu corpus inputs and %llu mutations ran in %.1f s, no crash\n",
              corpus.size(), static_cast<unsigned long long>(options.runs), seconds);
  return 0;
}
