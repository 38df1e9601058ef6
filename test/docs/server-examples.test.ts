// docs/server.md's curl examples, asked of the store they describe (a project `dramaturg init` made, after
// `npx dramaturg eval`) through `app.request()`: each answers 200 with data, not an empty list.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentedBlocks, REPO } from "../../scripts/doc-commands.ts";
import { createServerApp } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { cli } from "../cli/run-cli.ts";
import { useTempDir } from "../temp-dir.ts";

const dir = useTempDir("dramaturg-server-examples-");
let store: Store;
let app: ReturnType<typeof createServerApp>;

interface Curl {
  method: string;
  path: string;
  body?: string;
}

/** The requests of the server guide's curl block, its lines continued with `\` joined. */
function documentedRequests(): Curl[] {
  const block = documentedBlocks().blocks.find((b) => b.file === "docs/server.md" && /^curl /m.test(b.text));
  if (!block) throw new Error("docs/server.md has no curl block");
  return block.text
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .filter((l) => l.startsWith("curl "))
    .map((line) => {
      const path = /'localhost:\d+(\/[^']*)'/.exec(line)![1]!;
      const data = /--data @(\S+)/.exec(line)?.[1];
      return {
        method: /-X (\w+)/.exec(line)?.[1] ?? "GET",
        path,
        // In an installed project the examples are under node_modules/dramaturg/; in this clone, at its root.
        body: data && readFileSync(join(REPO, data.replace(/^node_modules\/dramaturg\//, "")), "utf8"),
      };
    });
}

beforeAll(async () => {
  const project = dir();
  expect((await cli(["init"], { cwd: project })).code).toBe(0);
  expect((await cli(["eval"], { cwd: project })).code).toBe(0);
  store = await openStore(join(project, ".dramaturg"));
  app = createServerApp({ store });
}, 60_000);
afterAll(() => store?.close());

describe("docs/server.md's curl examples", () => {
  it("ask for an agent of the project they describe and get its runs, its history and an analysed session", async () => {
    const requests = documentedRequests();
    expect(requests.length).toBeGreaterThanOrEqual(3);
    for (const { method, path, body } of requests) {
      const response = await app.request(path, {
        method,
        ...(body ? { body, headers: { "content-type": "application/json" } } : {}),
      });
      expect(response.status, `${method} ${path}`).toBe(200);
      const json = (await response.json()) as Record<string, unknown>;
      // Whatever the route, an answer with data has a non-empty list or a document with an id.
      const lists = Object.values(json).filter(Array.isArray) as unknown[][];
      expect(
        lists.some((l) => l.length > 0),
        `${method} ${path} answered ${JSON.stringify(json).slice(0, 200)}`,
      ).toBe(true);
    }
  });
});
