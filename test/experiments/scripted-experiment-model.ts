// Scripted doubles for the experiment runner's tests (hand-written, no network): persona agents whose
// first drafts sometimes break character and whose redrafts (the action gate's feedback) never do, or agents
// whose messages carry a random quality the judge reads back; and a judge that scores adherence by what the
// message says, counts extracted ideas, and answers everything else at fixture speed.
import { createHash } from "node:crypto";
import type { Persona } from "../../src/core/index.ts";
import type { ExperimentPerson } from "../../src/experiments/index.ts";
import { parseScenario, type Scenario } from "../../src/experiments/index.ts";
import type { JudgeItem, JudgeRequest } from "../../src/judge/index.ts";
import { scriptedJudge } from "../../src/testing/index.ts";
import { type AgentCall, scriptedAgentModel, speaker } from "../sim/scripted-agent-model.ts";

export const OUT_OF_CHARACTER = "As an AI language model, I am happy to help with that.";

/** A number in [0, 1) from the text: the same text, the same number. */
export function unit(...parts: (string | number)[]): number {
  return createHash("sha256").update(parts.join("|")).digest().readUInt32BE(0) / 2 ** 32;
}

/** Events in the agent's trajectory: the same in both arms of a pair whatever the texts say. */
function events(call: AgentCall): number {
  return (call.prompt.match(/ acts: \[TALK\]|\[CONVERSATION\]/g) ?? []).length;
}

function channelOf(call: AgentCall): string {
  return /#([a-z0-9-]+)/.exec(call.system)?.[1] ?? "session";
}

/**
 * Agents whose first draft breaks character with probability `drift` (decided by the agent and its place
 * in the session, so both arms of a pair draft alike); a redraft the gate asks for stays in character.
 */
export function driftingAgentModel(drift = 0.6, salt = "") {
  return scriptedAgentModel((call) => {
    const name = speaker(call);
    const channel = channelOf(call);
    if (call.prompt.includes("Send attempt"))
      return [{ channel, text: `${name} here, in my own words: idea ${events(call)} from my trade.` }];
    if (unit(salt, name, events(call)) < drift) return [{ channel, text: `${OUT_OF_CHARACTER} (${name})` }];
    return [{ channel, text: `${name} here, in my own words: idea ${events(call)} from my trade.` }];
  });
}

/**
 * Agents whose every message carries a quality q (2–8) the judge reads back as adherence: the agent's own
 * level plus noise drawn from `stream` (so two streams are independent draws from the same distribution).
 */
export function noisyAgentModel(stream: string, level: (name: string) => number) {
  return scriptedAgentModel((call) => {
    const name = speaker(call);
    const noise = Math.floor(unit(stream, name, events(call)) * 5) - 2;
    const q = Math.min(8, Math.max(2, level(name) + noise));
    return [{ channel: channelOf(call), text: `${name} says something [q=${q}]` }];
  });
}

/** What the judge makes of a message's adherence: 2 out of character, 8 in it, q when the message says. */
function adherenceOf(text: string): number {
  const q = /\[q=(\d)\]/.exec(text);
  if (q) return Number(q[1]);
  return text.includes("As an AI") ? 2 : 8;
}

/**
 * The judge: adherence by the message under evaluation (the inverted "breaks character" claim scored the
 * other way), extraction by the ideas named in the trajectory, interventions never due, the rest 6.
 */
export function experimentJudge() {
  const asked: JudgeItem[] = [];
  const judge = scriptedJudge((item: JudgeItem, request: JudgeRequest) => {
    asked.push(item);
    if (item.kind === "check") return { value: false };
    if (item.kind === "count") {
      const ideas = [...new Set(request.context.trajectory.text.match(/idea \d+/g) ?? [])].sort();
      return { count: ideas.length, ideas };
    }
    const text = request.context.action?.text;
    if (item.key.dimension === "adherence" && text !== undefined) {
      const score = adherenceOf(text);
      return { score: item.key.proposition_id === "breaks-character" ? 9 - score : score };
    }
    return { score: 6 };
  });
  return Object.assign(judge, { asked });
}

/** `size` hand-written people: a name, an occupation and a level the noisy model reads. */
export function people(size: number): ExperimentPerson[] {
  const names = [
    "Ana",
    "Bruno",
    "Carla",
    "Dmitri",
    "Efua",
    "Farid",
    "Greta",
    "Hiro",
    "Ines",
    "Jonas",
    "Kemi",
    "Lars",
  ];
  return Array.from({ length: size }, (_, i) => {
    const name = `${names[i % names.length]} ${String.fromCharCode(65 + Math.floor(i / names.length))}`;
    const persona: Persona = { occupation: `trade number ${i + 1}`, style: "plain, short sentences" };
    return { id: name.toLowerCase().replace(/ /g, "-"), name, persona };
  });
}

/** A tiny brainstorming scenario (hand-written); `treatment` is the treatment arm's corrections. */
export function tinyScenario({
  size = 6,
  groupSize = 3,
  environments = 4,
  steps = 1,
  treatment = "{ gate_adherence_enabled: true, gate_adherence_threshold: 5, max_correction_attempts: 2 }",
  dimensions = "[adherence, consistency, fluency, convergence]",
  taskCompletion = true,
}: {
  size?: number;
  groupSize?: number;
  environments?: number;
  steps?: number;
  treatment?: string;
  dimensions?: string;
  taskCompletion?: boolean;
} = {}): Scenario {
  return parseScenario(`format: dramaturg.scenario/v1
id: tiny-brainstorm
title: A tiny brainstorm
population: { profile: average-customers, size: ${size}, seed: 3 }
group_size: ${groupSize}
environments: ${environments}
steps: ${steps}
channel: focus-group
seed: 11
parameters:
  - { theme: kitchens }
  - { theme: bicycles }
prompts:
  intro: Introduce yourselves; the theme is {{theme}}.
  task: Propose ideas about {{theme}}.
rapporteur:
  member: 1
  prompt: Write up every idea about {{theme}}.
extraction:
  kind: ideas
  objective: List every idea about {{theme}}.
  situation: A focus group on {{theme}}.
  fields: [name, description]
metrics:
  dimensions: ${dimensions}
  hard_adherence: true
${taskCompletion ? "  task_completion: The group proposed ideas about {{theme}}.\n" : ""}arms:
  control: { corrections: {} }
  treatment: { corrections: ${treatment} }
`);
}
