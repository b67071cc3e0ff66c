"""The package as a user gets it: `pip install` into a fresh virtual
environment finds its kernels (package data) and compiles every kernel
family from another directory and runs lit on a user's tests (`python -m
tile lit`, `tile-lit`); the package's structure holds (no private names
across modules, no import cycles, no submodule shadowed)."""
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PYTHON = Path(__file__).resolve().parents[1]
REPO = PYTHON.parent


def test_structure():
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "check-python-structure.py")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_pip_install_into_a_fresh_venv_compiles_every_family(tmp_path):
    """`pip install` (offline, no build isolation: the venv's own setuptools
    and Debian's wheel) of a copy of python/, then, from another directory,
    every family's kernels compile (no GPU needed) and `python -m tile` says
    where things are."""
    from tile.toolchain import find_toolchain
    tools = find_toolchain()
    wheels = Path("/usr/share/python-wheels")
    if not list(wheels.glob("wheel-*.whl")):
        # scripts/install-deps.sh installs it on Debian (CI); other machines
        # (the GPU machine) have no offline `wheel` for a fresh venv.
        pytest.skip("no offline wheel for a fresh venv (Debian's python3-wheel-whl)")
    source = tmp_path / "source"
    shutil.copytree(PYTHON, source, ignore=shutil.ignore_patterns(
        "tests", "__pycache__", "build", "*.egg-info"))
    venv = tmp_path / "venv"
    made = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True,
                          text=True)
    assert made.returncode == 0, (
        "python3 -m venv failed (Debian: the python3-venv package):\n" + made.stderr)
    python = venv / "bin" / "python"
    # Offline: the venv's setuptools (Debian's 66) builds wheels with
    # `wheel`, which Debian ships as a wheel too (python3-wheel-whl).
    wheel = subprocess.run([str(python), "-m", "pip", "install", "--no-index", "--quiet",
                            "--disable-pip-version-check", "--find-links",
                            str(wheels), "wheel"], capture_output=True, text=True)
    assert wheel.returncode == 0, (
        "no wheel for the venv (Debian: the python3-wheel-whl package):\n" + wheel.stderr)
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-index", "--no-build-isolation",
         "--disable-pip-version-check", "--quiet", str(source)],
        capture_output=True, text=True)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    work = tmp_path / "elsewhere"
    work.mkdir()
    environment = dict(os.environ, TILE_BIN_DIR=str(tools.tile_opt.absolute().parent),
                       TILE_CACHE_DIR=str(tmp_path / "cache"))
    environment.pop("PYTHONPATH", None)
    if tools.runtime is not None:
        environment["TILE_RUNTIME_LIB"] = str(tools.runtime.absolute())
    script = textwrap.dedent("""
        import tile
        from tile.ops.attention import ATTENTION
        from tile.ops.attention_backward import ATTENTION_BACKWARD
        from tile.ops.decode import DECODE, DecodeConfig
        from tile.ops.cache_append import CACHE_APPEND, CacheAppendConfig
        from tile.ops.decode_attention import DECODE_ATTENTION, DecodeAttentionConfig
        from tile.ops.rms_norm import RMS_NORM, config_for
        from tile.ops.rope import ROPE, RopeConfig
        from tile.ops.grouped import GROUPED, GROUPED_FP8
        from tile.ops.matmul import GEMM
        from tile.ops.scaled_matmul import FP8
        print(tile.__file__)
        for family, variant in ((GEMM, ("bf16",)), (FP8, ("f8E4M3FN", "f8E5M2", "bf16")),
                                (GROUPED, ("f16",)), (GROUPED_FP8, ("f8E4M3FN",) * 2 + ("f16",)),
                                (ATTENTION, ("bf16", False, 128, None, False)), (DECODE, DecodeConfig("nt", 16, 4)),
                                (DECODE_ATTENTION, DecodeAttentionConfig("bf16", 128, 16)),
                                (CACHE_APPEND, CacheAppendConfig("bf16", 128)),
                                (RMS_NORM, config_for("bf16", 4096, True)),
                                (ROPE, RopeConfig("bf16", 128, True)),
                                (ATTENTION_BACKWARD, ("bf16", 64))):
            module = family.module(variant)
            assert ".entry" in module.ptx, family.name
            print(family.name, " ".join(module.kernels))
    """)
    run = subprocess.run([str(python), "-c", script], cwd=work, env=environment,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith(str(venv)), lines[0]  # the installed copy, not the checkout
    assert lines[1] == "gemm_sm90.mlir gemm_nn gemm_nt"
    assert lines[5] == "attention_sm90.mlir attention_d128"
    assert lines[6] == "gemm_decode gemm_decode_nt_r16_s4"
    assert lines[9] == "rms_norm rms_norm_residual"
    assert lines[10] == "rope rope_qk"
    assert lines[11] == "attention_bwd_sm90.mlir attention_bwd_dkdv_d64 attention_bwd_dq_d64"
    info = subprocess.run([str(python), "-m", "tile"], cwd=work, env=environment,
                          capture_output=True, text=True)
    assert info.returncode == 0, info.stderr
    assert f"kernels:  {venv}" in info.stdout
    assert "attention_sm90.mlir" in info.stdout and "tile-opt: " in info.stdout
    if tools.runtime is not None:
        assert f"runtime:  {tools.runtime.absolute()}" in info.stdout
    # `python -m tile lit` and `tile-lit` on a user's tests (docs/Testing.md's
    # examples), with the lit configuration installed as package data.
    tests = work / "my-tests"
    shutil.copytree(REPO / "docs" / "examples" / "lit", tests)
    for command in ([str(python), "-m", "tile", "lit"], [str(venv / "bin" / "tile-lit")]):
        lit = subprocess.run(command + [str(tests)], cwd=work, env=environment,
                             capture_output=True, text=True)
        assert lit.returncode == 0, lit.stdout + lit.stderr
        assert "PASS: tile :: copy-kernel.mlir" in lit.stdout, lit.stdout
        assert "Passed: 2" in lit.stdout, lit.stdout
