"""Which primitive orders two processes' CUDA streams on this machine? (the warden's CUDA clock)

Session 27 found that stream waits on words in device memory (cuStreamWaitValue32) never
complete when the word is written by another process's context (no MPS), though they do
between two streams of one process. Each primitive below times a call that does nothing,
ordered across a warden process and a guest process as the warden's clock would order it, in
a subprocess of its own with a time limit, and prints one line: its round trip (median, p95),
or that it hung or failed.

  stream-wait        the gate and done words, as warden_gpu_clock.py does
  stream-wait-flush  the same with CU_STREAM_WAIT_VALUE_FLUSH on every wait
  ipc-events         inter-process events: the warden's stream waits on a word in pinned host
                     memory its host sets once the guest has answered, then records the gate
                     event the guest's stream waits on; the guest records a done event the
                     warden's stream waits on
  ipc-events-uid     the same with the guest under another uid (as keval's sandbox runs it)
  host-words         the clock's words in a page of host memory both processes map and register
                     (clock_words.py): the warden's host opens the gate once its start event has
                     run and spins on `done` before recording its end event (KEVAL_CLOCK_GATE=host)
  host-words-uid     the same with the guest under another uid
  host-words-stopped the same, the guest stopped (SIGSTOP) once it has answered and resumed once
                     `done` has come, as the warden stopped it before its clock moved the stop
                     after `done` (a driver thread of the guest may be needed past the gate)
  host-words-call    host-words with a kernel between the guest's wait and its `done`
  host-words-stopped-call  the same, the guest stopped once it has answered
  host-words-stream  the same page, the warden's stream writing the gate after its start event
                     and waiting for `done` before its end event (KEVAL_CLOCK_GATE=stream)

Run on a GPU machine, as root for the uid ones: python3 bench/cross_process_sync.py [--samples N]
"""

import argparse
import ctypes
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runner"))

PRIMITIVES = ["host-words", "host-words-uid", "host-words-stopped", "host-words-call", "host-words-stopped-call", "host-words-stream",
              "stream-wait", "stream-wait-flush", "ipc-events", "ipc-events-uid"]
FLUSH = 1 << 30
GUEST_UID = 61000


def _driver():
    cu = ctypes.CDLL("libcuda.so.1")
    for name in ("cuStreamWaitValue32_v2", "cuStreamWriteValue32_v2"):
        getattr(cu, name).argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint]
    return cu


def _wait(cu, stream, address, value, flags=0):
    rc = cu.cuStreamWaitValue32_v2(ctypes.c_void_p(stream.cuda_stream), address, value, flags)
    if rc:
        raise RuntimeError(f"cuStreamWaitValue32: CUresult {rc}")


def _write(cu, stream, address, value):
    rc = cu.cuStreamWriteValue32_v2(ctypes.c_void_p(stream.cuda_stream), address, value, 0)
    if rc:
        raise RuntimeError(f"cuStreamWriteValue32: CUresult {rc}")


def guest(conn, primitive):
    if primitive.endswith("-uid"):
        os.setgid(GUEST_UID)
        os.setuid(GUEST_UID)
    import torch
    torch.cuda.set_device(0)
    cu = _driver()
    stream = torch.cuda.current_stream()
    shared = conn.recv()
    if primitive.startswith("host-words"):
        from keval_runner.device.clock_words import ClockWords
        torch.zeros(1, device="cuda")
        from multiprocessing.reduction import recv_handle
        page = ClockWords(recv_handle(conn))
        address = page.register()
        flags = 0
        scratch = torch.zeros(1 << 20, device="cuda")
        scratch.add_(1)  # its kernel loaded now: a lazy load behind the gate waits for the stream
        torch.cuda.synchronize()
    elif primitive.startswith("ipc-events"):
        gate = torch.cuda.Event.from_ipc_handle(torch.cuda.current_device(), shared["gate"])
        done = torch.cuda.Event.from_ipc_handle(torch.cuda.current_device(), shared["done"])
    else:
        words = shared["words"]
        flags = FLUSH if primitive.endswith("flush") else 0
    conn.send("ready")
    while True:
        n = conn.recv()
        if n is None:
            return
        if primitive.startswith("ipc-events"):
            stream.wait_event(gate)
            done.record(stream)
        elif primitive.startswith("host-words"):
            _wait(cu, stream, address, n, flags)
            if primitive.endswith("-call"):
                scratch.add_(1)
            _write(cu, stream, address + 4, n)
        else:
            _wait(cu, stream, words.data_ptr(), n, flags)
            _write(cu, stream, words.data_ptr() + 4, n)
        conn.send(n)


def warden(primitive: str, samples: int) -> None:
    import torch
    import torch.multiprocessing as mp
    ctx = mp.get_context("spawn")
    ours, theirs = ctx.Pipe()
    process = ctx.Process(target=guest, args=(theirs, primitive), daemon=True)
    process.start()
    torch.cuda.set_device(0)
    cu = _driver()
    stream = torch.cuda.current_stream()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    if primitive.startswith("host-words"):
        from multiprocessing.reduction import send_handle
        from keval_runner.device.clock_words import DONE, GATE, ClockWords
        torch.zeros(1, device="cuda")
        page = ClockWords()
        address = page.register()
        ours.send({"page": "follows"})
        send_handle(ours, page.fd, process.pid)
    elif primitive.startswith("ipc-events"):
        gate = torch.cuda.Event(interprocess=True, enable_timing=False)
        done = torch.cuda.Event(interprocess=True, enable_timing=False)
        host_word = torch.zeros(1, dtype=torch.int32, pin_memory=True)  # mapped: UVA
        ours.send({"gate": gate.ipc_handle(), "done": done.ipc_handle()})
    else:
        words = torch.zeros(2, dtype=torch.int32, device="cuda")
        ours.send({"words": words})
        flags = FLUSH if primitive.endswith("flush") else 0
    assert ours.recv() == "ready"
    times = []
    for n in range(1, samples + 1):
        if primitive == "host-words-stream":
            ours.send(n)
            assert ours.recv() == n
            start.record(stream)
            _write(cu, stream, address, n)
            _wait(cu, stream, address + 4, n)
            end.record(stream)
        elif primitive.startswith("host-words"):
            ours.send(n)
            assert ours.recv() == n
            if "-stopped" in primitive:
                os.kill(process.pid, signal.SIGSTOP)
                os.waitpid(process.pid, os.WUNTRACED)  # every thread of it stopped
            start.record(stream)
            start.synchronize()
            page.set(GATE, n)
            deadline = time.monotonic() + 20
            while not page.reached(DONE, n):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"done {n} never came: words {page.read()}")
            end.record(stream)
            if "-stopped" in primitive:
                os.kill(process.pid, signal.SIGCONT)
        elif primitive.startswith("ipc-events"):
            _wait(cu, stream, host_word.data_ptr(), n)  # held until the guest has answered
            start.record(stream)
            gate.record(stream)
            ours.send(n)
            assert ours.recv() == n
            host_word[0] = n
            stream.wait_event(done)
            end.record(stream)
        else:
            ours.send(n)
            assert ours.recv() == n
            start.record(stream)
            _write(cu, stream, words.data_ptr(), n)
            _wait(cu, stream, words.data_ptr() + 4, n, flags)
            end.record(stream)
        end.synchronize()
        times.append(1000 * start.elapsed_time(end))
    ours.send(None)
    process.join(10)
    q = statistics.quantiles(times, n=20)
    print(f"{primitive:18} works: null round trip median {statistics.median(times):.1f} us, "
          f"p5 {q[0]:.1f}, p95 {q[-1]:.1f}, max {max(times):.1f} ({samples} calls)", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--limit-s", type=float, default=30)
    parser.add_argument("--only", help="comma-separated primitives (default: all)")
    parser.add_argument("--primitive", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.primitive:
        warden(args.primitive, args.samples)
        return 0
    print(f"MPS control daemon: {shutil.which('nvidia-cuda-mps-control') or 'not on the PATH'}")
    chosen = args.only.split(",") if args.only else PRIMITIVES
    unknown = sorted(set(chosen) - set(PRIMITIVES))
    if unknown:
        parser.error(f"--only: unknown primitive {unknown[0]!r} (one of {', '.join(PRIMITIVES)})")
    for primitive in chosen:
        started = time.monotonic()
        try:
            done = subprocess.run([sys.executable, __file__, "--primitive", primitive, "--samples", str(args.samples)],
                                  capture_output=True, text=True, timeout=args.limit_s)
        except subprocess.TimeoutExpired:
            print(f"{primitive:18} hung: no answer within {args.limit_s:.0f} s", flush=True)
            continue
        if done.returncode == 0:
            print(done.stdout.strip(), flush=True)
        else:
            last = (done.stderr.strip().splitlines() or ["?"])[-1]
            print(f"{primitive:18} failed after {time.monotonic() - started:.1f} s: {last[:300]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
