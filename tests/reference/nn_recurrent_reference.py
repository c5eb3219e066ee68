# Reference numbers for tests/nn/test_nn_recurrent.cpp (torch 1.13, float64): /usr/bin/python3 tests/reference/nn_recurrent_reference.py
import torch
torch.set_printoptions(precision=8)
def lit(n, shape, mul, mod, off):  # literal pattern: ((k*mul) % mod) * 0.1 - off
    return torch.tensor([((k * mul) % mod) * 0.1 - off for k in range(n)], dtype=torch.float64).reshape(shape)
m = torch.nn.LSTM(3, 2).double()
with torch.no_grad():
    m.weight_ih_l0.copy_(lit(24, (8, 3), 7, 11, 0.5))
    m.weight_hh_l0.copy_(lit(16, (8, 2), 5, 9, 0.4))
    m.bias_ih_l0.copy_(lit(8, (8,), 3, 7, 0.3))
    m.bias_hh_l0.copy_(lit(8, (8,), 2, 5, 0.2))
x = lit(12, (2, 2, 3), 4, 13, 0.6)     # (T=2, B=2, in=3)
h0 = lit(4, (1, 2, 2), 3, 5, 0.2)
c0 = lit(4, (1, 2, 2), 2, 7, 0.3)
out, (hn, cn) = m(x, (h0, c0))
print("out", out.flatten().tolist()); print("hn", hn.flatten().tolist()); print("cn", cn.flatten().tolist())
(out.sum() + cn.sum()).backward()
print("gW_hh", m.weight_hh_l0.grad.flatten().tolist())
# one LSTMCell step = first step of the sequence
cell = torch.nn.LSTMCell(3, 2).double()
with torch.no_grad():
    cell.weight_ih.copy_(m.weight_ih_l0); cell.weight_hh.copy_(m.weight_hh_l0); cell.bias_ih.copy_(m.bias_ih_l0); cell.bias_hh.copy_(m.bias_hh_l0)
h1, c1 = cell(x[0], (h0[0], c0[0]))
print("cell h", h1.flatten().tolist()); print("cell c", c1.flatten().tolist())
g = torch.nn.GRU(3, 2).double()
with torch.no_grad():
    g.weight_ih_l0.copy_(lit(18, (6, 3), 7, 11, 0.5)); g.weight_hh_l0.copy_(lit(12, (6, 2), 5, 9, 0.4))
    g.bias_ih_l0.copy_(lit(6, (6,), 3, 7, 0.3)); g.bias_hh_l0.copy_(lit(6, (6,), 2, 5, 0.2))
go, gh = g(x, h0)
print("gru out", go.flatten().tolist())
r = torch.nn.RNN(3, 2).double()
with torch.no_grad():
    r.weight_ih_l0.copy_(lit(6, (2, 3), 7, 11, 0.5)); r.weight_hh_l0.copy_(lit(4, (2, 2), 5, 9, 0.4))
    r.bias_ih_l0.copy_(lit(2, (2,), 3, 7, 0.3)); r.bias_hh_l0.copy_(lit(2, (2,), 2, 5, 0.2))
ro, rh = r(x, h0)
print("rnn out", ro.flatten().tolist())
