// `dramaturg config print`: the merged settings (defaults < project file < environment < flags) and,
// for each value, where it came from. Settings hold no secrets: api_key_env names a variable only.
// `dramaturg config agent show|set AGENT`: an agent's runtime-correction settings, stored or resolved.
import { type Command, Option } from "commander";
import { Document, isCollection, isMap, isPair, isScalar, type Node, type Pair } from "yaml";
import {
  type CorrectionSettings,
  type CorrectionSettingsPatch,
  CorrectionSettingsSchema,
  firstIssue,
  InputError,
  validateInput,
} from "../../core/index.ts";
import { addEvaluationOptions, type EvalFlags } from "../evaluation-options.ts";
import { setExitCode } from "../exit-code.ts";
import { examples } from "../help-examples.ts";
import { type Origin, ProjectFileSchema, type ResolvedSettings, resolveSettings } from "../settings.ts";

export function registerConfigCommand(program: Command): void {
  const config = program
    .command("config")
    .description("show the settings commands use; set an agent's correction settings")
    .addHelpText(
      "after",
      examples(
        "dramaturg config print",
        "dramaturg config print --format json",
        "dramaturg config agent set marta gate_adherence_enabled=true gate_adherence_threshold=6.5",
      ),
    );
  registerConfigAgentCommands(config);
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

interface AgentConfigFlags {
  db?: string;
  config?: string;
  format?: string;
}

/** `config agent show|set AGENT`: the per-agent correction settings (`agent_evaluation_config`). */
function registerConfigAgentCommands(config: Command): void {
  const agent = config
    .command("agent")
    .description(
      "an agent's runtime-correction settings (action gate, interventions, repetition suppression)",
    )
    .addHelpText(
      "after",
      examples(
        "dramaturg config agent show marta",
        "dramaturg config agent set marta gate_adherence_enabled=true gate_adherence_threshold=6.5",
      ),
    );
  agent
    .command("show")
    .description(
      "print the settings a check of the agent uses and where they come from (store, project file, default)",
    )
    .argument("<agent>", "agent id")
    .addOption(new Option("--format <format>", "output format").choices(["table", "json"]).default("table"))
    .option("--db <location>", "store location (default .dramaturg)")
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      examples("dramaturg config agent show marta", "dramaturg config agent show marta --format json"),
    )
    .action(async (agentId: string, flags: AgentConfigFlags) =>
      setExitCode(await configAgentShow(agentId, flags)),
    );
  agent
    .command("set")
    .description(
      "store settings for the agent, key=value each; the stored settings then win over dramaturg.yaml's corrections",
    )
    .argument("<agent>", "agent id")
    .argument("<settings...>", "key=value, e.g. gate_fluency_enabled=true gate_fluency_threshold=6.5")
    .option("--db <location>", "store location (default .dramaturg)")
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      examples(
        "dramaturg config agent set marta gate_adherence_enabled=true",
        "dramaturg config agent set marta gate_similarity_enabled=true max_action_similarity=0.5 --db postgres://ci@db/dramaturg",
      ),
    )
    .action(async (agentId: string, assignments: string[], flags: AgentConfigFlags) =>
      setExitCode(await configAgentSet(agentId, assignments, flags)),
    );
}

export async function configAgentShow(agentId: string, flags: AgentConfigFlags): Promise<number> {
  const { format = "table" } = flags;
  if (!["table", "json"].includes(format))
    throw new InputError("expected table or json", { place: "--format" });
  const { agentCorrectionSettings, openStore, storeExists } = await import("../../store/index.ts");
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  // No store yet: nothing is stored, and showing creates none.
  const store = storeExists(settings.db) ? await openStore(settings.db) : undefined;
  try {
    const resolved = await agentCorrectionSettings(store, agentId, settings.corrections);
    process.stdout.write(
      format === "json" ? `${JSON.stringify(resolved, null, 2)}\n` : agentConfigTable(resolved),
    );
    return 0;
  } finally {
    await store?.close();
  }
}

export async function configAgentSet(
  agentId: string,
  assignments: string[],
  flags: AgentConfigFlags,
): Promise<number> {
  // Checked before the store is opened: bad input writes nothing, not even a new store.
  const patch = parseAgentSettings(assignments);
  const { agentCorrectionSettings, openStore } = await import("../../store/index.ts");
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  const store = await openStore(settings.db);
  try {
    // A first stored row starts from what the agent resolves to now, so the project file's values stay.
    const current = await agentCorrectionSettings(store, agentId, settings.corrections);
    const base = current.source === "store" ? {} : current.config;
    const stored = await store.agentConfig.set(agentId, { ...base, ...patch });
    process.stdout.write(agentConfigTable({ ...stored, source: "store" }));
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * `key=value` arguments as settings: a key of the schema, a value of its kind (true/false, a number),
 * validated. An InputError names the argument and what it takes.
 */
export function parseAgentSettings(assignments: readonly string[]): CorrectionSettingsPatch {
  const shape = CorrectionSettingsSchema.shape;
  const patch: Record<string, unknown> = {};
  for (const assignment of assignments) {
    const at = assignment.indexOf("=");
    const key = at < 0 ? assignment : assignment.slice(0, at);
    if (at < 0) throw new InputError(`"${assignment}": expected key=value, e.g. gate_fluency_threshold=6.5`);
    if (!Object.hasOwn(shape, key))
      throw new InputError(`unknown setting "${key}"; expected one of ${Object.keys(shape).join(", ")}`);
    const text = assignment.slice(at + 1).trim();
    const field = shape[key as keyof typeof shape].removeDefault();
    const value = field.type === "boolean" ? booleanText(text) : numberText(text);
    const parsed = validateInput(field, value);
    if (!parsed.success) throw new InputError(`${key}=${text}: ${firstIssue(parsed.error).message}`);
    patch[key] = parsed.data;
  }
  return patch as CorrectionSettingsPatch;
}

function booleanText(text: string): unknown {
  return text === "true" ? true : text === "false" ? false : text;
}

function numberText(text: string): unknown {
  return text !== "" && Number.isFinite(Number(text)) ? Number(text) : text;
}

/** One line per setting, in the schema's order, under where they come from. */
function agentConfigTable({
  agent_id,
  config,
  source,
  updated_at,
}: {
  agent_id: string;
  config: CorrectionSettings;
  source: string;
  updated_at?: string;
}): string {
  const from =
    source === "store"
      ? `stored (updated ${updated_at?.slice(0, 19).replace("T", " ")}); dramaturg.yaml's corrections do not apply`
      : source === "project file"
        ? "from the project file (corrections), over the defaults; nothing stored"
        : "the defaults (nothing stored or in the project file)";
  const width = Math.max(...Object.keys(config).map((k) => k.length));
  const lines = Object.entries(config).map(([key, value]) => `${key.padEnd(width)}  ${String(value)}`);
  return `agent ${agent_id}: ${from}\n${lines.join("\n")}\n`;
}
