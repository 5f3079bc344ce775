"""keval run --shard I/N and keval merge: the merge of the shards is the single run, verdict
for verdict; a shard run again re-runs nothing it finished."""
import json
import sqlite3

from conftest import REPO, read_results, run_keval, shard_of

RUN = ("--suite", "suites/keval", "--device", "cpu", "--no-timing", "--quiet", "--jobs", "1")


def test_merged_shards_equal_one_run_and_a_rerun_resumes(tmp_path, submissions_file):
    subs, lines = submissions_file
    # a single run's verdicts, pinned by tests/e2e/test_examples.py
    single = json.loads((REPO / "examples" / "expected_verdicts.json").read_text())
    shards = []
    for i in range(2):
        out = tmp_path / f"shard{i}"
        run_keval("run", *RUN, "--submissions", subs, "--out", out, "--shard", f"{i}/2")
        ids = [r["id"] for r in read_results(out)]
        assert ids == [l["id"] for l in lines if shard_of(l["task"], l["code"], 2) == i]
        assert 0 < len(ids) < len(lines)
        shards.append(out)
    fingerprints = {json.loads((s / "shard.json").read_text())["submissions_sha256"] for s in shards}
    assert len(fingerprints) == 1  # keval merge tells shards of other submissions by it

    # a shard given twice (a duplicate) changes nothing
    merged = tmp_path / "merged"
    proc = run_keval("merge", *shards, shards[0], "--out", merged)
    assert "duplicate" in proc.stdout
    results = read_results(merged)
    assert [(r["id"], r["verdict"]) for r in results] == [(l["id"], single[l["id"]]) for l in lines]
    # every row as its shard wrote it, its per-call checks too
    checks = {r["id"]: r["case_checks"] for s in shards for r in read_results(s)}
    assert all(isinstance(c, list) for c in checks.values()), checks
    assert {r["id"]: r["case_checks"] for r in results} == checks
    summary = json.loads((merged / "summary.json").read_text())
    assert summary["n"] == len(lines)
    assert summary["verdict_counts"]["pass"] == sum(v == "pass" for k, v in single.items()
                                                    if k in {l["id"] for l in lines})
    with sqlite3.connect(merged / "keval.db") as db:
        assert db.execute("SELECT count(*), count(DISTINCT eval_key) FROM evaluations").fetchone() == (len(lines),) * 2
    # merging again into the same folder adds no evaluation twice
    run_keval("merge", *shards, "--out", merged)
    with sqlite3.connect(merged / "keval.db") as db:
        assert db.execute("SELECT count(*) FROM evaluations").fetchone()[0] == len(lines)

    before = {r["id"]: r["case_checks"] for r in read_results(shards[1])}
    run_keval("run", *RUN, "--submissions", subs, "--out", shards[1], "--shard", "1/2")
    assert json.loads((shards[1] / "summary.json").read_text())["resumed"] == len(read_results(shards[1]))
    assert {r["id"]: r["case_checks"] for r in read_results(shards[1])} == before  # resumed rows keep them


def fake_shard(folder, label, finished=True):
    folder.mkdir()
    (folder / "results.jsonl").write_text("")
    (folder / "shard.json").write_text(json.dumps({"shard": label}))
    if finished:
        (folder / "summary.json").write_text(json.dumps({"environment": {"device_mode": "cpu_interpreter"}}))
    return folder


def test_merge_refuses_missing_or_unfinished_shards_and_mismatched_counts(tmp_path):
    a = fake_shard(tmp_path / "a", "0/2")
    b = fake_shard(tmp_path / "b", "1/2", finished=False)
    proc = run_keval("merge", a, b, "--out", tmp_path / "m", check=False)
    assert proc.returncode == 1 and "1/2" in proc.stderr and "--partial" in proc.stderr
    run_keval("merge", a, b, "--out", tmp_path / "m", "--partial")
    c = fake_shard(tmp_path / "c", "0/3")
    proc = run_keval("merge", a, c, "--out", tmp_path / "m2", check=False)
    assert proc.returncode == 1 and "0/3" in proc.stderr
    proc = run_keval("merge", tmp_path / "nothing", "--out", tmp_path / "m3", check=False)
    assert proc.returncode == 1 and "nothing/results.jsonl" in proc.stderr
    bad = run_keval("run", *RUN, "--submissions", "examples/submissions.jsonl", "--out", tmp_path / "x",
                    "--shard", "2/2", check=False)
    assert bad.returncode == 1 and "--shard" in bad.stderr


def result_line(id_, origin):
    return {"id": id_, "hash": "hash-" + id_, "task": "relu", "verdict": "pass", "reasons": [], "origin": origin}


def shard_of_file(folder, label, submissions, lines, fingerprint="f1"):
    folder.mkdir()
    (folder / "results.jsonl").write_text("".join(json.dumps(l) + "\n" for l in lines))
    (folder / "shard.json").write_text(json.dumps({"shard": label, "submissions": submissions,
                                                   "submissions_sha256": fingerprint}))
    (folder / "summary.json").write_text(json.dumps({"environment": {"device_mode": "cpu_interpreter"}}))
    return folder


def test_merge_knows_one_file_by_any_path_and_refuses_shards_of_another(tmp_path):
    absolute = str(tmp_path / "subs.jsonl")
    relative = shard_of_file(tmp_path / "rel", "0/2", "subs.jsonl", [result_line("a", "subs.jsonl:2")])
    again = shard_of_file(tmp_path / "abs", "0/2", absolute, [result_line("a", absolute + ":2")])
    other = shard_of_file(tmp_path / "one", "1/2", absolute,
                          [result_line("b", absolute + ":1"), result_line("c", absolute + ":3")])
    proc = run_keval("merge", relative, again, other, "--out", tmp_path / "m")
    assert "1 duplicate" in proc.stdout
    assert [r["id"] for r in read_results(tmp_path / "m")] == ["b", "a", "c"]  # in the file's order
    # the folders as seen from OUT, though given by absolute paths: no path of the merging machine
    merged = json.loads((tmp_path / "m" / "summary.json").read_text())["merged"]
    assert merged["from"] == ["../rel", "../abs", "../one"], merged

    foreign = shard_of_file(tmp_path / "foreign", "1/2", "subs.jsonl", [result_line("b", "subs.jsonl:1")],
                            fingerprint="f2")
    proc = run_keval("merge", relative, foreign, "--out", tmp_path / "m2", check=False)
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "foreign: a shard of other submissions" in proc.stderr, proc.stderr
