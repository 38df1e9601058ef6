// A drift run: for each persona, each group of probes sharing an instruction and each seed, a main
// conversation of N turns (the partner speaks, the target answers); after every even turn the history is
// copied, a probe appended to the copy and the target's answer checked. A fork never enters the main
// history: the next turn is asked over the history as it was. Conversations run a few at once; the result
// is assembled in a fixed order (persona, seed, turn, probe), so it is the same bytes at any concurrency.
import { contentHash, pool } from "../../core/index.ts";
import type { Judge } from "../../judge/index.ts";
import { builtinProbes } from "./builtin-probes.ts";
import type { ChatMessage, ChatTarget } from "./chat-target.ts";
import { checkAnswer, fillName } from "./checkers.ts";
import {
  DEFAULT_DRIFT_BAR,
  DRIFT_FORMAT,
  type DriftCheck,
  type DriftResult,
  firstBelowBar,
  pointOf,
} from "./drift-result.ts";
import {
  type DriftPartner,
  type DriftPersona,
  openingLine,
  selfChatPartner,
  targetSystemPrompt,
} from "./partner.ts";
import { PROBE_KINDS, type Probe } from "./probe.ts";

export interface DriftOptions {
  /** The personas the target plays, each probed on its own. */
  personas: readonly DriftPersona[];
  /** The agent under test. */
  target: ChatTarget;
  /** The other side: default the same persona in self-chat (the target itself). */
  partner?: DriftPartner;
  /** What the partner is, for the result (`custom` when a function is given without saying). */
  partnerKind?: "self-chat" | "simulated-user" | "custom";
  /** Default: the built-in suite. */
  probes?: readonly Probe[];
  /** Where the probes came from, for the result. Default `built-in`. */
  probeSource?: string;
  /** Turns of the main conversation; probes are asked after turns 2, 4, … up to it. Default 16. */
  turns?: number;
  /** Seeds 1…K (or `firstSeed`…): one main conversation per persona, instruction and seed. Default 3. */
  seeds?: number;
  firstSeed?: number;
  /** The stability under which a turn counts as drifted. Default 0.8. */
  bar?: number;
  /** Needed only for probes checked by a judge proposition. */
  judge?: Judge;
  /** Conversations under way at once. Default 4. */
  concurrency?: number;
  signal?: AbortSignal;
  /** After each finished conversation. */
  onProgress?: (done: number, total: number) => void;
}

interface Conversation {
  persona: DriftPersona;
  personaIndex: number;
  instruction: string | undefined;
  probes: { probe: Probe; index: number }[];
  seed: number;
}

/** The probes grouped by their instruction, in the order each instruction first appears. */
function byInstruction(
  probes: readonly Probe[],
): { instruction?: string; probes: { probe: Probe; index: number }[] }[] {
  const groups = new Map<string, { instruction?: string; probes: { probe: Probe; index: number }[] }>();
  probes.forEach((probe, index) => {
    const key = probe.instruction ?? "";
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { instruction: probe.instruction, probes: [] }));
    group.probes.push({ probe, index });
  });
  return [...groups.values()];
}

/** The turns a probe is asked after: 2, 4, … ≤ turns. */
export function probedTurns(turns: number): number[] {
  return Array.from({ length: Math.floor(turns / 2) }, (_, i) => 2 * (i + 1));
}

export async function runDrift(options: DriftOptions): Promise<DriftResult> {
  const { personas, target, judge, signal } = options;
  const probes = options.probes ?? builtinProbes();
  const turns = options.turns ?? 16;
  const seedCount = options.seeds ?? 3;
  const firstSeed = options.firstSeed ?? 1;
  const bar = options.bar ?? DEFAULT_DRIFT_BAR;
  if (!Number.isInteger(turns) || turns < 2)
    throw new RangeError(`turns must be a whole number ≥ 2, got ${turns}`);
  if (!Number.isInteger(seedCount) || seedCount < 1)
    throw new RangeError(`seeds must be a whole number ≥ 1, got ${seedCount}`);
  if (!(bar >= 0 && bar <= 1)) throw new RangeError(`bar must be from 0 to 1, got ${bar}`);
  if (probes.length === 0) throw new RangeError("no probes to ask");

  const calls = { target: 0, partner: 0, judge: 0 };
  const ask: ChatTarget = (request) => {
    calls.target++;
    return target(request);
  };
  const partner = options.partner ?? selfChatPartner(target);
  const seeds = Array.from({ length: seedCount }, (_, i) => firstSeed + i);
  const conversations: Conversation[] = personas.flatMap((persona, personaIndex) =>
    byInstruction(probes).flatMap((group) =>
      seeds.map((seed) => ({
        persona,
        personaIndex,
        instruction: group.instruction,
        probes: group.probes,
        seed,
      })),
    ),
  );
  // Each check lands at its place, whatever order the conversations finish in.
  const slots: DriftCheck[][][] = personas.map(() => []);
  const place = (c: Conversation, turn: number, index: number, check: DriftCheck) => {
    const key = (c.seed - firstSeed) * turns * probes.length + (turn - 1) * probes.length + index;
    slots[c.personaIndex]![key] = [check];
  };

  let done = 0;
  await pool(
    conversations,
    async (c) => {
      const personaText =
        typeof c.persona.persona === "string" ? c.persona.persona : JSON.stringify(c.persona.persona);
      const main: ChatMessage[] = [{ role: "system", content: targetSystemPrompt(c.persona, c.instruction) }];
      for (let turn = 1; turn <= turns; turn++) {
        signal?.throwIfAborted();
        let said: string;
        if (turn === 1) said = openingLine(c.seed);
        else {
          calls.partner++;
          said = await partner({
            persona: c.persona,
            history: main.map((m) => ({ ...m })),
            turn,
            seed: c.seed,
            signal,
          });
        }
        main.push({ role: "user", content: said });
        const reply = await ask({ messages: main.map((m) => ({ ...m })), seed: c.seed, signal });
        main.push({ role: "assistant", content: reply });
        if (turn % 2 !== 0) continue;
        for (const { probe, index } of c.probes) {
          // The fork: a copy of the history and the probe; neither the probe nor its answer goes back.
          const fork: ChatMessage[] = [
            ...main.map((m) => ({ ...m })),
            { role: "user", content: fillName(probe.text, c.persona.name) },
          ];
          const answer = await ask({ messages: fork, seed: c.seed, signal });
          if (probe.checker.type === "judge") calls.judge++;
          const outcome = await checkAnswer(probe, answer, {
            judge,
            persona: { id: c.persona.id, name: c.persona.name, text: personaText },
            trial: c.seed - firstSeed + 1,
            messageId: `seed-${c.seed}-turn-${turn}`,
          });
          place(c, turn, index, {
            persona: c.persona.id,
            seed: c.seed,
            turn,
            probe: probe.id,
            kind: probe.kind,
            passed: outcome.passed,
            detail: outcome.detail,
            ...(outcome.error !== undefined ? { error: outcome.error } : {}),
            answer,
          });
        }
      }
      options.onProgress?.(++done, conversations.length);
    },
    { limit: options.concurrency ?? 4, signal },
  );
  signal?.throwIfAborted();

  const probed = probedTurns(turns);
  const checks = slots.flatMap((s) => s.filter(Boolean).flat());
  return {
    format: DRIFT_FORMAT,
    turns,
    probed_turns: probed,
    seeds,
    bar,
    partner: options.partnerKind ?? (options.partner ? "custom" : "self-chat"),
    probes: { source: options.probeSource ?? "built-in", count: probes.length, hash: contentHash(probes) },
    personas: personas.map((persona, i) => {
      const mine = slots[i]!.filter(Boolean).flat();
      const curveOf = (keep: (c: DriftCheck) => boolean) =>
        probed.map((turn) =>
          pointOf(
            turn,
            mine.filter((c) => c.turn === turn && keep(c)),
          ),
        );
      const curve = curveOf(() => true);
      return {
        id: persona.id,
        name: persona.name,
        persona_hash: contentHash(persona.persona),
        curve,
        first_below_bar: firstBelowBar(curve, bar),
        by_kind: PROBE_KINDS.filter((kind) => probes.some((p) => p.kind === kind)).map((kind) => ({
          kind,
          curve: curveOf((c) => c.kind === kind),
        })),
      };
    }),
    calls,
    checks,
  };
}
