// Inspect's logs (UKGovernmentBEIS/inspect_ai, src/inspect_ai/log/_log.py): an `EvalLog` as JSON, or a `.eval`
// archive (header.json and samples/<id>_epoch_<n>.json, read by readInspectArchive into the same shape). Each
// sample of each epoch is one session, its task the sample's id, so pass^k runs over the epochs. Its messages
// are Inspect's ChatMessages (tool calls as `{id, function, arguments}`, tool results with `tool_call_id` and
// `error`), its tools those its model events offered (name, description, JSON-schema parameters). A sample
// succeeded when its first score, as a number by Inspect's `value_to_float` (C 1, P 0.5, I and N 0, yes/true
// 1, numbers as they are), reaches the success reward: 1 by default, so "C" passes and "P" does not.
import { z } from "zod";
import { firstIssue, InputError, issuePath, parseJsonText, validateInput } from "../../core/index.ts";
import type { SessionInput } from "../session-format.ts";
import type { Imported, ImportOptions, SessionImporter } from "./importer.ts";
import { openaiChatImporter } from "./openai-chat.ts";
import { REWARD_TOLERANCE } from "./tau-bench.ts";
import { readZipArchive } from "./zip-archive.ts";

/** The score at which an Inspect sample counts as a success: 1, Inspect's CORRECT ("C"). */
export const INSPECT_SUCCESS_REWARD = 1;

const Content = z.union([
  z.string(),
  z.array(
    z.object({ type: z.string(), text: z.string().optional(), reasoning: z.string().optional() }).loose(),
  ),
]);

const ToolCall = z
  .object({
    id: z.string(),
    function: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()).default({}),
    parse_error: z.string().nullable().optional(),
  })
  .loose();

const Message = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: Content }).loose(),
  z.object({ role: z.literal("user"), content: Content }).loose(),
  z
    .object({
      role: z.literal("assistant"),
      content: Content,
      tool_calls: z.array(ToolCall).nullable().optional(),
    })
    .loose(),
  z
    .object({
      role: z.literal("tool"),
      content: Content,
      tool_call_id: z.string().nullable().optional(),
      error: z.object({ type: z.string().optional(), message: z.string() }).loose().nullable().optional(),
    })
    .loose(),
]);

const Score = z.object({ value: z.unknown(), explanation: z.string().nullable().optional() }).loose();

const Sample = z
  .object({
    id: z.union([z.string().min(1), z.number().int()]),
    epoch: z.number().int().min(1),
    input: z.union([z.string(), z.array(z.unknown())]).optional(),
    messages: z.array(Message),
    scores: z.record(z.string(), Score).nullable().optional(),
    events: z.array(z.object({ event: z.string() }).loose()).optional(),
    attachments: z.record(z.string(), z.string()).optional(),
    error: z.object({ message: z.string() }).loose().nullable().optional(),
  })
  .loose();

const ToolInfo = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();

const EvalLog = z
  .object({
    version: z.number().int(),
    status: z.string().optional(),
    eval: z.object({ task: z.string(), model: z.string().optional(), run_id: z.string().optional() }).loose(),
    samples: z.array(z.unknown()).nullable().optional(),
  })
  .loose();

type Msg = z.infer<typeof Message>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** Inspect's `value_to_float` (scorer/_metric.py): a score's value as a number, undefined when it has none. */
export function inspectScoreValue(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value !== "string") return undefined;
  if (value === "C") return 1;
  if (value === "P") return 0.5;
  if (value === "I" || value === "N") return 0;
  const lower = value.toLowerCase();
  if (lower === "yes" || lower === "true") return 1;
  if (lower === "no" || lower === "false") return 0;
  return /^\d*\.?\d+$/.test(value) ? Number(value) : 0;
}

/** Inspect keeps long strings apart as `attachment://<hash>`; the text itself is in the sample's attachments. */
function resolve(text: string, attachments: Record<string, string>): string {
  return text.startsWith("attachment://") ? (attachments[text.slice(13)] ?? text) : text;
}

function textOf(content: z.infer<typeof Content>, attachments: Record<string, string>): string {
  if (typeof content === "string") return resolve(content, attachments);
  return content
    .filter((p) => p.type === "text")
    .map((p) => resolve(p.text ?? "", attachments))
    .join("");
}

/** Inspect's messages as OpenAI chat messages, and the tool errors by call id (the chat format has no place for them). */
function chatMessages(messages: readonly Msg[], attachments: Record<string, string>) {
  const errors = new Map<string, string>();
  const chat = messages.map((m) => {
    const content = textOf(m.content, attachments);
    if (m.role === "assistant")
      return {
        role: "assistant",
        content,
        ...(m.tool_calls?.length
          ? {
              tool_calls: m.tool_calls.map((c) => ({
                id: c.id,
                type: "function",
                function: { name: c.function, arguments: JSON.stringify(c.arguments) },
              })),
            }
          : {}),
      };
    if (m.role === "tool") {
      if (m.tool_call_id && m.error) errors.set(m.tool_call_id, m.error.message);
      return { role: "tool", content, ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}) };
    }
    return { role: m.role, content };
  });
  return { chat, errors };
}

/** The tools the sample's model events offered, each once, as OpenAI tools. */
function offeredTools(sample: z.infer<typeof Sample>, attachments: Record<string, string>) {
  const tools = new Map<string, NonNullable<ImportOptions["tools"]>[number]>();
  for (const event of sample.events ?? []) {
    if (event.event !== "model" || !Array.isArray(event.tools)) continue;
    for (const raw of event.tools) {
      const tool = ToolInfo.safeParse(raw);
      if (!tool.success || tools.has(tool.data.name)) continue;
      const { name, description, parameters } = tool.data;
      tools.set(name, {
        type: "function",
        function: {
          name,
          ...(description ? { description: resolve(description, attachments) } : {}),
          ...(parameters ? { parameters } : {}),
        },
      });
    }
  }
  return [...tools.values()];
}

/**
 * An Inspect `.eval` archive as the `EvalLog` its JSON form would be: header.json's fields and the samples
 * (samples/*.json, by id and epoch). Throws an InputError naming the file and the member that is wrong.
 */
export function readInspectArchive(bytes: Buffer, file: string): unknown {
  const files = readZipArchive(bytes, file);
  const json = (name: string) =>
    parseJsonText(files.get(name)!.toString("utf8"), `${file}:${name}`, "an Inspect log member");
  const start = files.has("header.json") ? "header.json" : "_journal/start.json";
  if (!files.has(start))
    throw new InputError("an archive without header.json; expected an Inspect .eval log", { file });
  const header = json(start);
  const samples = [...files.keys()]
    .filter((name) => /^samples\/.+\.json$/.test(name))
    .map((name) => ({ name, sample: json(name) }))
    .sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }))
    .map((s) => s.sample);
  return { ...(isObject(header) ? header : {}), samples };
}

export const inspectImporter: SessionImporter = {
  name: "inspect",
  detect: (value) =>
    isObject(value) &&
    typeof value.version === "number" &&
    isObject(value.eval) &&
    typeof value.eval.task === "string" &&
    ("samples" in value || "results" in value || "plan" in value),
  import(value, options: ImportOptions): Imported {
    const { file, successReward = INSPECT_SUCCESS_REWARD } = options;
    const log = validateInput(EvalLog, value);
    if (!log.success) {
      const issue = firstIssue(log.error);
      throw new InputError(`${issue.message}; expected an Inspect log`, {
        file,
        place: issuePath(issue.path),
      });
    }
    const samples = log.data.samples ?? [];
    if (samples.length === 0)
      throw new InputError(
        "the log has no samples (written with log_samples off, or still running); expected samples to read as sessions",
        { file, place: "samples" },
      );
    const agent = log.data.eval.model ?? "assistant";
    const sessions: SessionInput[] = [];
    const notes = new Map<string, number>();
    const said = (note: string) => notes.set(note, (notes.get(note) ?? 0) + 1);
    let unscored = 0;
    let failed = 0;
    samples.forEach((item, i) => {
      const parsed = validateInput(Sample, item);
      if (!parsed.success) {
        const issue = firstIssue(parsed.error);
        throw new InputError(issue.message, { file, place: issuePath(["samples", i, ...issue.path]) });
      }
      const sample = parsed.data;
      const attachments = sample.attachments ?? {};
      const { chat, errors } = chatMessages(sample.messages, attachments);
      if (!chat.some((m) => m.role === "user"))
        throw new InputError("expected a sample with at least one user message", {
          file,
          place: issuePath(["samples", i, "messages"]),
        });
      const tools = options.tools ?? offeredTools(sample, attachments);
      const named = chat.map((m) => (m.role === "assistant" ? { ...m, name: agent } : m));
      const imported = openaiChatImporter.import(
        { messages: named, ...(tools.length ? { tools } : {}) },
        { file },
      );
      for (const note of imported.notes) said(note);
      const session = imported.sessions[0]!;
      for (const turn of session.turns)
        for (const x of turn.agent_interactions ?? [])
          for (const step of x.agent_steps ?? []) {
            const error = step.tool_call?.id ? errors.get(step.tool_call.id) : undefined;
            if (error && step.tool_call) step.tool_call.error = error;
          }
      const first = Object.values(sample.scores ?? {})[0];
      const score = first ? inspectScoreValue(first.value) : undefined;
      if (score === undefined) unscored++;
      if (sample.error) failed++;
      const task = String(sample.id);
      sessions.push({
        ...session,
        id: `sample-${task}-epoch-${sample.epoch}`,
        task_id: task,
        ...(score !== undefined ? { success: score >= successReward - REWARD_TOLERANCE } : {}),
        ...(typeof sample.input === "string" ? { initial_task: sample.input } : {}),
        source_ids: {
          inspect_task: log.data.eval.task,
          ...(log.data.eval.run_id ? { inspect_run_id: log.data.eval.run_id } : {}),
          inspect_sample_id: task,
          inspect_epoch: String(sample.epoch),
        },
      });
    });
    const out = [...notes].map(([note, n]) => (n > 1 ? `${note} (in ${n} samples)` : note));
    out.unshift(
      `a sample succeeded when its first score is at least ${successReward}${successReward === INSPECT_SUCCESS_REWARD ? ' (Inspect\'s "C"; --success-reward changes it)' : ""}`,
    );
    if (unscored > 0) out.push(`${unscored} sample(s) without a score: left out of pass^k`);
    if (failed > 0) out.push(`${failed} sample(s) ended in an error`);
    if (log.data.status && log.data.status !== "success")
      out.push(`the log's status is "${log.data.status}": it may not hold every sample`);
    return { sessions, notes: out };
  },
};
