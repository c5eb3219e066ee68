// Real data sets shipped as Debian packages (installed by `bash .ci/install-data`):
//   Fashion-MNIST  package dataset-fashion-mnist: gzip IDX files in /usr/share/datasets/fashion-mnist
//   KJV Bible      package bible-kjv: a compressed database (/usr/lib/bible.data) read by the
//                  `bible` command; exported once to a plain-text corpus in the cache directory.
// A missing package gives an hm::Error naming the package and the install command.
#pragma once
#include <functional>
#include <string>
#include <string_view>

#include "harmonic/data/dataset.h"

namespace hm::data {

// Where the Fashion-MNIST IDX files are: $HARMONIC_FASHION_MNIST_DIR, else the package's directory.
std::string fashion_mnist_dir();
bool fashion_mnist_available();
// split "train" (60000) or "test" (10000): images (N, 28, 28) float32 in [0, 1], labels (N,)
// int64 in 0..9, classes the ten Fashion-MNIST class names. limit > 0 keeps the first `limit`
// examples (a task's train_subset / test_subset; 0: all); a negative limit throws.
LabeledImages load_fashion_mnist(const std::string& split, int64_t limit = 0);

// Cache for derived files: $HARMONIC_DATA_DIR, else $XDG_CACHE_HOME/harmonic, else
// ~/.cache/harmonic (created on demand).
std::string data_cache_dir();
bool kjv_available();  // the `bible` command and its database are installed, or the verses are in data_cache_dir()
// The King James Bible as plain text, one verse per line without references (about 4.3 MB).
// Exported with `bible -f Gen1:1-Rev22:21` into cache_dir/kjv.txt on first use; later calls
// read the cached file. cache_dir empty = data_cache_dir().
std::string kjv_text_path(const std::string& cache_dir = "");
std::string load_kjv_text(const std::string& cache_dir = "");
// The same export with references kept: one "<Book><chapter>:<verse> <text>" line per verse,
// books abbreviated as `bible` prints them ("Ge1:1 In the beginning ...", "1Sm3:4 ...",
// "Rev22:21 ..."), cached as cache_dir/kjv_verses.txt. data/kjv_genre.h parses it.
std::string kjv_verses_path(const std::string& cache_dir = "");
// Calls f(line_no, reference, text) for each non-empty line of such an export ("Ge1:1" and
// "In the beginning ..."; line_no 1-based); a line without a "<ref> " prefix holding a ':'
// throws naming fn and the line.
void for_each_kjv_line(std::string_view dump, std::string_view fn,
                       const std::function<void(size_t line_no, std::string_view reference, std::string_view text)>& f);

}  // namespace hm::data
