// TensorBoard event files, written by hand: a run's metrics as scalars and its resolved config as
// text, so `tensorboard --logdir DIR` shows a Harmonic run beside PyTorch ones. The format is
// TFRecord (length, masked CRC-32C, payload, masked CRC-32C) of tensorflow.Event protobufs; the
// reader is the suite's check of the writer.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace hm::train {

class TensorBoardWriter {
 public:
  // Creates DIR (and parents) and DIR/events.out.tfevents.<seconds>.<host>.<pid>.harmonic with
  // its file_version record.
  explicit TensorBoardWriter(const std::string& dir);
  // One event per value, at `step`; written through to the file (a crash loses nothing logged).
  void scalars(int64_t step, const std::vector<std::pair<std::string, double>>& values);
  // A text summary (TensorBoard's text plugin), e.g. the resolved config.
  void text(int64_t step, const std::string& tag, const std::string& text);
  const std::string& path() const { return path_; }

 private:
  void write_event(const std::string& event);
  std::string path_;
};

// One value of an event file, as TensorBoard reads it: a scalar, a text, or the file_version
// record (tag "file_version", text its value).
struct TensorBoardValue {
  int64_t step = 0;
  double wall_time = 0;
  std::string tag;
  double scalar = 0;
  std::string text;
  bool is_text = false;
};
// Every value of an event file; throws naming the file and the record on a bad length or CRC.
std::vector<TensorBoardValue> read_tensorboard_events(const std::string& path);

// CRC-32C (Castagnoli) and TFRecord's masking of it.
uint32_t crc32c(const void* data, size_t size);
uint32_t masked_crc32c(const void* data, size_t size);

}  // namespace hm::train
