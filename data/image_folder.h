// Images on disk through stb_image (Debian's libstb): one class per sub-directory,
//   root/cat/001.png, root/cat/002.jpg, root/dog/a.bmp, ...
// and single-image reading/writing (PNG/BMP out) for inspecting samples.
#pragma once
#include <string>
#include <vector>

#include "harmonic/core/tensor.h"
#include "harmonic/data/dataset.h"

namespace hm::data {

struct ImageFolder : LabeledImages {  // images (N, C, H, W) float32 in [0, 1], labels (N,) int64
  std::vector<std::string> paths;     // the file of each example
};

// Reads root/<class>/<file> for files ending .png/.jpg/.jpeg/.bmp (any case). Classes are the
// sub-directories sorted by name (label = position), files sorted by name within a class.
// All images must have the same height and width (no resizing: a mismatch is an error
// naming both files). `channels` 1 (grey), 3 (RGB) or 4 (RGBA) converts every image; 0 takes
// the channel count of the first image and converts the rest to it.
ImageFolder read_image_folder(const std::string& root, int channels = 0);

// One image file -> (C, H, W) float32 in [0, 1]; channels as above (0 = as stored).
Tensor read_image(const std::string& path, int channels = 0);

// Writes a (C, H, W) or (H, W) float tensor with values in [0, 1] (clamped) as an 8-bit
// PNG or BMP, chosen by the extension. C is 1, 3 or 4.
void write_image(const std::string& path, const Tensor& image);

}  // namespace hm::data
