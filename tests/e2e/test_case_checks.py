"""Per-case correctness in results.jsonl (`case_checks`) and in the report: a relu wrong only on
the suite's listed odd shape (37x1001) fails that case on every dtype and seed, and passes the
other listed case and the held-out shapes drawn for the run. The lines come from keval's judge;
the report shows them, and `keval rejudge` judges them again with the verdict."""
import json

import pytest

from conftest import read_results, run_keval

# A correct relu, except that on a (37, 1001) input its kernel adds 1 to every element it keeps.
WRONG_ON_ODD = '''
import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BUMP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.maximum(x, 0.0)
    if BUMP:
        y = y + 1.0
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def relu(x):
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BUMP=tuple(x.shape) == (37, 1001), BLOCK=1024)
    return y
'''
FAILING = "odd_37x1001"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("case_checks")
    subs = root / "subs.jsonl"
    subs.write_text(json.dumps({"task": "relu", "id": "wrong_on_odd", "code": WRONG_ON_ODD}) + "\n")
    out = root / "out"
    run_keval("run", "--suite", "suites/keval", "--submissions", subs, "--out", out, "--device", "cpu",
              "--no-timing", "--jobs", "1", "--quiet")
    [result] = read_results(out)
    return root, out, result


def test_results_name_the_one_failing_case_and_pass_the_others(run):
    _, _, result = run
    assert result["verdict"] == "mismatch", result["reasons"]
    checks = result["case_checks"]
    names = {c["case"] for c in checks}
    assert FAILING in names and "outliers_64x129" in names
    assert any(name.startswith("held_out_") for name in names), names
    # every dtype and seed the judge checked: three dtypes, two seeds each, per case
    for name in names:
        calls = [(c["dtype"], c["seed"]) for c in checks if c["case"] == name]
        assert len(set(calls)) == len(calls) >= 2, (name, calls)
    for check in checks:
        if check["case"] == FAILING:
            assert check["result"] == "mismatch" and check["shapes"] == [[37, 1001]], check
            assert "elements outside tolerance" in check["reason"] and check["max_abs_err"] >= 1, check
            assert not check["reason"].startswith("case "), "the line names its call itself"
        else:
            assert check["result"] == "pass" and check["reason"] is None, check
    # the verdict's first reason is about a call the checks name failing
    assert result["reasons"][0].startswith(f"case {FAILING} ")


def test_the_report_shows_the_failing_case_among_the_passing_ones(run):
    root, out, result = run
    page = root / "report.html"
    run_keval("report", out, "--out", page)
    text = page.read_text()
    cases = {c["case"] for c in result["case_checks"]}
    summary = f"{len(cases) - 1}/{len(cases)} cases; fails {FAILING}"
    row = text.split('id="submissions"', 1)[1].split("</table>", 1)[0]
    assert summary in row, row
    section = text.split('class="checks"', 1)[1].split("</details>", 1)[0]
    assert f"({len(result['case_checks']) - 6} of {len(result['case_checks'])} calls pass)" in section
    assert section.count("v-fail") == 6 and "outliers_64x129" in section
    assert f"{summary}" in page.with_suffix(".md").read_text()


def test_rejudge_judges_the_cases_again_with_the_verdict(run):
    root, out, result = run
    into = root / "rejudged"
    run_keval("rejudge", out, "--tolerance-scale", "2", "--into", into, "--quiet")
    [again] = read_results(into)
    assert again["verdict"] == "mismatch"
    assert [(c["case"], c["result"]) for c in again["case_checks"]] == \
        [(c["case"], c["result"]) for c in result["case_checks"]]
