// The browser the tests drive is found, never assumed at /usr/bin/chromium: DRAMATURG_CHROMIUM, else the
// usual names on PATH, else playwright-core's own; none, and the reason says how to get one.
import { describe, expect, it } from "vitest";
import { browserTestsSkipped, type ChromiumLookup, findChromium } from "./chromium.ts";

/** A machine whose executables are these paths, with this environment and playwright-core's browser path. */
function machine(
  executables: string[],
  env: Record<string, string | undefined>,
  playwright: string | (() => string) = "/pw/chrome",
): ChromiumLookup {
  return {
    env,
    isExecutable: (path) => executables.includes(path),
    playwrightExecutable: typeof playwright === "function" ? playwright : () => playwright,
  };
}

const PATH = "/usr/local/bin:/usr/bin:/snap/bin";

describe("findChromium", () => {
  it("DRAMATURG_CHROMIUM comes first, before any browser on PATH", () => {
    const found = findChromium(
      machine(["/opt/c/chrome", "/usr/bin/chromium"], { DRAMATURG_CHROMIUM: "/opt/c/chrome", PATH }),
    );
    expect(found).toEqual({ path: "/opt/c/chrome", from: "DRAMATURG_CHROMIUM" });
  });

  it("a DRAMATURG_CHROMIUM that is not there is reported, not replaced by another browser", () => {
    const found = findChromium(machine(["/usr/bin/chromium"], { DRAMATURG_CHROMIUM: "/nope/chrome", PATH }));
    expect(found).toEqual({
      path: undefined,
      reason: "DRAMATURG_CHROMIUM=/nope/chrome is not an executable file",
    });
  });

  it("chromium-browser in a later PATH folder (Ubuntu's snap) is found", () => {
    expect(findChromium(machine(["/snap/bin/chromium-browser"], { PATH }))).toEqual({
      path: "/snap/bin/chromium-browser",
      from: "PATH",
    });
  });

  it("the names are tried in order: chromium anywhere on PATH before google-chrome earlier on it", () => {
    const found = findChromium(machine(["/usr/local/bin/google-chrome", "/snap/bin/chromium"], { PATH }));
    expect(found).toEqual({ path: "/snap/bin/chromium", from: "PATH" });
  });

  it("google-chrome-stable is a name too", () => {
    expect(findChromium(machine(["/usr/bin/google-chrome-stable"], { PATH })).path).toBe(
      "/usr/bin/google-chrome-stable",
    );
  });

  it("with nothing on PATH, playwright-core's own Chromium when it is installed", () => {
    expect(findChromium(machine(["/pw/chrome"], { PATH }))).toEqual({
      path: "/pw/chrome",
      from: "playwright-core",
    });
  });

  it("no browser anywhere: no path, and a reason that says how to get one", () => {
    const found = findChromium(machine([], { PATH }));
    expect(found.path).toBeUndefined();
    expect(found).toEqual({
      path: undefined,
      reason:
        "no Chromium found: set DRAMATURG_CHROMIUM=/path/to/chromium, put chromium, chromium-browser, google-chrome, google-chrome-stable on PATH, or run npx playwright-core install chromium",
    });
  });

  it("a playwright-core without a build for this platform (it throws) counts as none", () => {
    const found = findChromium(
      machine([], { PATH: undefined }, () => {
        throw new Error("unsupported platform");
      }),
    );
    expect(found.path).toBeUndefined();
  });
});

describe("browserTestsSkipped", () => {
  const none = { path: undefined, reason: "no Chromium found: …" } as const;

  it("without a browser the tests are skipped, with the finder's reason", () => {
    expect(browserTestsSkipped(none, {})).toBe("no Chromium found: …");
  });

  it("with DRAMATURG_REQUIRE_CHROMIUM=1 they run without one, and so fail", () => {
    expect(browserTestsSkipped(none, { DRAMATURG_REQUIRE_CHROMIUM: "1" })).toBeUndefined();
  });

  it("with a browser they run", () => {
    expect(browserTestsSkipped({ path: "/usr/bin/chromium", from: "PATH" }, {})).toBeUndefined();
  });
});
