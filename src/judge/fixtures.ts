import { createRequire } from "node:module";
import type * as Yaml from "yaml";
import { z } from "zod";
import type { Verdict, VerdictKey, VerdictOk } from "../core/index.ts";
import {
  firstIssue,
  InputError,
  issuePath,
  MissingVerdictError,
  parseJsonText,
  readInputFile,
  validateInput,
  verdictKeyString,
} from "../core/index.ts";
import type { Judge, JudgeDescriptor, JudgeRequest, JudgeResponse } from "./types.ts";

export const FIXTURES_FORMAT = "dramaturg.judge-fixtures/v1";

export const FixtureVerdictSchema = z
  .object({
    dimension: z.string().min(1),
    proposition_id: z.string().min(1),
    agent_id: z.string().min(1).optional(),
    message_id: z.string().min(1).optional(),
    channel: z.string().min(1).optional(),
    trial: z.number().int().min(1).optional(),
    score: z.number().int().min(0).max(9).optional(),
    count: z.number().int().min(0).optional(),
    ideas: z.array(z.string()).optional(),
    value: z.boolean().optional(),
    reasoning: z.string().default(""),
  })
  .strict()
  .refine((v) => [v.score, v.count, v.value].filter((x) => x !== undefined).length === 1, {
    message: "exactly one of score (0–9), count (with ideas) or value (boolean)",
  })
  .refine((v) => v.ideas === undefined || v.count === undefined || v.ideas.length === v.count, {
    message: "count must equal the number of ideas",
  });

export const JudgeFixturesSchema = z
  .object({
    format: z.literal(FIXTURES_FORMAT),
    /** Free text: say here whether the verdicts are hand-written or recorded, and from which model. */
    note: z.string().optional(),
    judge: z
      .object({ provider: z.string(), model: z.string(), temperature: z.number().optional() })
      .partial()
      .optional(),
    verdicts: z.array(FixtureVerdictSchema),
  })
  .strict();

export type FixtureVerdict = z.infer<typeof FixtureVerdictSchema>;
export type JudgeFixtures = z.infer<typeof JudgeFixturesSchema>;

/** Reads and validates a fixtures file (JSON or YAML). */
export function loadFixtures(file: string): JudgeFixtures {
  const text = readInputFile(file, "judge fixtures");
  const expected = `a ${FIXTURES_FORMAT} file`;
  const parsed = validateInput(JudgeFixturesSchema, parseFixturesText(text, file, expected));
  if (!parsed.success) {
    const issue = firstIssue(parsed.error);
    throw new InputError(`${issue.message}; expected ${expected}`, {
      file,
      place: issuePath(issue.path),
    });
  }
  return parsed.data;
}

/** JSON (what `--record` writes) through the JSON reader, anything else as YAML; either way with its line. */
function parseFixturesText(text: string, file: string, expected: string): unknown {
  if (/\.json$/i.test(file) || /^\s*[[{]/.test(text.replace(/^\uFEFF/, "")) || text.trim() === "")
    return parseJsonText(text, file, expected);
  // yaml is required here, not imported at the top: importing dramaturg does not load it.
  const yaml = createRequire(import.meta.url)("yaml") as typeof Yaml;
  const lineCounter = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, { lineCounter, prettyErrors: false });
  const error = doc.errors[0];
  try {
    if (error) throw error;
    return doc.toJS({ maxAliasCount: 100 });
  } catch (problem) {
    const at = lineCounter.linePos((problem as { pos?: [number, number] }).pos?.[0] ?? 0);
    throw new InputError(`not valid YAML: ${(problem as Error).message}; expected ${expected}`, {
      file,
      place: `line ${at.line}, column ${at.col}`,
      cause: problem,
    });
  }
}

const OPTIONAL_KEYS = ["agent_id", "message_id", "channel", "trial"] as const;

/** Index for most-specific-match lookups: entries grouped by dimension and proposition. */
export class FixtureIndex {
  private readonly byProposition = new Map<string, FixtureVerdict[]>();

  constructor(verdicts: readonly FixtureVerdict[]) {
    for (const v of verdicts) {
      const k = `${v.dimension}\u0000${v.proposition_id}`;
      let list = this.byProposition.get(k);
      if (!list) this.byProposition.set(k, (list = []));
      list.push(v);
    }
  }

  /** The matching entry that specifies the most key fields; the earliest wins a tie. */
  find(key: VerdictKey): FixtureVerdict | undefined {
    const list = this.byProposition.get(`${key.dimension}\u0000${key.proposition_id}`);
    if (!list) return undefined;
    let best: FixtureVerdict | undefined;
    let bestSpecificity = -1;
    for (const v of list) {
      let specificity = 0;
      let matches = true;
      for (const field of OPTIONAL_KEYS) {
        if (v[field] === undefined) continue;
        if (v[field] !== key[field]) {
          matches = false;
          break;
        }
        specificity++;
      }
      if (matches && specificity > bestSpecificity) {
        best = v;
        bestSpecificity = specificity;
      }
    }
    return best;
  }
}

/** The fixture judge's model when its file names no recording judge: a person wrote the verdicts. */
export const HAND_WRITTEN = "hand-written";

/**
 * Who gave a fixtures file's verdicts: the judge that recorded them (`openai:gpt-4o-mini`, from the
 * file's `judge` block), or {@link HAND_WRITTEN}. Never the file's path: moving or renaming a cassette
 * does not change its verdicts, so it must not make every baseline made with it stale.
 */
export function fixturesJudgeModel(fixtures: JudgeFixtures): string {
  const judge = fixtures.judge;
  if (!judge?.model) return HAND_WRITTEN;
  return judge.provider ? `${judge.provider}:${judge.model}` : judge.model;
}

/**
 * Replays fixture verdicts. No model is called; a missing verdict is an error naming its key and the
 * file. Its descriptor is provider `fixtures` and model {@link fixturesJudgeModel}.
 */
export class FixtureJudge implements Judge {
  readonly descriptor: JudgeDescriptor;
  private readonly index: FixtureIndex;

  /** `file` is only named in error messages. */
  constructor({ fixtures, file }: { fixtures: JudgeFixtures; file: string }) {
    this.index = new FixtureIndex(fixtures.verdicts);
    this.descriptor = {
      provider: "fixtures",
      model: fixturesJudgeModel(fixtures),
      prompt_version: "fixtures",
    };
    this.file = file;
  }

  private readonly file: string;

  static fromFile(file: string): FixtureJudge {
    return new FixtureJudge({ fixtures: loadFixtures(file), file });
  }

  async judge(request: JudgeRequest): Promise<JudgeResponse> {
    const verdicts: Verdict[] = request.items.map((item) => {
      const found = this.index.find(item.key);
      if (!found) {
        const error = new MissingVerdictError(verdictKeyString(item.key), this.file);
        return { ok: false, key: item.key, error: { name: error.name, message: error.message } };
      }
      const kindOk =
        (item.kind === "score" && found.score !== undefined) ||
        (item.kind === "count" && found.count !== undefined) ||
        (item.kind === "check" && found.value !== undefined);
      if (!kindOk)
        return {
          ok: false,
          key: item.key,
          error: {
            name: "MissingVerdictError",
            message: `fixture for ${verdictKeyString(item.key)} has no ${item.kind}`,
          },
        };
      const verdict: VerdictOk = { ok: true, key: item.key, reasoning: found.reasoning };
      if (found.score !== undefined) verdict.score = found.score;
      if (found.count !== undefined) {
        verdict.count = found.count;
        verdict.ideas = found.ideas ?? [];
      }
      if (found.value !== undefined) verdict.value = found.value;
      return verdict;
    });
    return { verdicts, usage: { input_tokens: 0, output_tokens: 0 }, calls: 0 };
  }
}

/** Turns judged verdicts into fixture entries (what `--record` writes). Errored verdicts are skipped. */
export function verdictsToFixtures(
  verdicts: readonly Verdict[],
  meta: { note?: string; judge?: JudgeDescriptor },
): JudgeFixtures {
  const entries: FixtureVerdict[] = [];
  for (const v of verdicts) {
    if (!v.ok || v.trivial) continue;
    const entry: FixtureVerdict = {
      dimension: v.key.dimension,
      proposition_id: v.key.proposition_id,
      reasoning: v.reasoning,
    };
    for (const field of OPTIONAL_KEYS)
      if (v.key[field] !== undefined) (entry as Record<string, unknown>)[field] = v.key[field];
    if (v.score !== undefined) entry.score = v.score;
    if (v.count !== undefined) {
      entry.count = v.count;
      entry.ideas = v.ideas ?? [];
    }
    if (v.value !== undefined) entry.value = v.value;
    entries.push(entry);
  }
  return {
    format: FIXTURES_FORMAT,
    note: meta.note,
    judge: meta.judge
      ? { provider: meta.judge.provider, model: meta.judge.model, temperature: meta.judge.temperature }
      : undefined,
    verdicts: entries,
  };
}
