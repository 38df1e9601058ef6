// The built-in interventions of the seed: anti-convergence (the agent is echoing the others) and variety
// (the agent's ideas stagnate). Both are per agent, switched on in its corrections, and nudge in character.
import type { CorrectionSettings } from "../core/index.ts";
import { Intervention, type InterventionTarget } from "./intervention.ts";

/** A target that carries its per-agent settings and nudge texts (a persona agent does). */
export interface CorrectableTarget extends InterventionTarget {
  readonly corrections: CorrectionSettings;
  readonly nudges: { anti_convergence?: string; variety?: string };
  readonly actionCount: number;
}

export const ANTI_CONVERGENCE_CLAIM =
  "In its recent messages, {{agent_name}} mostly agrees with the others: it echoes their opinions, " +
  "phrasing or proposals instead of contributing a perspective, tone or disagreement of its own.";

export const DEFAULT_ANTI_CONVERGENCE_NUDGE =
  "The conversation is converging and everyone sounds alike. Say what you really think, in your own " +
  "voice and from your own experience, even if it means disagreeing.";

// The paper's variety claim (June notebooks), in the project's words: new ideas, not refinements.
export const VARIETY_CLAIM =
  "{{agent_name}} has not proposed an entirely new idea in its last 10 trajectory events; variants, " +
  "refinements or repetitions of ideas already given do not count as new.";

export const DEFAULT_VARIETY_NUDGE =
  "Review all the ideas given so far, then propose a completely new one, different from all of them.";

export interface BuiltinInterventionOptions {
  /** Settings to use instead of the agent's own corrections. */
  config?: CorrectionSettings;
  /** Nudge text instead of the agent's own (or the default). */
  nudge?: string;
}

/**
 * Fires when the agent's config enables anti-convergence (checked first, no judge call otherwise) and the
 * judge finds it echoing the others; the effect is the agent's character-aware nudge, for its next act only.
 */
export function antiConvergenceIntervention<T extends CorrectableTarget>(
  agent: T,
  { config, nudge }: BuiltinInterventionOptions = {},
): Intervention<T> {
  const settings = config ?? agent.corrections;
  const text = nudge ?? agent.nudges.anti_convergence ?? DEFAULT_ANTI_CONVERGENCE_NUDGE;
  return new Intervention(agent, { name: "anti_convergence" })
    .setFunctionalPrecondition(() => settings.anti_convergence_enabled)
    .setTextualPrecondition(ANTI_CONVERGENCE_CLAIM)
    .setEffect((targets) => {
      for (const t of targets) t.think(text);
    });
}

/**
 * Fires when the agent's config enables variety, it has sent at least `variety_message_threshold`
 * messages, and the judge finds no entirely new idea in its recent events.
 */
export function varietyIntervention<T extends CorrectableTarget>(
  agent: T,
  { config, nudge }: BuiltinInterventionOptions = {},
): Intervention<T> {
  const settings = config ?? agent.corrections;
  const text = nudge ?? agent.nudges.variety ?? DEFAULT_VARIETY_NUDGE;
  return new Intervention(agent, { name: "variety" })
    .setFunctionalPrecondition(
      ([target]) =>
        settings.variety_intervention_enabled &&
        (target?.actionCount ?? 0) >= settings.variety_message_threshold,
    )
    .setTextualPrecondition(VARIETY_CLAIM)
    .setEffect((targets) => {
      for (const t of targets) t.think(text);
    });
}

/** The built-ins an agent's corrections switch on, in a fixed order (anti-convergence, then variety). */
export function builtinInterventionsFor<T extends CorrectableTarget>(agent: T): Intervention<T>[] {
  const list: Intervention<T>[] = [];
  if (agent.corrections.anti_convergence_enabled) list.push(antiConvergenceIntervention(agent));
  if (agent.corrections.variety_intervention_enabled) list.push(varietyIntervention(agent));
  return list;
}
