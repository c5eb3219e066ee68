#include "harmonic/core/safetensors.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "harmonic/core/atomic_file.h"
#include "harmonic/core/file_read.h"
#include "harmonic/core/json_read.h"

namespace hm {

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian");

namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kLoad = "load_safetensors";
constexpr std::string_view kSave = "save_safetensors";
constexpr uint64_t kMaxHeader = 100'000'000;  // the reference implementation's limit

const std::pair<std::string_view, DType> kDTypes[] = {{"F32", DType::Float32},   {"F64", DType::Float64},
                                                      {"I64", DType::Int64},     {"BOOL", DType::Bool},
                                                      {"BF16", DType::BFloat16}, {"F16", DType::Float16}};

std::string_view dtype_code(DType t) {
  for (const auto& [code, dt] : kDTypes)
    if (dt == t) return code;
  throw_error(kSave, fmt::format("no safetensors code for dtype {}", dtype_name(t)));
}

// -- reading ------------------------------------------------------------------------------------

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// A malformed-file error: "[load_safetensors] 'path': what".
template <class... Args>
[[noreturn]] void bad(const std::string& path, fmt::format_string<Args...> format, Args&&... args) {
  throw_error(kLoad, fmt::format("'{}': {}", path, fmt::format(format, std::forward<Args>(args)...)));
}

// A non-negative integer field of the header that fits int64.
int64_t header_index(const Json& v, const std::string& path, const std::string& name, std::string_view what) {
  if (!v.is_number_integer()) bad(path, "tensor '{}': {} must hold integers, got {}", name, what, v.dump());
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      bad(path, "tensor '{}': {} value {} is too large", name, what, u);
    return static_cast<int64_t>(u);
  }
  int64_t s = v.get<int64_t>();
  if (s < 0) bad(path, "tensor '{}': {} value {} is negative", name, what, s);
  return s;
}

struct Entry {
  std::string name;
  DType dtype;
  Shape shape;
  int64_t begin, end;
};

Entry parse_entry(const std::string& name, const Json& info, const std::string& path) {
  if (!info.is_object()) bad(path, "entry '{}' is not a JSON object", name);
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!info.contains(key)) bad(path, "tensor '{}' has no \"{}\"", name, key);
  const Json& dt = info["dtype"];
  if (!dt.is_string()) bad(path, "tensor '{}': dtype must be a string, got {}", name, dt.dump());
  Entry e{name, DType::Float32, {}, 0, 0};
  auto it = std::find_if(std::begin(kDTypes), std::end(kDTypes),
                         [&](const auto& p) { return p.first == dt.get<std::string>(); });
  if (it == std::end(kDTypes))
    bad(path, "tensor '{}': unknown or unsupported dtype \"{}\" (supported: F32, F64, I64, BOOL, BF16, F16)", name,
        dt.get<std::string>());
  e.dtype = it->second;
  const Json& shape = info["shape"];
  if (!shape.is_array()) bad(path, "tensor '{}': shape must be an array, got {}", name, shape.dump());
  int64_t numel = 1;
  for (const Json& s : shape) {
    int64_t d = header_index(s, path, name, "shape");
    if (d != 0 && numel > std::numeric_limits<int64_t>::max() / 16 / d)
      bad(path, "tensor '{}': shape {} is too large", name, shape.dump());
    numel *= d;
    e.shape.push_back(d);
  }
  const Json& off = info["data_offsets"];
  if (!off.is_array() || off.size() != 2)
    bad(path, "tensor '{}': data_offsets must be [begin, end], got {}", name, off.dump());
  e.begin = header_index(off[0], path, name, "data_offsets");
  e.end = header_index(off[1], path, name, "data_offsets");
  if (e.end < e.begin) bad(path, "tensor '{}': data_offsets [{}, {}] end before begin", name, e.begin, e.end);
  const int64_t nbytes = numel * static_cast<int64_t>(dtype_size(e.dtype));
  if (e.end - e.begin != nbytes)
    bad(path, "tensor '{}': data_offsets [{}, {}] span {} bytes but shape {} of {} needs {}", name, e.begin, e.end,
        e.end - e.begin, str(e.shape), dt.get<std::string>(), nbytes);
  return e;
}

}  // namespace

bool SafetensorsFile::contains(const std::string& name) const {
  return std::any_of(tensors.begin(), tensors.end(), [&](const auto& p) { return p.first == name; });
}

const Tensor& SafetensorsFile::at(const std::string& name) const {
  for (const auto& [n, t] : tensors)
    if (n == name) return t;
  std::string names;
  for (const auto& [n, t] : tensors) names += (names.empty() ? "" : ", ") + n;
  throw_error("SafetensorsFile::at", fmt::format("no tensor '{}' (the file has: {})", name, names));
}

SafetensorsFile load_safetensors(const std::string& path) {
  check_readable_file(path, "load_safetensors");
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) bad(path, "cannot open: {}", std::strerror(errno));
  if (std::fseek(f.get(), 0, SEEK_END) != 0) bad(path, "cannot seek: {}", std::strerror(errno));
  const long size_l = std::ftell(f.get());
  if (size_l < 0) bad(path, "cannot tell the file size: {}", std::strerror(errno));
  const uint64_t size = static_cast<uint64_t>(size_l);
  std::rewind(f.get());
  if (size < 8) bad(path, "truncated: {} bytes, fewer than the 8-byte header length", size);

  uint64_t n = 0;
  if (std::fread(&n, 8, 1, f.get()) != 1) bad(path, "cannot read the header length");
  if (n > kMaxHeader) bad(path, "header length {} exceeds the format's limit of {} bytes", n, kMaxHeader);
  if (n > size - 8)
    bad(path, "header length {} is larger than the {} bytes after it (truncated or not safetensors)", n, size - 8);
  std::string header(n, '\0');
  if (n > 0 && std::fread(header.data(), 1, n, f.get()) != n) bad(path, "cannot read the {}-byte header", n);
  const int64_t data_size = static_cast<int64_t>(size - 8 - n);

  Json root;
  try {
    root = parse_json<Json>(header, kLoad, fmt::format("'{}': header", path));
  } catch (const Json::exception& e) {
    bad(path, "header is not valid JSON: {}", e.what());
  }
  if (!root.is_object()) bad(path, "header must be a JSON object, got {}", root.type_name());

  SafetensorsFile out;
  std::vector<Entry> entries;
  for (const auto& [key, value] : root.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) bad(path, "__metadata__ must be an object of strings, got {}", value.type_name());
      for (const auto& [k, v] : value.items()) {
        if (!v.is_string()) bad(path, "__metadata__ value of '{}' must be a string, got {}", k, v.dump());
        out.metadata[k] = v.get<std::string>();
      }
      continue;
    }
    entries.push_back(parse_entry(key, value, path));
  }
  // Non-empty ranges must lie inside the data and must not overlap (checked in data order).
  std::vector<const Entry*> by_offset;
  for (const Entry& e : entries) by_offset.push_back(&e);
  std::stable_sort(by_offset.begin(), by_offset.end(),
                   [](const Entry* a, const Entry* b) { return a->begin < b->begin; });
  const Entry* prev = nullptr;
  for (const Entry* ep : by_offset) {
    const Entry& e = *ep;
    if (e.end > data_size)
      bad(path, "tensor '{}': data_offsets [{}, {}] out of range: the data section has {} bytes", e.name, e.begin,
          e.end, data_size);
    if (e.begin == e.end) continue;
    if (prev && e.begin < prev->end)
      bad(path, "tensors '{}' [{}, {}] and '{}' [{}, {}] overlap", prev->name, prev->begin, prev->end, e.name, e.begin,
          e.end);
    prev = &e;
  }

  for (const Entry& e : entries) {
    Tensor t = Tensor::empty(e.shape, e.dtype, Device::cpu());
    const size_t nbytes = static_cast<size_t>(e.end - e.begin);
    if (nbytes > 0) {
      if (std::fseek(f.get(), static_cast<long>(8 + n + static_cast<uint64_t>(e.begin)), SEEK_SET) != 0 ||
          std::fread(t.raw_data(), 1, nbytes, f.get()) != nbytes)
        bad(path, "cannot read the {} bytes of tensor '{}'", nbytes, e.name);
    }
    if (e.dtype == DType::Bool) {  // any non-zero byte is true; a C++ bool must hold 0 or 1
      auto* b = static_cast<uint8_t*>(t.raw_data());
      for (size_t i = 0; i < nbytes; ++i) b[i] = b[i] != 0;
    }
    out.tensors.emplace_back(e.name, std::move(t));
  }
  return out;
}

// -- writing ------------------------------------------------------------------------------------

void save_safetensors(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  Json header = Json::object();
  if (!metadata.empty()) {
    Json meta = Json::object();
    for (const auto& [k, v] : metadata) meta[k] = v;
    header["__metadata__"] = std::move(meta);
  }
  std::vector<Tensor> host;  // contiguous CPU copies, alive until written
  std::set<std::string> seen;
  for (const auto& [name, t] : tensors) {
    check(!name.empty() && name != "__metadata__", kSave, "'{}': invalid tensor name '{}'", path, name);
    check(seen.insert(name).second, kSave, "'{}': tensor name '{}' appears twice", path, name);
    check(t.defined(), kSave, "'{}': tensor '{}' is undefined", path, name);
    dtype_code(t.dtype());  // rejects dtypes the format lacks before any copy
    host.push_back(t.detach().to(Device::cpu()).contiguous());
  }
  // Header in the caller's order; data by decreasing element size (like the reference
  // writer) so every tensor starts aligned to its element size, without gaps.
  std::vector<size_t> data_order(host.size());
  for (size_t i = 0; i < host.size(); ++i) data_order[i] = i;
  std::stable_sort(data_order.begin(), data_order.end(),
                   [&](size_t a, size_t b) { return dtype_size(host[a].dtype()) > dtype_size(host[b].dtype()); });
  std::vector<int64_t> begin(host.size());
  int64_t offset = 0;
  for (size_t i : data_order) {
    begin[i] = offset;
    offset += host[i].numel() * static_cast<int64_t>(dtype_size(host[i].dtype()));
  }
  for (size_t i = 0; i < host.size(); ++i) {
    const Tensor& c = host[i];
    const int64_t nbytes = c.numel() * static_cast<int64_t>(dtype_size(c.dtype()));
    header[tensors[i].first] = {
        {"dtype", dtype_code(c.dtype())}, {"shape", c.shape()}, {"data_offsets", {begin[i], begin[i] + nbytes}}};
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // pad so the data starts 8-byte aligned
  uint64_t n = text.size();
  char len[8];
  std::memcpy(len, &n, 8);
  std::vector<std::string_view> pieces{std::string_view(len, 8), text};
  for (size_t i : data_order)
    pieces.emplace_back(static_cast<const char*>(host[i].raw_data()), host[i].numel() * dtype_size(host[i].dtype()));
  write_file_atomic(path, pieces);
}

}  // namespace hm
