// `dramaturg config print`: the merged settings (defaults < project file < environment < flags) and,
// for each value, where it came from. Settings hold no secrets: api_key_env names a variable only.
import { type Command, Option } from "commander";
import { Document, isCollection, isMap, isPair, isScalar, type Node, type Pair } from "yaml";
import { InputError } from "../../core/index.ts";
import { examples, setExitCode } from "../program.ts";
import { type Origin, ProjectFileSchema, type ResolvedSettings, resolveSettings } from "../settings.ts";
import { addEvaluationOptions, type EvalFlags } from "./eval.ts";

export function registerConfigCommand(program: Command): void {
  const config = program
    .command("config")
    .description("show the settings commands use")
    .addHelpText("after", examples("dramaturg config print", "dramaturg config print --format json"));
  const print = addEvaluationOptions(
    config
      .command("print")
      .description("print the merged settings and where each value came from (file, env, flag, default)"),
  ).addOption(new Option("--format <format>", "output format").choices(["yaml", "json"]).default("yaml"));
  // eval may gain --no-cache in its shared options; add it here only if it is not there already.
  if (!print.options.some((o) => o.long === "--no-cache"))
    print.option("--no-cache", "do not use the verdict cache");
  print
    .addHelpText(
      "after",
      examples(
        "dramaturg config print",
        "dramaturg config print --judge openai:gpt-4o-mini --mode batch",
        "DRAMATURG_DB=postgres://ci@db/dramaturg dramaturg config print --format json",
      ),
    )
    .action((flags: EvalFlags & { format?: string; cache?: boolean }) => setExitCode(configPrint(flags)));
}

export function configPrint(flags: EvalFlags & { format?: string; cache?: boolean }): number {
  const agents = flags.agent ? (flags.agents ? `${flags.agents},${flags.agent}` : flags.agent) : flags.agents;
  const { format = "yaml", config, ...rest } = flags;
  if (!["yaml", "json"].includes(format))
    throw new InputError("expected yaml or json", { place: "--format" });
  const resolved = resolveSettings({ flags: { ...rest, agents }, projectFile: config });
  process.stdout.write(
    format === "json" ? `${JSON.stringify(configDocument(resolved), null, 2)}\n` : configYaml(resolved),
  );
  return 0;
}

/** The settings, their origins and the project file, as one JSON document. */
export function configDocument({ settings, origins, file }: ResolvedSettings) {
  return { project_file: file ?? null, settings, origins };
}

/** YAML of the settings with each value's origin as a line comment (`# file`, `# flag`…). */
export function configYaml({ settings, origins, file }: ResolvedSettings): string {
  // In the project file's key order, so the output reads like a project file.
  const order = Object.keys(ProjectFileSchema.shape);
  const ordered = Object.fromEntries(
    Object.entries(settings).sort(([a], [b]) => order.indexOf(a) - order.indexOf(b)),
  );
  const doc = new Document(ordered);
  doc.commentBefore = ` Merged settings (default < file < env < flag); project file: ${file ?? "none found"}`;
  const annotate = (node: unknown, path: string[]) => {
    if (!isMap(node)) return;
    for (const pair of node.items as Pair<Node, Node>[]) {
      if (!isPair(pair) || !isScalar(pair.key)) continue;
      const here = [...path, String(pair.key.value)];
      const origin: Origin | undefined = origins[here.join(".")];
      const empty = isCollection(pair.value) && pair.value.items.length === 0;
      if (empty) (pair.value as { flow?: boolean }).flow = true;
      if (origin && pair.value) {
        if (isScalar(pair.value) || empty) pair.value.comment = ` ${origin}`;
        else pair.key.comment = ` ${origin}`;
      }
      annotate(pair.value, here);
    }
  };
  annotate(doc.contents, []);
  return doc.toString({ lineWidth: 0 });
}
