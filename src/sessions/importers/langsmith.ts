// LangSmith's runs (langchain-ai/langsmith-sdk's `Run` schema): a list of runs as `list_runs` gives them, `{runs}`,
// one run tree with its `child_runs`, or an ingest batch `{post, patch}` (the runs as created, then completed).
// Each trace (`trace_id`) is a turn; traces of one thread (`extra.metadata.thread_id`, `session_id` or
// `conversation_id`, LangSmith's thread keys) one session. A root chain is the agent (its name the agent's id),
// `llm` runs the model calls whose outputs hold the tool calls, `tool` runs their executions; a run with an
// `error` failed. Run and trace ids are kept on the turns and interactions (`source_ids`).
import { z } from "zod";
import { firstIssue, InputError, issuePath, validateInput } from "../../core/index.ts";
import type { Imported, SessionImporter } from "./importer.ts";
import { type TraceNode, type TraceRecord, traceSessions } from "./trace-tree.ts";

const Time = z.union([z.string(), z.number()]).nullable().optional();

const Run = z
  .object({
    id: z.string().min(1),
    name: z.string().optional(),
    run_type: z.string().min(1),
    trace_id: z.string().nullable().optional(),
    parent_run_id: z.string().nullable().optional(),
    start_time: Time,
    end_time: Time,
    inputs: z.unknown().optional(),
    outputs: z.unknown().optional(),
    error: z.string().nullable().optional(),
    total_cost: z.union([z.number(), z.string()]).nullable().optional(),
    extra: z
      .object({
        metadata: z.record(z.string(), z.unknown()).nullable().optional(),
        invocation_params: z.record(z.string(), z.unknown()).nullable().optional(),
      })
      .loose()
      .nullable()
      .optional(),
    child_runs: z.array(z.unknown()).nullable().optional(),
    dotted_order: z.string().optional(),
  })
  .loose();

type RunValue = z.infer<typeof Run>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const isRun = (v: unknown) => isObject(v) && typeof v.id === "string" && typeof v.run_type === "string";
const isRunList = (v: unknown) => Array.isArray(v) && v.length > 0 && v.every(isRun);
/** ISO text, or Unix ms as the JS SDK sends them. */
const time = (t: string | number | null | undefined) =>
  typeof t === "number" ? t : t ? Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(t) ? t : `${t}Z`) || 0 : 0;
const THREAD_KEYS = ["thread_id", "session_id", "conversation_id"];

export const langsmithImporter: SessionImporter = {
  name: "langsmith",
  detect: (value) =>
    isRunList(value) ||
    (isObject(value) &&
      !Array.isArray(value) &&
      (isRunList(value.runs) || isRunList(value.post) || (isRun(value) && "child_runs" in value))),
  import(value, { file }): Imported {
    const runs = new Map<string, RunValue>();
    const read = (item: unknown, path: PropertyKey[], merge: boolean) => {
      // A patch may name its run by its dotted order alone (the JS SDK's batches do).
      const order = isObject(item) && item.id === undefined ? item.dotted_order : undefined;
      if (merge && typeof order === "string") {
        const posted = [...runs.values()].find((r) => r.dotted_order === order);
        if (posted) item = { ...(item as object), id: posted.id };
      }
      const parsed = validateInput(merge ? Run.partial().required({ id: true }) : Run, item);
      if (!parsed.success) {
        const issue = firstIssue(parsed.error);
        throw new InputError(`${issue.message}; expected a LangSmith run`, {
          file,
          place: issuePath([...path, ...issue.path]),
        });
      }
      const run = parsed.data as RunValue;
      const known = runs.get(run.id);
      if (merge && !known)
        throw new InputError(`a patch of run ${run.id}, which no post creates`, {
          file,
          place: issuePath(path),
        });
      runs.set(
        run.id,
        known
          ? { ...known, ...Object.fromEntries(Object.entries(run).filter(([, v]) => v !== undefined)) }
          : run,
      );
      (run.child_runs ?? []).forEach((child, i) => {
        const c = isObject(child) ? { parent_run_id: run.id, trace_id: run.trace_id, ...child } : child;
        read(c, [...path, "child_runs", i], false);
      });
    };
    const each = (list: unknown[], path: PropertyKey[], merge = false) => {
      for (const [i, r] of list.entries()) read(r, [...path, i], merge);
    };
    if (Array.isArray(value)) each(value, []);
    else if (isObject(value) && Array.isArray(value.runs)) each(value.runs, ["runs"]);
    else if (isObject(value) && Array.isArray(value.post)) {
      each(value.post, ["post"]);
      if (Array.isArray(value.patch)) each(value.patch, ["patch"], true);
    } else read(value, [], false);
    // A run without a trace id is its own trace's root, or in its parent's trace.
    const traceOf = (run: RunValue): string => {
      if (run.trace_id) return run.trace_id;
      const parent = run.parent_run_id ? runs.get(run.parent_run_id) : undefined;
      return parent ? traceOf(parent) : run.id;
    };
    const byTrace = new Map<string, RunValue[]>();
    for (const run of runs.values()) {
      const trace = traceOf(run);
      byTrace.set(trace, [...(byTrace.get(trace) ?? []), run]);
    }
    const traces: TraceRecord[] = [...byTrace].map(([id, list]) => {
      const root = list.find((r) => !r.parent_run_id || !runs.has(r.parent_run_id)) ?? list[0]!;
      const metadata = root.extra?.metadata ?? {};
      const thread = THREAD_KEYS.map((k) => metadata[k]).find((v) => typeof v === "string" && v !== "");
      const nodes = list.map((r): TraceNode => {
        const tools = r.extra?.invocation_params?.tools;
        const input =
          tools && isObject(r.inputs) && !("tools" in r.inputs) ? { ...r.inputs, tools } : r.inputs;
        const cost = r.total_cost === null || r.total_cost === undefined ? undefined : Number(r.total_cost);
        return {
          id: r.id,
          ...(r.parent_run_id && runs.has(r.parent_run_id) ? { parent: r.parent_run_id } : {}),
          kind:
            r.run_type === "llm"
              ? "llm"
              : r.run_type === "tool"
                ? "tool"
                : r === root && r.run_type === "chain"
                  ? "agent"
                  : "other",
          name: r.name ?? r.run_type,
          start: time(r.start_time),
          ...(r.end_time ? { end: time(r.end_time) } : {}),
          input,
          output: r.outputs,
          ...(r.error ? { error: r.error } : {}),
          ...(cost !== undefined && Number.isFinite(cost) ? { cost } : {}),
        };
      });
      return {
        id,
        ...(thread ? { conversation: thread as string } : {}),
        start: time(root.start_time),
        input: root.inputs,
        output: root.outputs,
        nodes,
      };
    });
    return traceSessions(traces, { prefix: "langsmith", node: "run", conversation: "thread" });
  },
};
