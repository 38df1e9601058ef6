// τ-bench's published trajectories (sierra-research/tau-bench, `historical_trajectories/*.json`, and what its
// `run.py` writes): a list of `{task_id, trial, reward, info, traj}`, `traj` an OpenAI chat log. Each record is
// one session: its task is `task_id`, its trial `trial`, and it succeeded when `reward` reaches the success
// reward (1 by default, τ-bench's own rule), so pass^k over the file is the leaderboard's.
import { z } from "zod";
import { firstIssue, InputError, issuePath, validateInput } from "../../core/index.ts";
import type { SessionInput } from "../session-format.ts";
import type { Imported, ImportOptions, SessionImporter } from "./importer.ts";
import { openaiChatImporter } from "./openai-chat.ts";

/** The reward at which a τ-bench record counts as a success: its own rule, a reward of 1 (as a float, 1 − 1e-6). */
export const TAU_BENCH_SUCCESS_REWARD = 1;
/** How far below the success reward a reward may be and still count (rewards are floats): both benchmarks' 1e-6. */
export const REWARD_TOLERANCE = 1e-6;

const Record = z
  .object({
    task_id: z.union([z.number().int(), z.string().min(1)]),
    trial: z.number().int().min(0).optional(),
    reward: z.number(),
    info: z
      .object({ task: z.object({ instruction: z.string().optional() }).loose().optional() })
      .loose()
      .optional(),
    traj: z.array(z.unknown()).min(1),
  })
  .loose();

const isRecord = (v: unknown) =>
  typeof v === "object" &&
  v !== null &&
  "task_id" in v &&
  typeof (v as { reward?: unknown }).reward === "number" &&
  Array.isArray((v as { traj?: unknown }).traj);

export const tauBenchImporter: SessionImporter = {
  name: "tau-bench",
  detect: (value) => Array.isArray(value) && value.length > 0 && value.every(isRecord),
  import(value, options: ImportOptions): Imported {
    const { file, successReward = TAU_BENCH_SUCCESS_REWARD } = options;
    if (!Array.isArray(value))
      throw new InputError("expected a list of τ-bench records ({task_id, trial, reward, traj})", { file });
    const sessions: SessionInput[] = [];
    // Each chat log's notes, said once with how many records gave it (200 records would repeat each 200 times).
    const notes = new Map<string, number>();
    value.forEach((item, i) => {
      const parsed = validateInput(Record, item);
      if (!parsed.success) {
        const issue = firstIssue(parsed.error);
        throw new InputError(issue.message, { file, place: issuePath([i, ...issue.path]) });
      }
      const { task_id, trial, reward, info, traj } = parsed.data;
      let chat: Imported;
      try {
        chat = openaiChatImporter.import(traj, { file, tools: options.tools });
      } catch (error) {
        // The chat log's place is within this record's `traj`.
        if (!InputError.isInstance(error)) throw error;
        const inner = error.place && error.place !== "(root)" ? error.place : "";
        const message = error.message.slice(`${file}:${error.place ?? ""}: `.length);
        throw new InputError(message, {
          file,
          place: `[${i}].traj${inner && !inner.startsWith("[") ? "." : ""}${inner}`,
        });
      }
      for (const note of chat.notes) notes.set(note, (notes.get(note) ?? 0) + 1);
      const session = chat.sessions[0]!;
      const task = String(task_id);
      sessions.push({
        ...session,
        id: `task-${task}-trial-${trial ?? i}`,
        task_id: task,
        success: reward >= successReward - REWARD_TOLERANCE,
        ...(info?.task?.instruction ? { initial_task: info.task.instruction } : {}),
      });
    });
    const said = [...notes].map(([note, n]) => (n > 1 ? `${note} (in ${n} records)` : note));
    said.unshift(
      `a record succeeded when its reward is at least ${successReward}${successReward === TAU_BENCH_SUCCESS_REWARD ? " (τ-bench's rule; --success-reward changes it)" : ""}`,
    );
    return { sessions, notes: said };
  },
};
