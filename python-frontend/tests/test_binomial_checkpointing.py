"""Binomial loop checkpointing (issue 34): Griewank and Walther's Revolve
schedule, computed at run time from the trip count. s snapshots and one
iteration's tapes; the backward program re-runs the fewest iterations any
schedule with s snapshots can. Every schedule gives store-all's gradient,
and the count of re-run iterations is checked against a brute-force
optimum."""

import copy
import re
from functools import lru_cache

import numpy as np
import pytest

import sdfg
from gpu_marks import needs_gpu
from test_loop_checkpointing import (CASES, _grad, _same, diffusion,
                                     iterate, outer_inner, recurrence)


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


@lru_cache(maxsize=None)
def fewest(steps, slots):
    """Iterations run again, at best, to reverse `steps` iterations from a
    snapshot at the first with `slots` snapshots: try every place for the
    next snapshot."""
    if steps <= 1:
        return 0
    if slots <= 1:
        return steps * (steps - 1) // 2
    return min(m + fewest(steps - m, slots - 1) + fewest(m, slots)
               for m in range(1, steps))


def _entry(g, loop):
    (entry,) = [e for e in g.checkpoint["loops"] if e["name"] == loop]
    return entry


rng = np.random.default_rng(11)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("snapshots", [1, 2, 3, 7])
def test_binomial_schedules_give_the_store_all_gradient(case, snapshots):
    fn, wrt, args, loop = CASES[case]
    _, ref = _grad(fn, wrt, args)
    g, got = _grad(fn, wrt, args, checkpoints={loop: ("binomial", snapshots)})
    _same(got, ref)
    entry = _entry(g, loop)
    assert entry["schedule"] == "binomial"
    assert entry["segments"] == [1]
    assert entry["snapshots"] == [min(snapshots, entry["trips"])]
    assert entry["recomputed_iterations"] == \
        fewest(entry["trips"], entry["snapshots"][0])
    # s snapshots and one iteration's tapes, as the model says.
    assert g.checkpoint["peak_bytes"] == g.checkpoint["model_peak_bytes"]


@pytest.mark.parametrize("T", [3, 4, 5, 13, 30, 61])
@pytest.mark.parametrize("snapshots", [1, 2, 3, 4, 100])
def test_binomial_schedules_for_any_trip_count(T, snapshots):
    args = (rng.random(3), T)
    _, ref = _grad(recurrence, ["x"], args)
    g, got = _grad(recurrence, ["x"], args,
                   checkpoints={"t": ("binomial", snapshots)})
    _same(got, ref)
    assert _entry(g, "t")["snapshots"] == [min(snapshots, T)]


def test_memory_does_not_grow_with_the_trip_count():
    # s snapshots and one iteration's tapes, whatever T: the peak is the
    # same at T = 50 and T = 400, where storing every iteration grows 8x.
    peaks, store = [], []
    for T in (50, 400):
        args = (rng.random(64), T)
        g, _ = _grad(diffusion, ["u0"], args,
                     checkpoints={"t": ("binomial", 3)})
        peaks.append(g.checkpoint["peak_bytes"])
        s, _ = _grad(diffusion, ["u0"], args, strategy="store-all")
        store.append(s.checkpoint["store_all_peak_bytes"])
    assert peaks[0] == peaks[1]
    assert store[1] > 7 * store[0]
    assert peaks[1] < store[1] / 20


@pytest.mark.parametrize("count", [0, 1, 2, 5, 23, 64])
@pytest.mark.parametrize("snapshots", [1, 2, 5])
def test_while_loops_are_checkpointed_binomially(count, snapshots):
    # Forward, a while loop keeps only the snapshot at its start (its trip
    # count is known at its end); the backward program schedules the rest
    # within the same snapshots, whatever the count.
    args = (rng.random(5), np.array([count]))
    _, ref = _grad(iterate, ["x"], args, while_capacity=64)
    g, got = _grad(iterate, ["x"], args, while_capacity=64,
                   checkpoints={"while0": ("binomial", snapshots)})
    for k in ref:
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-12, atol=1e-14)
    entry = _entry(g, "while0")
    assert entry["schedule"] == "binomial" and entry["while"]
    assert entry["recomputed_iterations"] == \
        fewest(63, snapshots) + 63


@pytest.mark.parametrize("checkpoints", [
    {"t": ("binomial", 2)}, {"s": ("binomial", 2), "t": ("binomial", 3)},
    {"s": 2, "t": ("binomial", 2)}, {"s": ("binomial", 2), "t": (2, 1)},
    {"r": ("binomial", 1)}, {"s": ("binomial", 1), "r": 2}])
def test_nested_loops_mix_binomial_and_uniform_schedules(checkpoints):
    args = (rng.random(12), 5, 9)
    _, ref = _grad(outer_inner, ["u0"], args)
    g, got = _grad(outer_inner, ["u0"], args, checkpoints=checkpoints)
    _same(got, ref)
    for name, how in checkpoints.items():
        entry = _entry(g, name)
        assert entry["schedule"] == (
            "binomial" if isinstance(how, tuple) and how[0] == "binomial"
            else "uniform"), entry


def test_the_ilp_chooses_binomial_where_uniform_segments_do_not_fit():
    args = (rng.random(256), 400)
    store = sdfg.grad(diffusion, "u0", strategy="store-all")
    ref = store(*copy.deepcopy(args))
    full = store.checkpoint["store_all_peak_bytes"]
    # 3% of storing everything: about ten snapshots of u, fewer than
    # nested uniform segments need for 400 iterations.
    g, got = _grad(diffusion, ["u0"], args, mem=0.03 * full / 2**20)
    _same(got, ref)
    info = g.checkpoint
    assert info["peak_bytes"] <= info["limit_bytes"]
    assert info["peak_bytes"] == info["model_peak_bytes"]
    (loop,) = info["loops"]
    assert loop["schedule"] == "binomial"
    assert loop["recomputed_iterations"] == \
        fewest(400, loop["snapshots"][0])
    # The smallest feasible limit is now about one snapshot.
    with pytest.raises(sdfg.ToolError) as err:
        sdfg.grad(diffusion, "u0", mem=1e-4)(*copy.deepcopy(args))
    m = re.search(r"\((\d+) bytes; storing everything", str(err.value))
    assert m and int(m.group(1)) < full / 50, str(err.value)


@pytest.mark.parametrize("device", [
    "gpu-emulator",
    pytest.param("gpu", marks=needs_gpu),
])
@pytest.mark.parametrize("case", ["diffusion", "nested"])
def test_the_gpu_program_checkpoints_binomially_too(device, case):
    fn, wrt, args, loop = CASES[case]
    _, ref = _grad(fn, wrt, args)
    g, got = _grad(fn, wrt, args, device=device,
                   checkpoints={loop: ("binomial", 2)})
    for k in ref:
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-12, atol=1e-13)
    assert _entry(g, loop)["schedule"] == "binomial"


def test_report_names_the_binomial_schedule(capsys):
    args = (rng.random(16), 30)
    g = sdfg.grad(diffusion, "u0", checkpoints={"t": ("binomial", 2)},
                  report=True)
    g(*args)
    err = capsys.readouterr().err
    assert f"loop 't': 30 iterations, binomial, 2 snapshots of 128 B, " \
        f"{fewest(30, 2)} iterations run again" in err


def test_binomial_errors():
    args = (rng.random(16), 5)
    with pytest.raises(ValueError, match=r"\('binomial', S\) needs S >= 1"):
        sdfg.grad(diffusion, "u0", checkpoints={"t": ("binomial", 0)})
    with pytest.raises(ValueError, match=r"needs S >= 1"):
        sdfg.grad(diffusion, "u0", checkpoints={"t": ("binomial", 2.5)})
    with pytest.raises(ValueError, match="binomial"):
        sdfg.grad(diffusion, "u0", checkpoints={"t": ("revolve", 2)})
    with pytest.raises(sdfg.native.OptionError,
                       match="cannot checkpoint loop 's' binomially|"
                             "no such loop"):
        sdfg.grad(diffusion, "u0", checkpoints={"s": ("binomial", 2)})(*args)


def data_bound(u0: np.ndarray, n: np.ndarray):
    u = u0.copy()
    for t in range(n[0]):
        u[:] = np.sin(u) * 1.1 + 0.01 * t
    return np.sum(u * u)


@pytest.mark.parametrize("count", [0, 1, 2, 3, 17, 50])
@pytest.mark.parametrize("snapshots", [1, 3])
def test_a_loop_with_a_trip_count_from_data_is_checkpointed_binomially(
        count, snapshots):
    # Storing every iteration needs data_loop_capacity iterations' tapes;
    # the binomial schedule takes the trip count at run time, in s
    # snapshots and one iteration's tapes.
    args = (rng.random(4), np.array([count]))
    store, ref = _grad(data_bound, ["u0"], args, strategy="store-all")
    g, got = _grad(data_bound, ["u0"], args,
                   checkpoints={"t": ("binomial", snapshots)})
    for k in ref:
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-12, atol=1e-14)
    entry = _entry(g, "t")
    assert entry["schedule"] == "binomial" and entry["data_trips"]
    assert "reason" not in entry
    assert g.checkpoint["peak_bytes"] < 1024 < \
        store.checkpoint["store_all_peak_bytes"] / 1000


def test_the_ilp_checkpoints_a_loop_with_a_trip_count_from_data():
    args = (rng.random(4), np.array([40]))
    _, ref = _grad(data_bound, ["u0"], args, strategy="store-all")
    g, got = _grad(data_bound, ["u0"], args, mem=0.01)
    for k in ref:
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-12, atol=1e-14)
    assert g.checkpoint["peak_bytes"] <= g.checkpoint["limit_bytes"]
    assert _entry(g, "t")["schedule"] == "binomial"
    # Uniform segments need the trip count when compiling.
    with pytest.raises(sdfg.native.OptionError,
                       match="not bounded when compiling \\(a binomial "
                             "schedule takes it at run time\\)"):
        sdfg.grad(data_bound, "u0", checkpoints={"t": 2})(*args)
