"""print(...) inside compiled programs: the values recorded when the
program runs and printed after the call with Python's and NumPy's
formatting, the same text as the function run by Python (as
jax.debug.print prints through the host)."""

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))


def heat(u, steps, dt):
    for t in range(steps):
        u[1:-1] = u[1:-1] + dt * (u[2:] - 2 * u[1:-1] + u[:-2])
        if t % 2 == 0:
            print("step", t, "energy", np.sum(u * u))
    print(f"final u[:3]={u[:3]} max {np.max(u):.4f} t={t!r}", sep="|")
    print()
    print("flags", u > 0.5, np.int64(7), 2.5, (1, "a"), end="!\n")
    return np.sum(u)


def as_python(fn, *args, capsys):
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    fn(*copies)
    return capsys.readouterr().out


def test_same_text_as_python(capsys):
    u = np.linspace(0.0, 1.0, 8)
    want = as_python(heat, u, 5, 0.1, capsys=capsys)
    assert want.count("step") == 3  # t = 0, 2, 4 (a run-time condition)
    sdfg.program(heat)(u.copy(), 5, 0.1)
    assert capsys.readouterr().out == want


def shapes_and_dtypes(A, x, k):
    s = np.float32(0.5) * x
    print("A", A, "x32", s, "k", k, "count", np.sum(A > 0))
    print(f"{np.sum(A):+.3e}|{np.max(x)!r}|{np.mean(A):>12.5f}|", A[0, 0])
    i = 0
    while i < 3:
        print("i", i, A[i, i])
        i += 1
    return np.sum(A) + k


def test_arrays_scalars_f_strings_and_loops(capsys):
    A = np.arange(12.0).reshape(3, 4) - 4.0
    x = np.linspace(-1, 1, 5).astype(np.float32)
    want = as_python(shapes_and_dtypes, A, x, 3, capsys=capsys)
    sdfg.program(shapes_and_dtypes)(A, x, 3)
    assert capsys.readouterr().out == want


def report(x):
    print("norm", np.sqrt(np.sum(x * x)))
    return x * 2.0


def loss(x):
    y = report(x)  # an inlined helper prints too
    return np.sum(np.sin(y))


def test_gradients_print_the_forward_values_once(capsys):
    x = np.linspace(0.1, 0.9, 4)
    want = as_python(loss, x, capsys=capsys)
    g = sdfg.grad(loss, argnums=0)(x)
    np.testing.assert_allclose(g, 2.0 * np.cos(2.0 * x), rtol=1e-14)
    assert capsys.readouterr().out == want
    value, tangent = sdfg.jvp(loss, (x,), (np.ones(4),))
    assert capsys.readouterr().out == want


def test_errors():
    def to_file(x):
        print(x, file=None)
        return x + 1.0

    def a_tuple(x):
        print((x, 1))
        return x + 1.0

    def spec(x, n):
        print(f"{x[0]:{n}}")
        return x + 1.0
    x = np.ones(3)
    with pytest.raises(sdfg.FrontendError, match="print with file="):
        sdfg.program(to_file)(x)
    with pytest.raises(sdfg.FrontendError, match="print its items one by "
                       "one"):
        sdfg.program(a_tuple)(x)
    with pytest.raises(sdfg.FrontendError, match="format spec computed at "
                       "run time"):
        sdfg.program(spec)(x, 2.0)
    with pytest.raises(sdfg.FrontendError, match="print on the GPU"):
        sdfg.program(heat, device="gpu-emulator")(x, 2, 0.1)
