"""The router's RFC-conformance table (tests/conformance/table.py, written out in data/): each row
through gnf on the cpu path, and on staged and bypass where there is a GPU (they skip, saying so,
where gnf says the path needs one), where it must also give the cpu path's frames byte for byte
and its counters. A row the table marks xfail is a known deviation and says why."""
import filecmp
import os
import sys

import pytest

from conftest import REPO

sys.path.insert(0, os.path.join(REPO, "tests", "conformance"))
import check  # noqa: E402

ROWS = check.load_rows()
GPU_VARIANTS = ("staged", "bypass")


def test_the_committed_data_is_what_the_table_writes(tmp_path):
    import table  # scapy: here, not on the GPU machine
    table.write(str(tmp_path))
    written, committed = sorted(os.listdir(tmp_path)), sorted(os.listdir(check.DATA))
    assert written == committed, "tests/conformance/data is stale: run tests/conformance/table.py"
    match, mismatch, errors = filecmp.cmpfiles(str(tmp_path), check.DATA, written, shallow=False)
    assert not mismatch and not errors, "stale: %s (run tests/conformance/table.py)" % (mismatch + errors)


@pytest.fixture(scope="module")
def outcomes(gnf_binary, tmp_path_factory):
    """Each (variant, row)'s outcome, run once; a variant whose first run says it needs a GPU is
    not tried again."""
    out = str(tmp_path_factory.mktemp("conformance"))
    cache, no_gpu = {}, set()

    def outcome(variant, row):
        if variant in no_gpu:
            pytest.skip("path %s needs a CUDA GPU: none here" % variant)
        key = (variant, row["name"])
        if key not in cache:
            cache[key] = check.run_row(gnf_binary, row, variant, out)
        if cache[key].error and check.NO_GPU in cache[key].error:
            no_gpu.add(variant)
            pytest.skip(cache[key].error)
        return cache[key]

    return outcome


def judge(row, outcome, baseline=None):
    word, problems = check.verdict(row, outcome, baseline)
    if word == "XFAIL":
        pytest.xfail(problems[0])
    assert word == "PASS", "%s (%s): %s\n%s" % (row["name"], row["clause"], row["what"], "\n".join(problems))


@pytest.mark.parametrize("row", ROWS, ids=[r["name"] for r in ROWS])
def test_row_on_cpu(row, outcomes):
    judge(row, outcomes("cpu", row))


@pytest.mark.parametrize("variant", GPU_VARIANTS)
@pytest.mark.parametrize("row", ROWS, ids=[r["name"] for r in ROWS])
def test_row_on_gpu_path_as_on_cpu(row, variant, outcomes):
    outcome = outcomes(variant, row)
    judge(row, outcome, outcomes("cpu", row))
