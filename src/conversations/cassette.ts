// A conversation job's cassette: one file per job (`<DIR>/<job>.cassette.json`) holding the simulated
// user's answers and the scorer's, so a recorded job replays offline against a deterministic agent with
// no model at all — the conversation counterpart of the fixture judge.
import { basename, join } from "node:path";
import type { LanguageModel, LanguageModelMiddleware } from "ai";
import { InputError, parseJudgeSpec } from "../core/index.ts";
import type { JudgeOption, JudgeSettings } from "../engine/index.ts";
import {
  Cassette,
  createJudgeModel,
  deferredLanguageModel,
  type Judge,
  judgeOnModel,
  unreachableModel,
} from "../judge/index.ts";

/** The cassette file of a job in a folder: the job's file name without its extension. */
export function conversationCassetteFile(dir: string, job: string): string {
  const stem = basename(job).replace(/\.(ya?ml|json)$/i, "") || "job";
  return join(dir, `${stem.replace(/[^\w.-]+/g, "_")}.cassette.json`);
}

/** The cassette a run records into or replays from, if either folder is given (never both). */
export function openConversationCassette(
  { record, replay }: { record?: string; replay?: string },
  job: string,
): Cassette | undefined {
  if (record !== undefined && replay !== undefined)
    throw new InputError("record and replay exclude each other: give one cassette folder");
  if (record !== undefined) return Cassette.record(conversationCassetteFile(record, job));
  if (replay !== undefined) return Cassette.replay(conversationCassetteFile(replay, job));
  return undefined;
}

/** The simulated user's model through the cassette: recorded, or replayed with no model behind it. */
export function userModelOnCassette(cassette: Cassette, model: LanguageModel | undefined): LanguageModel {
  const inner =
    cassette.mode === "replay"
      ? unreachableModel("cassette", "simulated-user")
      : (model ?? missingUserModel());
  if (typeof inner === "string")
    throw new InputError(
      `a cassette records a model object, not the gateway id "${inner}": pass the provider's model`,
    );
  return wrapLanguageModel({ model: inner, middleware: cassette.middleware("user") });
}

function missingUserModel(): never {
  throw new InputError("the simulated user needs a model (userModel), except when replaying a cassette");
}

/**
 * The scorer through the cassette when it runs on a model (a model spec or an AI SDK model); a fixture
 * judge or a ready Judge stays as it is. Replaying needs no key and calls no provider.
 */
export function judgeOnCassette(
  cassette: Cassette,
  judge: JudgeOption,
  settings: JudgeSettings = {},
): JudgeOption {
  const middleware = cassette.middleware("scorer");
  if (typeof judge === "string") {
    const spec = parseJudgeSpec(judge);
    if (spec.kind === "fixtures") return judge;
    const { temperature, concurrency, retries, timeoutMs } = settings;
    const limits = { temperature, concurrency, retries, timeoutMs };
    if (cassette.mode === "replay")
      return judgeOnModel(
        wrapLanguageModel({ model: unreachableModel(spec.provider, spec.model), middleware }),
        limits,
        { descriptor: { provider: spec.provider, model: spec.model } },
      );
    const built = createJudgeModel(spec, settings);
    // createJudgeModel builds a provider model object; a gateway id could not be recorded.
    if (typeof built.model === "string") throw new InputError(`judge ${judge} cannot be recorded`);
    return judgeOnModel(wrapLanguageModel({ model: built.model, middleware }), limits, {
      descriptor: built.descriptor,
      redact: built.redact,
    });
  }
  if (isJudge(judge)) return judge;
  return wrapLanguageModel({ model: judge, middleware });
}

function isJudge(value: Exclude<JudgeOption, string>): value is Judge {
  return typeof (value as Judge).judge === "function";
}

/**
 * The AI SDK's `wrapLanguageModel`, loaded at the model's first call: the conversations load with the main
 * entry, and the AI SDK costs more to import than the rest of it together.
 */
function wrapLanguageModel({
  model,
  middleware,
}: {
  model: Exclude<LanguageModel, string>;
  middleware: LanguageModelMiddleware;
}) {
  return deferredLanguageModel(model.provider, model.modelId, async () =>
    (await import("ai")).wrapLanguageModel({ model, middleware }),
  );
}
