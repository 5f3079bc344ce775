"""Can the warden clock a guest's CUDA call from its own process? (issue 40's CUDA design)

Two guest processes each enqueue their call behind a gate (a stream wait on a flag in the
warden's memory) and end it with a write of a `done` flag; only then does the warden write the
fresh inputs, flush L2, record its start event, open the gate, wait for `done` on its own
stream and record its end event, then copy the guest's outputs. Prints, per size: the null
call's round trip through the two contexts, relu timed this way (less the null median) beside
the same relu timed by events in the warden's own process and by the guest's own events, the
A/A ratio of the two guests, and what a guest gets by writing `done` before its work.

Run on a GPU machine: python3 bench/warden_cuda_clock.py [--samples N]
"""

import argparse
import ctypes
import statistics
import time

import torch
import torch.multiprocessing as mp

WAIT_GEQ = 0
L2_FLUSH_BYTES = 256 << 20


def _driver():
    cu = ctypes.CDLL("libcuda.so.1")
    for name in ("cuStreamWaitValue32_v2", "cuStreamWriteValue32_v2"):
        getattr(cu, name).argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint]
    return cu


def _wait_value(cu, stream, address, value):
    rc = cu.cuStreamWaitValue32_v2(ctypes.c_void_p(stream.cuda_stream), address, value, WAIT_GEQ)
    if rc:
        raise RuntimeError(f"cuStreamWaitValue32 failed: CUresult {rc}")


def _write_value(cu, stream, address, value):
    rc = cu.cuStreamWriteValue32_v2(ctypes.c_void_p(stream.cuda_stream), address, value, 0)
    if rc:
        raise RuntimeError(f"cuStreamWriteValue32 failed: CUresult {rc}")


def guest(conn):
    torch.cuda.set_device(0)
    cu = _driver()
    flags, x = conn.recv()
    y = torch.empty_like(x)
    conn.send(y)
    stream = torch.cuda.current_stream()
    gate, done = flags.data_ptr(), flags.data_ptr() + 4
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    last = None
    while True:
        message = conn.recv()
        if message is None:
            return
        kind, n, size, spin_cycles = message
        # the previous sample's own event time (the warden has synchronized on it since)
        own_ms = start.elapsed_time(end) if last == "call" and size else None
        _wait_value(cu, stream, gate, n)
        if kind == "early":
            _write_value(cu, stream, done, n)
        start.record()
        if spin_cycles:
            torch.cuda._sleep(spin_cycles)
        if size:
            torch.clamp(x[:size], min=0, out=y[:size])
        end.record()
        if kind != "early":
            _write_value(cu, stream, done, n)
        last = kind
        conn.send(own_ms)


class Warden:
    def __init__(self, max_size, guests=2):
        self.cu = _driver()
        ctx = mp.get_context("spawn")
        self.x = torch.empty(max_size, device="cuda")
        self.staging = [torch.randn(max_size, device="cuda") for _ in range(2)]
        self.flush = torch.empty(L2_FLUSH_BYTES // 4, device="cuda")
        self.snapshot = torch.empty(max_size, device="cuda")
        self.stream = torch.cuda.current_stream()
        self.start, self.end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        self.guests, self.n = [], 0
        for _ in range(guests):
            ours, theirs = ctx.Pipe()
            process = ctx.Process(target=guest, args=(theirs,), daemon=True)
            process.start()
            flags = torch.zeros(2, dtype=torch.int32, device="cuda")
            ours.send((flags, self.x))
            y = ours.recv()
            self.guests.append((ours, flags, y, process))

    def sample(self, which, kind="call", size=0, spin_cycles=0):
        conn, flags, y, _ = self.guests[which]
        self.n += 1
        started = time.perf_counter()
        conn.send((kind, self.n, size, spin_cycles))
        own_ms = conn.recv()
        answered = time.perf_counter()
        inputs = self.staging[self.n % 2]
        if size:
            self.x[:size].copy_(inputs[:size])
        self.flush.zero_()
        self.start.record()
        _write_value(self.cu, self.stream, flags.data_ptr(), self.n)
        _wait_value(self.cu, self.stream, flags.data_ptr() + 4, self.n)
        self.end.record()
        if size:
            self.snapshot[:size].copy_(y[:size])
        self.end.synchronize()
        wall = time.perf_counter() - started
        right = bool(torch.equal(self.snapshot[:size], torch.relu(inputs[:size]))) if size else True
        return self.start.elapsed_time(self.end), own_ms, right, wall, answered - started

    def in_process(self, size):
        inputs = self.staging[0][:size]
        out = torch.empty_like(inputs)
        self.flush.zero_()
        self.start.record()
        torch.clamp(inputs, min=0, out=out)
        self.end.record()
        self.end.synchronize()
        return self.start.elapsed_time(self.end)

    def close(self):
        for conn, _, _, process in self.guests:
            conn.send(None)
            process.join(10)


def _median_us(values):
    return 1000 * statistics.median(values)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=60)
    args = parser.parse_args()
    sizes = [1 << 12, 1 << 18, 1 << 22, 1 << 24, 1 << 26]
    warden = Warden(max(sizes))
    for which in (0, 1):
        for _ in range(5):
            warden.sample(which, size=1 << 12)
    null = [warden.sample(k % 2)[0] for k in range(4 * args.samples)]
    walls = [warden.sample(k % 2)[3] for k in range(args.samples)]
    q = statistics.quantiles(null, n=20)
    overhead = statistics.median(null)
    print(f"null call: median {_median_us(null):.1f} us, p5 {1000 * q[0]:.1f}, p95 {1000 * q[-1]:.1f}, "
          f"max {1000 * max(null):.1f}; wall per sample {_median_us(walls):.0f} us")
    print("size        warden-us  in-proc-us  guest-ev-us  aa(g1/g2)  p95/med  right")
    for size in sizes:
        rows = {0: [], 1: []}
        owns, rights = [], []
        for k in range(2 * args.samples):
            ms, own, right, _, _ = warden.sample(k % 2, size=size)
            rows[k % 2].append(ms - overhead)
            rights.append(right)
            if own is not None:
                owns.append(own)
        both = rows[0] + rows[1]
        direct = [warden.in_process(size) for _ in range(args.samples)]
        spread = statistics.quantiles(both, n=20)[-1] / statistics.median(both)
        print(f"{size:<10}  {_median_us(both):9.1f}  {_median_us(direct):10.1f}  {_median_us(owns):11.1f}"
              f"  {statistics.median(rows[0]) / statistics.median(rows[1]):9.4f}  {spread:7.3f}  {all(rights)}")
    for spin in (0, 200_000, 4_000_000):
        cheats = [warden.sample(0, kind="early", size=1 << 26, spin_cycles=spin) for _ in range(10)]
        print(f"done written before the work (spin {spin} cycles, then relu 64M): warden "
              f"{_median_us([c[0] for c in cheats]) - 1000 * overhead:.1f} us, outputs right in "
              f"{sum(c[2] for c in cheats)}/10")
    honest = [warden.sample(0, size=1 << 26, spin_cycles=4_000_000) for _ in range(10)]
    print(f"honest spin 4M cycles + relu 64M: warden {_median_us([c[0] for c in honest]) - 1000 * overhead:.1f} us, "
          f"right {sum(c[2] for c in honest)}/10")
    warden.close()


if __name__ == "__main__":
    main()
