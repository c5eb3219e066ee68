#include "harmonic/data/idx.h"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <vector>

#include "harmonic/core/factories.h"
#include "harmonic/core/file_read.h"

namespace hm::data {
namespace {

int element_size(uint8_t type) {
  switch (static_cast<IdxType>(type)) {
    case IdxType::UInt8:
    case IdxType::Int8:
      return 1;
    case IdxType::Int16:
      return 2;
    case IdxType::Int32:
    case IdxType::Float32:
      return 4;
    case IdxType::Float64:
      return 8;
  }
  return 0;  // unknown code
}

// Reads a plain file as it is, or a gzip file member by member through inflate. Not gzread:
// that skips whatever follows the last gzip member, so a file with trailing garbage passed.
class GzReader {
 public:
  GzReader(const std::string& path, std::string_view fn) : path_(path), fn_(fn) {
    check_readable_file(path, fn);  // a directory or a missing path, by name
    in_.open(path, std::ios::binary);
    check(in_.is_open(), fn_, "cannot open '{}': {}", path, std::strerror(errno));
    refill();
    gzip_ = zs_.avail_in >= 2 && buf_[0] == 0x1f && buf_[1] == 0x8b;
    if (gzip_) check(inflateInit2(&zs_, 16 + MAX_WBITS) == Z_OK, fn_, "'{}': zlib inflateInit2 failed", path);
  }
  ~GzReader() {
    if (gzip_) inflateEnd(&zs_);
  }
  GzReader(const GzReader&) = delete;
  GzReader& operator=(const GzReader&) = delete;

  // Reads up to n bytes, returning how many arrived (fewer only at the end of the data).
  size_t read(void* dst, size_t n) {
    auto* p = static_cast<unsigned char*>(dst);
    size_t got = 0;
    while (got < n && !done_) {
      if (zs_.avail_in == 0 && !refill() && !gzip_) break;  // (gzip: inflate reports the truncation)
      if (!gzip_) {
        const size_t k = std::min<size_t>(n - got, zs_.avail_in);
        std::memcpy(p + got, zs_.next_in, k);
        zs_.next_in += k, zs_.avail_in -= static_cast<uInt>(k), got += k;
        continue;
      }
      zs_.next_out = p + got;
      zs_.avail_out = static_cast<uInt>(std::min<size_t>(n - got, 1u << 30));
      const uInt room = zs_.avail_out;
      const int r = inflate(&zs_, Z_NO_FLUSH);
      got += room - zs_.avail_out;
      if (r == Z_STREAM_END) {
        // the end of one member: the file ends, or another member starts (gzip allows
        // concatenation); any other byte is trailing garbage
        if (zs_.avail_in == 0) refill();
        if (zs_.avail_in == 0) {
          done_ = true;
        } else {
          HM_CHECK(zs_.next_in[0] == 0x1f, fn_, "'{}': trailing data after the gzip stream at compressed byte {}",
                   path_, compressed_offset());
          inflateReset(&zs_);
        }
      } else if (r == Z_BUF_ERROR && zs_.avail_in == 0) {
        throw_error(fn_,
                    fmt::format("'{}': truncated compressed data at compressed byte {}", path_, compressed_offset()));
      } else if (r != Z_OK) {
        throw_error(fn_, fmt::format("'{}': corrupt compressed data near compressed byte {} (zlib: {})", path_,
                                     compressed_offset(), zs_.msg ? zs_.msg : "error " + std::to_string(r)));
      }
    }
    return got;
  }

 private:
  bool refill() {  // false at the end of the file
    in_.read(reinterpret_cast<char*>(buf_.data()), static_cast<std::streamsize>(buf_.size()));
    const auto k = static_cast<size_t>(in_.gcount());
    check(k > 0 || in_.eof(), fn_, "'{}': read error after byte {}", path_, file_bytes_);
    file_bytes_ += k;
    zs_.next_in = buf_.data();
    zs_.avail_in = static_cast<uInt>(k);
    return k > 0;
  }
  size_t compressed_offset() const { return file_bytes_ - zs_.avail_in; }

  std::string path_;
  std::string_view fn_;
  std::ifstream in_;
  std::vector<unsigned char> buf_ = std::vector<unsigned char>(size_t{1} << 17);
  z_stream zs_{};
  size_t file_bytes_ = 0;  // bytes read from the file so far
  bool gzip_ = false, done_ = false;
};

// A gzFile for writing ("wb6" gzip, "wbT" plain) that closes itself.
class GzFile {
 public:
  GzFile(const std::string& path, const char* mode, std::string_view fn) : path_(path), fn_(fn) {
    errno = 0;
    file_ = gzopen(path.c_str(), mode);
    check(file_ != nullptr, fn_, "cannot open '{}': {}", path, errno ? std::strerror(errno) : "zlib error");
    gzbuffer(file_, 1 << 17);
  }
  ~GzFile() {
    if (file_) gzclose(file_);
  }
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;

  void write(const void* src, size_t n) {
    auto* p = static_cast<const unsigned char*>(src);
    while (n > 0) {
      unsigned chunk = static_cast<unsigned>(std::min<size_t>(n, 1u << 30));
      if (gzwrite(file_, p, chunk) != static_cast<int>(chunk)) fail_zlib();
      p += chunk;
      n -= chunk;
    }
  }

  void close() {
    int r = gzclose(file_);
    file_ = nullptr;
    check(r == Z_OK, fn_, "'{}': closing failed (zlib code {})", path_, r);
  }

 private:
  [[noreturn]] void fail_zlib() {
    int err = 0;
    const char* msg = gzerror(file_, &err);
    throw_error(fn_, fmt::format("'{}': {} (zlib: {})", path_,
                                 err == Z_BUF_ERROR ? "truncated compressed data" : "read/write error", msg));
  }
  gzFile file_ = nullptr;
  std::string path_;
  std::string_view fn_;
};

uint32_t load_be32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// Converts n big-endian elements of IDX type `type` to Out (floating results times scale).
template <class Out>
void decode(const unsigned char* src, uint8_t type, int64_t n, double scale, Out* dst) {
  auto be = [](const unsigned char* p, int bytes) {
    uint64_t v = 0;
    for (int b = 0; b < bytes; ++b) v = (v << 8) | p[b];
    return v;
  };
  const bool floating = std::is_floating_point_v<Out>;
  const auto s = static_cast<Out>(scale);
  switch (static_cast<IdxType>(type)) {
    case IdxType::UInt8:
      if (floating)
        for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<Out>(src[i]) * s;
      else
        for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<Out>(src[i]);
      return;
    case IdxType::Int8:
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<Out>(static_cast<int8_t>(src[i]));
      break;
    case IdxType::Int16:
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<Out>(static_cast<int16_t>(be(src + 2 * i, 2)));
      break;
    case IdxType::Int32:
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<Out>(static_cast<int32_t>(be(src + 4 * i, 4)));
      break;
    case IdxType::Float32:
      for (int64_t i = 0; i < n; ++i)
        dst[i] = static_cast<Out>(std::bit_cast<float>(static_cast<uint32_t>(be(src + 4 * i, 4))));
      break;
    case IdxType::Float64:
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<Out>(std::bit_cast<double>(be(src + 8 * i, 8)));
      break;
  }
  if (floating && scale != 1.0)
    for (int64_t i = 0; i < n; ++i) dst[i] *= s;
}

struct RawIdx {
  uint8_t type = 0;
  Shape shape;
  std::vector<unsigned char> bytes;  // big-endian elements
};

RawIdx read_raw(const std::string& path, std::string_view fn) {
  GzReader f(path, fn);
  unsigned char magic[4];
  size_t got = f.read(magic, 4);
  check(got == 4, fn, "'{}': truncated at byte {}: the header needs 4 bytes", path, got);
  RawIdx raw;
  raw.type = magic[2];
  const int ndim = magic[3];
  check(magic[0] == 0 && magic[1] == 0 && element_size(raw.type) != 0 && ndim >= 1, fn,
        "'{}': bad magic {:02x} {:02x} {:02x} {:02x} at byte 0 (expected 00 00 <type 08/09/0b/0c/0d/0e> <ndim >= 1>): "
        "not an IDX file",
        path, magic[0], magic[1], magic[2], magic[3]);
  std::vector<unsigned char> dims(4 * static_cast<size_t>(ndim));
  got = f.read(dims.data(), dims.size());
  check(got == dims.size(), fn, "'{}': truncated at byte {}: the header of a {}-d file needs {} bytes", path, 4 + got,
        ndim, 4 + dims.size());
  constexpr int64_t kMaxElements = int64_t{1} << 40;
  int64_t count = 1;
  for (int d = 0; d < ndim; ++d) {
    const auto size = static_cast<int64_t>(load_be32(&dims[4 * d]));
    raw.shape.push_back(size);
    HM_CHECK(size == 0 || count <= kMaxElements / size, fn, "'{}': implausible sizes in the header (dims so far {})",
             path, str(raw.shape));
    count *= size;
  }
  const size_t header = 4 + dims.size();
  const size_t need = static_cast<size_t>(count) * static_cast<size_t>(element_size(raw.type));
  // Grow geometrically (1 MiB, then doubling up to 64 MiB chunks) so a header that promises
  // more than the file holds fails as "truncated" after allocating about what the file has,
  // not the promised size or a fixed 64 MiB (fuzzing: 40-byte files ran at 21 reads/s).
  constexpr size_t kFirstChunk = size_t{1} << 20, kMaxChunk = size_t{64} << 20;
  got = 0;
  while (got < need) {
    const size_t want = std::min({std::clamp(got, kFirstChunk, kMaxChunk), need - got});
    raw.bytes.resize(got + want);
    const size_t n = f.read(raw.bytes.data() + got, want);
    got += n;
    if (n < want) break;
  }
  HM_CHECK(got == need, fn, "'{}': truncated at byte {}: shape {} needs {} data bytes after the {}-byte header, got {}",
           path, header + got, str(raw.shape), need, header, got);
  unsigned char extra;
  HM_CHECK(f.read(&extra, 1) == 0, fn, "'{}': trailing data after byte {} (shape {} ends there)", path, header + need,
           str(raw.shape));
  return raw;
}

}  // namespace

Tensor read_idx(const std::string& path, DType dtype, double scale) {
  check(dtype == DType::Float32 || dtype == DType::Float64 || dtype == DType::Int64, "read_idx",
        "dtype must be float32, float64 or int64, got {}", dtype_name(dtype));
  RawIdx raw = read_raw(path, "read_idx");
  Tensor out = Tensor::empty(raw.shape, dtype);
  const int64_t n = out.numel();
  if (dtype == DType::Float32) decode(raw.bytes.data(), raw.type, n, scale, out.data<float>());
  if (dtype == DType::Float64) decode(raw.bytes.data(), raw.type, n, scale, out.data<double>());
  if (dtype == DType::Int64) decode(raw.bytes.data(), raw.type, n, scale, out.data<int64_t>());
  return out;
}

Tensor read_idx_images(const std::string& path) {
  RawIdx raw = read_raw(path, "read_idx_images");
  HM_CHECK(raw.type == static_cast<uint8_t>(IdxType::UInt8) && raw.shape.size() == 3, "read_idx_images",
           "'{}': expected ubyte images (N, H, W), got type 0x{:02x} shape {}", path, raw.type, str(raw.shape));
  Tensor out = Tensor::empty(raw.shape, DType::Float32);
  decode(raw.bytes.data(), raw.type, out.numel(), 1.0 / 255.0, out.data<float>());
  return out;
}

Tensor read_idx_labels(const std::string& path) {
  RawIdx raw = read_raw(path, "read_idx_labels");
  HM_CHECK(raw.type == static_cast<uint8_t>(IdxType::UInt8) && raw.shape.size() == 1, "read_idx_labels",
           "'{}': expected ubyte labels (N,), got type 0x{:02x} shape {}", path, raw.type, str(raw.shape));
  Tensor out = Tensor::empty(raw.shape, DType::Int64);
  decode(raw.bytes.data(), raw.type, out.numel(), 1.0, out.data<int64_t>());
  return out;
}

void write_idx(const std::string& path, const Tensor& x, IdxType type, bool gzip) {
  const int esize = element_size(static_cast<uint8_t>(type));
  check(esize != 0, "write_idx", "unknown IDX type 0x{:02x}", static_cast<int>(type));
  HM_CHECK(x.dim() >= 1 && x.dim() <= 255, "write_idx", "need 1 to 255 dims, got {}", x.desc());
  std::vector<unsigned char> bytes = {0, 0, static_cast<unsigned char>(type), static_cast<unsigned char>(x.dim())};
  for (int64_t s : x.shape())
    for (int b = 3; b >= 0; --b) bytes.push_back(static_cast<unsigned char>(static_cast<uint64_t>(s) >> (8 * b)));
  auto put_be = [&](uint64_t v, int n) {
    for (int b = n - 1; b >= 0; --b) bytes.push_back(static_cast<unsigned char>(v >> (8 * b)));
  };
  for (double v : x.to_vector()) {
    switch (type) {
      case IdxType::UInt8:
        put_be(static_cast<uint64_t>(std::clamp(std::round(v), 0.0, 255.0)), 1);
        break;
      case IdxType::Int8:
        put_be(static_cast<uint8_t>(static_cast<int8_t>(std::clamp(std::round(v), -128.0, 127.0))), 1);
        break;
      case IdxType::Int16:
        put_be(static_cast<uint16_t>(static_cast<int16_t>(std::clamp(std::round(v), -32768.0, 32767.0))), 2);
        break;
      case IdxType::Int32:
        put_be(static_cast<uint32_t>(static_cast<int32_t>(std::round(v))), 4);
        break;
      case IdxType::Float32:
        put_be(std::bit_cast<uint32_t>(static_cast<float>(v)), 4);
        break;
      case IdxType::Float64:
        put_be(std::bit_cast<uint64_t>(v), 8);
        break;
    }
  }
  GzFile f(path, gzip ? "wb6" : "wbT", "write_idx");
  f.write(bytes.data(), bytes.size());
  f.close();
}

}  // namespace hm::data
