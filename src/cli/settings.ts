// Settings of a command: the project file (dramaturg.yaml), environment variables and flags merged,
// each value remembering where it came from (for `dramaturg config print`).
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { z } from "zod";
import {
  type CorrectionSettingsPatch,
  CorrectionSettingsPatchSchema,
  DEFAULT_CONCURRENCY,
  findSecret,
  formatJudgeSpec,
  formatStoreLocation,
  InputError,
  type LocatedYaml,
  PERSONA_DIMENSIONS,
  type PersonaDimension,
  parseJudgeSpec,
  parseLocatedYaml,
  parseStoreLocation,
  readInputFile,
} from "../core/index.ts";
// The rules' schema alone (zod): the queue itself loads only for the commands that use it.
import { type ExportRule, ExportRulesSchema } from "../export/export-rule.ts";
import { type OnlineRule, OnlineRulesSchema } from "../online/online-rule.ts";
import { EnvVarNameSchema, type RedteamBlock, RedteamBlockSchema } from "./redteam-block.ts";

export const PROJECT_FILE_NAMES = ["dramaturg.yaml", "dramaturg.config.yaml"] as const;

const PriceSchema = z
  .object({
    input_per_million: z.number().min(0).describe("USD per million input tokens"),
    output_per_million: z.number().min(0).describe("USD per million output tokens"),
  })
  .strict();

/** The dashboard's base URL that `ci`'s reports link to: http or https only (no javascript:, no file:). */
export const DashboardUrlSchema = z.url({
  protocol: /^https?$/,
  error: "expected the dashboard's http(s) URL, e.g. https://dramaturg.example.com",
});

export const ProjectFileSchema = z
  .object({
    version: z.literal(1).default(1).describe("Project file version"),
    sources: z
      .array(z.string().min(1))
      .optional()
      .describe(
        "Transcript files or globs to evaluate, relative to the project file; or [store] for stored messages",
      ),
    propositions: z
      .string()
      .min(1)
      .optional()
      .describe("The propositions folder (one subfolder per dimension)"),
    judge: z
      .object({
        model: z
          .string()
          .min(1)
          .optional()
          .describe(
            "provider:model — openai:MODEL, anthropic:MODEL, openai-compatible:MODEL, or fixtures:FILE",
          ),
        base_url: z
          .url()
          .optional()
          .describe("Base URL of an OpenAI-compatible server (Ollama, vLLM, llama.cpp)"),
        api_key_env: EnvVarNameSchema.optional().describe(
          "Name of the environment variable that holds the API key (never the key itself)",
        ),
        mode: z
          .enum(["individual", "batch"])
          .optional()
          .describe("individual: one proposition per call; batch: up to 10"),
        concurrency: z.number().int().min(1).max(256).optional(),
        timeout_ms: z.number().int().min(100).optional().describe("Per-call timeout in milliseconds"),
        temperature: z.number().min(0).max(2).optional(),
        retries: z.number().int().min(0).max(20).optional(),
        rate_limit: z
          .object({
            requests_per_minute: z.number().int().min(1).optional().describe("Most judge calls a minute"),
            tokens_per_minute: z
              .number()
              .int()
              .min(1)
              .optional()
              .describe("Most tokens a minute, input and output together"),
          })
          .strict()
          .refine(
            (limit) => limit.requests_per_minute !== undefined || limit.tokens_per_minute !== undefined,
            {
              message: "expected requests_per_minute, tokens_per_minute or both",
            },
          )
          .optional()
          .describe(
            "The provider's limit on the judge's key, held across every process sharing it (workers through PostgreSQL)",
          ),
      })
      .strict()
      .optional(),
    dimensions: z.array(z.enum(PERSONA_DIMENSIONS)).min(1).optional(),
    agents: z.array(z.string().min(1)).min(1).optional(),
    trials: z.number().int().min(1).max(50).optional(),
    sample: z
      .object({ size: z.number().int().min(1), seed: z.number().int().default(0) })
      .strict()
      .optional(),
    thresholds: z
      .object({
        regression: z
          .number()
          .min(0)
          .optional()
          .describe("A dimension falling more than this below its baseline is a regression"),
        minimum: z
          .partialRecord(z.enum(PERSONA_DIMENSIONS), z.number().min(0).max(9))
          .optional()
          .describe("Fail when a dimension score is below this"),
        agreement: z
          .number()
          .min(-1)
          .max(1)
          .optional()
          .describe(
            "dramaturg ci: fail when a compared proposition's judge agrees with people below this quadratic κ (or was not calibrated)",
          ),
      })
      .strict()
      .optional(),
    baselines: z.string().min(1).optional().describe("Folder of golden baseline files"),
    calibration: z
      .string()
      .min(1)
      .optional()
      .describe(
        "A calibration document (dramaturg calibrate --format json --out FILE) that dramaturg ci reads its agreement from",
      ),
    ci: z
      .object({
        dashboard_url: DashboardUrlSchema.optional().describe(
          "The dashboard (dramaturg serve) that holds the check's runs: ci's Markdown and HTML reports link each run, regressed dimension and fallen proposition to its verdicts there",
        ),
      })
      .strict()
      .optional()
      .describe("dramaturg ci"),
    redteam: RedteamBlockSchema.optional(),
    db: z
      .string()
      .min(1)
      .optional()
      .describe("Store: a PGlite data folder, or postgres://… (password from PGPASSWORD)"),
    cache: z.boolean().optional().describe("Cache live judge verdicts in the store (default true)"),
    prices: z
      .record(z.string(), PriceSchema)
      .optional()
      .describe("Extra or overriding prices, keyed provider:model"),
    corrections: z
      .record(z.string().min(1), CorrectionSettingsPatchSchema)
      .optional()
      .describe(
        "Runtime corrections (action gate, interventions, repetition suppression) per agent id, _default for every agent; a setting stored with `dramaturg config agent set` wins",
      ),
    online: OnlineRulesSchema.optional(),
    export: ExportRulesSchema.optional(),
  })
  .strict()
  .describe("Dramaturg project file (dramaturg.yaml): settings every command reads; flags override them");

export type ProjectFile = z.infer<typeof ProjectFileSchema>;

/** The JSON Schema of the project file, for editors (`dramaturg schema config`, `dramaturg init`). */
export function projectFileJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ProjectFileSchema, { io: "input" });
}

export type Origin = "default" | "file" | "env" | "flag";

export interface Settings {
  sources: string[];
  propositions?: string;
  judge: {
    model: string;
    base_url?: string;
    api_key_env?: string;
    mode: "individual" | "batch";
    concurrency: number;
    timeout_ms: number;
    temperature: number;
    retries: number;
    rate_limit?: { requests_per_minute?: number; tokens_per_minute?: number };
  };
  dimensions: PersonaDimension[];
  agents?: string[];
  trials: number;
  sample?: { size: number; seed: number };
  thresholds: {
    regression: number;
    minimum: Partial<Record<PersonaDimension, number>>;
    /** `ci`'s minimum quadratic κ of a compared proposition's judge against people. */
    agreement?: number;
  };
  baselines: string;
  /** The calibration document `ci` reads agreement from (else the store's latest calibration of the judge). */
  calibration?: string;
  /** `ci`'s settings: the dashboard its reports link to. */
  ci?: { dashboard_url?: string };
  /** `ci`'s red team: the block with its files resolved against the project file and lists as lists. */
  redteam?: ResolvedRedteamBlock;
  db: string;
  cache: boolean;
  prices: Record<string, { input_per_million: number; output_per_million: number }>;
  /** Partial correction settings per agent id (`_default`: every agent), under any stored ones. */
  corrections: Record<string, CorrectionSettingsPatch>;
  /** Continuous evaluation rules (`dramaturg online`). */
  online: OnlineRule[];
  /** Where finished runs' scores are exported (`dramaturg export`), by the commands each rule names. */
  export: ExportRule[];
}

export type ResolvedRedteamBlock = Omit<RedteamBlock, "persona" | "agent"> & {
  persona?: string[];
  agent?: string[];
};

export interface ResolvedSettings {
  settings: Settings;
  /** Dotted path → where its value came from. */
  origins: Record<string, Origin>;
  /** The project file used, if any. */
  file?: string;
  /** Folder paths in the file are relative to it; flags are relative to the working directory. */
  root: string;
}

export const DEFAULT_SETTINGS: Settings = {
  sources: [],
  judge: {
    model: "",
    mode: "individual",
    concurrency: DEFAULT_CONCURRENCY,
    timeout_ms: 60_000,
    temperature: 0,
    retries: 4,
  },
  dimensions: [...PERSONA_DIMENSIONS],
  trials: 1,
  thresholds: { regression: 1.0, minimum: {} },
  baselines: "baselines",
  db: ".dramaturg",
  cache: true,
  prices: {},
  corrections: {},
  online: [],
  export: [],
};

/** Walks up from `cwd` to the nearest project file. */
export function findProjectFile(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    for (const name of PROJECT_FILE_NAMES) {
      const candidate = join(dir, name);
      if (existsSync(candidate)) return candidate;
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Reads and validates a project file. A secret written in it is an error naming its line. */
export function loadProjectFile(file: string): ProjectFile {
  return loadLocatedProjectFile(file).data;
}

/** The project file validated, and able to say where each value was written (for errors found later). */
function loadLocatedProjectFile(file: string): LocatedYaml<ProjectFile> {
  const text = readInputFile(file, "the project file");
  const secret = firstSecret(text);
  if (secret?.kind === "credential")
    throw new InputError(
      "an API key or secret is written in the project file; expected it in the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, or the variable named by judge.api_key_env)",
      { file, place: `${secret.line}:${secret.col}` },
    );
  if (secret?.kind === "url-password")
    throw new InputError(
      "a password is written in a URL in the project file; expected it in the environment (PGPASSWORD for the store) and the URL without it, e.g. postgres://user@host/db",
      { file, place: `${secret.line}:${secret.col}` },
    );
  // A file of comments only (every setting at its default) is a valid, empty project file.
  if (isBlankYaml(text)) return { data: ProjectFileSchema.parse({}), placeOf: () => "1:1" };
  return parseLocatedYaml(text, file, ProjectFileSchema);
}

/** The `line:col` of a value in a project file (of its nearest written parent), for an error found after reading it. */
export function placeInProjectFile(file: string, path: readonly (string | number)[]): string {
  return loadLocatedProjectFile(file).placeOf(path);
}

function isBlankYaml(text: string): boolean {
  return text.split("\n").every((line) => /^\s*(#.*)?$/.test(line) || /^\s*---\s*$/.test(line));
}

/**
 * The first place outside a comment where a secret is written, by the redactor's own patterns: a key named
 * like a credential with a value (`api_key: …`, flow style too), a value that looks like a key or bearer
 * token, or a password in a URL.
 */
function firstSecret(
  text: string,
): { line: number; col: number; kind: "credential" | "url-password" } | undefined {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const found = findSecret(lines[i]!.replace(/(^|\s)#.*$/, ""));
    if (found) return { line: i + 1, col: found.index + 1, kind: found.kind };
  }
  return undefined;
}

/** Flag values as commander gives them (already typed); undefined when not given. */
export interface FlagSettings {
  sources?: string[];
  propositions?: string;
  judge?: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  mode?: string;
  concurrency?: string;
  timeout?: string;
  temperature?: string;
  retries?: string;
  dimensions?: string;
  agents?: string;
  trials?: string;
  sample?: string;
  seed?: string;
  threshold?: string;
  baselines?: string;
  db?: string;
  cache?: boolean;
  /** `ci --dashboard-url`. */
  dashboardUrl?: string;
}

const FlagSchema = z.object({
  mode: z.enum(["individual", "batch"]).optional(),
  concurrency: z.coerce.number().int().min(1).max(256).optional(),
  timeout: z.coerce.number().int().min(100).optional(),
  temperature: z.coerce.number().min(0).max(2).optional(),
  retries: z.coerce.number().int().min(0).max(20).optional(),
  trials: z.coerce.number().int().min(1).max(50).optional(),
  sample: z.coerce.number().int().min(1).optional(),
  seed: z.coerce.number().int().optional(),
  threshold: z.coerce.number().min(0).optional(),
  dimensions: z.array(z.enum(PERSONA_DIMENSIONS)).min(1).optional(),
});

const FLAG_NAMES: Record<string, string> = {
  mode: "--mode",
  concurrency: "--concurrency",
  timeout: "--timeout",
  temperature: "--temperature",
  retries: "--retries",
  trials: "--trials",
  sample: "--sample",
  seed: "--seed",
  threshold: "--threshold",
  dimensions: "--dimensions",
};

function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Validates flag values; a bad one is an InputError saying, in a sentence, what the flag takes and what it got. */
function parseFlags(flags: FlagSettings) {
  const parsed = FlagSchema.safeParse({ ...flags, dimensions: list(flags.dimensions) });
  if (!parsed.success) {
    const name = String(parsed.error.issues[0]!.path[0]) as keyof typeof FlagSchema.shape;
    const given = flags[name as keyof FlagSettings];
    throw new InputError(
      `${FLAG_NAMES[name] ?? name} must be ${flagExpects(FlagSchema.shape[name])}, got ${JSON.stringify(given)}`,
    );
  }
  return parsed.data;
}

/** What a flag takes, read from its schema: `a whole number from 1 to 256`, `individual or batch`. */
function flagExpects(schema: z.ZodType): string {
  const inner = schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
  if (inner instanceof z.ZodEnum) return orList(inner.options.map(String));
  if (inner instanceof z.ZodArray) return `a comma-separated list of ${PERSONA_DIMENSIONS.join(", ")}`;
  if (inner instanceof z.ZodNumber) {
    const noun = inner.isInt ? "a whole number" : "a number";
    const limit = (value: number | null) =>
      value !== null && Math.abs(value) < Number.MAX_SAFE_INTEGER ? value : undefined;
    const [min, max] = [limit(inner.minValue), limit(inner.maxValue)];
    if (min !== undefined && max !== undefined) return `${noun} from ${min} to ${max}`;
    if (min !== undefined) return `${noun} of at least ${min}`;
    if (max !== undefined) return `${noun} of at most ${max}`;
    return noun;
  }
  return "a valid value";
}

function orList(items: readonly string[]): string {
  return items.length < 2 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}

/**
 * Merges defaults < project file < environment < flags. Paths in the project file are resolved
 * against its folder, so commands work from any subfolder of the project.
 */
export function resolveSettings({
  flags,
  cwd = process.cwd(),
  env = process.env,
  projectFile,
}: {
  flags: FlagSettings;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Use this file instead of searching upwards (`--config`); `false` to ignore any. */
  projectFile?: string | false;
}): ResolvedSettings {
  const file =
    projectFile === false ? undefined : projectFile ? resolve(cwd, projectFile) : findProjectFile(cwd);
  const root = file ? dirname(file) : cwd;
  const origins: Record<string, Origin> = {};
  const settings: Settings = structuredClone(DEFAULT_SETTINGS);
  const set = (path: string, origin: Origin, value: unknown) => {
    if (value === undefined) return;
    const parts = path.split(".");
    let target = settings as unknown as Record<string, unknown>;
    for (const p of parts.slice(0, -1)) target = target[p] as Record<string, unknown>;
    target[parts.at(-1)!] = value;
    origins[path] = origin;
  };
  for (const path of [
    "sources",
    "judge.model",
    "judge.mode",
    "judge.concurrency",
    "judge.timeout_ms",
    "judge.temperature",
    "judge.retries",
    "dimensions",
    "trials",
    "thresholds.regression",
    "thresholds.minimum",
    "baselines",
    "db",
    "cache",
    "prices",
    "corrections",
    "online",
    "export",
  ])
    origins[path] = "default";

  if (file) {
    const { data: p, placeOf } = loadLocatedProjectFile(file);
    const rel = (v: string | undefined) => (v === undefined ? undefined : resolveLocal(root, v));
    set(
      "sources",
      "file",
      p.sources?.map((s) => (s === "store" ? s : resolveLocal(root, s))),
    );
    set("propositions", "file", rel(p.propositions));
    set(
      "judge.model",
      "file",
      judgeSpecText(p.judge?.model, root, { file, place: placeOf(["judge", "model"]), label: "judge.model" }),
    );
    set("judge.base_url", "file", p.judge?.base_url);
    set("judge.api_key_env", "file", p.judge?.api_key_env);
    set("judge.mode", "file", p.judge?.mode);
    set("judge.concurrency", "file", p.judge?.concurrency);
    set("judge.timeout_ms", "file", p.judge?.timeout_ms);
    set("judge.temperature", "file", p.judge?.temperature);
    set("judge.retries", "file", p.judge?.retries);
    set("judge.rate_limit", "file", p.judge?.rate_limit);
    set("dimensions", "file", p.dimensions);
    set("agents", "file", p.agents);
    set("trials", "file", p.trials);
    set("sample", "file", p.sample);
    set("thresholds.regression", "file", p.thresholds?.regression);
    set("thresholds.minimum", "file", p.thresholds?.minimum);
    set("thresholds.agreement", "file", p.thresholds?.agreement);
    set("baselines", "file", rel(p.baselines));
    set("calibration", "file", rel(p.calibration));
    set("ci", "file", p.ci?.dashboard_url === undefined ? undefined : { dashboard_url: p.ci.dashboard_url });
    set("redteam", "file", p.redteam && redteamBlock(p.redteam, root, file, placeOf));
    set("db", "file", storeLocationText(p.db, root, { file, place: placeOf(["db"]), label: "db" }));
    set("cache", "file", p.cache);
    set("prices", "file", p.prices);
    set("corrections", "file", p.corrections);
    set(
      "online",
      "file",
      // A rule's judge like judge.model: a fixtures file is relative to the project file.
      p.online?.map((rule, i) =>
        rule.judge === undefined
          ? rule
          : {
              ...rule,
              judge: judgeSpecText(rule.judge, root, {
                file,
                place: placeOf(["online", i, "judge"]),
                label: `online[${i}].judge`,
              }),
            },
      ),
    );
    set("export", "file", p.export);
  }
  // Defaults that are folders live beside the project file (or in the working directory without one).
  if (origins.db === "default") settings.db = resolveLocal(root, DEFAULT_SETTINGS.db);
  if (origins.baselines === "default") settings.baselines = resolveLocal(root, DEFAULT_SETTINGS.baselines);

  // Like flags, environment values are relative to the working directory.
  set(
    "judge.model",
    "env",
    judgeSpecText(env.DRAMATURG_JUDGE || undefined, cwd, { place: "DRAMATURG_JUDGE" }),
  );
  set("db", "env", storeLocationText(env.DRAMATURG_DB || undefined, cwd, { place: "DRAMATURG_DB" }));
  set("ci", "env", dashboardUrlSetting(env.DRAMATURG_DASHBOARD_URL || undefined, "DRAMATURG_DASHBOARD_URL"));

  const f = parseFlags(flags);
  set("sources", "flag", flags.sources?.length ? flags.sources.map((s) => resolve(cwd, s)) : undefined);
  set(
    "propositions",
    "flag",
    flags.propositions === undefined ? undefined : resolve(cwd, flags.propositions),
  );
  set("judge.model", "flag", judgeSpecText(flags.judge, cwd, { place: "--judge" }));
  set("judge.base_url", "flag", flags.judgeBaseUrl);
  set("judge.api_key_env", "flag", flags.judgeApiKeyEnv);
  set("judge.mode", "flag", f.mode);
  set("judge.concurrency", "flag", f.concurrency);
  set("judge.timeout_ms", "flag", f.timeout);
  set("judge.temperature", "flag", f.temperature);
  set("judge.retries", "flag", f.retries);
  set("dimensions", "flag", f.dimensions);
  set("agents", "flag", list(flags.agents));
  set("trials", "flag", f.trials);
  if (f.sample !== undefined)
    set("sample", "flag", { size: f.sample, seed: f.seed ?? settings.sample?.seed ?? 0 });
  else if (f.seed !== undefined && settings.sample)
    set("sample", "flag", { ...settings.sample, seed: f.seed });
  set("thresholds.regression", "flag", f.threshold);
  set("baselines", "flag", flags.baselines === undefined ? undefined : resolve(cwd, flags.baselines));
  set("db", "flag", storeLocationText(flags.db, cwd, { place: "--db" }));
  set("cache", "flag", flags.cache === false ? false : undefined);
  set("ci", "flag", dashboardUrlSetting(flags.dashboardUrl, "--dashboard-url"));
  return { settings, origins, file, root };
}

/** The red-team block with its files resolved against the project file's folder and lists as lists. */
function redteamBlock(
  block: RedteamBlock,
  root: string,
  file: string,
  placeOf: (path: readonly PropertyKey[]) => string,
): ResolvedRedteamBlock {
  const list = (v: string | string[] | undefined) => (v === undefined ? undefined : [v].flat());
  const { persona, agent, corrections, simulator_propositions, judge, ...rest } = block;
  const resolved: ResolvedRedteamBlock = { ...rest };
  if (persona !== undefined) resolved.persona = list(persona)!.map((f) => resolveLocal(root, f));
  if (agent !== undefined) resolved.agent = list(agent);
  if (corrections !== undefined) resolved.corrections = resolveLocal(root, corrections);
  if (simulator_propositions !== undefined)
    resolved.simulator_propositions = resolveLocal(root, simulator_propositions);
  if (judge !== undefined)
    resolved.judge = judgeSpecText(judge, root, {
      file,
      place: placeOf(["redteam", "judge"]),
      label: "redteam.judge",
    });
  return resolved;
}

/** `ci`'s dashboard URL from a flag or a variable, validated as the project file's is; `place` names it. */
function dashboardUrlSetting(text: string | undefined, place: string): Settings["ci"] {
  if (text === undefined) return undefined;
  const parsed = DashboardUrlSchema.safeParse(text);
  if (!parsed.success)
    throw new InputError(`${parsed.error.issues[0]!.message}, got ${JSON.stringify(text)}`, { place });
  return { dashboard_url: parsed.data };
}

function resolveLocal(root: string, path: string): string {
  return resolve(root, path);
}

/**
 * Where a bad value came from, for its InputError: the project file with the value's `line:col` and its
 * key as `label`, or the flag or variable as `place`.
 */
type Source = { file?: string; place: string; label?: string };

/** A judge spec in its one canonical text, a fixtures path resolved against `base`. */
function judgeSpecText(text: string | undefined, base: string, source: Source): string | undefined {
  if (text === undefined) return undefined;
  return formatJudgeSpec(withSource(source, () => parseJudgeSpec(text, { cwd: base })));
}

/** A store location in its one canonical text, a folder resolved against `base`. */
function storeLocationText(text: string | undefined, base: string, source: Source): string | undefined {
  if (text === undefined) return undefined;
  return formatStoreLocation(withSource(source, () => parseStoreLocation(text, { cwd: base })));
}

/** Runs a parser, naming the place of the value in the InputError it throws. */
function withSource<T>(source: Source, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (!InputError.isInstance(error) || error.file || error.place) throw error;
    const { file, place, label } = source;
    throw new InputError(label ? `${label}: ${error.message}` : error.message, { file, place, cause: error });
  }
}
