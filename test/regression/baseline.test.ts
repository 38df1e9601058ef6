import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  baselineOf,
  environmentBaselineOf,
  parseBaseline,
  readBaselineFolder,
  serializeBaseline,
} from "../../src/regression/index.ts";
import { BASELINES, demoFolder, measurementOf } from "./measurement.ts";

describe("baseline files", () => {
  it("serialise with sorted keys, at most 3 decimals and a trailing newline", () => {
    const m = measurementOf(demoFolder(["dov"]));
    m.agents[0]!.dimensions.adherence!.score = 7.123456;
    const text = serializeBaseline(baselineOf(m, "dov"));
    expect(text.endsWith("}\n")).toBe(true);
    expect(text).toContain('"score": 7.123');
    const keys = Object.keys(JSON.parse(text));
    expect(keys).toEqual([...keys].sort());
    expect(Object.keys(JSON.parse(text).judge)).toEqual([...Object.keys(JSON.parse(text).judge)].sort());
  });

  it("written from the same measurement are byte-identical, so diffs show only real changes", () => {
    const m = measurementOf(demoFolder(["dov"]));
    expect(serializeBaseline(baselineOf(m, "dov"))).toBe(serializeBaseline(baselineOf(m, "dov")));
  });

  it("round-trip: a serialised baseline parses back to the same value", () => {
    const b = baselineOf(measurementOf(demoFolder(["ines"])), "ines");
    expect(parseBaseline(serializeBaseline(b), "ines.json", "ines")).toEqual(b);
  });

  it("the committed demo baseline is stored exactly as the serialiser writes it", () => {
    const text = readFileSync(`${BASELINES}dov.json`, "utf8");
    expect(serializeBaseline(parseBaseline(text, "dov.json"))).toBe(text);
  });

  it("a wrong value is an error naming the file and the JSON path", () => {
    const b = JSON.parse(readFileSync(`${BASELINES}dov.json`, "utf8"));
    b.dimensions.adherence.score = "high";
    expect(() => parseBaseline(JSON.stringify(b), "baselines/dov.json")).toThrow(
      /^baselines\/dov\.json:dimensions\.adherence\.score: .*expected a dramaturg\.baseline\/v1 file/,
    );
  });

  it("a file named for another agent is an error at agent.id", () => {
    const text = readFileSync(`${BASELINES}dov.json`, "utf8");
    expect(() => parseBaseline(text, "baselines/ines.json", "ines")).toThrow(
      /baselines\/ines\.json:agent\.id: the file is named for agent "ines"/,
    );
  });

  it("a baselines folder that does not exist is an error naming it", () => {
    expect(() => readBaselineFolder("/nonexistent/baselines")).toThrow(
      /\/nonexistent\/baselines: baselines folder not found/,
    );
  });

  it("channels measured now replace theirs in _environments.json and the others are kept", () => {
    const folder = demoFolder(["dov"]);
    const m = measurementOf(folder);
    m.channels = m.channels.filter((c) => c.channel === "on-air");
    m.channels[0]!.dimensions.convergence!.score = 5;
    const merged = environmentBaselineOf(m, folder.environments!.baseline);
    expect(Object.keys(merged.channels).sort()).toEqual(["dm-dov-wendell", "on-air", "planning"]);
    expect(merged.channels["on-air"]!.convergence!.score).toBe(5);
    expect(merged.channels.planning!.convergence!.score).toBe(8);
  });
});
