"""The job file as the runner reads it (arbiter_runner.job): a key outside its mode's list is refused
by name, the keys a test uses to shrink the work are taken, and the mode must be the runner's."""
import json

import pytest

from arbiter_runner import job


def write(tmp_path, content):
    path = tmp_path / "job.json"
    path.write_text(json.dumps(content))
    return path


def test_a_job_of_the_modes_keys_is_read(tmp_path):
    content = {key: None for key in job.CANDIDATE_JOB} | {"mode": "candidate", "large_case_bytes": 1}
    assert job.read_job(write(tmp_path, content), "candidate") == content


def test_a_renamed_key_is_named_with_the_modes_list(tmp_path):
    path = write(tmp_path, {"mode": "build", "device": "cpu", "solution": "/s/kernel.py"})
    with pytest.raises(ValueError, match=r"job.json: unknown key\(s\) 'solution' in a build job \(a build job has mode, "):
        job.read_job(path, "build")


def test_a_key_of_another_mode_is_refused(tmp_path):
    with pytest.raises(ValueError, match="'seeds'"):  # a reference job's seeds never reach a candidate
        job.read_job(write(tmp_path, {"mode": "candidate", "seeds": [1, 2]}), "candidate")


def test_the_mode_must_be_the_runners_and_the_job_an_object(tmp_path):
    with pytest.raises(ValueError, match="job mode 'reference' but runner mode 'candidate'"):
        job.read_job(write(tmp_path, {"mode": "reference"}), "candidate")
    with pytest.raises(ValueError, match="a job is a JSON object, not list"):
        job.read_job(write(tmp_path, [1]), "candidate")
