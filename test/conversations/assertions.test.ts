// Assertions after a pass: CEL over the agent's state and the conversation, and over a GET's JSON.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConversationFacts, checkAssertions } from "../../src/conversations/index.ts";

const conversation: ConversationFacts = {
  turns: [
    { role: "user", content: "Remind me tomorrow at 9" },
    { role: "assistant", content: "Done." },
  ],
  tool_calls: [{ name: "create_reminder", arguments: { at: "2026-11-24T09:00:00+11:00" } }],
};
const state = { resources: [{ type: "Reminder", at: "2026-11-24T09:00:00+11:00" }], count: 1, ratio: 0.5 };

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/reminders")
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ items: [{ id: 1 }] }));
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("expression assertions (CEL)", () => {
  it("a false comparison reports both of its sides: the left as actual, the right as expected", async () => {
    const [eq, ge] = await checkAssertions(
      [
        { kind: "expression", expression: "size(objectContext.resources) == 2", weight: 1 },
        { kind: "expression", expression: "objectContext.count >= 3", weight: 1 },
      ],
      { objectContext: state, conversation },
    );
    expect(eq).toMatchObject({ passed: false, actual: 1, expected: 2 });
    expect(eq).not.toHaveProperty("failed");
    expect(ge).toMatchObject({ passed: false, actual: 1, expected: ">= 3" });
  });

  it("a false conjunction names its first false operand and that operand's sides", async () => {
    const [out] = await checkAssertions(
      [
        {
          kind: "expression",
          expression: 'objectContext.count == 1 && objectContext.resources[0].type == "Note"',
          weight: 1,
        },
      ],
      { objectContext: state, conversation },
    );
    expect(out).toMatchObject({
      passed: false,
      failed: 'objectContext.resources[0].type == "Note"',
      actual: "Reminder",
      expected: "Note",
    });
  });

  it("read the object context and the conversation, whole numbers as integers", async () => {
    const out = await checkAssertions(
      [
        { kind: "expression", expression: "size(objectContext.resources) == 1", weight: 2 },
        {
          kind: "expression",
          expression: "objectContext.count + 1 == 2 && objectContext.ratio < 1.0",
          weight: 1,
        },
        {
          kind: "expression",
          expression: 'conversation.tool_calls.exists(c, c.name == "create_reminder")',
          weight: 1,
        },
        { kind: "expression", expression: 'objectContext.resources.all(r, r.type == "Note")', weight: 1 },
      ],
      { objectContext: state, conversation },
    );
    expect(out.map((o) => [o.passed, o.actual, o.weight])).toEqual([
      [true, true, 2],
      [true, true, 1],
      [true, true, 1],
      [false, false, 1],
    ]);
  });

  it("fails, with the reason, an expression that is not true or false or that errors; nothing crashes", async () => {
    const out = await checkAssertions(
      [
        { kind: "expression", expression: "size(objectContext.resources)", weight: 1 },
        { kind: "expression", expression: "objectContext.missing == 1", weight: 1 },
        { kind: "expression", expression: "objectContext.constructor == 1", weight: 1 },
      ],
      { objectContext: state, conversation },
    );
    expect(out[0]).toMatchObject({ passed: false, actual: 1, error: "the expression is not true or false" });
    expect(out[1]).toMatchObject({ passed: false, error: expect.stringMatching(/No such key: missing/) });
    expect(out[2]).toMatchObject({ passed: false, error: expect.stringMatching(/No such key: constructor/) });
  });
});

describe("http assertions", () => {
  it("GET the URL and check its JSON with CEL; a failing GET fails the assertion with its status", async () => {
    const out = await checkAssertions(
      [
        { kind: "http", http: `${url}/reminders`, expression: "size(response.items) == 1", weight: 1 },
        { kind: "http", http: `${url}/nothing`, expression: "true", weight: 1 },
      ],
      { conversation },
    );
    expect(out[0]).toMatchObject({ passed: true, label: `GET ${url}/reminders: size(response.items) == 1` });
    expect(out[1]).toMatchObject({ passed: false, error: `GET ${url}/nothing: HTTP 404` });
  });
});
