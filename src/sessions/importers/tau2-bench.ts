// τ²-bench's results files (sierra-research/tau2-bench, what `tau2 run` saves: its `Results` model in
// src/tau2/data_model/simulation.py): `{timestamp, info, tasks, simulations}`, each simulation a
// `SimulationRun` with `task_id`, `trial`, `termination_reason`, `reward_info.reward` and `messages` (its
// message.py: system, user, assistant with `tool_calls: [{id, name, arguments}]`, tool with `id`, and
// multi-tool messages). Each simulation is one session, its task `task_id`, its trial `trial`, a success when
// the reward is 1 (τ²-bench's `is_successful`, within 1e-6), so pass^k over the file is τ²-bench's own. The
// agent's tools are the environment's `tool_defs` (name, doc, JSON-schema params), so its calls are validated
// against them. What τ²-bench leaves out of its metrics is left out here, said in the notes: a simulation
// ended by an infrastructure error, and one without a reward.
import { z } from "zod";
import { firstIssue, InputError, issuePath, validateInput } from "../../core/index.ts";
import type { SessionInput } from "../session-format.ts";
import type { Imported, ImportOptions, SessionImporter } from "./importer.ts";
import { openaiChatImporter } from "./openai-chat.ts";
import { REWARD_TOLERANCE } from "./tau-bench.ts";

const ToolCall = z
  .object({
    id: z.string().default(""),
    name: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()),
    requestor: z.enum(["user", "assistant"]).default("assistant"),
  })
  .loose();

const ToolMessage = z
  .object({
    id: z.string(),
    role: z.literal("tool"),
    content: z.string().nullable().optional(),
    requestor: z.enum(["user", "assistant"]).default("assistant"),
    error: z.boolean().optional(),
  })
  .loose();

const Message = z.union([
  z.object({ role: z.literal("system"), content: z.string().nullable().optional() }).loose(),
  z
    .object({
      role: z.enum(["user", "assistant"]),
      content: z.string().nullable().optional(),
      tool_calls: z.array(ToolCall).nullable().optional(),
    })
    .loose(),
  ToolMessage,
  z.object({ role: z.literal("tool"), tool_messages: z.array(ToolMessage) }).loose(),
]);

const Simulation = z
  .object({
    id: z.string().optional(),
    task_id: z.union([z.string().min(1), z.number().int()]),
    trial: z.number().int().min(0).nullable().optional(),
    termination_reason: z.string().optional(),
    reward_info: z.object({ reward: z.number() }).loose().nullable().optional(),
    messages: z.array(Message).nullable().optional(),
  })
  .loose();

const ToolSignature = z
  .object({
    name: z.string().min(1),
    doc: z.string().optional(),
    params: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .loose();

const Results = z
  .object({
    info: z
      .object({
        environment_info: z
          .object({
            domain_name: z.string().optional(),
            tool_defs: z.record(z.string(), ToolSignature).nullable().optional(),
          })
          .loose()
          .optional(),
      })
      .loose(),
    tasks: z.array(
      z
        .object({
          id: z.union([z.string(), z.number()]),
          description: z.object({ purpose: z.string().nullable().optional() }).loose().nullable().optional(),
        })
        .loose(),
    ),
    simulations: z.array(z.unknown()),
  })
  .loose();

type Msg = z.infer<typeof Message>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** τ²-bench's messages as OpenAI chat messages; the user's own tool calls and their results are counted, not kept. */
function chatMessages(messages: readonly Msg[]): { chat: unknown[]; userToolCalls: number } {
  const chat: unknown[] = [];
  let userToolCalls = 0;
  const toolMessage = (m: z.infer<typeof ToolMessage>) => {
    if (m.requestor === "user") return;
    chat.push({ role: "tool", tool_call_id: m.id, content: m.content ?? "" });
  };
  for (const m of messages) {
    if (m.role === "tool") {
      if ("tool_messages" in m) (m.tool_messages as z.infer<typeof ToolMessage>[]).forEach(toolMessage);
      else toolMessage(m as z.infer<typeof ToolMessage>);
    } else if (m.role === "system") chat.push({ role: "system", content: m.content ?? "" });
    else {
      const calls = ("tool_calls" in m ? m.tool_calls : undefined) ?? [];
      if (m.role === "user") {
        userToolCalls += calls.length;
        chat.push({ role: "user", content: m.content ?? "" });
        continue;
      }
      chat.push({
        role: "assistant",
        content: m.content ?? null,
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((c) => ({
                id: c.id,
                type: "function",
                function: { name: c.name, arguments: JSON.stringify(c.arguments) },
              })),
            }
          : {}),
      });
    }
  }
  return { chat, userToolCalls };
}

export const tau2BenchImporter: SessionImporter = {
  name: "tau2-bench",
  detect: (value) =>
    isObject(value) &&
    isObject(value.info) &&
    Array.isArray(value.tasks) &&
    Array.isArray(value.simulations) &&
    value.simulations.every((s) => isObject(s) && "task_id" in s),
  import(value, options: ImportOptions): Imported {
    const { file, successReward = 1 } = options;
    const results = validateInput(Results, value);
    if (!results.success) {
      const issue = firstIssue(results.error);
      throw new InputError(issue.message, { file, place: issuePath(issue.path) });
    }
    const { info, tasks } = results.data;
    // No tool_defs (a leaderboard file may write null) is not "no tools": the calls are left unchecked, as a
    // τ-bench file's are, unless --tools gives the domain's.
    const defs = info.environment_info?.tool_defs;
    const tools =
      options.tools ??
      (defs == null
        ? undefined
        : Object.values(defs).map((t) => ({
            type: "function" as const,
            function: {
              name: t.name,
              ...(t.doc ? { description: t.doc } : {}),
              ...(t.params ? { parameters: t.params } : {}),
            },
          })));
    const purposes = new Map(tasks.map((t) => [String(t.id), t.description?.purpose ?? undefined]));
    const sessions: SessionInput[] = [];
    const left = { infrastructure: 0, unrewarded: 0, userToolCalls: 0 };
    const notes = new Map<string, number>();
    results.data.simulations.forEach((item, i) => {
      const parsed = validateInput(Simulation, item);
      if (!parsed.success) {
        const issue = firstIssue(parsed.error);
        throw new InputError(issue.message, { file, place: issuePath(["simulations", i, ...issue.path]) });
      }
      const sim = parsed.data;
      if (sim.termination_reason === "infrastructure_error") {
        left.infrastructure++;
        return;
      }
      if (!sim.reward_info) {
        left.unrewarded++;
        return;
      }
      const { chat, userToolCalls } = chatMessages(sim.messages ?? []);
      left.userToolCalls += userToolCalls;
      if (!chat.some((m) => isObject(m) && m.role === "user"))
        throw new InputError("expected a simulation with at least one user message", {
          file,
          place: issuePath(["simulations", i, "messages"]),
        });
      const imported = openaiChatImporter.import({ messages: chat, tools }, { file });
      for (const note of imported.notes) notes.set(note, (notes.get(note) ?? 0) + 1);
      const task = String(sim.task_id);
      const purpose = purposes.get(task);
      sessions.push({
        ...imported.sessions[0]!,
        id: `task-${task}-trial-${sim.trial ?? i}`,
        task_id: task,
        // τ²-bench's `is_successful` (metrics/agent_metrics.py): a reward of 1, within 1e-6.
        success: sim.reward_info.reward >= successReward - REWARD_TOLERANCE,
        ...(purpose ? { initial_task: purpose } : {}),
      });
    });
    const said = [...notes].map(([note, n]) => (n > 1 ? `${note} (in ${n} simulations)` : note));
    said.unshift(
      `a simulation succeeded when its reward is ${successReward === 1 ? "1 (τ²-bench's rule, within 1e-6; --success-reward changes it)" : `at least ${successReward}`}`,
    );
    if (tools === undefined)
      said.push(
        "the file gives no tool_defs: the agent's calls are not checked against schemas (--tools FILE gives the domain's)",
      );
    if (left.infrastructure > 0)
      said.push(
        `${left.infrastructure} simulation(s) ended by an infrastructure error: left out, as τ²-bench does`,
      );
    if (left.unrewarded > 0)
      said.push(`${left.unrewarded} simulation(s) without a reward: left out of pass^k`);
    if (left.userToolCalls > 0)
      said.push(
        `${left.userToolCalls} tool call(s) made by the simulated user: not the agent's, not validated`,
      );
    return { sessions, notes: said };
  },
};
