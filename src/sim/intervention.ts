// Interventions (TinyTroupe's `Intervention`, seed § Intervention Framework): preconditions that must all
// hold (functional, textual, propositional) and an effect, checked once per world step before agents act.
import {
  type Agent,
  addUsage,
  InputError,
  type Proposition,
  renderTemplate,
  renderTrajectory,
  type TokenUsage,
  type TrajectoryEvent,
  type Window,
  ZERO_USAGE,
} from "../core/index.ts";
import type { Judge, JudgeContext, VerdictKind } from "../judge/index.ts";

/** What an intervention acts on: an agent with a memory that can be given a transient thought. */
export interface InterventionTarget {
  readonly agent: Agent;
  readonly memory: readonly TrajectoryEvent[];
  /** Queues a thought for the agent's next act only (never stored in memory). */
  think(text: string): void;
}

/** What a precondition or effect may use besides its targets. */
export interface InterventionContext {
  /** The world step (1-based) being prepared. */
  step: number;
  /** Judges textual and propositional preconditions; required only when one is set. */
  judge?: Judge;
  signal?: AbortSignal;
}

export type FunctionalPrecondition<T> = (
  targets: readonly T[],
  context: InterventionContext,
) => boolean | Promise<boolean>;
export type InterventionEffect<T> = (
  targets: readonly T[],
  context: InterventionContext,
) => void | Promise<void>;

/** The outcome of one precondition check, with the reasons (TinyTroupe's `precondition_justification`). */
export interface PreconditionCheck {
  holds: boolean;
  justification: string[];
  /** Judge calls made and their tokens (0 when a cheaper precondition already failed). */
  calls: number;
  usage: TokenUsage;
}

export interface InterventionOptions {
  /** Default `intervention-<n>`; also the proposition id a textual precondition is judged (and keyed) under. */
  name?: string;
  /** Window of each target's trajectory the judge reads. Default first 10, last 100 (TinyTroupe's). */
  first_n?: number;
  last_n?: number;
}

/** The verdict key dimension of intervention checks; fixtures key textual ones by the intervention's name. */
export const INTERVENTION_DIMENSION = "intervention";

let unnamed = 0;

/**
 * An intervention on one or more targets. Preconditions are ANDed; an unset kind counts as true. Unlike
 * TinyTroupe, which evaluates all of them every time, the check short-circuits: the functional precondition
 * (plain code, free) runs first, then the textual one, then the propositional one, and a false one stops
 * the check, so a disabled or not-yet-due intervention costs no judge call.
 */
export class Intervention<T extends InterventionTarget = InterventionTarget> {
  readonly name: string;
  readonly targets: readonly T[];
  readonly window: Window;
  private textual?: string;
  private functional?: FunctionalPrecondition<T>;
  private propositional?: { proposition: Pick<Proposition, "id" | "claim">; threshold?: number };
  private effect?: InterventionEffect<T>;
  /** The last check's outcome, for display and logs. */
  lastCheck?: PreconditionCheck;

  constructor(targets: T | readonly T[], { name, first_n = 10, last_n = 100 }: InterventionOptions = {}) {
    this.targets = Array.isArray(targets) ? [...(targets as readonly T[])] : [targets as T];
    this.name = name ?? `intervention-${++unnamed}`;
    this.window = { first_n, last_n };
  }

  /** One intervention per target, configured together (TinyTroupe's `create_for_each`). */
  static createForEach<T extends InterventionTarget>(
    targets: T | readonly T[],
    options: InterventionOptions = {},
  ): InterventionBatch<T> {
    return InterventionBatch.createForEach(targets, options);
  }

  /** A claim judged true/false against the targets' trajectories. `{{agent_name}}` names a single target. */
  setTextualPrecondition(claim: string): this {
    this.textual = claim;
    return this;
  }

  /** Plain code over the targets; checked first, and a false result skips the judge. */
  setFunctionalPrecondition(fn: FunctionalPrecondition<T>): this {
    this.functional = fn;
    return this;
  }

  /**
   * A proposition about the targets. Without a threshold it must check true. With one it is scored 0–9
   * and the precondition holds only while the score is BELOW the threshold (the seed's inversion: a high
   * score means what the intervention wants is already there).
   */
  setPropositionalPrecondition(proposition: Pick<Proposition, "id" | "claim">, threshold?: number): this {
    if (threshold !== undefined && !(threshold >= 0 && threshold <= 10))
      throw new InputError(`propositional precondition threshold must be 0–10, got ${threshold}`);
    this.propositional = { proposition, threshold };
    return this;
  }

  setEffect(fn: InterventionEffect<T>): this {
    this.effect = fn;
    return this;
  }

  /** Whether every precondition holds now. A judge that errs makes its precondition false (fails closed). */
  async checkPrecondition(context: InterventionContext): Promise<PreconditionCheck> {
    const check: PreconditionCheck = { holds: true, justification: [], calls: 0, usage: ZERO_USAGE };
    const done = (holds: boolean) => {
      check.holds = holds;
      this.lastCheck = check;
      return check;
    };
    if (this.functional) {
      const met = await this.functional(this.targets, context);
      check.justification.push(`functional precondition ${met ? "met" : "not met"}`);
      if (!met) return done(false);
    }
    if (this.textual !== undefined) {
      const verdict = await this.judgeClaim(context, this.name, this.textual, "check", check);
      const met = verdict.ok && verdict.value === true;
      check.justification.push(`textual precondition ${met ? "met" : "not met"}: ${verdict.reason}`);
      if (!met) return done(false);
    }
    if (this.propositional) {
      const { proposition, threshold } = this.propositional;
      const kind = threshold === undefined ? "check" : "score";
      const verdict = await this.judgeClaim(context, proposition.id, proposition.claim, kind, check);
      const met =
        verdict.ok &&
        (threshold === undefined
          ? verdict.value === true
          : verdict.score !== undefined && verdict.score < threshold);
      const scored =
        threshold === undefined ? "" : ` (score ${verdict.score ?? "none"}, fires below ${threshold})`;
      check.justification.push(
        `propositional precondition ${met ? "met" : "not met"}${scored}: ${verdict.reason}`,
      );
      if (!met) return done(false);
    }
    return done(true);
  }

  /** Applies the effect without checking (TinyTroupe's `apply_effect`). */
  async applyEffect(context: InterventionContext): Promise<void> {
    await this.effect?.(this.targets, context);
  }

  /** Checks the preconditions and, when all hold, applies the effect; returns whether it fired. */
  async execute(context: InterventionContext): Promise<boolean> {
    const { holds } = await this.checkPrecondition(context);
    if (holds) await this.applyEffect(context);
    return holds;
  }

  private async judgeClaim(
    { judge, signal }: InterventionContext,
    id: string,
    claim: string,
    kind: VerdictKind,
    check: PreconditionCheck,
  ): Promise<{ ok: boolean; value?: boolean; score?: number; reason: string }> {
    if (!judge)
      throw new InputError(
        `intervention "${this.name}" has a textual or propositional precondition and needs a judge`,
      );
    const single = this.targets.length === 1 ? this.targets[0]!.agent : undefined;
    const response = await judge.judge(
      {
        items: [
          {
            key: {
              dimension: INTERVENTION_DIMENSION,
              proposition_id: id,
              ...(single ? { agent_id: single.id } : {}),
              trial: 1,
            },
            kind,
            claim: renderTemplate(claim, { agent_name: single?.name }),
          },
        ],
        context: this.context(),
        doubleCheck: false,
      },
      { signal },
    );
    check.calls += response.calls;
    check.usage = addUsage(check.usage, response.usage);
    const verdict = response.verdicts[0];
    if (!verdict?.ok)
      return { ok: false, reason: verdict?.ok === false ? verdict.error.message : "no verdict" };
    return { ok: true, value: verdict.value, score: verdict.score, reason: verdict.reasoning };
  }

  private context(): JudgeContext {
    const sections = this.targets.map((t) => {
      const text = renderTrajectory(t.memory, this.window, { name: t.agent.name });
      return this.targets.length === 1 ? text : `## ${t.agent.name}\n${text}`;
    });
    const names = this.targets.map((t) => t.agent.name).join(", ");
    return { trajectory: { title: `the trajectory of ${names}`, text: sections.join("\n\n") } };
  }
}

/**
 * Interventions made together, one per target; each setter applies to every member and returns the batch.
 * Each member's preconditions and effect receive its single target.
 */
export class InterventionBatch<T extends InterventionTarget = InterventionTarget>
  implements Iterable<Intervention<T>>
{
  constructor(readonly interventions: readonly Intervention<T>[]) {}

  static createForEach<T extends InterventionTarget>(
    targets: T | readonly T[],
    { name, ...options }: InterventionOptions = {},
  ): InterventionBatch<T> {
    const list: readonly T[] = Array.isArray(targets) ? (targets as readonly T[]) : [targets as T];
    return new InterventionBatch(
      list.map(
        (t, i) =>
          new Intervention<T>(t, { ...options, name: name === undefined ? undefined : `${name}_${i}` }),
      ),
    );
  }

  setTextualPrecondition(claim: string): this {
    for (const i of this.interventions) i.setTextualPrecondition(claim);
    return this;
  }

  setFunctionalPrecondition(fn: FunctionalPrecondition<T>): this {
    for (const i of this.interventions) i.setFunctionalPrecondition(fn);
    return this;
  }

  setPropositionalPrecondition(proposition: Pick<Proposition, "id" | "claim">, threshold?: number): this {
    for (const i of this.interventions) i.setPropositionalPrecondition(proposition, threshold);
    return this;
  }

  setEffect(fn: InterventionEffect<T>): this {
    for (const i of this.interventions) i.setEffect(fn);
    return this;
  }

  asList(): Intervention<T>[] {
    return [...this.interventions];
  }

  [Symbol.iterator](): Iterator<Intervention<T>> {
    return this.interventions[Symbol.iterator]();
  }
}
