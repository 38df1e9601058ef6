import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatStoreLocation, InputError, parseStoreLocation } from "../../src/core/index.ts";

describe("parseStoreLocation", () => {
  it("memory:, memory:// and MEMORY:// are all the in-memory store", () => {
    for (const text of ["memory:", "memory://", "MEMORY://", "Memory:"])
      expect(parseStoreLocation(text, { cwd: "/work" })).toEqual({ kind: "memory", display: "memory://" });
  });

  it("postgres:// and postgresql:// in any case are a server, shown without the password", () => {
    for (const url of [
      "postgres://ci:s3cret@db/x",
      "POSTGRES://ci:s3cret@db/x",
      "PostgreSQL://ci:s3cret@db/x",
    ]) {
      const location = parseStoreLocation(url, { cwd: "/work" });
      expect(location).toMatchObject({ kind: "postgres", url });
      expect(location.display).not.toContain("s3cret");
      expect(location.display).toMatch(/ci:\*\*\*@db\/x$/);
    }
  });

  it("anything else is a folder resolved against cwd", () => {
    expect(parseStoreLocation(".dramaturg", { cwd: "/work/p" })).toEqual({
      kind: "folder",
      path: join("/work/p", ".dramaturg"),
      display: join("/work/p", ".dramaturg"),
    });
    expect(parseStoreLocation("/abs/store", { cwd: "/work" })).toMatchObject({ path: "/abs/store" });
  });

  it("without cwd a folder path is kept as written", () => {
    expect(parseStoreLocation("data/store")).toMatchObject({ kind: "folder", path: "data/store" });
  });

  it("another scheme is bad input naming the accepted forms, not a folder named after it", () => {
    const error = (() => {
      try {
        parseStoreLocation("mysql://root:pw@h/db");
      } catch (e) {
        return e;
      }
    })();
    expect(InputError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/memory:\/\/, or postgres:\/\//);
    expect((error as Error).message).not.toContain(":pw@");
  });

  it("a scheme mistyped by a slash, a letter or a colon is bad input suggesting the URL meant", () => {
    const cases: [string, RegExp][] = [
      ["postgres:/host/db", /did you mean postgres:\/\/host\/db\?/],
      ["PostgreSQL:host/db", /did you mean postgresql:\/\/host\/db\?/],
      ["postgress://host/db", /did you mean postgres:\/\/host\/db\?/],
      ["memory:/", /did you mean memory:\/\/\?/],
      ["memroy://", /did you mean memory:\/\/\?/],
    ];
    for (const [text, fix] of cases) expect(() => parseStoreLocation(text, { cwd: "/work" })).toThrow(fix);
  });

  it("a scheme-like prefix far from every known one is bad input, not a folder", () => {
    for (const text of ["pglite:data", "sqlite:x.db"])
      expect(() => parseStoreLocation(text, { cwd: "/work" })).toThrow(/unknown store location/);
  });

  it("a mistyped URL's password is not shown in the message", () => {
    expect(() => parseStoreLocation("postgres:/ci:s3cret@db/x")).toThrow(/postgres:\/ci:\*\*\*@db\/x/);
    expect(() => parseStoreLocation("postgres:/ci:s3cret@db/x")).not.toThrow(/s3cret/);
  });

  it("a folder whose name has a colon is written with ./ and a drive letter stays a folder", () => {
    expect(parseStoreLocation("./pglite:data", { cwd: "/work" })).toMatchObject({ kind: "folder" });
    expect(parseStoreLocation("C:\\stores\\x")).toMatchObject({ kind: "folder" });
  });

  it("formats back to text that parses to the same location", () => {
    for (const text of ["memory:", "postgres://u@h/db", "/abs/store"]) {
      const location = parseStoreLocation(text);
      expect(parseStoreLocation(formatStoreLocation(location))).toEqual(location);
    }
  });
});
