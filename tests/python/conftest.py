# tests/python: the tileskip package against NumPy, the CLI and its own error contract. CTest
# runs it (tests/CMakeLists.txt) with PYTHONPATH=<build>/python and TILESKIP_BINARY naming the
# command built beside it; TILESKIP_VALIDATION=1 turns on the Vulkan validation layers and
# pytest.ini makes every message they report (a DiagnosticWarning) a failure.
import os

import pytest

import tileskip


def available_backends():
    return [b["name"] for b in tileskip.backends() if b["available"]]


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("TILESKIP_BINARY")
    if not path:
        pytest.skip("TILESKIP_BINARY is not set (CTest sets it)")
    return path


def pytest_generate_tests(metafunc):
    if "backend" in metafunc.fixturenames:
        metafunc.parametrize("backend", available_backends())
