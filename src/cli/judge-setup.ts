// The judge settings of a command: the spec it must have, and what its live judge would be (dry runs).
import { InputError, JUDGE_SPEC_FORMS, parseJudgeSpec } from "../core/index.ts";
import { createJudgeModel, type JudgeDescriptor, PROMPT_VERSION } from "../judge/index.ts";
import type { Settings } from "./settings.ts";

/** The judge spec of these settings; none given is bad usage, with the forms a spec can take. */
export function requireJudgeSpec(settings: Pick<Settings, "judge">): string {
  const spec = settings.judge.model;
  if (!spec)
    throw new InputError(
      `no judge given; pass --judge ${JUDGE_SPEC_FORMS}, or set judge.model in dramaturg.yaml`,
      { place: "--judge" },
    );
  return spec;
}

/**
 * The descriptor the live judge of these settings would have, without its API key (dry runs, which key
 * the verdict cache by it). Undefined for a fixture judge or none.
 */
export function describeLiveJudge(settings: Pick<Settings, "judge">): JudgeDescriptor | undefined {
  if (!settings.judge.model) return undefined;
  const spec = parseJudgeSpec(settings.judge.model);
  if (spec.kind === "fixtures") return undefined;
  // Any variable "is set" here: the model object is only described, never called.
  const anyKey = new Proxy({}, { get: () => "dry-run" }) as Record<string, string>;
  const { descriptor } = createJudgeModel(spec, {
    baseUrl: settings.judge.base_url,
    apiKeyEnv: settings.judge.api_key_env,
    env: anyKey,
  });
  return { ...descriptor, temperature: settings.judge.temperature, prompt_version: PROMPT_VERSION };
}
