# SPDX-License-Identifier: GPL-2.0-or-later
# The bundled example profiled by the tool from the build tree, for the
# end-to-end tests of the analysis commands.
#
# Copyright (C) 2026, the aprof-trms authors.
"""profile_example(tmp_path) runs tests/example/workload 200 under the tool
of the build tree (APROF_VG_IN_PLACE, APROF_TEST_PROGRAMS: exported by
`make check`, see tests/tool/run-pytest.sh) and returns the directory that
holds its one report; the test fails with a clear message when the tool or
the example is missing or the run fails."""
import os
import subprocess

import pytest


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"environment variable {name} is not set: run the tests through "
                    f"`make check` (tests/tool/run-pytest.sh)", pytrace=False)
    return value


def profile_example(tmp_path):
    vg_in_place = env("APROF_VG_IN_PLACE")
    workload = os.path.normpath(os.path.join(env("APROF_TEST_PROGRAMS"), "..", "..",
                                             "example", "workload"))
    if not os.access(vg_in_place, os.X_OK):
        pytest.fail(f"APROF_VG_IN_PLACE={vg_in_place} is not an executable file", pytrace=False)
    if not os.access(workload, os.X_OK):
        pytest.fail(f"the bundled example {workload} is not built (`make` builds "
                    f"tests/example/workload)", pytrace=False)
    reports = tmp_path / "reports"
    reports.mkdir()
    tool = subprocess.run([vg_in_place, f"--aprof-out-file={reports}/aprof-trms.out.%p",
                           workload, "200"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert tool.returncode == 0, f"the tool failed ({tool.returncode}):\n{tool.stderr[-3000:]}"
    assert "workload done" in tool.stdout
    assert len(os.listdir(reports)) == 1, os.listdir(reports)
    return reports
