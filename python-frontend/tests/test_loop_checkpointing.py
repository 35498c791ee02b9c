"""Loop checkpointing (issue 34): a time loop's tapes for one segment plus
snapshots of its state, the backward program re-running each earlier
segment. Every schedule gives store-all's gradient exactly (the same
operations in the same order), the ILP picks a schedule under mem= when
storing every iteration does not fit, and the plan is reported per loop
under the iterator's name."""

import copy

import numpy as np
import pytest

import sdfg
from test_checkpoint import _setup
from test_gradients import _float64_kernels
from gpu_marks import needs_gpu


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def diffusion(u0: np.ndarray, T: int):
    u = u0.copy()
    for t in range(T):
        u[1:-1] = u[1:-1] + 0.1 * (u[2:] - 2.0 * u[1:-1] + u[:-2]) + \
            0.01 * np.sin(u[1:-1])
    return np.sum(u * u)


def strided(u0: np.ndarray, T: int):
    # Negative, non-unit step; the iterator is read in the body.
    u = u0.copy()
    for t in range(T, 0, -3):
        u[1:] = u[1:] * np.cos(u[:-1]) + 0.001 * t
    return np.sum(u)


def nested(A: np.ndarray, T: int):
    # Inner loops and a branch inside the time loop.
    B = A.copy()
    for t in range(T):
        for i in range(1, B.shape[0]):
            B[i, :] = np.tanh(B[i, :] + 0.5 * B[i - 1, :])
        if t % 2 == 0:
            B[0, :] = B[0, :] * 0.9
        else:
            B[0, :] = np.sin(B[0, :])
    return np.sum(B * B)


def rnn(W: np.ndarray, x: np.ndarray, h0: np.ndarray):
    # A matrix product (BLAS) in every iteration.
    h = h0.copy()
    for t in range(x.shape[0]):
        h = np.tanh(W @ h + x[t])
    return np.sum(h)


def two_loops(u0: np.ndarray, T: int):
    u = u0.copy()
    for t in range(T):
        u[:] = np.sin(u) + 0.5 * u
    v = u * 2.0
    for t in range(T):
        v[1:] = v[1:] * v[:-1] * 0.5 + 0.1
    return np.sum(v)


def _grad(fn, wrt, args, **kw):
    g = sdfg.grad(fn, wrt, **kw)
    return g, g(*copy.deepcopy(args))


def _same(a, b):
    # Bitwise where the operations are the same; a loop with a matrix
    # product may be batched differently by the lowering (rnn).
    assert set(a) == set(b)
    for k in a:
        np.testing.assert_allclose(a[k], b[k], rtol=1e-12, atol=1e-14)


rng = np.random.default_rng(3)
CASES = {
    "diffusion": (diffusion, ["u0"], (rng.random(40), 30), "t"),
    "strided": (strided, ["u0"], (rng.random(20), 29), "t"),
    "nested": (nested, ["A"], (rng.random((5, 4)), 9), "t"),
    "rnn": (rnn, ["W", "x"], (0.3 * rng.random((6, 6)), rng.random((12, 6)),
                              rng.random(6)), "t"),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("snapshots", [1, 2, 5])
def test_every_schedule_gives_the_store_all_gradient(case, snapshots):
    fn, wrt, args, loop = CASES[case]
    _, ref = _grad(fn, wrt, args)
    g, got = _grad(fn, wrt, args, checkpoints={loop: snapshots})
    _same(got, ref)
    (entry,) = [e for e in g.checkpoint["loops"] if e["name"] == loop]
    (k,) = entry["segments"]
    (kept,) = entry["snapshots"]
    assert 0 < kept <= snapshots
    assert -(-entry["trips"] // k) == kept + 1
    assert entry["recomputed_iterations"] == kept * k
    # One segment's tapes instead of every iteration's.
    assert g.checkpoint["peak_bytes"] == g.checkpoint["model_peak_bytes"]


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("levels", [(2, 3), (3, 1), (1, 2, 1), (4, 2, 1)])
def test_multi_level_schedules_give_the_store_all_gradient(case, levels):
    fn, wrt, args, loop = CASES[case]
    _, ref = _grad(fn, wrt, args)
    g, got = _grad(fn, wrt, args, checkpoints={loop: levels})
    _same(got, ref)
    (entry,) = [e for e in g.checkpoint["loops"] if e["name"] == loop]
    assert entry["segments"]
    assert entry["segments"] == sorted(entry["segments"], reverse=True)


def recurrence(x: np.ndarray, T: int):
    s = x.copy()
    for t in range(T):
        s[:] = np.sin(s) * 1.1 + 0.01 * t
    return np.sum(s * s)


@pytest.mark.parametrize("T", [5, 7, 13, 30, 61])
@pytest.mark.parametrize("levels", [(1,), (2,), (1, 1), (2, 2), (4, 1),
                                    (1, 3), (1, 1, 1), (3, 2, 1)])
def test_uneven_segments_give_the_store_all_gradient(T, levels):
    # Trip counts that the segment lengths do not divide: partial last
    # segments at every level.
    args = (rng.random(3), T)
    _, ref = _grad(recurrence, ["x"], args)
    g, got = _grad(recurrence, ["x"], args, checkpoints={"t": levels})
    _same(got, ref)
    (entry,) = g.checkpoint["loops"]
    assert 0 <= entry["recomputed_iterations"] <= T * len(levels)


def test_two_loops_are_named_apart_and_checkpointed_together():
    args = (rng.random(16), 20)
    _, ref = _grad(two_loops, ["u0"], args)
    g, got = _grad(two_loops, ["u0"], args,
                   checkpoints={"t#0": 3, "t#1": 4})
    _same(got, ref)
    loops = {e["name"]: e for e in g.checkpoint["loops"]}
    assert loops["t#0"]["snapshots"] == [3]
    assert loops["t#1"]["snapshots"] == [4]


def test_the_ilp_checkpoints_a_time_loop_under_a_limit():
    args = (rng.random(256), 400)
    store = sdfg.grad(diffusion, "u0", strategy="store-all")
    ref = store(*copy.deepcopy(args))
    full = store.checkpoint["store_all_peak_bytes"]
    # A tenth of storing every iteration: only loop checkpointing fits.
    limit = full / 10
    g, got = _grad(diffusion, ["u0"], args, mem=limit / 2**20)
    _same(got, ref)
    info = g.checkpoint
    assert info["peak_bytes"] <= info["limit_bytes"]
    assert info["peak_bytes"] == info["model_peak_bytes"]
    (loop,) = info["loops"]
    assert loop["name"] == "t" and loop["trips"] == 400
    assert loop["snapshots"] and loop["segments"]
    # Without a need, the loop keeps every iteration.
    g2, _ = _grad(diffusion, ["u0"], args, mem=2 * full / 2**20)
    assert g2.checkpoint["loops"][0]["snapshots"] == []


def test_infeasible_limit_names_a_limit_below_store_all():
    args = (rng.random(256), 400)
    g = sdfg.grad(diffusion, "u0", mem=1e-3)
    with pytest.raises(sdfg.ToolError) as err:
        g(*copy.deepcopy(args))
    m = __import__("re").search(r"smallest feasible limit is [\d.]+ \w+ "
                                r"\((\d+) bytes; storing everything needs",
                                str(err.value))
    assert m, str(err.value)
    smallest = int(m.group(1))
    store = sdfg.grad(diffusion, "u0", strategy="store-all")
    store(*copy.deepcopy(args))
    assert smallest < store.checkpoint["store_all_peak_bytes"] / 10
    # ... and that limit works.
    ok = sdfg.grad(diffusion, "u0", mem=smallest / 2**20 + 1e-6)
    ok(*copy.deepcopy(args))
    assert ok.checkpoint["peak_bytes"] <= smallest


def test_checkpoints_errors():
    args = (rng.random(16), 5)
    with pytest.raises(sdfg.native.OptionError, match="cannot checkpoint loop 's'.*"
                       "those are: t"):
        sdfg.grad(diffusion, "u0", checkpoints={"s": 2})(*args)
    with pytest.raises(ValueError, match="non-negative int"):
        sdfg.grad(diffusion, "u0", checkpoints={"t": -1})
    with pytest.raises(ValueError, match="non-negative int"):
        sdfg.grad(diffusion, "u0", checkpoints={"t": 1.5})
    with pytest.raises(ValueError, match="iterator"):
        sdfg.grad(diffusion, "u0", checkpoints={"t=1 mem": 1})
    with pytest.raises(TypeError, match="dict"):
        sdfg.grad(diffusion, "u0", checkpoints=[("t", 1)])


def data_bound(u0: np.ndarray, n: np.ndarray):
    u = u0.copy()
    for t in range(n[0]):
        u[:] = np.sin(u)
    return np.sum(u)


def test_a_loop_with_a_data_bound_is_reported_and_refused():
    args = (rng.random(8), np.array([5]))
    g, ref = _grad(data_bound, ["u0"], args, strategy="store-all")
    (loop,) = g.checkpoint["loops"]
    assert "not bounded" in loop["reason"]
    with pytest.raises(sdfg.native.OptionError, match="not bounded"):
        sdfg.grad(data_bound, "u0", checkpoints={"t": 2})(*args)


def _top_level_loops(name):
    fn, args, spec, wrt = _setup(name)
    g = sdfg.grad(fn, wrt, output=spec, strategy="store-all")
    ref = g(*copy.deepcopy(args))
    loops = [e["name"] for e in g.checkpoint["loops"] if "reason" not in e]
    return fn, args, spec, wrt, ref, loops


CHECKPOINTED = []


@pytest.mark.parametrize("name", _float64_kernels())
def test_corpus_loops_checkpointed_give_the_store_all_gradient(name):
    fn, args, spec, wrt, ref, loops = _top_level_loops(name)
    if not loops:
        return
    CHECKPOINTED.append(name)
    for snapshots in (1, 3, (2, 1), ("binomial", 2)):
        g = sdfg.grad(fn, wrt, output=spec,
                      checkpoints={n: snapshots for n in loops})
        got = g(*copy.deepcopy(args))
        assert set(got) == set(ref)
        for k in ref:
            np.testing.assert_allclose(got[k], ref[k], rtol=1e-12,
                                       atol=1e-13)


def test_the_corpus_exercises_loop_checkpointing():
    # Runs after the corpus test (file order).
    assert len(CHECKPOINTED) >= 8, CHECKPOINTED


@pytest.mark.parametrize("device", [
    "gpu-emulator",
    pytest.param("gpu", marks=needs_gpu),
])
@pytest.mark.parametrize("case", ["diffusion", "nested"])
def test_the_gpu_program_checkpoints_loops_too(device, case):
    fn, wrt, args, loop = CASES[case]
    _, ref = _grad(fn, wrt, args)
    g, got = _grad(fn, wrt, args, device=device, checkpoints={loop: (2, 1)})
    assert set(got) == set(ref)
    for k in ref:
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-12, atol=1e-13)
    (entry,) = [e for e in g.checkpoint["loops"] if e["name"] == loop]
    assert entry["segments"]


def test_report_prints_the_plan_under_the_names_written(capsys):
    args = (rng.random(16), 30)
    g = sdfg.grad(diffusion, "u0", checkpoints={"t": 2}, report=True)
    g(*args)
    err = capsys.readouterr().err
    assert "checkpoint plan of diffusion (store-all):" in err
    assert "loop 't': 30 iterations, segments of 10, 2 snapshots of " \
        "128 B, 20 iterations run again" in err
    assert "peak " in err and "storing everything" in err
    g(*args)  # compiled: nothing more to say
    assert capsys.readouterr().err == ""


def iterate(x: np.ndarray, n: np.ndarray):
    u = x.copy()
    k = 0
    while k < n[0]:
        u[:] = np.sin(u) * 1.05 + 0.01 * u[0]
        k += 1
    return np.sum(u * u)


@pytest.mark.parametrize("count", [0, 1, 5, 23, 64])
@pytest.mark.parametrize("levels", [1, 3, (3, 2), (2, 2, 2)])
def test_while_loops_are_checkpointed_over_their_capacity(count, levels):
    # The trip count is known only at the end: segments split the
    # while-capacity, whatever part of it the loop uses.
    args = (rng.random(5), np.array([count]))
    _, ref = _grad(iterate, ["x"], args, while_capacity=64)
    g, got = _grad(iterate, ["x"], args, while_capacity=64,
                   checkpoints={"while0": levels})
    for k in ref:
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-12, atol=1e-14)
    (entry,) = g.checkpoint["loops"]
    assert entry["while"] and entry["trips"] == 64 and entry["segments"]


def test_a_while_loop_past_its_capacity_still_raises():
    args = (rng.random(5), np.array([65]))
    with pytest.raises(RuntimeError, match="capacity"):
        sdfg.grad(iterate, "x", while_capacity=64,
                  checkpoints={"while0": 3})(*args)


def outer_inner(u0: np.ndarray, S: int, T: int):
    # A loop of time loops: each level gets its own schedule.
    u = u0.copy()
    for s in range(S):
        for t in range(T):
            u[1:-1] = u[1:-1] + 0.1 * (u[2:] - 2.0 * u[1:-1] + u[:-2]) + \
                0.01 * np.sin(u[1:-1] + s)
        if s % 2 == 0:
            for r in range(1, T, 2):
                u[:] = np.tanh(u) * 1.01 + 0.001 * r
        u[0] = u[0] * 0.5 + u[-1] * 0.1
    return np.sum(u * u)


@pytest.mark.parametrize("checkpoints", [
    {"t": 2}, {"t": (2, 1)}, {"s": 1, "t": 2}, {"s": (1,), "t": (2, 1)},
    {"s": 2}, {"r": 1}, {"s": 1, "r": 2, "t": 3}])
def test_nested_loops_each_get_their_schedule(checkpoints):
    args = (rng.random(12), 5, 9)
    _, ref = _grad(outer_inner, ["u0"], args)
    g, got = _grad(outer_inner, ["u0"], args, checkpoints=checkpoints)
    _same(got, ref)
    loops = {e["name"]: e for e in g.checkpoint["loops"]}
    for name in checkpoints:
        assert loops[name]["segments"], loops[name]


def test_the_ilp_checkpoints_nested_loops():
    args = (rng.random(2000), 4, 50)
    store = sdfg.grad(outer_inner, "u0", strategy="store-all")
    ref = store(*copy.deepcopy(args))
    full = store.checkpoint["store_all_peak_bytes"]
    g, got = _grad(outer_inner, ["u0"], args, mem=0.3 * full / 2**20)
    _same(got, ref)
    assert g.checkpoint["peak_bytes"] <= g.checkpoint["limit_bytes"]
    assert any(e["segments"] for e in g.checkpoint["loops"])


def inner_bound(u0: np.ndarray, S: int):
    u = u0.copy()
    for s in range(S):
        m = 2 * s + 1
        for t in range(m):
            u[:] = np.sin(u)
    return np.sum(u)


def test_loops_around_a_data_bound_loop_are_refused():
    # The inner trip count is computed in the outer loop: a data loop.
    args = (rng.random(4), 4)
    g, _ = _grad(inner_bound, ["u0"], args, strategy="store-all")
    loops = {e["name"]: e for e in g.checkpoint["loops"]}
    assert loops["s"]["reason"] == \
        "a loop inside it has a trip count read from data"
    assert loops["t"]["reason"] == \
        "its trip count is not bounded when compiling"
    with pytest.raises(sdfg.native.OptionError, match="read from data"):
        sdfg.grad(inner_bound, "u0", checkpoints={"s": 1})(*args)
