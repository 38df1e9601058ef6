// Cassettes: a language model's answers recorded against a hash of each call's prompt and settings, and
// played back with no model at all, as AI SDK middleware. This is what makes a run with live models
// (a simulated user, an LLM scorer) reproducible offline in CI. Only hashes, a short prompt tail for
// humans and the answers are written: never headers, keys or request bodies.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4Middleware,
} from "@ai-sdk/provider";
import { z } from "zod";
import {
  contentHash,
  DramaturgError,
  firstIssue,
  InputError,
  issuePath,
  parseJsonText,
  readInputFile,
  stableStringify,
  validateInput,
} from "../core/index.ts";

export const CASSETTE_FORMAT = "dramaturg.cassette/v1";

/** How much of a prompt's last message a cassette keeps, for a person reading it (the key is the hash). */
const PROMPT_TAIL = 300;

const TokensSchema = z.record(z.string(), z.number().optional());

/** One recorded answer: what `doGenerate` returned, less anything that could carry a secret. */
const RecordedAnswerSchema = z
  .object({
    content: z.array(
      z.discriminatedUnion("type", [
        z.object({ type: z.literal("text"), text: z.string() }).strict(),
        z.object({ type: z.literal("reasoning"), text: z.string() }).strict(),
        z
          .object({
            type: z.literal("tool-call"),
            toolCallId: z.string(),
            toolName: z.string(),
            input: z.string(),
          })
          .strict(),
      ]),
    ),
    structured_output_text: z.string().optional(),
    finish_reason: z.object({ unified: z.string(), raw: z.string().optional() }).strict(),
    usage: z.object({ input: TokensSchema, output: TokensSchema }).strict(),
  })
  .strict();

const CassetteEntrySchema = z
  .object({
    /** sha256 (16 hex) of the call's prompt and the settings that change its answer. */
    key: z.string().regex(/^[0-9a-f]{16}$/, "a 16-character hex hash"),
    /** The end of the call's last message, for people; never read back. */
    prompt_tail: z.string().optional(),
    /** The answers of every call with this key, in the order they were made. */
    answers: z.array(RecordedAnswerSchema).min(1),
  })
  .strict();

export const CassetteSchema = z
  .object({
    format: z.literal(CASSETTE_FORMAT),
    note: z.string().optional(),
    /** Recordings by model role (`user`, `scorer`…): each a list of keyed answers. */
    tapes: z.record(z.string(), z.array(CassetteEntrySchema)),
  })
  .strict();

export type CassetteFile = z.infer<typeof CassetteSchema>;
type RecordedAnswer = z.infer<typeof RecordedAnswerSchema>;

/** A replayed call that the cassette has no answer for. Exit code 3: the run could not complete. */
export class CassetteMissError extends DramaturgError {
  /** The cassette file and the call's key. */
  readonly file: string;
  readonly key: string;

  constructor({ file, tape, key, call }: { file: string; tape: string; key: string; call: number }) {
    super(
      "CassetteMissError",
      `no recorded answer in ${file} for the ${tape} call with key ${key}${call > 1 ? ` (call ${call} with that key)` : ""}: the prompt differs from the recording (record again with --record)`,
      { exitCode: 3 },
    );
    this.file = file;
    this.key = key;
  }

  static override isInstance(error: unknown): error is CassetteMissError {
    return DramaturgError.isInstance(error) && error.name === "CassetteMissError";
  }
}

/** Every call option that changes the answer; never headers, signals or other transport. */
const KEYED_OPTIONS = [
  "prompt",
  "maxOutputTokens",
  "temperature",
  "stopSequences",
  "topP",
  "topK",
  "presencePenalty",
  "frequencyPenalty",
  "responseFormat",
  "seed",
  "tools",
  "toolChoice",
  "reasoning",
  "providerOptions",
] as const satisfies readonly (keyof LanguageModelV4CallOptions)[];

/** The key of a call: its prompt and every setting that changes the answer; never headers or signals. */
export function callKey(params: LanguageModelV4CallOptions): string {
  return contentHash(stableStringify(Object.fromEntries(KEYED_OPTIONS.map((k) => [k, params[k]]))));
}

function promptTail(params: LanguageModelV4CallOptions): string {
  const last = params.prompt.at(-1);
  const text =
    last === undefined
      ? ""
      : typeof last.content === "string"
        ? last.content
        : last.content
            .map((part) => ("text" in part && typeof part.text === "string" ? part.text : ""))
            .join("");
  return text.length > PROMPT_TAIL ? `…${text.slice(-PROMPT_TAIL)}` : text;
}

function toRecorded(result: LanguageModelV4GenerateResult): RecordedAnswer {
  const content: RecordedAnswer["content"] = [];
  for (const part of result.content) {
    if (part.type === "text" || part.type === "reasoning") content.push({ type: part.type, text: part.text });
    else if (part.type === "tool-call")
      content.push({
        type: "tool-call",
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: part.input,
      });
  }
  const tokens = (o: object) => JSON.parse(JSON.stringify(o)) as Record<string, number>;
  const { raw: _raw, ...usage } = result.usage as typeof result.usage & { raw?: unknown };
  return {
    content,
    ...(result.structuredOutputText !== undefined
      ? { structured_output_text: result.structuredOutputText }
      : {}),
    finish_reason: {
      unified: result.finishReason.unified,
      ...(result.finishReason.raw !== undefined ? { raw: result.finishReason.raw } : {}),
    },
    usage: { input: tokens(usage.inputTokens), output: tokens(usage.outputTokens) },
  };
}

function fromRecorded(answer: RecordedAnswer): LanguageModelV4GenerateResult {
  const { input, output } = answer.usage;
  return {
    content: answer.content as LanguageModelV4Content[],
    ...(answer.structured_output_text !== undefined
      ? { structuredOutputText: answer.structured_output_text }
      : {}),
    finishReason: {
      unified: answer.finish_reason.unified as LanguageModelV4GenerateResult["finishReason"]["unified"],
      raw: answer.finish_reason.raw,
    },
    usage: {
      inputTokens: {
        total: input.total,
        noCache: input.noCache,
        cacheRead: input.cacheRead,
        cacheWrite: input.cacheWrite,
      },
      outputTokens: { total: output.total, text: output.text, reasoning: output.reasoning },
    },
    warnings: [],
  };
}

/**
 * A cassette file: recording (starts empty, written by {@link Cassette.save}) or replaying (read and
 * validated now). Its tapes are named by role, so one file holds, say, a simulated user and a scorer.
 */
export class Cassette {
  readonly file: string;
  readonly mode: "record" | "replay";
  private readonly tapes = new Map<
    string,
    Map<string, { prompt_tail?: string; answers: RecordedAnswer[] }>
  >();
  /** Per tape and key, how many calls were answered so far (replay: the next answer's index). */
  private readonly used = new Map<string, number>();
  private readonly missed: CassetteMissError[] = [];

  private constructor(file: string, mode: "record" | "replay", data?: CassetteFile) {
    this.file = file;
    this.mode = mode;
    for (const [name, entries] of Object.entries(data?.tapes ?? {}))
      this.tapes.set(
        name,
        new Map(entries.map((e) => [e.key, { prompt_tail: e.prompt_tail, answers: e.answers }])),
      );
  }

  /** An empty cassette that records into `file` when saved. */
  static record(file: string): Cassette {
    return new Cassette(file, "record");
  }

  /** The cassette in `file`, for replay; a missing or malformed file is an {@link InputError} naming the place. */
  static replay(file: string): Cassette {
    const expected = `a ${CASSETTE_FORMAT} file`;
    const parsed = validateInput(
      CassetteSchema,
      parseJsonText(readInputFile(file, "cassette"), file, expected),
    );
    if (!parsed.success) {
      const issue = firstIssue(parsed.error);
      throw new InputError(`${issue.message}; expected ${expected}`, { file, place: issuePath(issue.path) });
    }
    return new Cassette(file, "replay", parsed.data);
  }

  /** The first replayed call that had no answer, if any (a scorer's miss is otherwise only an errored verdict). */
  get firstMiss(): CassetteMissError | undefined {
    return this.missed[0];
  }

  /** The middleware that records the calls of one role to its tape, or answers them from it. */
  middleware(tape: string): LanguageModelV4Middleware {
    return {
      specificationVersion: "v4",
      wrapGenerate: async ({ doGenerate, params }) => {
        const key = callKey(params);
        const counter = `${tape}\u0000${key}`;
        const call = (this.used.get(counter) ?? 0) + 1;
        this.used.set(counter, call);
        if (this.mode === "replay") {
          const answer = this.tapes.get(tape)?.get(key)?.answers[call - 1];
          if (answer) return fromRecorded(answer);
          const miss = new CassetteMissError({ file: this.file, tape, key, call });
          this.missed.push(miss);
          throw miss;
        }
        const result = await doGenerate();
        // Looked up after the call: calls run concurrently, and the first to finish makes the tape.
        let entries = this.tapes.get(tape);
        if (!entries) this.tapes.set(tape, (entries = new Map()));
        const entry = entries.get(key) ?? { prompt_tail: promptTail(params), answers: [] };
        entry.answers.push(toRecorded(result));
        entries.set(key, entry);
        return result;
      },
      wrapStream: async ({ doStream }) => {
        if (this.mode === "replay")
          throw new InputError(`cassette ${this.file} replays generate calls only, not streams`);
        return doStream();
      },
    };
  }

  /** Writes a recording cassette (its folder is made if needed). */
  save(): void {
    if (this.mode !== "record") return;
    const file: CassetteFile = {
      format: CASSETTE_FORMAT,
      note: "recorded by dramaturg: model answers keyed by a hash of each call's prompt and settings",
      tapes: Object.fromEntries(
        [...this.tapes].map(([name, entries]) => [
          name,
          [...entries].map(([key, e]) => ({
            key,
            ...(e.prompt_tail ? { prompt_tail: e.prompt_tail } : {}),
            answers: e.answers,
          })),
        ]),
      ),
    };
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileSync(this.file, `${JSON.stringify(file, null, 2)}\n`);
  }
}

/** A model that must never be called: what a replayed role runs on, so a miss can never reach a provider. */
export function unreachableModel(provider: string, modelId: string): LanguageModelV4 {
  const refuse = () =>
    Promise.reject(new Error(`${provider}:${modelId} is replayed from a cassette and never called`));
  return {
    specificationVersion: "v4",
    provider,
    modelId,
    supportedUrls: {},
    doGenerate: refuse,
    doStream: refuse,
  };
}
