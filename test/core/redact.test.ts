import { describe, expect, it } from "vitest";
import { findSecret, redactSecrets, redactUrl } from "../../src/core/index.ts";

describe("redactSecrets", () => {
  it("removes a known secret wherever it appears", () => {
    expect(redactSecrets("got plain-wrong-key, echo plain-wrong-key", { secrets: ["plain-wrong-key"] })).toBe(
      "got [redacted], echo [redacted]",
    );
  });

  it("removes a URL's password in every spelling, even with an unescaped @", () => {
    const url = "postgres://ci:p@ss%2Fword@db.internal/x";
    const text = `could not connect to ${url}: password p@ss/word rejected`;
    const out = redactSecrets(text, { urls: [url] });
    expect(out).not.toMatch(/p@ss/);
    expect(out).toContain("postgres://ci:***@db.internal/x");
  });

  it("removes the password of any URL it finds, known or not", () => {
    expect(redactSecrets("at redis://user:hunter2@cache:6379")).toBe("at redis://user:***@cache:6379");
  });

  it("removes provider keys, bearer tokens and api_key=… values", () => {
    const out = redactSecrets(
      'Incorrect API key provided: sk-proj-abcdefghijkl. Authorization: Bearer eyJhbGciOi; {"x-api-key": "sk-ant-api03-zzzzzzzzzz"} api_key=abc123',
    );
    for (const secret of ["sk-proj-abcdefghijkl", "eyJhbGciOi", "sk-ant-api03-zzzzzzzzzz", "abc123"])
      expect(out).not.toContain(secret);
  });

  it("leaves prose about keys alone", () => {
    const text = "the environment variable MY_KEY, named as the judge's API key variable, is not set";
    expect(redactSecrets(text)).toBe(text);
  });
});

describe("redactUrl", () => {
  it("keeps the URL readable with *** for the password", () => {
    expect(redactUrl("postgresql://u:pw@h:5432/db?sslmode=require")).toBe(
      "postgresql://u:***@h:5432/db?sslmode=require",
    );
  });
});

describe("findSecret", () => {
  it("finds a credential by its name, a token by its look, a URL password by its URL", () => {
    expect(findSecret("  api_key: sk-abcdefghijklmnop")).toEqual({ index: 2, kind: "credential" });
    expect(findSecret("- Bearer abc")).toEqual({ index: 2, kind: "credential" });
    expect(findSecret("db: postgres://ci:pw@h/db")).toEqual({ index: 4, kind: "url-password" });
  });

  it("does not take an empty value, a key variable's name or a token count for a secret", () => {
    for (const line of [
      'api_key: ""',
      "api_key_env: MY_KEY",
      "max_tokens: 5",
      "tokens: 5",
      "db: postgres://ci@h/db",
    ])
      expect(findSecret(line)).toBeUndefined();
  });
});
