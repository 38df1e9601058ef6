#!/usr/bin/env python3
"""The independent computation that test/calibration/agreement-reference.test.ts checks Dramaturg against.

Writes test/fixtures/calibration/reference.json: a few seeded sets of labelled items (missing judge
scores, single-rater items, 1-4 raters, heavy ties, near-constant and constant scores, Krippendorff's own
worked example) and, for each, every agreement statistic of issue 39 computed item by item:

- Pearson's r and Spearman's rho: SciPy (scipy.stats.pearsonr, scipy.stats.spearmanr), judge vs the
  unrounded mean of the raters; NaN (a constant vector) is written as null.
- Cohen's kappa with quadratic weights: the observed 10 x 10 matrix (judge x rounded mean) and the expected
  one (outer product of its marginals / n), kappa = 1 - sum(w O) / sum(w E), w = (i - j)^2 / 81.
- Krippendorff's alpha (interval and ordinal): the coincidence matrix built unit by unit from every ordered
  pair of values (weight 1 / (m_u - 1), units with fewer than two values left out), then
  alpha = 1 - D_o / D_e with the interval metric (c - k)^2 and the ordinal metric
  (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2 (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability").
  Checked here on the paper's worked example (interval 0.849, ordinal 0.815) before anything is written.
- MAE, bias (judge - mean), exact and +-1 agreement (judge vs the mean rounded half up, in exact fractions),
  the band confusion matrix, precision and recall of "fails" (score < minimum).
- The percentile-bootstrap 95 % interval of each statistic, resampling items with the same generator as
  Dramaturg (xoshiro128** seeded by splitmix32, indices by masked rejection; written here from the papers'
  definitions) and np.percentile (linear), every statistic recomputed item by item on each resample, nulls
  skipped. This checks the count-table bootstrap against plain resampling, not only the point estimates.

Nothing here is imported from or translated out of the TypeScript. Run: python3 scripts/calibration-reference.py
"""

import json
import math
import platform
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import scipy
from scipy import stats

OUT = Path(__file__).resolve().parent.parent / "test" / "fixtures" / "calibration" / "reference.json"
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


def clip(v):
    return int(min(9, max(0, v)))


def make_items(rng, n, raters_range, judge_missing, judge_noise, rater_noise, offset=0, truth=None):
    items = []
    for _ in range(n):
        t = int(rng.integers(0, 10)) if truth is None else int(truth(rng))
        m = int(rng.integers(raters_range[0], raters_range[1] + 1))
        raters = [clip(t + rng.integers(-rater_noise, rater_noise + 1)) for _ in range(m)]
        judge = None if rng.random() < judge_missing else clip(t + offset + rng.integers(-judge_noise, judge_noise + 1))
        items.append({"judge": judge, "raters": raters})
    return items


def cases():
    rng = np.random.default_rng(20260739)
    out = []
    out.append(("mixed: 1-4 raters, 8% errored judge scores", make_items(rng, 300, (1, 4), 0.08, 2, 1), 6, 200, 39))
    out.append(("single rater each", make_items(rng, 150, (1, 1), 0.05, 1, 0), 5, 200, 7))
    heavy = make_items(rng, 200, (2, 3), 0.0, 1, 1, truth=lambda r: r.choice([0, 5, 9]))
    out.append(("heavy ties: three true values, 2-3 raters", heavy, 6, 0, 1))
    near = [{"judge": 9, "raters": [9, 9]} for _ in range(40)]
    near += [{"judge": 8, "raters": [9, 8]}, {"judge": 9, "raters": [8]}, {"judge": 8, "raters": [8, 8, 9]}]
    near += [{"judge": None, "raters": [9, 9, 9]}]
    out.append(("near-constant, nothing fails at 6", near, 6, 100, 3))
    constant = make_items(rng, 80, (1, 3), 0.0, 0, 2)
    for it in constant:
        it["judge"] = 7
    out.append(("constant judge", constant, 5, 0, 1))
    truth_offset = make_items(rng, 120, (1, 1), 0.0, 0, 0)
    for it in truth_offset:
        it["judge"] = clip(it["raters"][0] + 2)
    out.append(("judge = rater + 2, clipped at 9", truth_offset, 6, 0, 1))
    out.append(("every judge score errored", [{"judge": None, "raters": r} for r in ([1, 2], [3], [4, 4, 5], [9, 8])], 6, 0, 1))
    kripp = [
        (1, [1, 1]), (2, [2, 3, 2]), (3, [3, 3, 3]), (3, [3, 3, 3]), (2, [2, 2, 2]), (1, [2, 3, 4]),
        (4, [4, 4, 4]), (1, [1, 2, 1]), (2, [2, 2, 2]), (None, [5, 5, 5]), (None, [1, 1]), (None, [3]),
    ]
    out.append((
        "Krippendorff 2011's worked example (coder A as the judge)",
        [{"judge": j, "raters": r} for j, r in kripp],
        None,
        0,
        1,
    ))
    return out


def main():
    example = cases()[-1][1]
    interval, ordinal = krippendorff([([it["judge"]] if it["judge"] is not None else []) + it["raters"] for it in example])
    assert round(interval, 3) == 0.849 and round(ordinal, 3) == 0.815, (interval, ordinal)
    assert Xoshiro128StarStar(0).next() == 1789933344  # the reference C implementation's first output

    written = []
    for name, items, minimum, resamples, seed in cases():
        expected = statistics(items, minimum)
        case = {"name": name, "minimum": minimum, "resamples": resamples, "seed": seed, "items": items, "expected": expected}
        if resamples:
            case["bootstrap"] = bootstrap(items, minimum, resamples, seed)
        written.append(case)
    document = {
        "_about": (
            "Not Dramaturg's output: written by scripts/calibration-reference.py (read its header for how each "
            f"figure was computed) with SciPy {scipy.__version__} and NumPy {np.__version__}. "
            "Do not edit by hand; run the script again."
        ),
        "scipy": scipy.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "cases": written,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(document, indent=1) + "\n")
    print(f"wrote {OUT} ({len(written)} cases)")


if __name__ == "__main__":
    main()
