// The dashboard's conversation pages with a simulator fault: the pass carries a badge and the judge's
// reasoning (escaped: it quotes the user's untrusted words), and the list keeps that pass's low scores out
// of the agent's failures. The stored document is the hand-written refund-desk result (test/fixtures/kinds)
// with a check of the simulated user added by hand here.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerApp } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { ROOT } from "../cli/run-cli.ts";

let store: Store;
let app: ReturnType<typeof createServerApp>;
let id: string;

beforeAll(async () => {
  store = await openStore("memory://");
  const result = JSON.parse(
    readFileSync(`${ROOT}test/fixtures/kinds/refund-desk.conversation-result.json`, "utf8"),
  );
  const [without] = result.passes;
  without.simulator_fault = true;
  without.simulated_user = {
    fault: true,
    threshold: 5,
    errored: 0,
    findings: [
      { id: "stays-in-role", score: 9, reasoning: "Asks as a customer.", broken: false },
      {
        id: "keeps-withheld-facts",
        score: 1,
        reasoning: 'The user says "<b>my card ends 4242</b>", a withheld fact.',
        broken: true,
      },
    ],
    reason: "keeps-withheld-facts 1/9: The user says a withheld fact.",
  };
  for (const p of result.passes.slice(1)) {
    p.simulator_fault = false;
    p.simulated_user = { fault: false, threshold: 5, errored: 0, findings: [] };
  }
  const row = await store.evaluations.create({
    kind: "conversation",
    source: "refund-desk.yml",
    agents: ["refund-bot"],
  });
  await store.evaluations.start(row.id);
  await store.evaluations.complete(row.id, { result });
  id = row.id;
  app = createServerApp({ store });
});
afterAll(() => store.close());

const page = async (path: string) => {
  const response = await app.request(path);
  return { status: response.status, text: await response.text() };
};

describe("a conversation with a simulator fault on the dashboard", () => {
  it("its page badges the pass and shows the judge's reasoning, escaped", async () => {
    const { status, text } = await page(`/conversations/${id}`);
    expect(status).toBe(200);
    const [faulted, clean] = text.split('<section class="pass"').slice(1);
    expect(faulted).toContain('<span class="status failed simulator-fault">simulator fault</span>');
    expect(faulted).toContain("this pass is a simulator fault, left out of the job&#39;s score");
    expect(faulted).toContain(
      "The user says &quot;&lt;b&gt;my card ends 4242&lt;/b&gt;&quot;, a withheld fact.",
    );
    expect(faulted).not.toContain("<b>my card");
    expect(faulted).toMatch(/<tr class="failed"><td>keeps-withheld-facts<\/td><td class="num">1\/9<\/td>/);
    expect(clean).not.toContain("simulator fault</span>");
    expect(clean).toContain("The simulated user kept to its brief.");
  });

  it("the list marks the pass and counts none of its scores as the agent's failures", async () => {
    const { text } = await page("/conversations");
    expect(text).toContain(
      '<span class="status failed" title="the simulated user broke its brief">simulator fault</span>',
    );
    // The faulted pass's composite (0.55) and its tasks would be failures of the agent's; they are left out.
    expect(text).not.toMatch(/Without the facts: composite/);
    expect(text).not.toMatch(/Without the facts: task/);
  });
});
