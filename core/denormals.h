// Flushing subnormal floats to zero in CPU arithmetic (x86's FTZ and DAZ bits), as PyTorch's
// torch.set_flush_denormal. An x86 multiply or add that reads or produces a subnormal takes a
// microcode assist, many times slower than a normal one: a model whose activations drift into
// that range (FourierFormer's A = K / (sum K + eps) where every kernel value of a row is tiny)
// trains at half speed, its GEMMs included. Flushed, such values read and write as 0, which
// changes results only below float's smallest normal, 1.2e-38 (2.2e-308 for double).
#pragma once

namespace hm {

// Sets the mode on the calling thread and on the threads of Harmonic's OpenMP pool, as many as
// pool_width() (threads started later by these inherit it). Returns false, changing nothing, where the CPU has no
// such mode (off x86-64). Off by default in the library; the `harmonic` command turns it on.
bool set_flush_denormal(bool on);

// Whether the calling thread flushes subnormals now.
bool flush_denormal();

// The threads set_flush_denormal reaches: the larger of get_num_threads() and the core count.
int pool_width();

}  // namespace hm
