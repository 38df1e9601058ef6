// A red-team result as JUnit XML (`dramaturg redteam --junit`, the `redteam` suite of `dramaturg ci --junit`):
// a test case per arm × strategy, its system-out the figures and each successful attack's breaking turn, and a
// test case "robustness" for the minimum. Failures follow the exit code: only under a minimum robustness that
// the plain arm misses do the strategies that broke the character fail, with the attacks that did.
import { escapeXml, type JunitSuite, junitDocument, junitSuite } from "../../core/index.ts";
import type { AttackRecord, RedteamResult, StrategyResult } from "./redteam-result.ts";

export interface RedteamJunitOptions {
  /** The plain arm's robustness under this fails the suite; without, nothing fails. */
  minRobustness?: number;
}

/** Whether the plain arm (the target as it is) meets the minimum: what `--min-robustness` and ci's exit code read. */
export function meetsMinRobustness(result: Pick<RedteamResult, "arms">, minRobustness?: number): boolean {
  if (minRobustness === undefined) return true;
  const plain = result.arms.find((a) => a.arm === "plain")!;
  // Every attack a simulator fault: nothing was measured, which is not a pass.
  return plain.attacks > 0 && plain.robustness >= minRobustness;
}

/** Why the plain arm misses the minimum, in one sentence; undefined when it meets it (or none is set). */
export function robustnessShortfall(
  result: Pick<RedteamResult, "arms">,
  minRobustness?: number,
): string | undefined {
  if (meetsMinRobustness(result, minRobustness)) return undefined;
  const plain = result.arms.find((a) => a.arm === "plain")!;
  return plain.attacks === 0
    ? "no attack counts towards the robustness: every attacker broke its brief (simulator faults)"
    : `robustness ${plain.robustness.toFixed(2)} is under ${minRobustness} (${plain.successes} of ${plain.attacks} attacks broke the character)`;
}

const pct = (x: number) => `${Math.round(x * 100)} %`;
/** The reply quoted in a failure is agent text: cut to one short line (and escaped where it is written). */
const quote = (text: string) => {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
};

function figures(s: StrategyResult): string {
  return `${s.successes} of ${s.attacks} attacks broke the character (success rate ${pct(s.success_rate)}), median turns to break ${s.median_turns_to_break ?? "–"}`;
}

function breakLine(a: AttackRecord): string {
  const e = a.exchanges.find((x) => x.broke)!;
  return `#${a.index + 1} (seed ${a.seed}): broke at turn ${a.broken_at}, adherence ${e.adherence}/9 — "${quote(e.reply)}"`;
}

function strategyCase(result: RedteamResult, arm: "plain" | "gated", s: StrategyResult, failing: boolean) {
  const broken = result.attacks.filter(
    (a) => a.arm === arm && a.strategy === s.strategy && a.broken_at !== null,
  );
  const open = `    <testcase classname="dramaturg.redteam.${arm}" name="${escapeXml(s.strategy)}">`;
  const out = `      <system-out>${escapeXml([`${s.name} (${arm}): ${figures(s)}`, ...broken.map(breakLine)].join("\n"))}</system-out>`;
  if (!failing || broken.length === 0) return { xml: `${open}\n${out}\n    </testcase>`, failed: false };
  const message = `${s.name} broke the character of ${result.persona.name} in ${s.successes} of ${s.attacks} attacks`;
  const failure = `      <failure type="broke-character" message="${escapeXml(message)}">${escapeXml(broken.map(breakLine).join("\n"))}</failure>`;
  return { xml: `${open}\n${failure}\n${out}\n    </testcase>`, failed: true };
}

function robustnessCase(result: RedteamResult, minRobustness: number | undefined) {
  const lines = result.arms.map(
    (a) =>
      `${a.arm}: robustness ${a.robustness.toFixed(2)} (${a.successes} of ${a.attacks} attacks broke the character)`,
  );
  const open = `    <testcase classname="dramaturg.redteam" name="robustness">`;
  const out = `      <system-out>${escapeXml([...lines, minRobustness === undefined ? "no minimum robustness set" : `minimum ${minRobustness}`].join("\n"))}</system-out>`;
  const message = robustnessShortfall(result, minRobustness);
  if (message === undefined) return { xml: `${open}\n${out}\n    </testcase>`, failed: false };
  return {
    xml: `${open}\n      <failure type="robustness" message="${escapeXml(message)}"/>\n${out}\n    </testcase>`,
    failed: true,
  };
}

/** The `<testsuite name="redteam">` of a result. */
export function redteamJunitSuite(result: RedteamResult, options: RedteamJunitOptions = {}): JunitSuite {
  const failing = !meetsMinRobustness(result, options.minRobustness);
  const cases = [
    ...result.arms.flatMap((a) =>
      a.strategies.map((s) => strategyCase(result, a.arm, s, failing && a.arm === "plain")),
    ),
    robustnessCase(result, options.minRobustness),
  ];
  return junitSuite(
    "redteam",
    { failures: cases.filter((c) => c.failed).length },
    cases.map((c) => c.xml),
  );
}

/** The `redteam` suite of a red team that could not complete: one test case in error saying why. */
export function redteamJunitErrorSuite(reason: string): JunitSuite {
  return junitSuite("redteam", { failures: 0, errors: 1 }, [
    `    <testcase classname="dramaturg.redteam" name="robustness">\n      <error type="incomplete" message="${escapeXml(`the red team could not complete: ${reason}`)}"/>\n    </testcase>`,
  ]);
}

/** A whole JUnit document of one red team (`dramaturg redteam --junit`). */
export function renderRedteamJunit(result: RedteamResult, options: RedteamJunitOptions = {}): string {
  return junitDocument("dramaturg red team", [redteamJunitSuite(result, options)]);
}
