"""Where a run's time went: mean seconds per job and phase over a results.jsonl (its
`job_seconds`), each job's largest peak memory, and how the timed cases' sampling stopped,
to read after a GPU run (issue 4).

    python bench/job_seconds.py OUT/results.jsonl [--verdict pass]
"""

import argparse
import collections
import json
import statistics
import sys

LARGE_IO_BYTES = 64 * 2**20

def summarize(results: list) -> dict:
    """{job: {"n", "wall_s", "lease_wait_s", "phases": {name: mean seconds}, "peak_host_bytes",
    "peak_gpu_bytes" (keval's own process, the warden: the largest over the results),
    "peak_guest_gpu_bytes" (the guest's own figure, the submission's word), "peak_gpu_task" (the
    task of the largest of either), "gpu_over_io" (the largest ratio of the
    GPU bytes its processes held at their peaks to one call's inputs and outputs; 0 without
    io_bytes), "keval_over_io" (the same of keval's own process alone, the warden, whose GPU
    memory the 2x rule of issue 19 bounds: the guest's is the submission's own; over calls of
    LARGE_IO_BYTES or more, where the allocator's 2 MiB blocks do not decide it)}} over the
    results."""
    totals = collections.defaultdict(lambda: {"n": 0, "wall_s": 0.0, "lease_wait_s": 0.0,
                                              "phases": collections.Counter(),
                                              "peak_host_bytes": 0, "peak_gpu_bytes": 0,
                                              "peak_guest_gpu_bytes": 0, "peak_gpu_task": None,
                                              "gpu_over_io": 0.0, "keval_over_io": 0.0})
    for result in results:
        for job, seconds in (result.get("job_seconds") or {}).items():
            entry = totals[job]
            entry["n"] += 1
            entry["wall_s"] += seconds.get("wall_s") or 0.0
            entry["lease_wait_s"] += seconds.get("lease_wait_s") or 0.0
            entry["phases"].update({k: v for k, v in (seconds.get("phases") or {}).items()
                                    if isinstance(v, (int, float))})
            peak = seconds.get("peak_memory") or {}
            entry["peak_host_bytes"] = max(entry["peak_host_bytes"], peak.get("host_bytes") or 0)
            own, guest = peak.get("gpu_bytes") or 0, peak.get("guest_gpu_bytes") or 0
            if max(own, guest) > max(entry["peak_gpu_bytes"], entry["peak_guest_gpu_bytes"]):
                entry["peak_gpu_task"] = result.get("task")
            entry["peak_gpu_bytes"] = max(entry["peak_gpu_bytes"], own)
            entry["peak_guest_gpu_bytes"] = max(entry["peak_guest_gpu_bytes"], guest)
            if peak.get("io_bytes"):  # both processes' peaks at once: an upper bound of what it held
                held = (peak.get("gpu_bytes") or 0) + (peak.get("guest_gpu_bytes") or 0)
                entry["gpu_over_io"] = max(entry["gpu_over_io"], held / peak["io_bytes"])
                if peak["io_bytes"] >= LARGE_IO_BYTES:
                    entry["keval_over_io"] = max(entry["keval_over_io"], (peak.get("gpu_bytes") or 0) / peak["io_bytes"])
    out = {}
    for job, entry in totals.items():
        n = entry["n"]
        out[job] = {"n": n, "wall_s": entry["wall_s"] / n, "lease_wait_s": entry["lease_wait_s"] / n,
                    "phases": {k: v / n for k, v in entry["phases"].most_common()},
                    "peak_host_bytes": entry["peak_host_bytes"], "peak_gpu_bytes": entry["peak_gpu_bytes"],
                    "peak_guest_gpu_bytes": entry["peak_guest_gpu_bytes"], "peak_gpu_task": entry["peak_gpu_task"],
                    "gpu_over_io": entry["gpu_over_io"], "keval_over_io": entry["keval_over_io"]}
    return out


def largest_memory_ratios(results: list, most: int = 8, job: str = "candidate") -> list:
    """(ratio, task, held MiB, io MiB) of the `job` jobs whose warden held the most GPU memory
    over one call's inputs and outputs as the candidate job counted them (calls of
    LARGE_IO_BYTES or more), largest first. A timing job holds several input sets a case
    (each contender's rotation) and several cases a batch, against that one call."""
    rows = []
    for result in results:
        jobs = result.get("job_seconds") or {}
        io = (((jobs.get("candidate") or {}).get("peak_memory")) or {}).get("io_bytes") or 0
        held = (((jobs.get(job) or {}).get("peak_memory")) or {}).get("gpu_bytes") or 0
        if io >= LARGE_IO_BYTES and held:
            rows.append((held / io, result.get("task", "?"), held / 2**20, io / 2**20))
    largest = {}  # each task once, at its largest ratio
    for row in sorted(rows, reverse=True):
        largest.setdefault(row[1], row)
    return list(largest.values())[:most]


def sampling(results: list) -> dict:
    """How the timed cases' sampling stopped, by the baseline's median time (under 50 us: where
    the spread rule of run_settings.h moves): {band: {"cases", "median_samples" (the
    candidate's), "median_ref_samples", "stopped" ({reason: cases})}}."""
    bands = {}
    for result in results:
        for case in result.get("cases") or []:
            if not case.get("samples") or not case.get("ref_time_ms"):
                continue
            band = "under 50 us" if case["ref_time_ms"] < 0.05 else "50 us or more"
            entry = bands.setdefault(band, {"samples": [], "ref_samples": [], "stopped": collections.Counter()})
            entry["samples"].append(case["samples"])
            entry["ref_samples"].append(case.get("ref_samples") or 0)
            entry["stopped"][case.get("stop_reason") or "?"] += 1
    return {band: {"cases": len(e["samples"]), "median_samples": statistics.median(e["samples"]),
                   "median_ref_samples": statistics.median(e["ref_samples"]), "stopped": dict(e["stopped"])}
            for band, e in sorted(bands.items())}


def sampling_rounds(results: list) -> int:
    """Rounds of the timing loop over the timed cases: the larger of the candidate's and its
    first baseline's sample counts, case by case (alike since they sample in turns)."""
    return sum(max(case.get("samples") or 0, case.get("ref_samples") or 0)
               for result in results for case in result.get("cases") or [] if case.get("time_ms"))


def round_breakdown(phases: dict, n: int, rounds: int) -> dict:
    """Mean ms a round of samples spent in each part of the timing loop (its phases, summed over
    n jobs): the candidate's sample (on CUDA a round trip to the guest: the guest's sampling, its
    snapshot check before replying, the rest the channel and the warden's side; on the CPU the
    warden's preparing, round trip and check), the
    baselines', the loop's reads between samples (SM clock, stopping rule) and the L2 resets."""
    def per_round(name):
        return phases.get(name, 0.0) * n / rounds * 1e3

    candidate, guest, check = per_round("sample_candidate"), per_round("guest_sample"), per_round("guest_check")
    return {"candidate": candidate, "guest sampling": guest, "guest check": check,
            "channel and warden": candidate - guest - check, "baselines": per_round("sample_baselines"),
            "loop reads": per_round("sample_record"), "L2 resets": per_round("sample_l2"),
            # on the CPU the warden times each side itself (warden_timed_candidate.py): its
            # fresh set drawn and written, the round trip up to the process stopped, the check
            "candidate prepare": per_round("candidate_prepare"),
            "candidate round trip": per_round("candidate_round_trip"),
            "candidate check": per_round("candidate_check"),
            "baseline round trip": per_round("baseline_round_trip")}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("--verdict", help="only results with this verdict")
    args = parser.parse_args(argv)
    with open(args.results) as f:
        results = [json.loads(line) for line in f if line.strip()]
    if args.verdict:
        results = [r for r in results if r.get("verdict") == args.verdict]
    print(f"{len(results)} results from {args.results}")
    for job, entry in summarize(results).items():
        phases = ", ".join(f"{name} {seconds:.2f}" for name, seconds in entry["phases"].items())
        print(f"{job:10s} n={entry['n']:<4d} wall {entry['wall_s']:.2f} s, waited for the device "
              f"{entry['lease_wait_s']:.2f} s; phases: {phases}; largest peak: host "
              f"{entry['peak_host_bytes'] / 2**20:.0f} MiB, GPU keval's {entry['peak_gpu_bytes'] / 2**20:.0f} MiB, "
              f"the guest's {entry['peak_guest_gpu_bytes'] / 2**20:.0f} MiB (largest: {entry['peak_gpu_task']})"
              + (f"; GPU held over one call's inputs and outputs, at most {entry['gpu_over_io']:.2f}x"
                 if entry["gpu_over_io"] else "")
              + (f"; keval's own over calls of 64 MiB or more, at most {entry['keval_over_io']:.2f}x"
                 if entry["keval_over_io"] else ""))
        alone = entry["phases"].get("alone", 0.0) * entry["n"]
        if alone:  # the other jobs wait meanwhile: the run's rate can be no better than this
            rounds = sampling_rounds(results)
            print(f"{'':10s} alone with the GPU: {alone:.1f} s in all"
                  + (f", {alone / rounds * 1e3:.2f} ms a round of samples ({rounds} rounds: the candidate's "
                     f"and its first baseline's, warm-ups and cover fits included)" if rounds else ""))
            if rounds and "sample_candidate" in entry["phases"]:
                parts = round_breakdown(entry["phases"], entry["n"], rounds)
                print(f"{'':10s} a round, ms: " + ", ".join(f"{name} {ms:.3f}" for name, ms in parts.items()))
    for band, entry in sampling(results).items():
        stopped = ", ".join(f"{reason} {count}" for reason, count in sorted(entry["stopped"].items()))
        print(f"sampling  {band}: {entry['cases']} timed cases, median samples {entry['median_samples']:g} "
              f"(candidate), {entry['median_ref_samples']:g} (baseline); the candidate stopped by {stopped}")
    for job in ("candidate", "timing"):
        for ratio, task, held, io in largest_memory_ratios(results, job=job):
            print(f"memory    {job} {task}: keval's own GPU {held:.0f} MiB over a call's {io:.0f} MiB, {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
