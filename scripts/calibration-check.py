#!/usr/bin/env python3
"""Checks a calibration document (`dramaturg calibrate ... --format json`) against an independent computation.

    python3 scripts/calibration-check.py LABELS_FILE... --verdicts FIXTURES.json --transcript TRANSCRIPT.json \\
        [--propositions DIR] --result CALIBRATION.json [--trials N] [--messages m01,m02,...]

It reads what the calibration read, with Python's own readers, and recomputes every figure from issue 39's
definitions; nothing is taken from Dramaturg but the run's settings (the minimum, the kappa bar, the
bootstrap's resamples and seed, from the document unless given):

- the labels (YAML through PyYAML, JSON, JSONL, CSV): each label is one rater's raw 0-9 claim score of an
  item (dimension, proposition, agent, message or channel); a pass/fail verdict is 9/0, flipped on an inverted
  claim (looked up in the propositions, the built-in sets under src/propositions/builtin beneath the folder's);
  a message's agent is its sender in the transcript; a label without a rater is a rater of its own;
- the judge's raw score of each item from the judge fixtures (`dramaturg.judge-fixtures/v1`: what the fixture
  judge replayed, or what `--record` wrote): per trial the matching entry that names the most key fields (the
  earliest on a tie); no entry, or one without a score, is an errored trial; over trials the mean of the
  scored ones rounded half up, null when every trial errored;
- items on messages outside --messages (a run that judged only some messages) are "not judged" and left out;
- per proposition, per dimension and overall, over the items in key order: every statistic of
  scripts/calibration_stats.py (SciPy's pearsonr and spearmanr against the raters' mean; quadratic-weighted
  kappa and exact/+-1 against the mean rounded half up; Krippendorff's alpha with the judge and every rater as
  coders, units with fewer than two values left out; MAE, bias, confusion bands, fails), each with its
  percentile-bootstrap 95 % interval from plain item resampling; the raters' own alpha over all compared items;
  which propositions are flagged (kappa below the bar, at least two judged items) and their worst items.

It prints every figure, compares each with the document and exits 1 listing those that differ by more than
1e-9 (a null where the other has a number is a difference); 2 on bad input. With --write FILE it writes the
figures instead (how test/fixtures/calibration/unseen/reference.json is made). Needs NumPy and SciPy.
"""

import argparse
import csv
import io
import json
import math
import sys
from fractions import Fraction
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts in a clone
import numpy as np  # noqa: E402
import scipy  # noqa: E402
from calibration_stats import bootstrap, statistics  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BUILTIN_PROPOSITIONS = ROOT / "src" / "propositions" / "builtin"
STATISTICS = [
    "pearson", "spearman", "kappa_quadratic", "alpha_interval", "alpha_ordinal",
    "mae", "bias", "exact", "within_1",
]
TARGET_OF_DIMENSION = {"adherence": "message", "consistency": "message", "fluency": "agent", "convergence": "channel"}
LABEL_COLUMNS = ["dimension", "proposition_id", "agent_id", "message_id", "channel", "score", "verdict", "rater", "note"]
FIXTURE_KEY_FIELDS = ["agent_id", "message_id", "channel", "trial"]
TOO_FEW_ITEMS = 5
MIN_FLAGGED_ITEMS = 2
MAX_DISAGREEMENTS = 5


class BadInput(Exception):
    """Exit 2: the file and what is wrong with it."""


# ----------------------------------------------------------------------------------------------------------
# Reading the files.


def load_yaml(text, file):
    try:
        import yaml
    except ImportError as error:
        raise BadInput(f"{file}: reading YAML needs PyYAML (pip install pyyaml)") from error
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise BadInput(f"{file}: not valid YAML: {error}") from error


def load_json(text, file):
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise BadInput(f"{file}:{error.lineno}: not valid JSON: {error.msg}") from error


def read_text(file):
    try:
        return Path(file).read_text(encoding="utf-8-sig")
    except OSError as error:
        raise BadInput(f"{file}: {error.strerror}") from error


def read_labels(file):
    """The labels of one file as (place, dict) pairs, in the file's order."""
    text = read_text(file)
    suffix = Path(file).suffix.lower()
    if suffix == ".csv":
        # Comment lines start with '#' (blanked, so that the reader's line numbers stay the file's); cells are
        # trimmed and an empty one is absent.
        lines = ["" if line.lstrip().startswith("#") else line for line in text.splitlines()]
        reader = csv.reader(io.StringIO("\n".join(lines)))
        rows = [(reader.line_num, row) for row in reader if any(cell.strip() for cell in row)]
        if not rows:
            raise BadInput(f"{file}: no header row")
        header = [cell.strip() for cell in rows[0][1]]
        for column in header:
            if column not in LABEL_COLUMNS:
                raise BadInput(f"{file}:{rows[0][0]}: unknown column {column!r}")
        labels = []
        for number, row in rows[1:]:
            label = {}
            for column, cell in zip(header, row):
                cell = cell.strip()
                if cell != "":
                    label[column] = int(cell) if column == "score" and cell.lstrip("+-").isdigit() else cell
            labels.append((f"{file}:{number}", label))
        return labels
    if suffix in (".jsonl", ".ndjson"):
        labels = []
        first = True
        for number, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            value = load_json(line, f"{file}:{number}")
            if first and isinstance(value, dict) and "format" in value:
                first = False
                continue
            first = False
            labels.append((f"{file}:{number}", value))
        return labels
    document = load_json(text, file) if suffix == ".json" else load_yaml(text, file)
    if not isinstance(document, dict) or not isinstance(document.get("labels"), list):
        raise BadInput(f"{file}: expected a dramaturg.labels/v1 document with a list of labels")
    return [(f"{file}: labels[{index}]", label) for index, label in enumerate(document["labels"])]


def read_transcript(file):
    """Each message's sender (in the order of the file)."""
    text = read_text(file)
    stripped = text.lstrip()
    if file.endswith(".jsonl") or (stripped.startswith("{") and "\n" in stripped.strip() and is_json_line(stripped)):
        lines = [line for line in text.split("\n") if line.strip()]
        messages = [load_json(line, file) for line in lines[1:]]
    else:
        messages = load_json(text, file).get("messages", [])
    return {m["id"]: m["sender"] for m in messages}


def is_json_line(text):
    try:
        json.loads(text.split("\n", 1)[0])
        return True
    except json.JSONDecodeError:
        return False


def proposition_files(folder, dimension, agent):
    """The files merged for a dimension (and agent): the folder's _default or the built-in one, then the agent's."""
    def first_existing(directory, name):
        for extension in (".yaml", ".yml"):
            path = Path(directory) / dimension / f"{name}{extension}"
            if path.is_file():
                return path
        return None

    base = (first_existing(folder, "_default") if folder else None) or first_existing(BUILTIN_PROPOSITIONS, "_default")
    own = first_existing(folder, agent) if folder and agent else None
    return [path for path in (base, own) if path]


def inverted_claims(folder):
    cache = {}

    def inverted(dimension, agent, proposition_id):
        key = (dimension, agent)
        if key not in cache:
            claims = {}
            for path in proposition_files(folder, dimension, agent):
                for p in (load_yaml(read_text(path), str(path)) or {}).get("propositions", []):
                    claims[p["id"]] = bool(p.get("inverted", False))
            cache[key] = claims
        if proposition_id not in cache[key]:
            where = "the built-in sets (give --propositions)" if folder is None else f"{folder} or the built-in sets"
            raise BadInput(f"no {dimension} proposition {proposition_id!r} for {agent or 'the channels'} in {where}")
        return cache[key][proposition_id]

    return inverted


def read_fixtures(file):
    text = read_text(file)
    document = load_json(text, file) if text.lstrip().startswith(("{", "[")) else load_yaml(text, file)
    if (
        not isinstance(document, dict)
        or document.get("format") != "dramaturg.judge-fixtures/v1"
        or not isinstance(document.get("verdicts"), list)
    ):
        raise BadInput(f"{file}: expected a dramaturg.judge-fixtures/v1 document with a list of verdicts")
    return document["verdicts"]


# ----------------------------------------------------------------------------------------------------------
# Items: the labels grouped by target, the judge's score of each.


def items_of(label_files, senders, inverted):
    """Every labelled item, by key (dimension, proposition, agent, message or channel) -> {rater: score}."""
    items = {}
    unnamed = 0
    for file in label_files:
        for place, label in read_labels(file):
            if not isinstance(label, dict):
                raise BadInput(f"{place}: expected a label object")
            dimension = label.get("dimension")
            target = TARGET_OF_DIMENSION.get(dimension)
            if target is None:
                raise BadInput(f"{place}: dimension {dimension!r} is not calibrated")
            proposition = label.get("proposition_id")
            if target == "message":
                message = label.get("message_id")
                if message not in senders:
                    raise BadInput(f"{place}: message {message!r} is not in the transcript")
                agent, where = senders[message], message
            elif target == "agent":
                agent, where = label.get("agent_id"), ""
            else:
                agent, where = "", label.get("channel")
            if not proposition or agent is None or where is None:
                raise BadInput(f"{place}: a {dimension} label needs proposition_id and its {target}")
            if "score" in label:
                score = label["score"]
                if not isinstance(score, int) or isinstance(score, bool) or not 0 <= score <= 9:
                    raise BadInput(f"{place}: score {score!r} is not a whole number from 0 to 9")
            elif label.get("verdict") in ("pass", "fail"):
                passes = label["verdict"] == "pass"
                try:
                    score = 9 if passes != inverted(dimension, agent or None, proposition) else 0
                except BadInput as problem:
                    raise BadInput(f"{place}: {problem}") from problem
            else:
                raise BadInput(f"{place}: expected a score or a verdict (pass or fail)")
            if "rater" in label:
                rater = label["rater"]
            else:
                unnamed += 1
                rater = ("unnamed", unnamed)
            raters = items.setdefault((dimension, proposition, agent, where), {})
            if rater in raters:
                raise BadInput(f"{place}: rater {rater!r} labelled this item twice")
            raters[rater] = score
    return items


def fixture_score(verdicts, key):
    """The fixture judge's raw score for a verdict key, None when it would error (no entry, or no score)."""
    best, specificity = None, -1
    for v in verdicts:
        if v.get("dimension") != key["dimension"] or v.get("proposition_id") != key["proposition_id"]:
            continue
        named = [field for field in FIXTURE_KEY_FIELDS if field in v]
        if all(v[field] == key.get(field) for field in named) and len(named) > specificity:
            best, specificity = v, len(named)
    return None if best is None else best.get("score")


def judge_score(verdicts, item_key, trials):
    """The judge's score of an item: its scored trials' mean rounded half up; None when every trial errored."""
    key = target_of(item_key)
    scores = [s for t in range(1, trials + 1) if (s := fixture_score(verdicts, {**key, "trial": t})) is not None]
    return None if not scores else math.floor(Fraction(sum(scores), len(scores)) + Fraction(1, 2))


def target_of(item_key):
    """An item's verdict key, trial aside: what the judge was asked about."""
    dimension, proposition, agent, where = item_key
    target = TARGET_OF_DIMENSION[dimension]
    out = {"dimension": dimension, "proposition_id": proposition}
    if target == "message":
        out.update(agent_id=agent, message_id=where)
    elif target == "agent":
        out.update(agent_id=agent)
    else:
        out.update(channel=where)
    return out


# ----------------------------------------------------------------------------------------------------------
# Figures.


def figures_of(items, settings, summary):
    """The figures of a group of {"key", "judge", "raters"} items, in the shape of the calibration document."""
    data = [{"judge": it["judge"], "raters": it["raters"]} for it in items]
    point = statistics(data, settings["minimum"])
    resamples = settings["resamples"] if items else 0
    drawn = bootstrap(data, settings["minimum"], resamples, settings["seed"]) if resamples else {}
    interval = lambda name: drawn[name]["interval"] if name in drawn else None  # noqa: E731
    out = {"n": point["n"], "n_judged": point["n_judged"]}
    for name in STATISTICS:
        out[name] = point[name]
    out["ci"] = {name: interval(name) for name in STATISTICS}
    if summary:
        out["confusion"] = {"counts": point["confusion"]}
        if "fails" in point:
            out["fails"] = {
                **point["fails"],
                "ci": {"precision": interval("fails.precision"), "recall": interval("fails.recall")},
            }
        out["bootstrap"] = {
            "resamples": resamples,
            "seed": settings["seed"],
            "defined": {name: d["defined"] for name, d in drawn.items() if d["defined"] < resamples},
        }
    out["_raters"] = {
        **point["raters"],
        "ci": {
            "alpha_interval": interval("raters.alpha_interval"),
            "alpha_ordinal": interval("raters.alpha_ordinal"),
        },
    }
    return out


def calibration_figures(label_files, verdicts_file, transcript_file, propositions, settings):
    senders = read_transcript(transcript_file)
    items = items_of(label_files, senders, inverted_claims(propositions))
    verdicts = read_fixtures(verdicts_file)
    judged_messages = set(settings["messages"]) if settings["messages"] is not None else None
    compared, not_judged = [], []
    for key in sorted(items):
        target = target_of(key)
        if judged_messages is not None and "message_id" in target and target["message_id"] not in judged_messages:
            not_judged.append(target)
            continue
        raters = [score for _, score in sorted(items[key].items(), key=lambda pair: str(pair[0]))]
        compared.append({"key": key, "judge": judge_score(verdicts, key, settings["trials"]), "raters": raters})

    overall = figures_of(compared, settings, summary=True)
    raters = overall.pop("_raters")
    dimensions = []
    for dimension in sorted({it["key"][0] for it in compared}):
        group = figures_of([it for it in compared if it["key"][0] == dimension], settings, summary=True)
        group.pop("_raters")
        dimensions.append({"dimension": dimension, **group})
    propositions_out = []
    for dimension, proposition in sorted({it["key"][:2] for it in compared}):
        group_items = [it for it in compared if it["key"][:2] == (dimension, proposition)]
        group = figures_of(group_items, settings, summary=False)
        group.pop("_raters")
        kappa = group["kappa_quadratic"]
        flagged = group["n_judged"] >= MIN_FLAGGED_ITEMS and (
            kappa < settings["min_kappa"] if kappa is not None else group["exact"] != 1
        )
        entry = {"dimension": dimension, "proposition_id": proposition, **group, "flagged": flagged}
        entry["too_few"] = group["n_judged"] < TOO_FEW_ITEMS
        if flagged:
            entry["disagreements"] = disagreements(group_items)
        propositions_out.append(entry)
    return {
        "judge_trials": settings["trials"] if compared else 0,
        "minimum": settings["minimum"],
        "minimum_kappa": settings["min_kappa"],
        "overall": overall,
        "dimensions": dimensions,
        "propositions": propositions_out,
        "raters": raters,
        "not_judged": len(not_judged),
        "not_judged_items": not_judged,
    }


def disagreements(group_items):
    """The largest |judge - mean| first (ties in key order), at most five, with the judge and the mean."""
    gaps = []
    for order, it in enumerate(group_items):
        if it["judge"] is None:
            continue
        mean = sum(it["raters"]) / len(it["raters"])
        if abs(it["judge"] - mean) > 0:
            gaps.append((-abs(it["judge"] - mean), order, it, mean))
    out = []
    for _, _, it, mean in sorted(gaps, key=lambda g: (g[0], g[1]))[:MAX_DISAGREEMENTS]:
        target = target_of(it["key"])
        del target["dimension"], target["proposition_id"]
        out.append({**target, "human_mean": mean, "judge": it["judge"]})
    return out


# ----------------------------------------------------------------------------------------------------------
# Comparing with the document.


IDENTITY = ("dimension", "proposition_id", "agent_id", "message_id", "channel")


def identity(entry):
    """How a group or item is named in a list of them (matched by name, not position)."""
    if isinstance(entry, dict) and "dimension" in entry:
        return "/".join(str(entry[k]) for k in IDENTITY if k in entry)
    return None


def differences(expected, actual, path, tolerance, out, largest=None):
    """Every figure of `expected` that `actual` lacks or holds differently (numbers to `tolerance`); `largest`
    keeps the largest difference between two numbers, [gap, path]."""
    largest = largest if largest is not None else [0.0, ""]
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            out.append((path, expected, actual))
            return out
        for key, value in expected.items():
            differences(value, actual.get(key, "(missing)"), f"{path}.{key}" if path else key, tolerance, out, largest)
    elif isinstance(expected, list):
        if not isinstance(actual, list):
            out.append((path, expected, actual))
        elif expected and identity(expected[0]) is not None:
            by_id = {identity(a): a for a in actual}
            for e in expected:
                differences(e, by_id.get(identity(e), "(missing)"), f"{path}[{identity(e)}]", tolerance, out, largest)
            for extra in sorted(set(by_id) - {identity(e) for e in expected}):
                out.append((f"{path}[{extra}]", "(none)", "present"))
        elif len(expected) != len(actual):
            out.append((path, expected, actual))
        else:
            for index, (e, a) in enumerate(zip(expected, actual)):
                differences(e, a, f"{path}[{index}]", tolerance, out, largest)
    elif isinstance(expected, bool) or expected is None or isinstance(expected, str):
        if expected != actual or type(expected) is not type(actual):
            out.append((path, expected, actual))
    elif isinstance(expected, (int, float)):
        if isinstance(actual, bool) or not isinstance(actual, (int, float)):
            out.append((path, expected, actual))
            return out
        gap = abs(expected - actual)
        if gap > largest[0]:
            largest[:] = [gap, path]
        if not gap <= tolerance:
            out.append((path, expected, actual))
    return out


# ----------------------------------------------------------------------------------------------------------
# Printing.


def shown(value):
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, float):
        return f"{value:.12g}"
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, float) for v in value):
        return f"[{value[0]:.6g}, {value[1]:.6g}]"
    return json.dumps(value)


def print_group(title, group):
    print(f"{title}: n {group['n']}, judged {group['n_judged']}")
    for name in STATISTICS:
        print(f"  {name:<16} {shown(group[name]):<20} 95% CI {shown(group['ci'][name])}")
    if "fails" in group:
        f = group["fails"]
        for name in ("precision", "recall"):
            print(f"  fails.{name:<10} {shown(f[name]):<20} 95% CI {shown(f['ci'][name])}")
        print(f"  fails (minimum {f['minimum']}): tp {f['tp']}, fp {f['fp']}, fn {f['fn']}, tn {f['tn']}")
    if "confusion" in group:
        print(f"  confusion (bands 0 | 1-3 | 4-5 | 6-8 | 9): {group['confusion']['counts']}")
    if "flagged" in group:
        print(f"  flagged {str(group['flagged']).lower()}, too few {str(group['too_few']).lower()}")


def print_figures(figures):
    print_group("overall", figures["overall"])
    for group in figures["dimensions"]:
        print_group(f"dimension {group['dimension']}", group)
    for group in figures["propositions"]:
        print_group(f"proposition {group['dimension']}/{group['proposition_id']}", group)
    r = figures["raters"]
    print(f"raters (items with two or more: {r['items']})")
    for name in ("alpha_interval", "alpha_ordinal"):
        print(f"  {name:<16} {shown(r[name]):<20} 95% CI {shown(r['ci'][name])}")
    print(f"not judged: {figures['not_judged']}; judge trials: {figures['judge_trials']}")


def settings_from(arguments, result):
    bootstrap_of = (result or {}).get("overall", {}).get("bootstrap", {})

    def pick(given, from_result, default):
        return given if given is not None else (from_result if result is not None else default)

    return {
        "minimum": pick(arguments.minimum, (result or {}).get("minimum"), None),
        "min_kappa": pick(arguments.min_kappa, (result or {}).get("minimum_kappa"), 0.6),
        "resamples": pick(arguments.resamples, bootstrap_of.get("resamples"), 1000),
        "seed": pick(arguments.seed, bootstrap_of.get("seed"), 1),
        "trials": arguments.trials,
        "messages": arguments.messages.split(",") if arguments.messages else None,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("labels", nargs="+", help="label files (YAML, JSON, JSONL, CSV)")
    parser.add_argument("--verdicts", required=True, help="the judge's verdicts as judge fixtures (JSON or YAML)")
    parser.add_argument("--transcript", required=True, help="the transcript the labels are of (JSON or JSONL)")
    parser.add_argument("--propositions", help="the propositions folder (for pass/fail labels on inverted claims)")
    parser.add_argument("--result", help="the calibration document to check (calibrate --format json)")
    parser.add_argument("--write", help="write the figures to this file instead of checking a document")
    parser.add_argument("--trials", type=int, default=1, help="trials the run judged each item (default 1)")
    parser.add_argument("--messages", help="comma-separated: the only messages the run judged")
    parser.add_argument("--minimum", type=float, help="the fails threshold (default: the document's)")
    parser.add_argument("--min-kappa", type=float, help="the kappa bar (default: the document's, else 0.6)")
    parser.add_argument("--resamples", type=int, help="bootstrap resamples (default: the document's, else 1000)")
    parser.add_argument("--seed", type=int, help="bootstrap seed (default: the document's, else 1)")
    parser.add_argument("--tolerance", type=float, default=1e-9)
    arguments = parser.parse_args()
    if (arguments.result is None) == (arguments.write is None):
        parser.error("give --result (to check a calibration) or --write (to write the figures)")
    try:
        result = load_json(read_text(arguments.result), arguments.result) if arguments.result else None
        settings = settings_from(arguments, result)
        if settings["minimum"] is not None and float(settings["minimum"]).is_integer():
            settings["minimum"] = int(settings["minimum"])
        figures = calibration_figures(
            arguments.labels, arguments.verdicts, arguments.transcript, arguments.propositions, settings
        )
    except BadInput as problem:
        print(f"calibration-check: {problem}", file=sys.stderr)
        return 2

    if arguments.write:
        document = {
            "_about": (
                "Not Dramaturg's output: figures computed by scripts/calibration-check.py from the label files and "
                f"judge fixtures beside this file, with SciPy {scipy.__version__} and NumPy {np.__version__}. "
                "Do not edit by hand; run scripts/calibration-unseen.py again."
            ),
            "settings": settings,
            **figures,
        }
        Path(arguments.write).write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {arguments.write}")
        return 0

    print_figures(figures)
    largest = [0.0, ""]
    found = differences(figures, result, "", arguments.tolerance, [], largest)
    print()
    compared = "" if not largest[1] else f" (the largest gap: {largest[0]:.3g}, at {largest[1]})"
    if found:
        print(f"{len(found)} figure(s) differ from {arguments.result} by more than {arguments.tolerance:g}:")
        for path, expected, actual in found:
            if isinstance(expected, dict) and not isinstance(actual, dict):
                expected, actual = "(present)", actual if isinstance(actual, str) else shown(actual)
            print(f"  {path}: independent {shown(expected)}, document {shown(actual)}")
        if result.get("judge_trials", 0) != figures["judge_trials"]:
            print(f"(the document's judge made {result.get('judge_trials')} trial(s): give --trials accordingly)")
        return 1
    print(f"every figure of {arguments.result} equals the independent computation to {arguments.tolerance:g}{compared}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
