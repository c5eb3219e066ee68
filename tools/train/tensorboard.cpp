#include "harmonic/tools/train/tensorboard.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "harmonic/core/error.h"

namespace hm::train {
namespace {

// -- protobuf, the few wire types an Event needs ------------------------------------------------

void varint(std::string& out, uint64_t v) {
  while (v >= 0x80) out.push_back(static_cast<char>((v & 0x7f) | 0x80)), v >>= 7;
  out.push_back(static_cast<char>(v));
}
void key(std::string& out, int field, int wire) { varint(out, (static_cast<uint64_t>(field) << 3) | wire); }
void bytes_field(std::string& out, int field, const std::string& bytes) {
  key(out, field, 2);
  varint(out, bytes.size());
  out += bytes;
}
template <class T>
void fixed_field(std::string& out, int field, T value) {  // double: wire 1, float: wire 5
  key(out, field, sizeof(T) == 8 ? 1 : 5);
  char b[sizeof(T)];
  std::memcpy(b, &value, sizeof(T));  // little-endian, as protobuf
  out.append(b, sizeof(T));
}

// Event {wall_time = 1 (double), step = 2 (int64), file_version = 3 | summary = 5}.
std::string event(int64_t step, int field, const std::string& payload) {
  const double wall = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::string e;
  fixed_field(e, 1, wall);
  key(e, 2, 0);
  varint(e, static_cast<uint64_t>(step));
  bytes_field(e, field, payload);
  return e;
}

// One write() of a whole record, appended: a reader never sees half of one from a live run.
void append_record(const std::string& path, const std::string& record) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  check(fd >= 0, "tensorboard", "cannot open '{}': {}", path, std::strerror(errno));
  const ssize_t n = ::write(fd, record.data(), record.size());
  const int err = errno;
  ::close(fd);
  check(n == static_cast<ssize_t>(record.size()), "tensorboard", "cannot write '{}': {}", path,
        n < 0 ? std::strerror(err) : "short write");
}

const std::array<uint32_t, 256>& crc_table() {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0x82F63B78u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  return table;
}

// -- the reader's protobuf walk ----------------------------------------------------------------

struct Cursor {
  const std::string& s;
  size_t at, end;
  const std::string& where;
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      check(at < end, "read_tensorboard_events", "{}: a varint runs past its message", where);
      const uint8_t b = static_cast<uint8_t>(s[at++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    throw_error("read_tensorboard_events", where + ": a varint longer than 10 bytes");
  }
  // Calls f(field, wire, start, size) for each field; varints have size 0 and value in start.
  template <class F>
  void each(F&& f) {
    while (at < end) {
      const uint64_t k = varint();
      const int field = static_cast<int>(k >> 3), wire = static_cast<int>(k & 7);
      if (wire == 0) {
        f(field, wire, varint(), size_t{0});
      } else if (wire == 1 || wire == 5) {
        const size_t n = wire == 1 ? 8 : 4;
        check(at + n <= end, "read_tensorboard_events", "{}: a fixed field runs past its message", where);
        f(field, wire, at, n);
        at += n;
      } else if (wire == 2) {
        const uint64_t n = varint();
        check(n <= end - at, "read_tensorboard_events", "{}: a field of {} bytes runs past its message", where, n);
        f(field, wire, at, static_cast<size_t>(n));
        at += n;
      } else {
        throw_error("read_tensorboard_events", fmt::format("{}: wire type {} is not written by Harmonic", where, wire));
      }
    }
  }
};

}  // namespace

uint32_t crc32c(const void* data, size_t size) {
  const auto& t = crc_table();
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) c = t[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

uint32_t masked_crc32c(const void* data, size_t size) {
  const uint32_t c = crc32c(data, size);
  return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

TensorBoardWriter::TensorBoardWriter(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  check(std::filesystem::is_directory(dir), "tensorboard", "cannot create the folder '{}': {}", dir, ec.message());
  char host[256] = "localhost";
  ::gethostname(host, sizeof(host) - 1);
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  path_ = fmt::format("{}/events.out.tfevents.{}.{}.{}.harmonic", dir, seconds, host, ::getpid());
  write_event(event(0, 3, "brain.Event:2"));
}

void TensorBoardWriter::write_event(const std::string& e) {
  std::string record;
  const uint64_t n = e.size();
  char len[8];
  std::memcpy(len, &n, 8);
  record.append(len, 8);
  const uint32_t len_crc = masked_crc32c(len, 8), data_crc = masked_crc32c(e.data(), e.size());
  record.append(reinterpret_cast<const char*>(&len_crc), 4);
  record += e;
  record.append(reinterpret_cast<const char*>(&data_crc), 4);
  append_record(path_, record);
}

void TensorBoardWriter::scalars(int64_t step, const std::vector<std::pair<std::string, double>>& values) {
  for (const auto& [tag, v] : values) {
    std::string value;  // Summary.Value {tag = 1, simple_value = 2 (float)}
    bytes_field(value, 1, tag);
    fixed_field(value, 2, static_cast<float>(v));
    std::string summary;  // Summary {value = 1}
    bytes_field(summary, 1, value);
    write_event(event(step, 5, summary));
  }
}

void TensorBoardWriter::text(int64_t step, const std::string& tag, const std::string& text) {
  // Summary.Value {tag = 1, tensor = 8: TensorProto {dtype = 1: DT_STRING (7), tensor_shape = 2:
  // {dim = 2: {size = 1: 1}}, string_val = 8}, metadata = 9: {plugin_data = 1: {plugin_name = 1}}}.
  std::string dim, shape, tensor, plugin, metadata, value, summary;
  key(dim, 1, 0), varint(dim, 1);
  bytes_field(shape, 2, dim);
  key(tensor, 1, 0), varint(tensor, 7);
  bytes_field(tensor, 2, shape);
  bytes_field(tensor, 8, text);
  bytes_field(plugin, 1, "text");
  bytes_field(metadata, 1, plugin);
  bytes_field(value, 1, tag);
  bytes_field(value, 8, tensor);
  bytes_field(value, 9, metadata);
  bytes_field(summary, 1, value);
  write_event(event(step, 5, summary));
}

std::vector<TensorBoardValue> read_tensorboard_events(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  check(in.good(), "read_tensorboard_events", "cannot open '{}'", path);
  const std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<TensorBoardValue> out;
  size_t at = 0;
  for (int64_t record = 1; at < s.size(); ++record) {
    const std::string where = fmt::format("'{}' record {}", path, record);
    check(s.size() - at >= 12, "read_tensorboard_events", "{}: a truncated header", where);
    uint64_t n = 0;
    uint32_t len_crc = 0, data_crc = 0;
    std::memcpy(&n, s.data() + at, 8);
    std::memcpy(&len_crc, s.data() + at + 8, 4);
    check(len_crc == masked_crc32c(s.data() + at, 8), "read_tensorboard_events", "{}: the length's CRC differs",
          where);
    check(n <= s.size() - at - 16, "read_tensorboard_events", "{}: {} bytes announced, fewer left", where, n);
    const size_t body = at + 12;
    std::memcpy(&data_crc, s.data() + body + n, 4);
    check(data_crc == masked_crc32c(s.data() + body, n), "read_tensorboard_events", "{}: the payload's CRC differs",
          where);
    TensorBoardValue base;
    std::vector<TensorBoardValue> values;
    Cursor ev{s, body, body + static_cast<size_t>(n), where};
    ev.each([&](int field, int wire, uint64_t start, size_t size) {
      if (field == 1 && wire == 1) std::memcpy(&base.wall_time, s.data() + start, 8);
      if (field == 2 && wire == 0) base.step = static_cast<int64_t>(start);
      if (field == 3 && wire == 2)
        values.push_back({.tag = "file_version", .text = s.substr(start, size), .is_text = true});
      if (field != 5 || wire != 2) return;
      Cursor summary{s, static_cast<size_t>(start), static_cast<size_t>(start) + size, where};
      summary.each([&](int f, int w, uint64_t vs, size_t vsize) {
        if (f != 1 || w != 2) return;
        TensorBoardValue v;
        Cursor value{s, static_cast<size_t>(vs), static_cast<size_t>(vs) + vsize, where};
        value.each([&](int vf, int vw, uint64_t x, size_t xsize) {
          if (vf == 1 && vw == 2) v.tag = s.substr(x, xsize);
          if (vf == 2 && vw == 5) {
            float f32 = 0;
            std::memcpy(&f32, s.data() + x, 4);
            v.scalar = f32;
          }
          if (vf == 8 && vw == 2) {  // TensorProto: its string_val
            Cursor tensor{s, static_cast<size_t>(x), static_cast<size_t>(x) + xsize, where};
            tensor.each([&](int tf, int tw, uint64_t ts, size_t tsize) {
              if (tf == 8 && tw == 2) v.text = s.substr(ts, tsize), v.is_text = true;
            });
          }
        });
        values.push_back(v);
      });
    });
    for (TensorBoardValue& v : values) {
      v.step = base.step, v.wall_time = base.wall_time;
      out.push_back(std::move(v));
    }
    at = body + static_cast<size_t>(n) + 4;
  }
  return out;
}

}  // namespace hm::train
