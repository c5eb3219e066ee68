# Reference numbers for tests/optim/test_optim.cpp (PyTorch 1.13, float64): python3 tests/reference/optim_reference.py
import torch
torch.set_printoptions(precision=17)
p0 = [0.5, -1.0, 2.0, 0.25]
grads = [[0.1, -0.2, 0.3, 0.4], [-0.5, 0.25, 0.05, 0.2], [0.3, 0.1, -0.4, -0.1]]
def run(cls, **kw):
    p = torch.tensor(p0, dtype=torch.float64, requires_grad=True)
    opt = cls([p], **kw)
    out = []
    for g in grads:
        p.grad = torch.tensor(g, dtype=torch.float64)
        opt.step()
        out.append(p.detach().tolist())
    return out
cases = [
 ("sgd_plain", torch.optim.SGD, dict(lr=0.1)),
 ("sgd_momentum_wd", torch.optim.SGD, dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)),
 ("sgd_nesterov", torch.optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.05)),
 ("adam", torch.optim.Adam, dict(lr=0.1)),
 ("adam_wd_amsgrad", torch.optim.Adam, dict(lr=0.1, betas=(0.8, 0.9), weight_decay=0.1, amsgrad=True)),
 ("adamw", torch.optim.AdamW, dict(lr=0.1, betas=(0.8, 0.9), weight_decay=0.1)),
 ("adamw_amsgrad", torch.optim.AdamW, dict(lr=0.1, weight_decay=0.5, amsgrad=True, eps=1e-3)),
]
for name, cls, kw in cases:
    print(name, kw)
    for row in run(cls, **kw):
        print("  {" + ", ".join(repr(x) for x in row) + "},")
# clip_grad_norm_
for nt in [2.0, 1.0, float('inf')]:
    a = torch.zeros(2, 2, dtype=torch.float64, requires_grad=True); b = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    a.grad = torch.tensor([[3.0, -4.0], [1.0, 2.0]], dtype=torch.float64); b.grad = torch.tensor([0.5, -2.0, 1.5], dtype=torch.float64)
    tot = torch.nn.utils.clip_grad_norm_([a, b], 2.0, norm_type=nt)
    print("clip", nt, repr(tot.item()), a.grad.flatten().tolist(), b.grad.tolist())
