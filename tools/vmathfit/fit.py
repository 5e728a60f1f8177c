"""Fits the polynomial coefficients of backend/native/vmath's float32 vector math
(vmath*.go), and prints them as Go constants.

  python fit.py

Each polynomial is a weighted least-squares fit on Chebyshev nodes of the
interval (near the minimax polynomial), in float64 with mpmath references,
for the relative error of the function the kernel finally computes; the
coefficients are then rounded to float32. The kernels' real error is what
backend/native/vmath's tests measure.
"""

import mpmath as mp
import numpy as np

mp.mp.dps = 40


def nodes(a, b, n=4000):
    k = np.arange(n)
    return (a + b) / 2 + (b - a) / 2 * np.cos(np.pi * (k + 0.5) / n)


def fit(xs, target, basis, weight):
    """Least squares of sum c_j basis_j(x) ~ target(x), rows scaled by weight."""
    A = np.array([[b(x) for b in basis] for x in xs]) * weight[:, None]
    y = np.array([target(x) for x in xs]) * weight
    c, *_ = np.linalg.lstsq(A, y, rcond=None)
    return c


def show(name, c):
    print(f"// {name}")
    for i, v in enumerate(c):
        print(f"\t{name}{i} = {float(np.float32(v))!r}")


def exp_poly():
    # exp(r) = 1 + r + r^2 P(r), |r| <= ln2/2: fit P for the relative error of exp
    h = float(mp.log(2)) / 2
    xs = nodes(-h, h)
    xs = xs[np.abs(xs) > 1e-6]
    tgt = lambda r: float((mp.exp(r) - 1 - r) / r**2)  # noqa: E731
    w = np.array([r * r / float(mp.exp(r)) for r in xs])
    show("expP", fit(xs, tgt, [lambda r, j=j: r**j for j in range(6)], w))


def tanh_poly(cut, deg):
    # tanh(x) = x + x^3 P(x^2), |x| < cut
    xs = nodes(1e-4, cut)
    tgt = lambda x: float((mp.tanh(x) - x) / x**3)  # noqa: E731
    w = np.array([x**3 / float(mp.tanh(x)) for x in xs])
    show("tanhP", fit(xs, tgt, [lambda x, j=j: x ** (2 * j) for j in range(deg)], w))


def erf_small(cut, deg):
    # erf(x) = x P(x^2), |x| < cut
    xs = nodes(1e-4, cut)
    tgt = lambda x: float(mp.erf(x) / x)  # noqa: E731
    w = np.array([x / float(mp.erf(x)) for x in xs])
    show("erfP", fit(xs, tgt, [lambda x, j=j: x ** (2 * j) for j in range(deg)], w))


def erfc_large(lo, hi, deg):
    # erfc(x) = exp(-x^2) R(t), t = 1/x, lo <= x <= hi: R relative error
    ts = nodes(1 / hi, 1 / lo)
    tgt = lambda t: float(mp.erfc(1 / t) * mp.exp(1 / t**2))  # noqa: E731
    w = np.array([1 / tgt(t) for t in ts])
    show("erfcR", fit(ts, tgt, [lambda t, j=j: t**j for j in range(deg)], w))


if __name__ == "__main__":
    exp_poly()
    tanh_poly(0.875, 7)
    erf_small(1.0, 9)
    erfc_large(1.0, 4.0, 11)
