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

The statistics themselves are in scripts/calibration_stats.py, shared with scripts/calibration-check.py.
Nothing here is imported from or translated out of the TypeScript. Run: python3 scripts/calibration-reference.py
"""

import json
import platform
import sys
from pathlib import Path

import numpy as np
import scipy

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts in a clone
from calibration_stats import Xoshiro128StarStar, bootstrap, krippendorff, statistics  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "test" / "fixtures" / "calibration" / "reference.json"


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
