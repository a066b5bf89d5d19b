"""Checks that a report folder written by bench/run.py is complete; shared by the scenario tests
(fake gnf) and the integration test (real gnf)."""
import json
import os
import re

from gnfbench import schema
from gnfbench.report import FIDELITY, FLOOR_LABEL


def tables(markdown):
    """{title: [rows as lists of cells]} for every '### title' followed by a Markdown table."""
    out = {}
    for section in re.split(r"^### ", markdown, flags=re.M)[1:]:
        title, _, body = section.partition("\n")
        rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in body.splitlines()
                if line.startswith("|") and not line.startswith("|---")]
        out[title.strip()] = rows
    return out


def searched_rate(cell):
    """(rate, lower bound) of a searched-rate cell: "2.906", or "≥ 2.906 (model-bound)" where the NIC
    model set the answer, "(host-loaded)" where the machine's load did, or both (a lower bound on the
    path's capacity)."""
    mark = r"(model-bound|host-loaded)( in \d+ of \d+)?"
    match = re.fullmatch(r"(≥ )?([0-9.]+)( \(%s(, %s)?\))?" % (mark, mark), cell)
    assert match and bool(match.group(1)) == bool(match.group(3)), cell
    return float(match.group(2)), bool(match.group(1))


def check_report(folder):
    """Asserts what every report must hold; returns (report.md text, report.json)."""
    with open(os.path.join(folder, "report.md")) as f:
        md = f.read()
    with open(os.path.join(folder, "report.json")) as f:
        rj = json.load(f)
    for heading in ("## Environment", "## Method", "## Fidelity", "## Results", "## Trials"):
        assert heading in md, heading
    assert FIDELITY in md
    assert "measured side by side, in the same run" in md
    for title, rows in tables(md).items():
        headers = rows[0]
        if any(unit in h for h in headers for unit in ("µs", " ns")):
            assert any(FLOOR_LABEL in cell for row in rows[1:] for cell in row), "no floor in " + title
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert images, "a report without figures"
    for image in images:
        with open(os.path.join(folder, image), "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n", image
    assert rj["trials"], "a report without trials"
    for t in rj["trials"]:
        with open(os.path.join(folder, t["json"])) as f:
            schema.validate(json.load(f))
        assert t["command"][1] == "bench"
    return md, rj
