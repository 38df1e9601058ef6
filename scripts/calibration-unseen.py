#!/usr/bin/env python3
"""Writes test/fixtures/calibration/unseen/: a labels set over the bundled ensemble that no test was written
against, the fixture judge's verdicts on it, and the figures scripts/calibration-check.py computes from them,
which test/calibration/calibrate-unseen.test.ts checks `calibrateStoredRun` against.

Everything is machine-generated from one seed: no person labelled and no model judged. Three raters over the
ensemble's messages, agents and channels; some items labelled by one rater only, some raters missing on some
items, a few pass/fail verdicts (on normal and inverted claims), two labels without a rater, agent_id given on
some message labels and left to the sender on others. The judge: one proposition with a constant offset, two
trials with the second differing on some items, some items errored on every trial (a fixture entry with no
score) or on one, some falling back to the general (agent or channel) entry. The run judges every message but
three, so the labels of those are not judged. The same labels are written as CSV and, shuffled, as JSONL.

Run: python3 scripts/calibration-unseen.py (about half a minute: the bootstrap resamples items one by one).
"""

import csv
import importlib.util
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
ENSEMBLE = ROOT / "examples" / "ensemble"
OUT = ROOT / "test" / "fixtures" / "calibration" / "unseen"
CHECK = Path(__file__).resolve().parent / "calibration-check.py"
SEED = 3_939_039
RATERS = ["rater-1", "rater-2", "rater-3"]
NOT_JUDGED_MESSAGES = ["m07", "m23", "m53"]
SETTINGS = {"trials": 2, "minimum": 6, "min_kappa": 0.6, "resamples": 1000, "seed": 739}
# The judge reads this claim 3 points higher than people do: a high correlation, a lower kappa.
OFFSET_CLAIM = ("adherence", "persona-knowledge")
NOTE = (
    "MACHINE-GENERATED test labels (scripts/calibration-unseen.py, seed {seed}): random scores around a random "
    "truth, not any person's or model's reading of the transcript. For checking the calibration figures only."
)

sys.dont_write_bytecode = True
spec = importlib.util.spec_from_file_location("calibration_check", CHECK)
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)


def clip(value):
    return int(min(9, max(0, value)))


def claims(dimension, agent):
    """(id, inverted) of the claims a dimension is judged on for an agent (or the channels)."""
    out = []
    for path in check.proposition_files(ENSEMBLE / "propositions", dimension, agent):
        for p in check.load_yaml(path.read_text(), str(path))["propositions"]:
            out.append((p["id"], bool(p.get("inverted", False))))
    return out


def targets(transcript):
    """Every item the labels may name: (dimension, proposition, inverted, agent, message or None, channel or None)."""
    agents = [a["id"] for a in transcript["agents"]]
    messages = sorted(transcript["messages"], key=lambda m: m["at"])
    first = {}
    for m in messages:
        first.setdefault(m["sender"], m["id"])
    out = []
    for m in messages:
        if m["sender"] not in agents:
            continue
        for pid, inverted in claims("adherence", m["sender"]):
            out.append(("adherence", pid, inverted, m["sender"], m["id"], None))
        if first[m["sender"]] != m["id"]:
            for pid, inverted in claims("consistency", m["sender"]):
                out.append(("consistency", pid, inverted, m["sender"], m["id"], None))
    for agent in agents:
        for pid, inverted in claims("fluency", agent):
            out.append(("fluency", pid, inverted, agent, None, None))
    for channel in sorted({m["channel"] for m in messages}):
        for pid, inverted in claims("convergence", None):
            out.append(("convergence", pid, inverted, None, None, channel))
    return out


def choose(rng, pool):
    """About 150 items: every agent and channel item, a sample of the message items, a few on unjudged messages."""
    whole = [t for t in pool if t[4] is None]
    on_messages = [t for t in pool if t[4] is not None]
    unjudged = [t for t in on_messages if t[4] in NOT_JUDGED_MESSAGES]
    judged = [t for t in on_messages if t[4] not in NOT_JUDGED_MESSAGES]
    picked = [judged[i] for i in sorted(rng.choice(len(judged), 118, replace=False))]
    picked += [unjudged[i] for i in sorted(rng.choice(len(unjudged), 6, replace=False))]
    return whole + picked


def label_rows(rng, items):
    """The labels (one row per rater and item) and each item's judge scores per trial (None: errored)."""
    rows = []
    judge = {}
    for index, (dimension, pid, inverted, agent, message, channel) in enumerate(items):
        truth = int(rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], p=[.12, .06, .06, .08, .08, .1, .1, .12, .14, .14]))
        count = int(rng.choice([1, 2, 3], p=[0.25, 0.35, 0.4]))
        who = sorted(rng.choice(RATERS, count, replace=False))
        for rater in who:
            bias = 1 if rater == "rater-3" else 0
            row = {"dimension": dimension, "proposition_id": pid, "rater": rater,
                   "score": clip(truth + bias + int(rng.integers(-1, 2)))}
            if message is not None:
                row["message_id"] = message
                if rng.random() < 0.5:
                    row["agent_id"] = agent
            elif agent is not None:
                row["agent_id"] = agent
            else:
                row["channel"] = channel
            rows.append(row)
        offset = 3 if (dimension, pid) == OFFSET_CLAIM else 0
        first = clip(truth + offset + int(rng.integers(-2, 3)))
        judge[index] = [first, first]
        if rng.random() < 0.2:
            judge[index][1] = clip(first + int(rng.choice([-3, -1, 1, 2])))
    # A few labels as pass/fail (a raw 9 or 0 either way), two without a rater, a few notes.
    extremes = [r for r in rows if r["score"] in (0, 1, 8, 9)]
    for r in [extremes[i] for i in rng.choice(len(extremes), 8, replace=False)]:
        inverted = inverted_of(items, r)
        high = r.pop("score") >= 8
        r["verdict"] = "fail" if high == inverted else "pass"
    for r in [rows[i] for i in rng.choice(len(rows), 2, replace=False)]:
        del r["rater"]
    for r, note in zip([rows[i] for i in rng.choice(len(rows), 3, replace=False)], NOTES):
        r["note"] = note
    return rows, judge


NOTES = ['Reads as "on air, in character", mostly', "Terse, but the units are missing", "Half the claim holds; the other half, not"]


def inverted_of(items, row):
    for dimension, pid, inverted, agent, message, channel in items:
        if (dimension, pid) == (row["dimension"], row["proposition_id"]) and (
            message == row.get("message_id") if message is not None else (agent, channel) == (row.get("agent_id"), row.get("channel"))
        ):
            return inverted
    raise AssertionError(row)


def fixtures(rng, items, judge, transcript):
    """General entries for every key the run asks (random scores), then the labelled items' own."""
    verdicts = []
    general = {}
    for agent in [a["id"] for a in transcript["agents"]]:
        for dimension in ("adherence", "consistency", "fluency"):
            for pid, _ in claims(dimension, agent):
                general[(dimension, pid, agent, None)] = int(rng.integers(0, 10))
    channels = sorted({m["channel"] for m in transcript["messages"]})
    for channel in channels:
        for pid, _ in claims("convergence", None):
            general[("convergence", pid, None, channel)] = int(rng.integers(0, 10))
    errored_everywhere, errored_once, falls_back = set(), set(), set()
    message_items = [i for i, t in enumerate(items) if t[4] is not None]
    for i in rng.permutation(message_items)[:16]:
        (errored_everywhere if len(errored_everywhere) < 5 else errored_once if len(errored_once) < 4 else falls_back).add(int(i))
    agent_items = [i for i, t in enumerate(items) if t[4] is None and t[3] is not None]
    errored_everywhere.add(int(rng.choice(agent_items)))
    # An agent or channel item's own entry is the general one: it takes the item's first-trial score.
    for i, (dimension, pid, _, agent, message, channel) in enumerate(items):
        if message is None:
            general[(dimension, pid, agent, channel)] = judge[i][0]
        elif i in falls_back:
            judge[i] = [general[(dimension, pid, agent, None)]] * 2
    for (dimension, pid, agent, channel), score in sorted(general.items(), key=lambda kv: str(kv[0])):
        entry = {"dimension": dimension, "proposition_id": pid}
        entry.update({"agent_id": agent} if agent else {"channel": channel})
        is_errored = any(i in errored_everywhere and items[i][:2] == (dimension, pid) and items[i][3] == agent
                         and items[i][4] is None for i in range(len(items)))
        entry.update({"value": True} if is_errored else {"score": score})
        verdicts.append({**entry, "reasoning": "generated"})
    for channel in channels:
        verdicts.append({"dimension": "ideas_quantity", "proposition_id": "distinct-ideas", "channel": channel,
                         "count": 1, "ideas": ["generated"], "reasoning": "generated"})
    for i, (dimension, pid, _, agent, message, channel) in enumerate(items):
        key = {"dimension": dimension, "proposition_id": pid}
        key.update({"agent_id": agent, "message_id": message} if message else {"agent_id": agent} if agent else {"channel": channel})
        if message is not None and i not in falls_back:
            own = {"value": True} if i in errored_everywhere else {"score": judge[i][0]}
            verdicts.append({**key, **own, "reasoning": "generated"})
        if i in errored_once:
            verdicts.append({**key, "trial": 1, "value": False, "reasoning": "generated: no score on trial 1"})
        elif i not in errored_everywhere and i not in falls_back and judge[i][1] != judge[i][0]:
            verdicts.append({**key, "trial": 2, "score": judge[i][1], "reasoning": "generated: trial 2"})
    return {
        "format": "dramaturg.judge-fixtures/v1",
        "note": f"MACHINE-GENERATED verdicts (scripts/calibration-unseen.py, seed {SEED}): random, no model judged. "
        "For checking the calibration figures only.",
        # Named, so that reports do not call the fixture judge's verdicts hand-written.
        "judge": {"provider": "generated", "model": "calibration-unseen"},
        "verdicts": verdicts,
    }


def write_csv(path, rows):
    out = io.StringIO()
    out.write(f"# {NOTE.format(seed=SEED)}\n")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(check.LABEL_COLUMNS)
    for r in rows:
        writer.writerow([r.get(column, "") for column in check.LABEL_COLUMNS])
    path.write_text(out.getvalue())


def write_jsonl(path, rows, rng):
    lines = [json.dumps({"format": "dramaturg.labels/v1", "note": NOTE.format(seed=SEED)})]
    lines += [json.dumps(rows[i], ensure_ascii=False) for i in rng.permutation(len(rows))]
    path.write_text("\n".join(lines) + "\n")


def figures(labels, write):
    transcript = json.loads((ENSEMBLE / "transcript.json").read_text())
    agents = {a["id"] for a in transcript["agents"]}
    judged = [m["id"] for m in transcript["messages"] if m["sender"] in agents and m["id"] not in NOT_JUDGED_MESSAGES]
    subprocess.run(
        [sys.executable, str(CHECK), str(labels), "--verdicts", str(OUT / "verdicts.json"),
         "--transcript", str(ENSEMBLE / "transcript.json"), "--propositions", str(ENSEMBLE / "propositions"),
         "--trials", str(SETTINGS["trials"]), "--messages", ",".join(judged), "--minimum", str(SETTINGS["minimum"]),
         "--min-kappa", str(SETTINGS["min_kappa"]), "--resamples", str(SETTINGS["resamples"]),
         "--seed", str(SETTINGS["seed"]), "--write", str(write)],
        check=True,
    )


def main():
    rng = np.random.default_rng(SEED)
    transcript = json.loads((ENSEMBLE / "transcript.json").read_text())
    items = choose(rng, targets(transcript))
    rows, judge = label_rows(rng, items)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "verdicts.json").write_text(json.dumps(fixtures(rng, items, judge, transcript), indent=1) + "\n")
    write_csv(OUT / "labels.csv", rows)
    write_jsonl(OUT / "labels.jsonl", rows, rng)
    figures(OUT / "labels.csv", OUT / "reference.json")
    # The JSONL variant holds the same labels in another order: it must give the same figures.
    with tempfile.TemporaryDirectory() as folder:
        again = Path(folder) / "reference.json"
        figures(OUT / "labels.jsonl", again)
        assert json.loads(again.read_text()) == json.loads((OUT / "reference.json").read_text())
    print(f"{len(items)} items, {len(rows)} labels written to {OUT}")


if __name__ == "__main__":
    main()
