"""Outputs written in the background: the job goes on, one write at a time, failures raised."""

import threading

import pytest
import torch

from keval_runner.handoff import output_saver
from keval_runner.handoff.output_files import load_outputs
from keval_runner.handoff.output_saver import OutputSaver


def test_saved_outputs_are_on_disk_once_waited_for(tmp_path):
    saver = OutputSaver()
    first, second = [torch.arange(6.0)], [torch.ones(2, 3, dtype=torch.bfloat16)]
    saver.save(str(tmp_path / "a.pt"), first)
    saver.save(str(tmp_path / "b.pt"), second)
    saver.wait()
    assert torch.equal(load_outputs(str(tmp_path / "a.pt"))[0], first[0])
    assert torch.equal(load_outputs(str(tmp_path / "b.pt"))[0], second[0])


def test_the_job_goes_on_while_one_write_is_in_flight(monkeypatch, tmp_path):
    release, active, most = threading.Event(), [0], [0]

    def slow_save(path, outputs, owned=False):
        active[0] += 1
        most[0] = max(most[0], active[0])
        release.wait(5)
        active[0] -= 1

    monkeypatch.setattr(output_saver, "save_outputs", slow_save)
    saver = OutputSaver()
    saver.save(str(tmp_path / "a.pt"), [])
    assert active[0] == 1  # save() came back while the write still runs
    release.set()
    saver.save(str(tmp_path / "b.pt"), [])  # waits for the first write
    saver.wait()
    assert most[0] == 1 and active[0] == 0


def test_a_failed_write_is_raised_on_the_jobs_thread(tmp_path):
    (tmp_path / "file").write_text("")
    saver = OutputSaver()
    saver.save(str(tmp_path / "file" / "under-a-file.pt"), [torch.zeros(1)])
    with pytest.raises(OSError):
        saver.wait()
    saver.wait()  # reported once
    saver.save(str(tmp_path / "file" / "again.pt"), [torch.zeros(1)])
    saver.wait(raise_error=False)  # a job already failing keeps its own error
