"""engine/mkl.py: finding torch's MKL in the installed `mkl` wheel, refusing other versions
with a reason, and the reusable symbol lookup (BLAS) beside VML."""
from __future__ import annotations

import ctypes
import importlib.metadata as metadata
import os
import sys

import numpy as np
import pytest
from mkl_skip import needs_mkl

from gradtrace.engine import mkl


@pytest.fixture
def fresh_state(monkeypatch):
    monkeypatch.setattr(mkl, "_STATE", {})


def test_missing_wheel_gives_none_and_says_how_to_install(fresh_state, monkeypatch):
    monkeypatch.setattr(mkl, "_distribution", lambda name: None)
    assert mkl.load() is None
    assert "pip install 'gradtrace[exact]'" in mkl.unavailable_reason()


def test_another_mkl_version_is_refused(fresh_state, monkeypatch):
    monkeypatch.setattr(mkl, "_distribution", lambda name: mkl._Wheel("2025.0.0", "/", ""))
    assert mkl.load() is None
    assert mkl.unavailable_reason() == ("mkl 2025.0.0 is installed; torch 2.13 bundles "
                                        "2024.2.0, whose results gradtrace reproduces")


@pytest.mark.parametrize("name", ["mkl", "intel_openmp", "numpy", "click", "no_such_wheel"])
def test_wheels_are_found_where_importlib_metadata_finds_them(name):
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        assert mkl._distribution(name) is None
        return
    wheel = mkl._distribution(name)
    assert wheel.version == dist.version
    seen = set()
    for f in (dist.files or [])[:200]:  # RECORD's order: locate() gives the first of a name
        if f.name not in seen:
            seen.add(f.name)
            assert wheel.locate((f.name,)) == os.path.normpath(dist.locate_file(f))


def test_a_wheel_missing_its_library_says_so(fresh_state, monkeypatch):
    monkeypatch.setattr(mkl, "_distribution",
                        lambda name: mkl._Wheel(mkl.TORCH_MKL_VERSION, sys.prefix, "a.py,,\n"))
    assert mkl.load() is None
    assert mkl.unavailable_reason() == "the `mkl` package has no libmkl_rt for this platform"


@needs_mkl
def test_loaded_mkl_is_the_build_torch_bundles():
    assert "2024.2-Product Build 20240605" in mkl.load().version


@needs_mkl
def test_vml_writes_every_element_and_accepts_in_place():
    x = np.array([0.0, 1.0, -1.0, 88.0, -104.0], np.float32)
    lib = mkl.load()
    out = lib.vml("exp", x, np.empty_like(x))
    assert out[0] == 1 and abs(out[1] - np.e) < 1e-6 and out[4] == 0
    y = x.copy()
    assert lib.vml("exp", y, y) is y and np.array_equal(y, out)


@needs_mkl
def test_symbol_lookup_reaches_blas():
    sdot = mkl.load().symbol("cblas_sdot", ctypes.c_float,
                             [ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                              ctypes.c_int])
    a = np.arange(1, 5, dtype=np.float32)
    b = np.full(4, 2, np.float32)
    assert sdot(4, a.ctypes.data, 1, b.ctypes.data, 1) == 20.0


def test_data_pointer_reads_numpy_s_own_address_of_every_layout():
    # blas.py and vml hand MKL this address: it must be the one `.ctypes.data` gives, for
    # views, transposes, negative strides, 0-d and empty arrays alike
    base = np.arange(120, dtype=np.float64).reshape(4, 5, 6)
    arrays = [base, base[1:], base[:, 2:, ::2], base.T, base[::-1, :, ::-1], base[2, 3],
              base[2, 3, 4:5], np.array(3.0, np.float32), np.zeros((0, 3)),
              np.asfortranarray(base), np.broadcast_to(base[0, 0], (3, 6))]
    for array in arrays:
        assert mkl.data_pointer(array) == array.ctypes.data


def test_data_pointer_is_the_struct_read_on_cpython():
    # the fast reader (not the `.ctypes.data` fallback) on the interpreter the tests run
    assert mkl.address.__name__ == "read"


@needs_mkl
def test_vml_refuses_what_it_cannot_hand_mkl_as_one_contiguous_run():
    lib = mkl.load()
    x = np.linspace(-3, 3, 40, dtype=np.float32)
    with pytest.raises(TypeError):
        lib.vml("tanh", x[::2], np.empty(20, np.float32))
    with pytest.raises(TypeError):
        lib.vml("tanh", x, np.empty(40, np.float64))
    out = lib.vml("tanh", x[4:], np.empty(36, np.float32))  # an offset start is fine
    assert out.tobytes() == lib.vml("tanh", x.copy()[4:].copy(), np.empty(36, np.float32)).tobytes()


@needs_mkl
@pytest.mark.parametrize("given", ["0", "7"])
def test_openmp_threads_wait_as_long_as_the_user_says(given):
    """libiomp5 reads KMP_BLOCKTIME when it starts: a user's value is the one it gets."""
    import subprocess

    env = dict(os.environ, KMP_BLOCKTIME=given)
    code = ("import os; from gradtrace.engine import mkl; lib = mkl.load(); "
            "print(lib.threaded, os.environ.get('KMP_BLOCKTIME'))")
    threaded, value = subprocess.run([sys.executable, "-c", code], env=env,
                                     capture_output=True, text=True, check=True).stdout.split()
    if threaded == "False":
        pytest.skip("MKL runs sequentially here (no Intel OpenMP runtime)")
    assert value == given


@pytest.mark.parametrize("load, cores, expected", [
    (0.3, 2, "1"), (1.4, 2, "1"), (1.6, 2, "0"), (9.9, 2, "0"), (6.5, 8, "1"), (7.6, 8, "0")])
def test_openmp_threads_spin_a_millisecond_only_while_a_core_is_free(monkeypatch, load,
                                                                     cores, expected):
    """Without the user's KMP_BLOCKTIME: about a millisecond of spinning, as torch's GNU
    OpenMP threads do, when the load leaves a core free for the waiting thread; else they
    sleep at once (a spinning thread would take the core of the thread it waits for)."""
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    assert mkl.openmp_blocktime() == expected


def test_openmp_threads_sleep_at_once_without_a_load_average(monkeypatch):
    """Where Python has no os.getloadavg (Windows), the threads do not spin."""
    monkeypatch.delattr(os, "getloadavg", raising=False)
    assert mkl.openmp_blocktime() == "0"
