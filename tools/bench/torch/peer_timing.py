"""What the PyTorch peer benchmarks of whole training steps share: the timing options of their
command lines, the device set-up (TF32 off on a GPU, so float32 there is float32 as in
Harmonic) and the median time of one step with the device synchronised around it."""
import statistics
import time

import torch


def add_timing_args(ap, repeat, warmup=1, repeat_flags=("--repeat",)):
    """--threads, the repeat flags (timed steps), --warmup and --device on the parser ap."""
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument(*repeat_flags, dest="repeat", type=int, default=repeat, help="timed steps (the median is printed)")
    ap.add_argument("--warmup", type=int, default=warmup)
    ap.add_argument("--device", default="cpu", help="cpu or cuda (cuda:0)")


def set_up_device(device, threads):
    """Sets torch's threads and turns TF32 off on a GPU; returns where the steps run: the GPU's
    name, or "threads=N"."""
    torch.set_num_threads(threads)
    if device == "cpu":
        return f"threads={threads}"
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return torch.cuda.get_device_name()


def training_step(opt, loss_of, bf16=False):
    """The step to time: loss_of() (under cuda bf16 autocast when bf16), zero_grad, backward and
    opt.step()."""
    def step():
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=bf16):
            loss = loss_of()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return step


def median_step_ms(step, warmup, repeat, device):
    """Median milliseconds of step() over `repeat` timed calls after `warmup` untimed ones, the
    device synchronised after each."""
    sync = torch.cuda.synchronize if device != "cpu" else (lambda: None)
    for _ in range(warmup):
        step()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        step()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3
