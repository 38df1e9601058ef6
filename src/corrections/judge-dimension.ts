// Judges one tentative message on one gate dimension: one judge request per dimension (at most 10 claims
// each), the action-level trajectory window, and a deadline after which the dimension passes (fail-open).
import {
  type Agent,
  addUsage,
  escapeDelimiters,
  formatEvent,
  type GateDimension,
  type GateDimensionScore,
  type Message,
  renderPersona,
  round,
  type TokenUsage,
  type TrajectoryEvent,
  type Verdict,
  verdictScore,
  type Window,
  weightedScore,
  windowEvents,
  ZERO_USAGE,
} from "../core/index.ts";
import { type Judge, type JudgeItem, type JudgeRequest, MAX_BATCH_SIZE } from "../judge/index.ts";
import { claimVariables, renderClaim } from "../propositions/index.ts";
import type { GatePropositionSet } from "./gate-propositions.ts";

/**
 * One earlier message the agent saw or sent, oldest first. A message without `from` is the agent's own (an
 * action); one with `from` is what that speaker said to the agent (a stimulus).
 */
export interface GateHistoryEntry {
  text: string;
  /** Who sent it, when it is not the agent itself. */
  from?: string;
}

/** One proposition's part in a dimension's judgement. */
export interface PropositionJudgement {
  id: string;
  /** The claim after template substitution. */
  claim: string;
  /** After `inverted` and `hard`; null when the judge gave no score. */
  score: number | null;
  reasoning: string;
  /** The proposition's advice, with its template variables filled in. */
  recommendation?: string;
}

/** A dimension's judgement of one attempt: the logged score, and what the feedback is built from. */
export interface DimensionJudgement extends GateDimensionScore {
  dimension: GateDimension;
  threshold: number;
  propositions: PropositionJudgement[];
  usage: TokenUsage;
  /**
   * Judge model calls made, as the provider bills them (retries and double-check turns included), those of
   * requests abandoned at the deadline too.
   */
  calls: number;
}

export interface JudgeDimensionInput {
  judge: Judge;
  set: GatePropositionSet;
  threshold: number;
  agent: Agent;
  action: string;
  history: readonly GateHistoryEntry[];
  window: Window;
  timeoutMs: number;
}

// Adherence and suitability judge the message in its situation (what the agent saw and said); consistency
// and fluency compare it with the agent's own earlier messages only, as the offline scorers do.
const OWN_MESSAGES_ONLY: ReadonlySet<GateDimension> = new Set(["consistency", "fluency"]);

const TIMED_OUT = Symbol("timed out");

export async function judgeDimension(input: JudgeDimensionInput): Promise<DimensionJudgement> {
  const { judge, set, threshold, agent, action, history, window, timeoutMs } = input;
  const dimension = set.dimension;
  const base = { dimension, threshold, usage: { ...ZERO_USAGE }, calls: 0 };
  const events = trajectoryEvents(agent, history, OWN_MESSAGES_ONLY.has(dimension));

  // TinyTroupe's rule: with no earlier message there is nothing to be inconsistent with.
  if (dimension === "consistency" && events.length === 0)
    return {
      ...base,
      score: 9,
      passed: true,
      reasoning: `${agent.name} has no earlier message to be consistent with.`,
      propositions: [],
    };

  const variables = claimVariables({ agentName: agent.name, action: escapeDelimiters(action) });
  const judged: PropositionJudgement[] = [];
  const toJudge: { item: JudgeItem; at: number }[] = [];
  set.propositions.forEach((proposition, at) => {
    const recommendation =
      proposition.recommendations_for_improvement !== undefined
        ? renderClaim({ claim: proposition.recommendations_for_improvement }, variables)
        : undefined;
    const claim = renderClaim(proposition, variables);
    judged.push({ id: proposition.id, claim, score: null, reasoning: "", recommendation });
    const applies = proposition.precondition?.({ agentId: agent.id, action: variables.action, variables });
    if (applies === false) {
      judged[at]!.score = 9;
      judged[at]!.reasoning = "The precondition does not hold, so the claim is trivially true.";
      return;
    }
    toJudge.push({
      item: {
        key: { dimension, proposition_id: proposition.id, agent_id: agent.id, trial: 1 },
        kind: "score",
        claim,
      },
      at,
    });
  });

  if (toJudge.length > 0) {
    const context: JudgeRequest["context"] = {
      ...(set.include_personas ? { persona: { name: agent.name, text: renderPersona(agent) } } : {}),
      trajectory: {
        title: `${agent.name}'s ${OWN_MESSAGES_ONLY.has(dimension) ? "earlier messages" : "trajectory before the message under evaluation"}`,
        text: renderLines(events, window, agent.name),
      },
      action: { name: agent.name, text: escapeDelimiters(action) },
    };
    const requests: JudgeRequest[] = [];
    for (let i = 0; i < toJudge.length; i += MAX_BATCH_SIZE)
      requests.push({
        items: toJudge.slice(i, i + MAX_BATCH_SIZE).map((t) => t.item),
        context,
        doubleCheck: set.double_check,
      });

    // Counted as they go out: a request abandoned at the deadline returns no response to read them from.
    let sent = 0;
    const onCall = () => {
      sent++;
    };
    const answered = await withDeadline(timeoutMs, (signal) =>
      Promise.all(requests.map((request) => judge.judge(request, { signal, onCall }))),
    );
    if (answered === TIMED_OUT || answered instanceof Error) base.calls = sent;
    if (answered === TIMED_OUT)
      return {
        ...base,
        score: null,
        passed: true,
        timed_out: true,
        reasoning: `The judge did not answer within ${timeoutMs} ms; the dimension passes (fail-open).`,
        propositions: judged,
      };
    if (answered instanceof Error)
      return {
        ...base,
        score: null,
        passed: true,
        errored: true,
        reasoning: `The judge failed (${answered.name}: ${answered.message}); the dimension passes (fail-open).`,
        propositions: judged,
      };

    const byId = new Map<string, Verdict>();
    let usage: TokenUsage = { ...ZERO_USAGE };
    for (const response of answered) {
      usage = addUsage(usage, response.usage);
      for (const verdict of response.verdicts) byId.set(verdict.key.proposition_id, verdict);
    }
    base.usage = usage;
    base.calls = answered.reduce((n, response) => n + response.calls, 0);
    for (const { item, at } of toJudge) {
      const verdict = byId.get(item.key.proposition_id);
      const proposition = set.propositions[at]!;
      if (verdict?.ok && verdict.score !== undefined) {
        judged[at]!.score = verdictScore(verdict.score, { inverted: proposition.inverted, hard: set.hard });
        judged[at]!.reasoning = verdict.reasoning;
      } else {
        judged[at]!.reasoning = verdict && !verdict.ok ? `errored: ${verdict.error.message}` : "no verdict";
      }
    }
  }

  const score = weightedScore(
    judged.map((j, at) => ({ weight: set.propositions[at]!.weight, score: j.score })),
  );
  const reasoning = judged
    .map((j) => `${j.id}: ${j.score === null ? "no score" : `${round(j.score, 2)}/9`} — ${j.reasoning}`)
    .join("\n");
  if (score === null)
    return {
      ...base,
      score: null,
      passed: true,
      errored: true,
      reasoning: `No proposition was scored; the dimension passes (fail-open).\n${reasoning}`,
      propositions: judged,
    };
  return { ...base, score, passed: score >= threshold, reasoning, propositions: judged };
}

/**
 * Runs `work` with an abort signal that fires after `ms`, and returns TIMED_OUT then even when the work
 * ignores its signal: a hung judge cannot hold the gate past its deadline. A failure is returned, not thrown.
 */
async function withDeadline<T>(
  ms: number,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T | Error | typeof TIMED_OUT> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => {
      resolve(TIMED_OUT);
      controller.abort(new DOMException(`no answer within ${ms} ms`, "TimeoutError"));
    }, ms);
  });
  const running = work(controller.signal).then(
    (value) => value,
    (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
  );
  try {
    return await Promise.race([running, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function trajectoryEvents(
  agent: Agent,
  history: readonly GateHistoryEntry[],
  ownOnly: boolean,
): TrajectoryEvent[] {
  const events: TrajectoryEvent[] = [];
  history.forEach((entry, i) => {
    const own = entry.from === undefined;
    if (ownOnly && !own) return;
    const message: Message = {
      id: `history-${i + 1}`,
      sender: own ? agent.id : entry.from!,
      channel: "conversation",
      text: entry.text,
      at: "",
    };
    events.push({ kind: own ? "action" : "stimulus", message, senderName: own ? agent.name : entry.from! });
  });
  return events;
}

/** The windowed, numbered trajectory (numbers count from the start of the whole history). */
function renderLines(events: readonly TrajectoryEvent[], window: Window, name: string): string {
  const { head, omitted, tail } = windowEvents(events, window);
  const lines = head.map((e, i) => `#${i + 1} ${formatEvent(e, { name })}`);
  if (omitted > 0) lines.push(`(… ${omitted} events omitted …)`);
  const tailStart = events.length - tail.length;
  tail.forEach((e, i) => {
    lines.push(`#${tailStart + i + 1} ${formatEvent(e, { name })}`);
  });
  return lines.join("\n");
}
