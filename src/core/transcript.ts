// The transcript format `dramaturg.transcript/v1`: agents with personas and the messages they exchanged.
import { z } from "zod";
import { nearestName } from "./edit-distance.ts";
import { InputError } from "./errors.ts";
import { parseJsonText } from "./json-text.ts";
import { SourceIdsSchema } from "./source-ids.ts";
import { firstIssue, issuePath, validateInput } from "./zod-issues.ts";

export const TRANSCRIPT_FORMAT = "dramaturg.transcript/v1";

export const PersonaSchema = z
  .union([z.string().min(1), z.record(z.string(), z.unknown())])
  .describe("The agent's persona specification: free text, or a structured object (traits, style, beliefs…)");

export const AgentSchema = z
  .object({
    id: z.string().min(1).describe("Stable id; messages whose sender is this id are the agent's actions"),
    name: z.string().min(1).describe("Display name, used in trajectories and {{agent_name}}"),
    persona: PersonaSchema,
    tools: z.array(z.unknown()).optional().describe("Tools the agent may call (kept for session analysis)"),
    model: z
      .string()
      .min(1)
      .optional()
      .describe(
        "The model that spoke as this agent, when known (openai:gpt-4o-mini, llama3.1:8b): calibration warns when the judge is of its family",
      ),
  })
  .strict();

export const ChannelSchema = z
  .object({
    id: z.string().min(1),
    name: z.string().min(1).optional(),
    members: z
      .array(z.string().min(1))
      .optional()
      .describe("Agent ids in the channel; defaults to its senders"),
  })
  .strict();

export const MessageSchema = z
  .object({
    id: z.string().min(1),
    sender: z.string().min(1).describe("An agent id (the agent acts) or any other name (a stimulus)"),
    channel: z.string().min(1).describe("Channel id; a DM is a channel of its own"),
    recipient: z.string().min(1).optional().describe("For a DM: the agent id it is addressed to"),
    text: z.string(),
    at: z.iso.datetime({ offset: true }).describe("ISO 8601 timestamp"),
    source_ids: SourceIdsSchema,
  })
  .strict();

export const TranscriptSchema = z
  .object({
    format: z.literal(TRANSCRIPT_FORMAT),
    agents: z.array(AgentSchema).min(1),
    channels: z.array(ChannelSchema).optional(),
    messages: z.array(MessageSchema),
  })
  .strict()
  .superRefine((t, ctx) => {
    const agentIds = new Set<string>();
    t.agents.forEach((a, i) => {
      if (agentIds.has(a.id))
        ctx.addIssue({ code: "custom", path: ["agents", i, "id"], message: `duplicate agent id "${a.id}"` });
      agentIds.add(a.id);
    });
    const messageIds = new Set<string>();
    t.messages.forEach((m, i) => {
      if (messageIds.has(m.id))
        ctx.addIssue({
          code: "custom",
          path: ["messages", i, "id"],
          message: `duplicate message id "${m.id}"`,
        });
      messageIds.add(m.id);
      if (!agentIds.has(m.sender)) {
        const meant = meantAgent(m.sender, t.agents);
        if (meant !== undefined)
          ctx.addIssue({
            code: "custom",
            path: ["messages", i, "sender"],
            message: `sender "${m.sender}" is not an agent id; did you mean "${meant}"? (a speaker outside the ensemble is written role:name, e.g. user:${m.sender})`,
          });
      }
      if (m.recipient !== undefined && !agentIds.has(m.recipient) && !agentIds.has(m.sender))
        ctx.addIssue({
          code: "custom",
          path: ["messages", i, "recipient"],
          message: `a DM must involve an agent; "${m.recipient}" and "${m.sender}" are not agent ids`,
        });
    });
  });

/** A sender that says it is outside the ensemble: `role:name` (`listener:june`), or a role word (`user`, `user-2`). */
const OUTSIDE_SPEAKER =
  /^(?:[^:\s]+:.+|(?:user|human|customer|client|guest|caller|listener|system|narrator|moderator|facilitator)(?:[-_ ]?\d+)?)$/i;

/**
 * The agent a sender that is not an agent id surely meant: an id or display name in another case
 * (`Marta`), or an id a typo away (one edit for ids of up to four characters, two or a quarter of the
 * length for longer ones). A mistyped sender would otherwise become a stranger whose messages are
 * stimuli, silently moving the real agent's actions and everyone's samples. Undefined for a name far
 * from every agent, or one marked as an outside speaker ({@link OUTSIDE_SPEAKER}).
 */
export function meantAgent(
  sender: string,
  agents: readonly Pick<Agent, "id" | "name">[],
): string | undefined {
  const lower = sender.toLowerCase();
  for (const a of agents) if (a.id.toLowerCase() === lower || a.name.toLowerCase() === lower) return a.id;
  if (OUTSIDE_SPEAKER.test(sender)) return undefined;
  const ids = new Map(agents.map((a) => [a.id.toLowerCase(), a.id]));
  const within = lower.length <= 4 ? 1 : Math.max(2, Math.floor(lower.length / 4));
  const near = nearestName(lower, ids.keys(), within);
  return near === undefined ? undefined : ids.get(near);
}

/**
 * Senders that are not agent ids and do not say they are outside speakers (`role:name`, `user`…),
 * sorted: allowed, since a user or a guest may speak, but worth a warning, as they may be mistakes.
 */
export function unmarkedSenders(transcript: Transcript): string[] {
  const agentIds = new Set(transcript.agents.map((a) => a.id));
  const senders = new Set<string>();
  for (const m of transcript.messages)
    if (!agentIds.has(m.sender) && !OUTSIDE_SPEAKER.test(m.sender)) senders.add(m.sender);
  return [...senders].sort();
}

export type Persona = z.infer<typeof PersonaSchema>;
export type Agent = z.infer<typeof AgentSchema>;
export type Channel = z.infer<typeof ChannelSchema>;
export type Message = z.infer<typeof MessageSchema>;
export type Transcript = z.infer<typeof TranscriptSchema>;

/** JSONL header line: everything but the messages, which follow one per line. */
const JsonlHeaderSchema = z
  .object({
    format: z.literal(TRANSCRIPT_FORMAT),
    agents: z.array(AgentSchema).min(1),
    channels: z.array(ChannelSchema).optional(),
  })
  .strict();

/**
 * Parses a transcript from JSON or JSONL text. Errors name the file, the line (JSONL) or JSON path,
 * and what was expected. Messages are returned sorted by time (stable for equal timestamps).
 */
export function parseTranscript(text: string, file = "<transcript>"): Transcript {
  const trimmed = text.trimStart();
  const isJsonl = file.endsWith(".jsonl") || (trimmed.startsWith("{") && looksLikeJsonl(trimmed));
  const transcript = isJsonl ? parseJsonl(text, file) : parseJson(text, file);
  transcript.messages = sortByTime(transcript.messages);
  return transcript;
}

function looksLikeJsonl(text: string): boolean {
  const firstLine = text.split("\n", 1)[0]!.trim();
  if (!firstLine.endsWith("}")) return false;
  try {
    JSON.parse(firstLine);
    return text.trim().includes("\n");
  } catch {
    return false;
  }
}

const EXPECTED_DOCUMENT = `a ${TRANSCRIPT_FORMAT} document`;

function parseJson(text: string, file: string): Transcript {
  return validateTranscript(parseJsonText(text, file, EXPECTED_DOCUMENT), file);
}

function validateTranscript(raw: unknown, file: string): Transcript {
  const result = validateInput(TranscriptSchema, raw);
  if (!result.success) {
    const issue = firstIssue(result.error);
    throw new InputError(issue.message, { file, place: issuePath(issue.path) });
  }
  return result.data;
}

/**
 * Validates a transcript given as a value (already parsed JSON, or built in code). Errors name `name`
 * and the JSON path; messages are returned sorted by time, as from a file.
 */
export function parseTranscriptValue(value: unknown, name = "<transcript>"): Transcript {
  const transcript = validateTranscript(value, name);
  transcript.messages = sortByTime(transcript.messages);
  return transcript;
}

function parseJsonl(text: string, file: string): Transcript {
  const lines = text.split("\n");
  let header: z.infer<typeof JsonlHeaderSchema> | undefined;
  const messages: Message[] = [];
  let headerLine = 1;
  const messageLines: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    const place = `line ${i + 1}`;
    const raw = parseJsonText(lines[i]!, file, header ? "a message" : "a header line (format and agents)", {
      firstLine: i + 1,
    });
    if (!header) {
      const parsed = validateInput(JsonlHeaderSchema, raw);
      if (!parsed.success) {
        const issue = firstIssue(parsed.error);
        throw new InputError(`header ${issuePath(issue.path)}: ${issue.message}`, { file, place });
      }
      header = parsed.data;
      headerLine = i + 1;
      continue;
    }
    const parsed = validateInput(MessageSchema, raw);
    if (!parsed.success) {
      const issue = firstIssue(parsed.error);
      throw new InputError(`message ${issuePath(issue.path)}: ${issue.message}`, { file, place });
    }
    messages.push(parsed.data);
    messageLines.push(i + 1);
  }
  if (!header)
    throw new InputError(`the file is empty; expected a ${TRANSCRIPT_FORMAT} header line`, { file });
  const whole = validateInput(TranscriptSchema, { ...header, messages });
  if (!whole.success) {
    const issue = firstIssue(whole.error);
    const [first, index, ...rest] = issue.path;
    // Point at the JSONL line the problem is on: a message's own line, else the header's.
    if (first === "messages" && typeof index === "number")
      throw new InputError(`message ${issuePath(rest)}: ${issue.message}`, {
        file,
        place: `line ${messageLines[index]}`,
      });
    throw new InputError(`header ${issuePath(issue.path)}: ${issue.message}`, {
      file,
      place: `line ${headerLine}`,
    });
  }
  return whole.data;
}

function sortByTime(messages: Message[]): Message[] {
  return messages
    .map((m, i) => ({ m, i, t: Date.parse(m.at) }))
    .sort((a, b) => a.t - b.t || a.i - b.i)
    .map((x) => x.m);
}
