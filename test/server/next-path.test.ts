// The login form's `next`: a same-site path goes through, anything that could leave the site becomes `/`.
import { describe, expect, it } from "vitest";
import { sameSitePath } from "../../src/server/next-path.ts";

describe("where the login form sends a browser back to", () => {
  it("a path with its query and fragment is kept", () => {
    expect(sameSitePath("/agents/marta?dimension=adherence#drift")).toBe(
      "/agents/marta?dimension=adherence#drift",
    );
  });

  it.each([
    ["a protocol-relative URL", "//evil.example/x"],
    ["a backslash read as a slash", "/\\evil.example"],
    ["an absolute URL", "https://evil.example/"],
    ["a javascript: URL", "javascript:alert(1)"],
    ["a tab a browser would drop", "/\t/evil.example"],
    ["a relative path", "agents"],
    ["nothing", undefined],
    ["a list (a repeated form field)", ["/agents", "/runs"]],
  ])("%s becomes /", (_, next) => {
    expect(sameSitePath(next)).toBe("/");
  });

  it("the login form itself is not somewhere to go back to", () => {
    expect(sameSitePath("/login?next=/runs")).toBe("/");
  });

  it("dot segments are resolved and stay on the site", () => {
    expect(sameSitePath("/a/../runs")).toBe("/runs");
  });
});
