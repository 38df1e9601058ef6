// The world format `dramaturg.world/v1`: persona agents, the channels they talk in, facilitator prompts,
// how many steps and in which order agents act. One schema; errors name the file, line and column.
import { z } from "zod";
import {
  CorrectionSettingsPatchSchema,
  InputError,
  PersonaSchema,
  parseLocatedYaml,
  readInputFile,
} from "../core/index.ts";

export const WORLD_FORMAT = "dramaturg.world/v1";

/** The time of step 1 when a world gives none: message times follow from it, so a run is reproducible. */
export const WORLD_START = "2026-01-01T09:00:00Z";

/** Character-aware nudges: what this agent is told when an intervention fires (one step, never stored). */
export const AgentNudgesSchema = z
  .object({
    anti_convergence: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Thought given when the agent converges on the others (e.g. 'tell a story', 'assert authority')",
      ),
    variety: z.string().min(1).optional().describe("Thought given when the agent's ideas stagnate"),
  })
  .strict();

export const WorldAgentSchema = z
  .object({
    id: z.string().min(1).describe("Stable id: the sender of the agent's messages in the transcript"),
    name: z.string().min(1),
    persona: PersonaSchema,
    channels: z
      .array(z.string().min(1))
      .optional()
      .describe("Channels the agent is in (besides those listing it as a member); default: every channel"),
    corrections: CorrectionSettingsPatchSchema.optional().describe(
      "Runtime corrections for this agent (agent_evaluation_config keys): each key set here wins over dramaturg.yaml's for the agent; the others keep dramaturg.yaml's, then the defaults",
    ),
    nudges: AgentNudgesSchema.optional(),
  })
  .strict();

export const WorldChannelSchema = z
  .object({
    id: z.string().min(1),
    members: z
      .array(z.string().min(1))
      .optional()
      .describe(
        "Agent ids in the channel; default: the agents that list it, or every agent if none lists channels",
      ),
  })
  .strict();

export const FacilitatorPromptSchema = z
  .object({
    step: z.number().int().min(1).optional().describe("Post at this step only"),
    every: z.number().int().min(1).optional().describe("Post at steps 1, 1+every, 1+2·every…"),
    channel: z.string().min(1),
    text: z.string().min(1),
    from: z.string().min(1).default("facilitator").describe("Sender name; must not be an agent id"),
  })
  .strict()
  .refine((f) => f.step === undefined || f.every === undefined, {
    message: "either step or every, not both",
  });

export const WorldFileSchema = z
  .object({
    format: z.literal(WORLD_FORMAT),
    agents: z.array(WorldAgentSchema).min(1),
    channels: z.array(WorldChannelSchema).min(1),
    facilitator: z
      .array(FacilitatorPromptSchema)
      .default([])
      .describe("Prompts posted before agents act; neither step nor every means step 1 only"),
    steps: z.number().int().min(1).max(10_000),
    order: z.enum(["parallel", "sequential_random"]).default("parallel"),
    seed: z.number().int().default(0).describe("Seeds the sequential_random order"),
    model: z.string().min(1).optional().describe("The agents' model spec, e.g. openai:gpt-4o-mini"),
    start: z.iso
      .datetime({ offset: true })
      .default(WORLD_START)
      .describe("Time of step 1; message times follow from it, so a run is reproducible"),
  })
  .strict()
  .superRefine((w, ctx) => {
    const agentIds = new Set<string>();
    w.agents.forEach((a, i) => {
      if (agentIds.has(a.id))
        ctx.addIssue({ code: "custom", path: ["agents", i, "id"], message: `duplicate agent id "${a.id}"` });
      agentIds.add(a.id);
    });
    const channelIds = new Set<string>();
    w.channels.forEach((c, i) => {
      if (channelIds.has(c.id))
        ctx.addIssue({
          code: "custom",
          path: ["channels", i, "id"],
          message: `duplicate channel id "${c.id}"`,
        });
      channelIds.add(c.id);
      c.members?.forEach((m, j) => {
        if (!agentIds.has(m))
          ctx.addIssue({
            code: "custom",
            path: ["channels", i, "members", j],
            message: `no agent "${m}"; expected one of ${[...agentIds].join(", ")}`,
          });
      });
    });
    w.agents.forEach((a, i) => {
      a.channels?.forEach((c, j) => {
        if (!channelIds.has(c))
          ctx.addIssue({
            code: "custom",
            path: ["agents", i, "channels", j],
            message: `no channel "${c}"; expected one of ${[...channelIds].join(", ")}`,
          });
      });
    });
    w.facilitator.forEach((f, i) => {
      if (!channelIds.has(f.channel))
        ctx.addIssue({
          code: "custom",
          path: ["facilitator", i, "channel"],
          message: `no channel "${f.channel}"; expected one of ${[...channelIds].join(", ")}`,
        });
      if (agentIds.has(f.from))
        ctx.addIssue({
          code: "custom",
          path: ["facilitator", i, "from"],
          message: `"${f.from}" is an agent id; a facilitator speaks as someone else`,
        });
    });
  });

export type WorldFile = z.output<typeof WorldFileSchema>;
export type WorldAgent = WorldFile["agents"][number];
export type FacilitatorPrompt = WorldFile["facilitator"][number];

/** Parses world YAML text; every mistake is an InputError naming the file, line and column. */
export function parseWorldFile(text: string, file = "<world>"): WorldFile {
  return parseLocatedYaml(text, file, WorldFileSchema).data;
}

/** Reads and checks a world file. */
export function loadWorldFile(file: string): WorldFile {
  return parseWorldFile(readInputFile(file, "the world file"), file);
}

/** The channels an agent is in, in the world's channel order. */
export function worldAgentChannels(world: WorldFile, agentId: string): string[] {
  const agent = world.agents.find((a) => a.id === agentId);
  if (!agent) throw new InputError(`no agent "${agentId}" in the world`);
  const anyListsChannels = world.agents.some((a) => a.channels !== undefined);
  return world.channels
    .filter(
      (c) =>
        agent.channels?.includes(c.id) ||
        c.members?.includes(agentId) ||
        (c.members === undefined && !anyListsChannels),
    )
    .map((c) => c.id);
}

/** Whether a facilitator prompt is posted at `step` (1-based). */
export function facilitatorPostsAt(prompt: FacilitatorPrompt, step: number): boolean {
  if (prompt.every !== undefined) return (step - 1) % prompt.every === 0;
  return step === (prompt.step ?? 1);
}
