// The checks of `dramaturg doctor`, each a line of its checklist: the project file, the store and the judge,
// what is wrong in plain words and what to do about it. They write nothing: the store is opened without
// migrating, and only if it already exists.
import { z } from "zod";
import {
  DramaturgError,
  InputError,
  isPersonaDimension,
  JudgeError,
  type JudgeErrorKind,
  type JudgeSpec,
  parseJudgeSpec,
  redactSecrets,
  type StoreLocation,
} from "../core/index.ts";
import { createJudgeModel, LlmJudge, loadFixtures } from "../judge/index.ts";
import { openStore, storeExists } from "../store/index.ts";
import { findProjectFile, loadProjectFile, resolveSettings, type Settings } from "./settings.ts";

/** One line of the checklist. `fail` carries the exit code it stands for (2 bad input, 3 unreachable). */
export interface Check {
  name: string;
  status: "ok" | "warn" | "fail" | "skip";
  detail: string;
  /** What to do about it, in plain words. */
  fix?: string;
  exitCode?: number;
}

/** The project file (and the settings it gives, when it is good), as `--config` names it or as found. */
export function checkProjectFile(flags: {
  config?: string;
  db?: string;
  judge?: string;
  judgeBaseUrl?: string;
}): { check: Check; settings?: Settings } {
  const name = "project file";
  const file = flags.config ?? findProjectFile(process.cwd());
  try {
    const resolved = resolveSettings({
      flags: { db: flags.db, judge: flags.judge, judgeBaseUrl: flags.judgeBaseUrl },
      projectFile: flags.config,
    });
    if (!file)
      return {
        settings: resolved.settings,
        check: {
          name,
          status: "warn",
          detail: "no dramaturg.yaml here or in any folder above",
          fix: "run `dramaturg init` to create one, or pass everything as flags",
        },
      };
    const parsed = loadProjectFile(resolved.file!);
    const keys = Object.keys(parsed).filter((k) => k !== "version");
    return {
      settings: resolved.settings,
      check: {
        name,
        status: "ok",
        detail: `${resolved.file} is valid (${keys.length} settings: ${keys.join(", ") || "none"})`,
      },
    };
  } catch (error) {
    if (!InputError.isInstance(error)) throw error;
    return {
      check: {
        name,
        status: "fail",
        detail: error.message,
        fix: "correct the file at that line (`dramaturg schema config` prints every allowed key)",
        exitCode: 2,
      },
    };
  }
}

/** The store: opened (without migrating) when it exists, its schema compared with this Dramaturg's. */
export async function checkStore(location: StoreLocation): Promise<Check> {
  const name = "store";
  if (location.kind === "memory") {
    // Opening it costs a few ms and no database: open it, so that the check shows what a command gets.
    const started = performance.now();
    const store = await openStore(location);
    await store.close();
    const ms = Math.round(performance.now() - started);
    return {
      name,
      status: "ok",
      detail: `memory:// (${store.dialect}, opened in ${ms} ms) — held in the command's own memory, no database: nothing is kept after a command`,
    };
  }
  if (!storeExists(location))
    return {
      name,
      status: "ok",
      detail: `${location.display} does not exist yet; the first \`dramaturg eval\` creates it`,
    };
  const started = performance.now();
  try {
    const store = await openStore(location, { migrate: false });
    try {
      const status = await store.migrationStatus();
      const ms = Math.round(performance.now() - started);
      const where = `${store.location} (${store.dialect}, opened in ${ms} ms)`;
      if (status.current > status.latest)
        return {
          name,
          status: "fail",
          detail: `${where}: schema version ${status.current} is newer than this Dramaturg knows (${status.latest})`,
          fix: "upgrade dramaturg (npm install dramaturg@latest)",
          exitCode: 3,
        };
      if (status.pending.length > 0)
        return {
          name,
          status: "warn",
          detail: `${where}: schema at version ${status.current}, ${status.pending.length} migration${status.pending.length === 1 ? "" : "s"} pending (${status.pending.map((m) => m.name).join(", ")})`,
          fix: "nothing to do by hand: the next command that writes (eval, import) applies them",
        };
      if (status.changed.length > 0)
        return {
          name,
          status: "warn",
          detail: `${where}: migrations ${status.changed.join(", ")} differ from the ones applied`,
          fix: "this Dramaturg edited a released migration; report it, and do not rely on this store",
        };
      return { name, status: "ok", detail: `${where}: schema current (version ${status.current})` };
    } finally {
      await store.close();
    }
  } catch (error) {
    return {
      name,
      status: "fail",
      detail: DramaturgError.isInstance(error)
        ? error.message
        : `cannot open ${location.display}: ${redactSecrets(String(error), { urls: location.kind === "postgres" ? [location.url] : [] })}`,
      fix:
        location.kind === "postgres"
          ? "check that the server is running and reachable, the user and database exist, and PGPASSWORD is set"
          : "check that the folder is readable and writable and no other process holds it",
      exitCode: 3,
    };
  }
}

const DoctorAnswerSchema = z.object({ ready: z.boolean().describe("true when you can read this") });

/** The judge: a fixtures file read, or the model asked one structured question. */
export async function checkJudge(settings: Settings, env: NodeJS.ProcessEnv): Promise<Check> {
  const name = "judge";
  if (!settings.judge.model)
    return {
      name,
      status: "fail",
      detail: "no judge configured",
      fix: "set judge.model in dramaturg.yaml (e.g. openai:gpt-4o-mini) or pass --judge",
      exitCode: 2,
    };
  const spec = parseJudgeSpec(settings.judge.model);
  if (spec.kind === "fixtures") {
    const file = spec.file;
    try {
      const fixtures = loadFixtures(file);
      const dims = [...new Set(fixtures.verdicts.map((v) => v.dimension))];
      const unknown = dims.filter((d) => !isPersonaDimension(d));
      return {
        name,
        status: unknown.length ? "warn" : "ok",
        detail: `fixtures ${file}: ${fixtures.verdicts.length} verdicts for ${dims.join(", ") || "no dimension"}`,
        ...(unknown.length
          ? { fix: `dimensions ${unknown.join(", ")} are not persona dimensions and are never used` }
          : {}),
      };
    } catch (error) {
      return {
        name,
        status: "fail",
        detail: DramaturgError.isInstance(error) ? error.message : String(error),
        fix: "point judge.model at an existing dramaturg.judge-fixtures/v1 file (`dramaturg schema judge-fixtures`)",
        exitCode: 2,
      };
    }
  }
  let model: ReturnType<typeof createJudgeModel>;
  try {
    model = createJudgeModel(spec, {
      baseUrl: settings.judge.base_url,
      apiKeyEnv: settings.judge.api_key_env,
      env,
    });
  } catch (error) {
    if (!InputError.isInstance(error)) throw error;
    return { name, status: "fail", detail: error.message, fix: keyFix(spec, settings), exitCode: 2 };
  }
  const judge = new LlmJudge({
    model: model.model,
    descriptor: model.descriptor,
    redact: model.redact,
    maxRetries: 1,
    timeoutMs: Math.min(settings.judge.timeout_ms, 30_000),
    ...(settings.judge.temperature !== undefined ? { temperature: settings.judge.temperature } : {}),
  });
  const who = `${model.descriptor.provider}:${model.descriptor.model}${model.descriptor.base_url ? ` at ${model.descriptor.base_url}` : ""}`;
  const started = performance.now();
  try {
    const answer = await judge.ask({
      system: "You are a health check. Answer in the JSON format you are given.",
      messages: [{ role: "user", content: "Set ready to true." }],
      schema: DoctorAnswerSchema,
      name: "health_check",
    });
    const ms = Math.round(performance.now() - started);
    return {
      name,
      status: "ok",
      detail: `${who} answered in ${ms} ms and honoured the JSON schema (${answer.usage.input_tokens + answer.usage.output_tokens} tokens)`,
    };
  } catch (error) {
    const message = DramaturgError.isInstance(error) ? error.message : model.redact(String(error));
    return {
      name,
      status: "fail",
      detail: `${who}: ${message}`,
      fix: judgeFix(JudgeError.isInstance(error) ? error.kind : "unknown", spec, settings),
      exitCode: 3,
    };
  }
}

/** What to do about a failed judge call, by why it failed. */
function judgeFix(kind: JudgeErrorKind, spec: JudgeSpec, settings: Settings): string {
  switch (kind) {
    case "auth":
      return keyFix(spec, settings, "the key was rejected: ");
    case "model-not-found":
      return "check the model name and the base URL (it usually ends in /v1)";
    case "malformed":
      return "this model does not follow JSON schemas reliably; choose one with structured output";
    case "bad-request":
      return "the server refused the request: check that this model supports structured output (JSON schema) and the base URL";
    case "rate-limit":
      return "the provider is rate-limiting this key: wait, or lower judge.concurrency, then run `dramaturg doctor` again";
    default:
      return "check that the server is running and reachable, then run `dramaturg doctor` again";
  }
}

/** "export OPENAI_API_KEY=…" for the variable this judge reads its key from. */
function keyFix(spec: JudgeSpec, settings: Settings, prefix = ""): string {
  const provider = spec.kind === "model" ? spec.provider : undefined;
  const variable =
    settings.judge.api_key_env ??
    (provider === "openai" ? "OPENAI_API_KEY" : provider === "anthropic" ? "ANTHROPIC_API_KEY" : undefined);
  if (!variable)
    return `${prefix}name the variable that holds the key with judge.api_key_env in dramaturg.yaml, then export it`;
  return `${prefix}export ${variable}=… (your key) in this shell or your CI secrets, then run \`dramaturg doctor\` again`;
}
