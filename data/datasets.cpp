#include "harmonic/data/datasets.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "harmonic/core/atomic_file.h"
#include "harmonic/data/idx.h"
#include "harmonic/data/text.h"
#include "harmonic/ops/shape_ops.h"

namespace hm::data {
namespace fs = std::filesystem;
namespace {

std::string install_hint(std::string_view package) {
  return fmt::format("install it with `bash .ci/install-data` (or `apt-get install {}`)", package);
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

bool exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

// The file `stem` or `stem.gz` in dir, or "" when neither exists.
std::string find_idx(const std::string& dir, const std::string& stem) {
  for (const std::string& p : {dir + "/" + stem + ".gz", dir + "/" + stem})
    if (exists(p)) return p;
  return "";
}

// The `bible` executable on PATH, or "".
std::string find_bible_command() {
  std::string path = env_or("PATH", "/usr/bin:/bin");
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t end = path.find(':', pos);
    if (end == std::string::npos) end = path.size();
    std::string candidate = path.substr(pos, end - pos) + "/bible";
    if (end > pos && exists(candidate)) return candidate;
    pos = end + 1;
  }
  return "";
}

// Runs the command and returns its standard output; throws when it fails.
std::string run_command(const std::string& command, std::string_view fn) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  check(pipe != nullptr, fn, "cannot run `{}`", command);
  std::string out;
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe.get())) > 0) out.append(buffer, n);
  int status = pclose(pipe.release());
  check(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0, fn, "`{}` failed (exit status {})", command,
        status == -1 || !WIFEXITED(status) ? -1 : WEXITSTATUS(status));
  return out;
}

// "Ge1:1 In the beginning ..." lines -> "In the beginning ..." lines.
std::string strip_references(const std::string& dump, std::string_view fn) {
  std::string text;
  text.reserve(dump.size());
  for_each_kjv_line(dump, fn, [&](size_t, std::string_view, std::string_view verse) {
    text.append(verse);
    text += '\n';
  });
  return text;
}

}  // namespace

void for_each_kjv_line(
    std::string_view dump, std::string_view fn,
    const std::function<void(size_t line_no, std::string_view reference, std::string_view text)>& f) {
  size_t pos = 0, line_no = 0;
  while (pos < dump.size()) {
    size_t end = dump.find('\n', pos);
    if (end == std::string_view::npos) end = dump.size();
    ++line_no;
    std::string_view line = dump.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty()) continue;
    const size_t space = line.find(' ');
    HM_CHECK(space != std::string_view::npos && line.substr(0, space).find(':') != std::string_view::npos, fn,
             "unexpected `bible` output at line {}: '{}' (expected '<Book><chapter>:<verse> <text>')", line_no,
             line.substr(0, 60));
    f(line_no, line.substr(0, space), line.substr(space + 1));
  }
}

std::string fashion_mnist_dir() { return env_or("HARMONIC_FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist"); }

bool fashion_mnist_available() {
  const std::string dir = fashion_mnist_dir();
  for (const char* stem :
       {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"})
    if (find_idx(dir, stem).empty()) return false;
  return true;
}

LabeledImages load_fashion_mnist(const std::string& split, int64_t limit) {
  constexpr std::string_view fn = "load_fashion_mnist";
  check(split == "train" || split == "test", fn, "split must be \"train\" or \"test\", got \"{}\"", split);
  check(limit >= 0, fn, "limit must be >= 0 (0: all), got {}", limit);
  const std::string dir = fashion_mnist_dir(), prefix = split == "train" ? "train" : "t10k";
  std::string images = find_idx(dir, prefix + "-images-idx3-ubyte");
  std::string labels = find_idx(dir, prefix + "-labels-idx1-ubyte");
  check(!images.empty() && !labels.empty(), fn,
        "{}/{}-{}-idx?-ubyte.gz not found: Fashion-MNIST comes from the Debian package dataset-fashion-mnist; {}", dir,
        prefix, images.empty() ? "images" : "labels", install_hint("dataset-fashion-mnist"));
  LabeledImages out;
  out.images = read_idx_images(images);  // (N, 28, 28)
  out.labels = read_idx_labels(labels);  // (N,)
  check(out.images.size(0) == out.labels.size(0), fn, "'{}' holds {} images but '{}' {} labels", images,
        out.images.size(0), labels, out.labels.size(0));
  out.classes = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                 "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
  if (limit > 0 && limit < out.images.size(0)) {
    out.images = slice(out.images, 0, 0, limit).contiguous();
    out.labels = slice(out.labels, 0, 0, limit).contiguous();
  }
  return out;
}

std::string data_cache_dir() {
  if (const char* dir = std::getenv("HARMONIC_DATA_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/harmonic";
  return env_or("HOME", "/tmp") + "/.cache/harmonic";
}

// The package, or the verses already exported into the cache (a machine without the package
// can be handed the cache: HARMONIC_DATA_DIR); kjv.txt is made from them.
bool kjv_available() {
  return (!find_bible_command().empty() && exists("/usr/lib/bible.data")) || exists(data_cache_dir() + "/kjv_verses.txt");
}

namespace {

// The whole Bible as `bible -f` prints it: one "Ge1:1 text" line per verse, no line wrapping.
std::string export_kjv(std::string_view fn) {
  const std::string bible = find_bible_command();
  check(!bible.empty() && exists("/usr/lib/bible.data"), fn,
        "the KJV text needs the `bible` command and /usr/lib/bible.data from the Debian package bible-kjv; {}",
        install_hint("bible-kjv"));
  return run_command(bible + " -f Gen1:1-Rev22:21 </dev/null", fn);
}

// cache_dir/name, written from make_text() on first use.
template <class F>
std::string cached_kjv_file(const std::string& cache_dir, const std::string& name, std::string_view fn, F make_text) {
  const std::string dir = cache_dir.empty() ? data_cache_dir() : cache_dir;
  const std::string path = dir + "/" + name;
  if (exists(path)) return path;
  std::string text = make_text();
  check(text.size() > 1000000, fn, "`bible` exported only {} bytes; expected the whole Bible (~4.3 MB)", text.size());
  std::error_code ec;
  fs::create_directories(dir, ec);
  check(!ec, fn, "cannot create the cache directory '{}': {}", dir, ec.message());
  write_file_atomic(path, text);
  return path;
}

}  // namespace

std::string kjv_text_path(const std::string& cache_dir) {
  constexpr std::string_view fn = "kjv_text_path";
  return cached_kjv_file(cache_dir, "kjv.txt", fn, [&] { return strip_references(read_text(kjv_verses_path(cache_dir)), fn); });
}

std::string kjv_verses_path(const std::string& cache_dir) {
  constexpr std::string_view fn = "kjv_verses_path";
  return cached_kjv_file(cache_dir, "kjv_verses.txt", fn, [&] {
    std::string dump = export_kjv(fn);
    for_each_kjv_line(dump, fn, [](size_t, std::string_view, std::string_view) {});  // validates the line format
    return dump;
  });
}

std::string load_kjv_text(const std::string& cache_dir) { return read_text(kjv_text_path(cache_dir)); }

}  // namespace hm::data
