import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "./run-cli.ts";

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
}

const workflow = parse(readFileSync(`${ROOT}.github/workflows/persona-check.yml`, "utf8"));
const steps: Step[] = workflow.jobs["persona-check"].steps;
const script: string = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")).scripts["ci:persona"];

const indexOf = (match: (s: Step) => boolean) => steps.findIndex(match);

describe("the persona-check workflow", () => {
  it("runs on pull requests that touch persona, proposition, transcript, baseline or fixture files", () => {
    expect(workflow.on.pull_request.paths).toEqual(
      expect.arrayContaining(["examples/**", "propositions/**", "baselines/**", "dramaturg.yaml"]),
    );
  });

  it("runs the check with exactly the command of `npm run ci:persona`", () => {
    // In this repository the CLI runs from src/ through bin/dramaturg.js (the package's bin is dist/).
    const isCheck = (l: string) => /dramaturg(\.js)? ci /.test(l);
    const check = steps.find((s) => s.run?.split("\n").some(isCheck))!;
    const line = check.run!.split("\n").find(isCheck)!.trim();
    expect(line).toBe(script);
    expect(script).toMatch(
      /--markdown persona-check\.md --junit persona-check\.xml --html persona-check\.html/,
    );
  });

  it("checks out, sets up Node 24, installs, checks, comments, uploads JUnit and fails, in that order", () => {
    const order = [
      indexOf((s) => s.uses?.startsWith("actions/checkout@") === true),
      indexOf((s) => s.uses?.startsWith("actions/setup-node@") === true),
      indexOf((s) => s.run === "npm ci"),
      indexOf((s) => s.run?.includes(script) === true),
      indexOf((s) => s.uses?.startsWith("actions/github-script@") === true),
      indexOf((s) => s.uses?.startsWith("actions/upload-artifact@") === true),
      indexOf((s) => s.name === "Fail on regression"),
    ];
    expect(order.every((i) => i >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(steps[order[1]!]!.with?.["node-version"]).toBe(24);
  });

  it("uploads the HTML report the check wrote, even when the check failed", () => {
    const upload = steps.find((s) => s.with?.path === "persona-check.html")!;
    expect(upload.uses).toMatch(/^actions\/upload-artifact@/);
    expect(upload.if).toBe("always() && hashFiles('persona-check.html') != ''");
  });

  it("updates one comment, found by the hidden marker the Markdown report starts with", () => {
    const comment = steps.find((s) => s.uses?.startsWith("actions/github-script@"))!;
    expect(String(comment.with?.script)).toContain("<!-- dramaturg-persona-check -->");
    expect(String(comment.with?.script)).toContain("updateComment");
  });

  it("fails the job when the check's exit code is not 0", () => {
    const fail = steps.find((s) => s.name === "Fail on regression")!;
    expect(fail.if).toBe("steps.check.outputs.exit_code != '0'");
    expect(fail.run).toMatch(/exit 1/);
  });
});
