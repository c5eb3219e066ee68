"""Pre-norm transformer encoder blocks in eager PyTorch, as the ViT and audio peers
(bench_vit_torch.py, bench_audio_torch.py) use them: fused qkv Linear, no causal mask, no dropout,
exact GELU MLP, LayerNorm with the model's eps; attention by one of
  softmax  (q k^T / sqrt(D)).softmax(-1) @ v, the weights materialised
  sdpa     F.scaled_dot_product_attention (PyTorch's fused kernels)
  fourier  FourierFormer's kernel p sum_d log|sinc(R (q_d - k_d))| (p 4, scalar R, no 1/sqrt(D))
           over a materialised (B, H, N, N, D) difference, recomputed in the backward
           (torch.utils.checkpoint: a dozen layers of those tensors would not fit in memory)
and the training step both time: cross-entropy of the model's scores, AdamW, through
bench_torch.time_ms.
"""
import torch
import torch.nn.functional as F
import torch.utils.checkpoint
from torch import nn

import bench_torch
from peer_timing import training_step


def fourier_scores(q, k, r):
    x = r * (q.unsqueeze(3) - k.unsqueeze(2))  # (B, H, N, N, D)
    return 4 * torch.log(torch.abs(torch.sin(x) / x)).sum(-1)


class Attention(nn.Module):
    def __init__(self, dim, heads, kernel, r_init):
        super().__init__()
        self.heads, self.kernel = heads, kernel
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        if kernel == "fourier":
            self.r = nn.Parameter(torch.tensor(float(r_init)))

    def forward(self, x):
        b, n, e = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, e // self.heads).permute(2, 0, 3, 1, 4)  # (B, H, N, D)
        if self.kernel == "sdpa":
            y = F.scaled_dot_product_attention(q, k, v)
        else:
            if self.kernel == "softmax":
                att = (q @ k.transpose(-2, -1)) * (q.size(-1) ** -0.5)
            else:
                att = torch.utils.checkpoint.checkpoint(fourier_scores, q, k, self.r, use_reentrant=False)
            y = att.softmax(-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, n, e))


class Block(nn.Module):
    def __init__(self, dim, heads, mlp, kernel, eps, r_init=1.0):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim, eps=eps), nn.LayerNorm(dim, eps=eps)
        self.attn = Attention(dim, heads, kernel, r_init)
        self.fc1, self.fc2 = nn.Linear(dim, mlp), nn.Linear(mlp, dim)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


def training_step_ms(model, inputs, labels, lr, weight_decay, repeat, warmup, bf16):
    """Median ms of one step (forward, cross-entropy, zero_grad, backward, AdamW) in train mode;
    bf16: forward and loss under cuda bf16 autocast."""
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    step = training_step(opt, lambda: F.cross_entropy(model(inputs).float(), labels), bf16)
    return bench_torch.time_ms(step, repeat, warmup)
