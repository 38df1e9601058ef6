// A Vitest user of the installed package: `import "dramaturg/vitest"` registers the matchers.
import "dramaturg/vitest";
import { expect, it } from "vitest";

const example = "node_modules/dramaturg/examples/ensemble";
const options = {
  propositions: `${example}/propositions`,
  judge: `fixtures:${example}/judge-fixtures.json`,
  min: 7,
};

it("Wendell stays in character in the bundled example", async () => {
  await expect(`${example}/transcript.json`).toStayInCharacter({ agent: "wendell", ...options });
});

it("Inés drifts: the matcher fails and names the propositions that fell", async () => {
  await expect(
    expect(`${example}/transcript.json`).toStayInCharacter({ agent: "ines", ...options }),
  ).rejects.toThrow(/adherence 6\.79 < 7[\s\S]*ines-dry-understatement 6\.35/);
});
