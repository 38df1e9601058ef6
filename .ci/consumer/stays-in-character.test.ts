// A Vitest user of the installed package: `import "dramaturg/vitest"` registers the matchers.
import "dramaturg/vitest";
import { expect, it } from "vitest";

const example = "node_modules/dramaturg/examples/ensemble";

it("Dov stays in character in the bundled example", async () => {
  await expect(`${example}/transcript.json`).toStayInCharacter({
    agent: "dov",
    judge: `fixtures:${example}/judge-fixtures.json`,
    min: 7,
  });
});
