// The calls expected of sessions, in a file of their own (`session analyze --expect FILE`, YAML or JSON): the
// match mode and argument rules, then per session (by its id or its task) the calls expected of the whole
// session or of each agent. A session's calls are matched per agent where the file names agents, else as one
// trajectory; the result is `trajectory-match.ts`'s per agent and their sum.
import { z } from "zod";
import { InputError, parseLocatedYaml, readInputFile } from "../core/index.ts";
import type { Session } from "./session-format.ts";
import {
  type ArgumentRule,
  type ExpectedCall,
  MATCH_MODES,
  type MadeCall,
  matchTrajectory,
  type TrajectoryMatch,
  type TrajectoryMatchOptions,
} from "./trajectory-match.ts";

export const EXPECTED_CALLS_FORMAT = "dramaturg.expected-calls/v1";

const ArgumentRuleSchema = z.union([
  z.enum(["exact", "ignore"]),
  z
    .object({ cel: z.string().min(1).describe("CEL over `expected` and `actual`, the two calls' arguments") })
    .strict(),
]);

const ExpectedCallSchema = z
  .object({
    tool_name: z.string().min(1),
    parameters: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("The arguments expected; absent: any arguments of this tool"),
  })
  .strict();

const ExpectationSchema = z
  .object({
    session_id: z.string().min(1).optional(),
    task_id: z.string().min(1).optional(),
    calls: z
      .array(ExpectedCallSchema)
      .optional()
      .describe("The calls expected of the whole session, in order"),
    agents: z
      .record(z.string().min(1), z.array(ExpectedCallSchema))
      .optional()
      .describe("The calls expected of each agent, in order"),
  })
  .strict()
  .refine((e) => e.session_id !== undefined || e.task_id !== undefined, {
    message: "expected session_id or task_id",
  })
  .refine((e) => (e.calls === undefined) !== (e.agents === undefined), {
    message: "expected either calls (the whole session) or agents (per agent), not both",
  });

export const ExpectedCallsFileSchema = z
  .object({
    format: z.literal(EXPECTED_CALLS_FORMAT).optional(),
    mode: z.enum(MATCH_MODES).default("strict"),
    arguments: ArgumentRuleSchema.default("exact"),
    tools: z.record(z.string().min(1), z.object({ arguments: ArgumentRuleSchema }).strict()).optional(),
    sessions: z.array(ExpectationSchema).min(1),
  })
  .strict();

export type ExpectedCallsFile = z.output<typeof ExpectedCallsFileSchema>;
type Expectation = ExpectedCallsFile["sessions"][number];

/** A session's calls matched against what was expected of it. */
export interface SessionTrajectoryMatch {
  mode: TrajectoryMatch["mode"];
  passed: boolean;
  /** Per agent (`*` for the whole session when the expectation names no agent). */
  agents: Record<string, TrajectoryMatch>;
  precision: number | null;
  recall: number | null;
  f1: number | null;
}

/** Reads and checks an expected-calls file; every problem an InputError with its line and column. */
export function loadExpectedCalls(file: string): ExpectedCallsFile {
  const located = parseLocatedYaml(readInputFile(file, "the expected calls"), file, ExpectedCallsFileSchema);
  const seen = new Set<string>();
  located.data.sessions.forEach((e, i) => {
    const key = e.session_id !== undefined ? `session ${e.session_id}` : `task ${e.task_id}`;
    if (seen.has(key))
      throw new InputError(
        `sessions[${i}]: ${key} is expected twice; expected one entry per session or task`,
        {
          file,
          place: located.placeOf(["sessions", i]),
        },
      );
    seen.add(key);
  });
  return located.data;
}

/** The expectation of a session: by its id first, then by its task. */
function expectationOf(file: ExpectedCallsFile, session: Session): Expectation | undefined {
  return (
    file.sessions.find((e) => e.session_id !== undefined && e.session_id === session.id) ??
    file.sessions.find((e) => e.task_id !== undefined && e.task_id === session.task_id)
  );
}

/** Every call of a session in order, with the agent that made it. */
function madeCalls(session: Session): (MadeCall & { agent_id: string })[] {
  return session.turns.flatMap((turn) =>
    turn.agent_interactions.flatMap((x) =>
      x.agent_steps.flatMap((step) =>
        step.tool_call
          ? [
              {
                agent_id: x.agent_id,
                tool_name: step.tool_call.tool_name,
                parameters: step.tool_call.parameters,
              },
            ]
          : [],
      ),
    ),
  );
}

const ratio = (a: number, b: number): number | null => (b === 0 ? null : a / b);

/** A session's calls matched against the file's expectation of it; undefined when the file expects nothing of it. */
export function matchSessionCalls(
  file: ExpectedCallsFile,
  session: Session,
): SessionTrajectoryMatch | undefined {
  const expectation = expectationOf(file, session);
  if (!expectation) return undefined;
  const options: TrajectoryMatchOptions = {
    mode: file.mode,
    arguments: file.arguments as ArgumentRule,
    ...(file.tools ? { tools: file.tools as TrajectoryMatchOptions["tools"] } : {}),
  };
  const made = madeCalls(session);
  const groups: [string, ExpectedCall[], MadeCall[]][] = expectation.calls
    ? [["*", expectation.calls, made]]
    : Object.entries(expectation.agents!).map(([agent, calls]) => [
        agent,
        calls,
        made.filter((c) => c.agent_id === agent),
      ]);
  const agents = Object.fromEntries(
    groups.map(([agent, expected, calls]) => [agent, matchTrajectory(expected, calls, options)]),
  );
  const all = Object.values(agents);
  const matched = all.reduce((n, m) => n + m.matched.length, 0);
  const precision = ratio(
    matched,
    all.reduce((n, m) => n + m.made, 0),
  );
  const recall = ratio(
    matched,
    all.reduce((n, m) => n + m.expected, 0),
  );
  return {
    mode: file.mode,
    passed: all.every((m) => m.passed),
    agents,
    precision,
    recall,
    f1:
      precision === null || recall === null
        ? null
        : precision + recall === 0
          ? 0
          : (2 * precision * recall) / (precision + recall),
  };
}
