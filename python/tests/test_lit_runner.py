"""`python -m tile lit` (tile.lit_runner): lit on a user's own tests, outside
the repository's test/ tree, with the package's lit configuration. CPU only:
lowered IR and PTX are checked, ptxas runs where it is found. The examples
of docs/Testing.md are the files it shows, and they pass."""
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tile.lit_runner import gpu_features, split_arguments

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "docs" / "examples" / "lit"

USER_TEST = textwrap.dedent("""\
    // RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx | FileCheck %s
    // RUN: %if ptxas %{ tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
    // CHECK: .entry fence(
    // CHECK: CHECKED_INSTRUCTION
    module attributes {gpu.container_module} {
      gpu.module @kernels {
        gpu.func @fence() kernel {
          tile.fence_proxy_async shared_cta
          gpu.return
        }
      }
    }
    """)


def tile_lit(*arguments, cwd):
    """Runs `python -m tile lit ARGUMENTS` with the checkout's package."""
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(REPO / "python"), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "tile", "lit", *map(str, arguments)],
                          cwd=cwd, env=environment, capture_output=True, text=True)


@pytest.mark.parametrize("instruction, status", [("fence.proxy.async.shared::cta;", 0),
                                                 ("fence.proxy.async.global;", 1)])
def test_a_user_test_passes_or_fails_with_its_checks(tmp_path, instruction, status):
    tests = tmp_path / "my-tests"
    tests.mkdir()
    (tests / "fence.mlir").write_text(USER_TEST.replace("CHECKED_INSTRUCTION", instruction))
    done = tile_lit(tests, cwd=tmp_path)
    assert done.returncode == status, done.stdout + done.stderr
    assert ("PASS" if status == 0 else "FAIL") + ": tile :: fence.mlir" in done.stdout
    assert sorted(p.name for p in tests.iterdir()) == ["fence.mlir"]  # %t went elsewhere


def test_the_documented_examples_pass(tmp_path):
    done = tile_lit("-a", EXAMPLES, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS: tile :: copy-kernel.mlir" in done.stdout
    assert "PASS: tile :: expected-errors.mlir" in done.stdout
    assert "--convert-tile-to-nvvm" in done.stdout  # -a: the commands ran


def test_the_doc_shows_the_tested_examples():
    """Each example file appears whole in docs/Testing.md, in an mlir block."""
    blocks = re.findall(r"```mlir\n(.*?)```", (REPO / "docs" / "Testing.md").read_text(),
                        re.DOTALL)
    for example in sorted(EXAMPLES.glob("*.mlir")):
        assert example.read_text() in blocks, f"docs/Testing.md does not show {example}"


def test_files_and_lit_options(tmp_path):
    """Single files of different directories, a lit option, the exit status
    of a missing path, lit not found."""
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "t.test").write_text("RUN: tile-opt --version | FileCheck %s\n"
                                                "CHECK: version\n")
    done = tile_lit("--filter", "b", "--", tmp_path / "a" / "t.test", tmp_path / "b" / "t.test",
                    cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS: tile :: b/t.test" in done.stdout and "a/t.test" not in done.stdout
    missing = tile_lit(tmp_path / "nothing.mlir", cwd=tmp_path)
    assert missing.returncode == 2 and "no such file or directory" in missing.stderr
    environment = dict(os.environ, TILE_LIT=str(tmp_path / "no-lit"), PYTHONPATH=os.pathsep.join(
        filter(None, [str(REPO / "python"), os.environ.get("PYTHONPATH")])))
    no_lit = subprocess.run([sys.executable, "-m", "tile", "lit", str(tmp_path / "a")],
                            env=environment, capture_output=True, text=True)
    assert no_lit.returncode == 2 and "lit not found" in no_lit.stderr


def test_split_arguments(tmp_path):
    assert split_arguments(["-v", "--filter", "x", str(tmp_path)]) == (
        ["-v", "--filter", "x"], [str(tmp_path)])
    assert split_arguments(["-a"]) == (["-a"], [])
    assert split_arguments(["--filter", str(tmp_path), "--", "x"]) == (
        ["--filter", str(tmp_path)], ["x"])


def test_gpu_tests_can_be_disabled(monkeypatch):
    monkeypatch.setenv("TILE_DISABLE_GPU_TESTS", "1")
    assert gpu_features() == set()
