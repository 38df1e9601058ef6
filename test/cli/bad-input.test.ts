// One error style everywhere: each bad input — a flag, the project file, a transcript, a propositions
// file, judge fixtures, a baseline — exits 2 with one plain sentence naming the file, the place (a line
// and column, or a JSON path) and what was expected. Never zod's defaults, never a bare "position N".
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InputError } from "../../src/core/index.ts";
import { loadFixtures } from "../../src/judge/index.ts";
import { parseBaseline } from "../../src/regression/index.ts";
import { cli, ROOT } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "dramaturg-bad-input-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TRANSCRIPT = `${ROOT}examples/ensemble/transcript.json`;
const PROPOSITIONS = `${ROOT}examples/ensemble/propositions`;
const FIXTURES = `${ROOT}examples/ensemble/judge-fixtures.json`;
const HEADER = '{"format":"dramaturg.transcript/v1","agents":[{"id":"a","name":"A","persona":"calm"}]}';
const MESSAGE = '{"id":"m1","sender":"a","channel":"c","text":"hi","at":"2026-03-01T09:00:00Z"}';
const JUDGE_FORMS =
  "expected openai:MODEL, anthropic:MODEL, openai-compatible:MODEL with a base URL, or fixtures:FILE " +
  "(e.g. openai:gpt-5-mini, anthropic:claude-sonnet-4-5, openai-compatible:llama3.1 with --judge-base-url http://127.0.0.1:11434/v1, fixtures:judge-fixtures.json)";
const STORE_FORMS = "expected a PGlite data folder, memory://, or postgres://…";

let made = 0;
/** A file of its own in a folder of its own, so each row's working folder can be checked for writes. */
function file(name: string, text: string): string {
  const folder = join(dir, `case-${++made}`);
  mkdirSync(join(folder, name, ".."), { recursive: true });
  writeFileSync(join(folder, name), text);
  return join(folder, name);
}

interface Outcome {
  code: number;
  message: string;
}

/** Runs `dramaturg eval` in a folder of its own; nothing may be written there. */
const evaluate = (args: string[], cwd?: string) => dramaturg(["eval", ...args], cwd);

/** Runs `dramaturg` in a folder of its own; nothing may be written there. */
async function dramaturg(args: string[], cwd = join(dir, `case-${++made}`)): Promise<Outcome> {
  mkdirSync(cwd, { recursive: true });
  const before = readdirSync(cwd, { recursive: true });
  const r = await cli(args, { cwd });
  expect(readdirSync(cwd, { recursive: true })).toEqual(before);
  expect(r.stdout).toBe("");
  return { code: r.code, message: r.stderr.replace(/^dramaturg: /, "").trimEnd() };
}

/** `eval` of the demo with one flag changed. */
const withFlag = (...flag: string[]) =>
  evaluate([
    TRANSCRIPT,
    "--propositions",
    PROPOSITIONS,
    "--judge",
    `fixtures:${FIXTURES}`,
    "--db",
    "memory://",
    ...flag,
  ]);

/** `eval` of a transcript with the demo's propositions and judge. */
const transcript = (path: string) =>
  evaluate([path, "--propositions", PROPOSITIONS, "--judge", `fixtures:${FIXTURES}`, "--db", "memory://"]);

/** `eval` in a project whose dramaturg.yaml is `yaml`. */
function project(yaml: string): { path: string; run: () => Promise<Outcome> } {
  const path = file("dramaturg.yaml", yaml);
  return { path, run: () => evaluate([], join(path, "..")) };
}

/** A parser called directly: its InputError as an outcome. */
async function parser(parse: () => unknown): Promise<Outcome> {
  try {
    parse();
  } catch (error) {
    if (InputError.isInstance(error)) return { code: error.exitCode, message: error.message };
    throw error;
  }
  throw new Error("expected an InputError");
}

interface Row {
  input: string;
  run: () => Promise<Outcome>;
  says: string | RegExp;
}

const concurrencyZero = project("judge:\n  model: openai:fake-model\n  concurrency: 0\n");
const judgeTypo = project("sources: [a.json]\njudge:\n  model: fixtrues:judge.json\n");
const badDb = project("sources: [a.json]\ndb: mysql://x\n");
const unknownKey = project("sources: [a.json]\njudge:\n  modle: openai:fake-model\n");
const secret = project("judge:\n  model: openai:fake-model\n  api_key: sk-abcdefghijklmnopqrst\n");
const emptyTranscript = file("empty.json", "");
const blankTranscript = file("blank.json", "  \n\n");
const truncated = file(
  "truncated.json",
  '{\n  "format": "dramaturg.transcript/v1",\n  "agents": [\n    { "id": "a", "name": "A", "persona": "calm"\n',
);
const missingComma = file("comma.json", '{\n  "format": "dramaturg.transcript/v1"\n  "agents": []\n}\n');
const badJsonlLine = file("bad-line.jsonl", `${HEADER}\n{"id": "m1" "sender": "a"}\n`);
const badField = file(
  "bad-field.json",
  `{"format":"dramaturg.transcript/v1","agents":[{"id":"a","name":"A","persona":"calm"}],"messages":[{"id":"m1","channel":"c","text":"hi","at":"2026-03-01T09:00:00Z"}]}`,
);
const badJsonlField = file(
  "bad-field.jsonl",
  `${HEADER}\n${MESSAGE}\n${MESSAGE.replace('"m1"', '"m2"').replace('"2026-03-01T09:00:00Z"', '"yesterday"')}\n`,
);
const propositions = file(
  "adherence/a.yaml",
  "dimension: adherence\nagent_id: a\npropositions:\n  - id: p1\n    claim: stays calm\n    weight: -1\n",
);
const typoTranscript = file("transcripts/example.json", "{}");
const noMatch = join(dir, "no-such-folder", "*.json");
const emptyFixtures = file("fixtures.json", "");
const badScoreFixtures = file(
  "fixtures.yaml",
  "format: dramaturg.judge-fixtures/v1\nverdicts:\n  - { dimension: adherence, proposition_id: p1, score: 12 }\n",
);

const rows: Row[] = [
  // Flags
  {
    input: "--concurrency 0",
    run: () => withFlag("--concurrency", "0"),
    says: '--concurrency must be a whole number from 1 to 256, got "0"',
  },
  {
    input: "--concurrency abc",
    run: () => withFlag("--concurrency", "abc"),
    says: '--concurrency must be a whole number from 1 to 256, got "abc"',
  },
  {
    input: "--concurrency 1.5",
    run: () => withFlag("--concurrency", "1.5"),
    says: '--concurrency must be a whole number from 1 to 256, got "1.5"',
  },
  {
    input: "--timeout -1",
    run: () => withFlag("--timeout", "-1"),
    says: '--timeout must be a whole number of at least 100, got "-1"',
  },
  {
    input: "--trials 0",
    run: () => withFlag("--trials", "0"),
    says: '--trials must be a whole number from 1 to 50, got "0"',
  },
  {
    input: "--temperature x",
    run: () => withFlag("--temperature", "x"),
    says: '--temperature must be a number from 0 to 2, got "x"',
  },
  {
    input: "--mode fast",
    run: () => withFlag("--mode", "fast"),
    says: '--mode must be individual or batch, got "fast"',
  },
  {
    input: "--dimensions tone",
    run: () => withFlag("--dimensions", "tone"),
    says: /^--dimensions must be a comma-separated list of adherence, .*, got "tone"$/,
  },
  {
    input: "--format xml",
    run: () => withFlag("--format", "xml"),
    says: /^option '--format <format>' argument 'xml' is invalid\. Allowed choices are table, json, markdown, html\.\n/,
  },
  {
    input: "--judge fixtrues:x",
    run: () => withFlag("--judge", "fixtrues:x"),
    says: `--judge: unknown judge provider "fixtrues" in "fixtrues:x" (did you mean "fixtures"?): ${JUDGE_FORMS}`,
  },
  {
    input: "--db mysql://x",
    run: () => withFlag("--db", "mysql://x"),
    says: `--db: unknown store location "mysql://x": ${STORE_FORMS}`,
  },
  {
    input: "history --limit 0",
    run: () => dramaturg(["history", "--agent", "a", "--limit", "0", "--db", "memory://"]),
    says: '--limit must be a whole number of at least 1, got "0"',
  },
  // The project file: every value at its line and column
  {
    input: "dramaturg.yaml concurrency: 0",
    run: concurrencyZero.run,
    says: `${concurrencyZero.path}:3:16: concurrency: expected a number of 1 or more, got 0`,
  },
  {
    input: "dramaturg.yaml judge.model: fixtrues:…",
    run: judgeTypo.run,
    says: `${judgeTypo.path}:3:10: judge.model: unknown judge provider "fixtrues" in "fixtrues:judge.json" (did you mean "fixtures"?): ${JUDGE_FORMS}`,
  },
  {
    input: "dramaturg.yaml db: mysql://x",
    run: badDb.run,
    says: `${badDb.path}:2:5: db: unknown store location "mysql://x": ${STORE_FORMS}`,
  },
  {
    input: "dramaturg.yaml an unknown key",
    run: unknownKey.run,
    says: `${unknownKey.path}:3:3: unknown key "modle"; expected one of model, base_url, api_key_env, mode, concurrency, timeout_ms, temperature, retries, rate_limit`,
  },
  {
    input: "dramaturg.yaml a secret",
    run: secret.run,
    says: new RegExp(
      `^${escapeRegExp(secret.path)}:3:3: an API key or secret is written in the project file; expected it in the environment`,
    ),
  },
  // Transcripts
  {
    input: "an empty transcript",
    run: () => transcript(emptyTranscript),
    says: `${emptyTranscript}: the file is empty; expected a dramaturg.transcript/v1 document`,
  },
  {
    input: "a transcript of blank lines",
    run: () => transcript(blankTranscript),
    says: `${blankTranscript}: the file is empty; expected a dramaturg.transcript/v1 document`,
  },
  {
    input: "truncated JSON",
    run: () => transcript(truncated),
    says: [
      `${truncated}:line 4, column 48: not valid JSON: the text ends before the JSON is complete; expected a dramaturg.transcript/v1 document`,
      '  4 |     { "id": "a", "name": "A", "persona": "calm"',
      `    | ${" ".repeat(47)}^`,
    ].join("\n"),
  },
  {
    input: "JSON with a comma missing",
    run: () => transcript(missingComma),
    says: [
      `${missingComma}:line 3, column 3: not valid JSON: expected "," or "}" after a value, found "\\""; expected a dramaturg.transcript/v1 document`,
      '  3 |   "agents": []',
      "    |   ^",
    ].join("\n"),
  },
  {
    input: "a JSONL line that is not JSON",
    run: () => transcript(badJsonlLine),
    says: [
      `${badJsonlLine}:line 2, column 13: not valid JSON: expected "," or "}" after a value, found "\\""; expected a message`,
      '  2 | {"id": "m1" "sender": "a"}',
      `    | ${" ".repeat(12)}^`,
    ].join("\n"),
  },
  {
    input: "a transcript message without a sender",
    run: () => transcript(badField),
    says: `${badField}:messages[0].sender: missing; expected a string`,
  },
  {
    input: "a JSONL message with a bad time",
    run: () => transcript(badJsonlField),
    says: `${badJsonlField}:line 3: message at: expected an ISO 8601 date and time such as 2026-03-01T09:00:00Z, got the string "yesterday"`,
  },
  {
    input: "a transcript name a typo away from one in its folder",
    run: () =>
      evaluate(
        ["transcripts/exampel.json", "--propositions", PROPOSITIONS, "--judge", `fixtures:${FIXTURES}`],
        join(typoTranscript, "../.."),
      ),
    says: "transcripts/exampel.json: no such transcript file; did you mean transcripts/example.json?",
  },
  {
    input: "a transcript glob that matches nothing",
    run: () => transcript(noMatch),
    says: `${noMatch}: no transcript file matches this pattern`,
  },
  // Commands: an unknown one is said whatever flags follow it, with the nearest name
  {
    input: "nosuch --help",
    run: () => dramaturg(["nosuch", "--help"]),
    says: "unknown command 'nosuch'\n(run with --help for usage)",
  },
  {
    input: "evl --format json",
    run: () => dramaturg(["evl", "--format", "json"]),
    says: "unknown command 'evl'\n(Did you mean eval?)\n(run with --help for usage)",
  },
  {
    input: "help nosuch",
    run: () => dramaturg(["help", "nosuch"]),
    says: "unknown command 'nosuch'\n(run with --help for usage)",
  },
  {
    input: "session analyse --help",
    run: () => dramaturg(["session", "analyse", "--help"]),
    says: "unknown command 'analyse'\n(Did you mean analyze?)\n(run with --help for usage)",
  },
  // Propositions, judge fixtures, baselines
  {
    input: "a proposition with a negative weight",
    run: () =>
      evaluate([
        TRANSCRIPT,
        "--propositions",
        join(propositions, "../.."),
        "--judge",
        `fixtures:${FIXTURES}`,
        "--db",
        "memory://",
      ]),
    says: `${propositions}:6:13: weight: expected a number of 0 or more, got -1`,
  },
  {
    input: "an empty fixtures file",
    // Through eval with the default folder store: the fixtures are read before the store is opened,
    // so the folder checked by dramaturg() stays empty (no .dramaturg is created).
    run: () => evaluate([TRANSCRIPT, "--propositions", PROPOSITIONS, "--judge", `fixtures:${emptyFixtures}`]),
    says: `${emptyFixtures}: the file is empty; expected a dramaturg.judge-fixtures/v1 file`,
  },
  {
    input: "a fixture verdict scored 12",
    run: () => parser(() => loadFixtures(badScoreFixtures)),
    says: `${badScoreFixtures}:verdicts[0].score: expected a number of 9 or less, got 12; expected a dramaturg.judge-fixtures/v1 file`,
  },
  {
    input: "an empty baseline",
    run: () => parser(() => parseBaseline("", "baselines/a.json")),
    says: "baselines/a.json: the file is empty; expected a dramaturg.baseline/v1 file",
  },
  {
    input: "a truncated baseline",
    run: () =>
      parser(() =>
        parseBaseline('{\n  "format": "dramaturg.baseline/v1",\n  "agent": {', "baselines/a.json"),
      ),
    says: [
      "baselines/a.json:line 3, column 13: not valid JSON: the text ends before the JSON is complete; expected a dramaturg.baseline/v1 file",
      '  3 |   "agent": {',
      `    | ${" ".repeat(12)}^`,
    ].join("\n"),
  },
  {
    input: "a baseline with a bad score",
    run: () =>
      parser(() => parseBaseline('{"format":"dramaturg.baseline/v1","agent":"a"}', "baselines/a.json")),
    says: /^baselines\/a\.json:agent: expected a mapping \(key: value lines\), got the string "a"; expected a dramaturg\.baseline\/v1 file/,
  },
];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

describe("every bad input gets one plain message and exit code 2", () => {
  const seen: string[] = [];

  it.each(rows)("$input", async ({ run, says }) => {
    const { code, message } = await run();
    seen.push(message);
    if (typeof says === "string") expect(message).toBe(says);
    else expect(message).toMatch(says);
    expect(code).toBe(2);
  });

  it("no message is one of zod's defaults or a position without its line", () => {
    expect(seen).toHaveLength(rows.length);
    for (const message of seen) {
      expect(message).not.toMatch(/expected Too small|received NaN|Invalid input/);
      if (/position/.test(message)) expect(message).toMatch(/line/);
    }
  });
});

describe("a database that cannot be reached: one line with a way forward, exit 3", () => {
  it("an unreachable PostgreSQL names its host and port, hides the password and offers --db memory://", async () => {
    const { code, message } = await dramaturg(["runs", "--db", "postgres://alice:hunter2@127.0.0.1:1/evals"]);
    expect(message).toBe(
      "could not connect to PostgreSQL at 127.0.0.1:1: connection refused. Is it running? Check the host and port of postgres://alice:***@127.0.0.1:1/evals, or try --db memory:// to run without one",
    );
    expect(code).toBe(3);
  });
});
