// The simulated user's model from the target flags (converse, drift): its server checked before its first call.
import type { LanguageModel } from "ai";
import { SIMULATED_USER_PROBE } from "../conversations/index.ts";
import { createJudgeModel } from "../judge/index.ts";
import type { TargetFlags } from "./target-flags.ts";

/** The simulated user's model, or undefined when no --user-model is given. */
export function simulatedUserModel(flags: TargetFlags): LanguageModel | undefined {
  if (flags.userModel === undefined) return undefined;
  return createJudgeModel(flags.userModel, {
    baseUrl: flags.userBaseUrl,
    apiKeyEnv: flags.userApiKeyEnv,
    probe: SIMULATED_USER_PROBE,
  }).model;
}
