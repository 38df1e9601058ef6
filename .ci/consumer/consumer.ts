// A strict TypeScript user of the installed package: the types of the main entry and of dramaturg/testing
// resolve under module nodenext, and values type-check against them. Checked with tsc --noEmit, never run.
// skipLibCheck as most projects set it: the AI SDK's own declarations want the DOM lib (attw checks ours).
import type { EvalResult, EvaluatePersonasOptions, Judge, JudgeRequest, JudgeResponse, Transcript } from "dramaturg";
import { evaluatePersonas, InputError, TRANSCRIPT_FORMAT, TranscriptSchema } from "dramaturg";
import { type FakeOpenAIServer, scriptedJudge, startFakeOpenAIServer } from "dramaturg/testing";

const transcript: Transcript = TranscriptSchema.parse({
  format: TRANSCRIPT_FORMAT,
  agents: [{ id: "dov", name: "Dov", persona: "A terse stage manager." }],
  messages: [{ id: "m1", sender: "dov", channel: "#on-air", text: "Places.", at: "2026-03-01T20:00:00Z" }],
});

export function overallScores(result: EvalResult): Record<string, number | null> {
  return Object.fromEntries(result.runs.map((run) => [run.agent_id, run.overall_score]));
}

export async function judgeOnce(judge: Judge, request: JudgeRequest): Promise<JudgeResponse> {
  return judge.judge(request);
}

export async function withFakeServer(): Promise<string> {
  const server: FakeOpenAIServer = await startFakeOpenAIServer({ respond: () => "{}" });
  try {
    return `${server.url} ${transcript.agents.length}`;
  } finally {
    await server.close();
  }
}

export async function scripted(store: EvaluatePersonasOptions["store"]): Promise<EvalResult | string> {
  try {
    return await evaluatePersonas({
      transcript,
      judge: scriptedJudge(() => ({ score: 8, reasoning: "in character" })),
      dimensions: ["adherence"],
      mode: "batch",
      store,
    });
  } catch (error) {
    if (InputError.isInstance(error)) return error.message;
    throw error;
  }
}
