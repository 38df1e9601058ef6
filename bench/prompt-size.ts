// Sizes of the judge's requests for the bench workload (1,000 messages × 5 adherence claims): characters of
// the system prompt, the user message and the answer schema, per request and per verdict, individual and
// batch. Tokens are estimated as characters / 4. Run: node --import tsx bench/prompt-size.ts
import type { Judge, JudgeRequest, JudgeResponse } from "../src/judge/index.ts";
import { promptFingerprint } from "../src/judge/llm-judge.ts";
import { requestedJsonSchema } from "../src/judge/prompt.ts";
import { evaluatePersonas } from "../src/personas/index.ts";
import { openStore } from "../src/store/index.ts";
import { InstantJudge } from "./instant-judge.ts";
import { personaInput } from "./persona.bench.ts";

class Recorder implements Judge {
  readonly inner = new InstantJudge();
  readonly descriptor = this.inner.descriptor;
  readonly requests: JudgeRequest[] = [];
  judge(request: JudgeRequest): Promise<JudgeResponse> {
    this.requests.push(request);
    return this.inner.judge(request);
  }
}

const input = await personaInput(Number(process.argv[2] ?? 1_000));
for (const mode of ["individual", "batch"] as const) {
  const judge = new Recorder();
  const store = await openStore("memory://");
  try {
    await evaluatePersonas({
      transcript: input.transcript,
      source: "bench:prompt-size",
      propositions: input.propositions,
      dimensions: ["adherence"],
      mode,
      judge,
      store,
      cache: false,
    });
  } finally {
    await store.close();
  }
  let system = 0;
  let user = 0;
  let schema = 0;
  let verdicts = 0;
  let conversations = 0;
  for (const request of judge.requests) {
    for (const c of promptFingerprint(request).conversations) {
      conversations++;
      verdicts += c.ids.length;
      system += c.system.length;
      user += c.messages.reduce((n, m) => n + (typeof m.content === "string" ? m.content.length : 0), 0);
      schema += JSON.stringify(requestedJsonSchema(c.kind, c.ids.length)).length;
    }
  }
  const row = (label: string, chars: number) =>
    `${label.padEnd(8)} ${String(Math.round(chars / conversations)).padStart(7)} ch/req ${String(Math.round(chars / conversations / 4)).padStart(6)} tok/req ${String(Math.round(chars / verdicts)).padStart(7)} ch/verdict ${String(Math.round(chars / verdicts / 4)).padStart(6)} tok/verdict`;
  console.log(`${mode}: ${conversations} conversations sampled, ${verdicts} verdicts`);
  console.log(row("system", system));
  console.log(row("user", user));
  console.log(row("schema", schema));
  console.log(row("total", system + user + schema));
}
