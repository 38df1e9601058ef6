"""Judge-vs-human agreement, item by item, from the definitions of issue 39: what
scripts/calibration-reference.py and scripts/calibration-check.py both compute Dramaturg's figures with.

Shared rather than written twice; neither script imports anything from the TypeScript. How each figure is
computed is told in calibration-reference.py's header and in each function below.
"""

import math
import warnings
from fractions import Fraction

import numpy as np
from scipy import stats

BANDS = [0, 1, 1, 1, 2, 2, 3, 3, 3, 4]
MASK32 = 0xFFFFFFFF


def mean_of(raters):
    return sum(raters) / len(raters)


def rounded_half_up(raters):
    return math.floor(Fraction(sum(raters), len(raters)) + Fraction(1, 2))


def finite_or_none(x):
    return None if x is None or not math.isfinite(x) else float(x)


def correlation(fn, x, y):
    if len(x) < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return finite_or_none(fn(x, y).statistic)


def kappa_quadratic(judge, rounded):
    observed = np.zeros((10, 10))
    for a, b in zip(judge, rounded):
        observed[a, b] += 1
    n = observed.sum()
    if n == 0:
        return None
    i, j = np.indices((10, 10))
    w = (i - j) ** 2 / 81.0
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / n
    denominator = (w * expected).sum()
    return None if denominator == 0 else float(1 - (w * observed).sum() / denominator)


def krippendorff(units):
    """units: one list of values per unit (any coders). Returns (interval, ordinal)."""
    o = np.zeros((10, 10))
    for values in units:
        m = len(values)
        if m < 2:
            continue
        for p in range(m):
            for q in range(m):
                if p != q:
                    o[values[p], values[q]] += 1.0 / (m - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    results = []
    for metric in ("interval", "ordinal"):
        delta = np.zeros((10, 10))
        for c in range(10):
            for k in range(10):
                if metric == "interval":
                    delta[c, k] = (c - k) ** 2
                else:
                    lo, hi = min(c, k), max(c, k)
                    delta[c, k] = (n_c[lo : hi + 1].sum() - (n_c[c] + n_c[k]) / 2) ** 2
        if n <= 1:
            results.append(None)
            continue
        d_o = (o * delta).sum() / n
        d_e = (np.outer(n_c, n_c) * delta).sum() / (n * (n - 1))
        results.append(None if d_e == 0 else float(1 - d_o / d_e))
    return tuple(results)


def statistics(items, minimum):
    judged = [it for it in items if it["judge"] is not None]
    j = np.array([it["judge"] for it in judged], dtype=float)
    h = np.array([mean_of(it["raters"]) for it in judged], dtype=float)
    judge = [it["judge"] for it in judged]
    rounded = [rounded_half_up(it["raters"]) for it in judged]
    k = len(judged)
    share = (lambda count: count / k) if k else (lambda count: None)
    confusion = [[0] * 5 for _ in range(5)]
    for a, b in zip(judge, rounded):
        confusion[BANDS[a]][BANDS[b]] += 1
    all_alpha = krippendorff(
        [([it["judge"]] if it["judge"] is not None else []) + list(it["raters"]) for it in items]
    )
    multi = [list(it["raters"]) for it in items if len(it["raters"]) >= 2]
    raters_alpha = krippendorff(multi)
    out = {
        "n": len(items),
        "n_judged": k,
        "pearson": correlation(stats.pearsonr, j, h),
        "spearman": correlation(stats.spearmanr, j, h),
        "kappa_quadratic": kappa_quadratic(judge, rounded),
        "alpha_interval": all_alpha[0],
        "alpha_ordinal": all_alpha[1],
        "mae": share(float(np.abs(j - h).sum())),
        "bias": share(float((j - h).sum())),
        "exact": share(sum(1 for a, b in zip(judge, rounded) if a == b)),
        "within_1": share(sum(1 for a, b in zip(judge, rounded) if abs(a - b) <= 1)),
        "confusion": confusion,
        "raters": {"items": len(multi), "alpha_interval": raters_alpha[0], "alpha_ordinal": raters_alpha[1]},
    }
    if minimum is not None:
        tp = sum(1 for a, b in zip(judge, rounded) if a < minimum and b < minimum)
        fp = sum(1 for a, b in zip(judge, rounded) if a < minimum <= b)
        fn = sum(1 for a, b in zip(judge, rounded) if b < minimum <= a)
        tn = sum(1 for a, b in zip(judge, rounded) if a >= minimum and b >= minimum)
        out["fails"] = {
            "minimum": minimum,
            "precision": tp / (tp + fp) if tp + fp else None,
            "recall": tp / (tp + fn) if tp + fn else None,
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "tn": tn,
        }
    return out


class Xoshiro128StarStar:
    """xoshiro128** (Blackman & Vigna), state from splitmix32 of the seed; uniform indices by masked rejection."""

    def __init__(self, seed):
        x = seed & MASK32
        self.s = []
        for _ in range(4):
            x = (x + 0x9E3779B9) & MASK32
            z = x ^ (x >> 16)
            z = (z * 0x21F0AAAD) & MASK32
            z ^= z >> 15
            z = (z * 0x735A2D97) & MASK32
            self.s.append(z ^ (z >> 15))

    def next(self):
        s = self.s
        rotl = lambda v, k: ((v << k) | (v >> (32 - k))) & MASK32  # noqa: E731
        result = (rotl((s[1] * 5) & MASK32, 7) * 9) & MASK32
        t = (s[1] << 9) & MASK32
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 11)
        return result

    def below(self, n):
        mask = (1 << (n - 1).bit_length()) - 1
        while True:
            x = self.next() & mask
            if x < n:
                return x


def flat(figures):
    """The resampled figures under the names of Dramaturg's result (fails.* and raters.* nested)."""
    out = {
        name: figures[name]
        for name in (
            "pearson", "spearman", "kappa_quadratic", "alpha_interval", "alpha_ordinal",
            "mae", "bias", "exact", "within_1",
        )
    }
    if "fails" in figures:
        out["fails.precision"] = figures["fails"]["precision"]
        out["fails.recall"] = figures["fails"]["recall"]
    out["raters.alpha_interval"] = figures["raters"]["alpha_interval"]
    out["raters.alpha_ordinal"] = figures["raters"]["alpha_ordinal"]
    return out


def bootstrap(items, minimum, resamples, seed):
    rng = Xoshiro128StarStar(seed)
    n = len(items)
    values = {}
    for _ in range(resamples):
        sample = [items[rng.below(n)] for _ in range(n)]
        for name, value in flat(statistics(sample, minimum)).items():
            values.setdefault(name, [])
            if value is not None:
                values[name].append(value)
    intervals = {}
    for name, got in values.items():
        interval = None
        if got:
            lo, hi = np.percentile(np.array(got), [2.5, 97.5])
            interval = [float(lo), float(hi)]
        intervals[name] = {"interval": interval, "defined": len(got)}
    return intervals
