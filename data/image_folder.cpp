#include "harmonic/data/image_folder.h"

// Declarations only: Debian's libstb (-lstb) carries the implementations.
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "harmonic/core/factories.h"
#include "harmonic/core/file_read.h"

namespace hm::data {
namespace fs = std::filesystem;
namespace {

struct StbImage {
  std::unique_ptr<unsigned char, void (*)(void*)> pixels{nullptr, stbi_image_free};  // (H, W, C) bytes
  int width = 0, height = 0, channels = 0;
};

// " (the PNG header says WxH pixels)" for a PNG file, so stb's "too large" shows the size
// (a width of 2^31 or more is negative as stb's int); "" for other files.
std::string png_header_size(const std::string& path) {
  unsigned char h[24] = {};
  std::ifstream in(path, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(h), sizeof h) || std::memcmp(h, "\x89PNG\r\n\x1a\n", 8) != 0) return "";
  auto be32 = [&](int at) {
    return (uint32_t{h[at]} << 24) | (uint32_t{h[at + 1]} << 16) | (h[at + 2] << 8) | h[at + 3];
  };
  return fmt::format(" (the PNG header says {}x{} pixels)", be32(16), be32(20));
}

StbImage decode(const std::string& path, int channels, std::string_view fn) {
  check(channels == 0 || channels == 1 || channels == 3 || channels == 4, fn,
        "channels must be 0 (as stored), 1, 3 or 4, got {}", channels);
  check_readable_file(path, fn);  // a directory or a missing path, by name
  StbImage img;
  int stored = 0;
  img.pixels.reset(stbi_load(path.c_str(), &img.width, &img.height, &stored, channels));
  HM_CHECK(img.pixels != nullptr, fn, "'{}': cannot decode image: {}{}", path, stbi_failure_reason(),
           png_header_size(path));
  img.channels = channels ? channels : stored;
  return img;
}

// (H, W, C) bytes -> (C, H, W) floats in [0, 1] at dst.
void to_chw(const StbImage& img, float* dst) {
  const int64_t hw = static_cast<int64_t>(img.height) * img.width, c = img.channels;
  const unsigned char* src = img.pixels.get();
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t p = 0; p < hw; ++p) dst[ch * hw + p] = static_cast<float>(src[p * c + ch]) * (1.0f / 255.0f);
}

bool is_image_file(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".bmp";
}

std::string lower_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return ext;
}

}  // namespace

Tensor read_image(const std::string& path, int channels) {
  StbImage img = decode(path, channels, "read_image");
  Tensor out = Tensor::empty({img.channels, img.height, img.width}, DType::Float32);
  to_chw(img, out.data<float>());
  return out;
}

ImageFolder read_image_folder(const std::string& root, int channels) {
  constexpr std::string_view fn = "read_image_folder";
  std::error_code ec;
  check(fs::is_directory(root, ec), fn, "'{}' is not a directory", root);
  ImageFolder out;
  std::vector<std::pair<std::string, int64_t>> files;  // (path, label)
  std::vector<fs::path> class_dirs;
  for (const auto& entry : fs::directory_iterator(root))
    if (entry.is_directory()) class_dirs.push_back(entry.path());
  std::sort(class_dirs.begin(), class_dirs.end());
  check(!class_dirs.empty(), fn, "'{}' has no class sub-directories (expected root/<class>/<image>)", root);
  for (const fs::path& dir : class_dirs) {
    std::vector<std::string> images;
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.is_regular_file() && is_image_file(entry.path())) images.push_back(entry.path().string());
    check(!images.empty(), fn, "class directory '{}' holds no .png/.jpg/.jpeg/.bmp files", dir.string());
    std::sort(images.begin(), images.end());
    const auto label = static_cast<int64_t>(out.classes.size());
    for (auto& p : images) files.emplace_back(std::move(p), label);
    out.classes.push_back(dir.filename().string());
  }

  // The first image fixes (C, H, W); the others must match it.
  StbImage first = decode(files[0].first, channels, fn);
  const int c = first.channels, h = first.height, w = first.width;
  const auto n = static_cast<int64_t>(files.size());
  const int64_t per_image = int64_t{c} * h * w;
  out.images = Tensor::empty({n, c, h, w}, DType::Float32);
  float* dst = out.images.data<float>();
  std::vector<int64_t> labels(files.size());
  for (int64_t i = 0; i < n; ++i) {
    StbImage img = i == 0 ? std::move(first) : decode(files[i].first, c, fn);
    check(img.height == h && img.width == w, fn,
          "'{}' is {}x{} (HxW) but '{}' is {}x{}: images must share one size (no resizing is done)", files[i].first,
          img.height, img.width, files[0].first, h, w);
    to_chw(img, dst + i * per_image);
    labels[i] = files[i].second;
    out.paths.push_back(files[i].first);
  }
  out.labels = from_vector(labels, {n});
  return out;
}

void write_image(const std::string& path, const Tensor& image) {
  constexpr std::string_view fn = "write_image";
  HM_CHECK(image.defined() && (image.dim() == 2 || image.dim() == 3) && is_floating(image.dtype()), fn,
           "expected a float (C, H, W) or (H, W) tensor, got {}", image.desc());
  const int64_t c = image.dim() == 3 ? image.size(0) : 1, h = image.size(-2), w = image.size(-1);
  check(c == 1 || c == 3 || c == 4, fn, "{} channels; need 1, 3 or 4", c);
  std::vector<double> v = image.to_vector();  // (C, H, W) row-major
  for (double& x : v)
    if (std::isnan(x)) x = 0.0;
  std::vector<unsigned char> hwc(v.size());
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t p = 0; p < h * w; ++p)
      hwc[p * c + ch] = static_cast<unsigned char>(std::lround(std::clamp(v[ch * h * w + p], 0.0, 1.0) * 255.0));
  const std::string ext = lower_extension(path);
  int ok = 0;
  const int wi = static_cast<int>(w), hi = static_cast<int>(h), ci = static_cast<int>(c);
  if (ext == ".png")
    ok = stbi_write_png(path.c_str(), wi, hi, ci, hwc.data(), wi * ci);
  else if (ext == ".bmp")
    ok = stbi_write_bmp(path.c_str(), wi, hi, ci, hwc.data());
  else
    throw_error(fn, fmt::format("'{}': unsupported extension '{}' (use .png or .bmp)", path, ext));
  check(ok != 0, fn, "'{}': writing failed", path);
}

}  // namespace hm::data
