"""PCIe bandwidth of the GPU the benchmarks run on, as a reference for the transfer rows: host to
device and device to host alone, then both at once on two streams (the bus is full duplex, but
both directions share the host's memory and the root complex). Pinned host memory, 1 GiB copies.

    python3 bench/pcie.py [--mib 1024] [--reps 8]

Needs PyTorch with CUDA; prints one line per measurement.
"""
import argparse
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=int, default=1024)
    ap.add_argument("--reps", type=int, default=8)
    a = ap.parse_args()
    n = a.mib << 20
    host_up = torch.empty(n, dtype=torch.uint8, pin_memory=True)
    host_down = torch.empty(n, dtype=torch.uint8, pin_memory=True)
    dev_up = torch.empty(n, dtype=torch.uint8, device="cuda")
    dev_down = torch.empty(n, dtype=torch.uint8, device="cuda")
    s_up, s_down = torch.cuda.Stream(), torch.cuda.Stream()

    def run(up, down):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(a.reps):
            if up:
                with torch.cuda.stream(s_up):
                    dev_up.copy_(host_up, non_blocking=True)
            if down:
                with torch.cuda.stream(s_down):
                    host_down.copy_(dev_down, non_blocking=True)
        torch.cuda.synchronize()
        return n * a.reps / (time.perf_counter() - t) / 1e9

    run(True, True)  # warm-up
    print(f"pcie {torch.cuda.get_device_name()}: {a.mib} MiB x {a.reps}, pinned")
    print(f"pcie up alone {run(True, False):.1f} GB/s")
    print(f"pcie down alone {run(False, True):.1f} GB/s")
    both = run(True, True)
    print(f"pcie both at once {both:.1f} GB/s each way ({2 * both:.1f} GB/s together)")


if __name__ == "__main__":
    main()
