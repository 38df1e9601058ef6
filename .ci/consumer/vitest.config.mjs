// The Vitest consumer's config: evaluations open a store and judge, which takes seconds on a loaded
// machine, so tests get a minute. Vitest 5's reporter calls Map.groupBy, which Node 20 lacks; without
// the stand-in a failing test on Node 20 crashes the reporter instead of printing the failure.
import { defineConfig } from "vitest/config";

if (typeof Map.groupBy !== "function") {
  Object.defineProperty(Map, "groupBy", {
    value(items, key) {
      const out = new Map();
      let i = 0;
      for (const item of items) {
        const k = key(item, i++);
        const list = out.get(k);
        if (list) list.push(item);
        else out.set(k, [item]);
      }
      return out;
    },
  });
}

export default defineConfig({ test: { testTimeout: 60_000 } });
