import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pytest_addoption(parser):
    parser.addoption("--gso-tool", default=os.path.join(REPO, "build", "tests", "gso_segment_tool"),
                     help="the gso_segment_tool binary (tests/oracle/gso_segment_tool.cpp)")


@pytest.fixture(scope="session")
def gso_tool(request):
    path = request.config.getoption("--gso-tool")
    if not os.access(path, os.X_OK):
        pytest.fail("no gso_segment_tool at %s: build it (ninja -C build gso_segment_tool)" % path, pytrace=False)
    return path
