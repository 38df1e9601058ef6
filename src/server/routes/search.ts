// `/api/search`: the dashboard's search as JSON — agents, runs, session analyses, imported messages, messages of
// evaluated transcripts and the judge's reasoning that match a query (PostgreSQL full-text on SQL stores for
// imported messages), each kind's hits best first with snippets as plain text.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { plainIssueMessage } from "../../core/index.ts";
import {
  MAX_SEARCH_LIMIT,
  MAX_SEARCH_QUERY,
  SEARCH_KINDS,
  type SearchKind,
  searchQueryProblem,
} from "../../store/index.ts";
import { errorResponses } from "../query.ts";
import type { ServerContext } from "../server-context.ts";
import { validationHook } from "../validation-hook.ts";

const Snippet = z.array(z.object({ text: z.string(), match: z.boolean() })).openapi("SearchSnippet", {
  description: "plain text in parts, in order; `match` marks the words the query looked for",
});

const Status = z.enum(["pending", "running", "completed", "failed", "interrupted"]);

const group = <T extends z.ZodType>(hit: T) =>
  z.object({
    hits: z.array(hit),
    more: z.boolean().openapi({ description: "more matched than `limit`" }),
  });

const SearchResults = z
  .object({
    q: z.string(),
    kinds: z.array(z.enum(SEARCH_KINDS)),
    agents: group(z.object({ id: z.string(), name: z.string(), snippet: Snippet })),
    runs: group(
      z.object({
        id: z.string(),
        agent_id: z.string(),
        agent_name: z.string().nullable(),
        status: Status,
        overall_score: z.number().nullable(),
        created_at: z.string(),
      }),
    ),
    sessions: group(
      z.object({
        id: z.string(),
        agents: z.array(z.string()),
        source: z.string(),
        status: Status,
        created_at: z.string(),
      }),
    ),
    messages: group(
      z.object({
        source: z.string(),
        id: z.string(),
        sender: z.string(),
        channel: z.string(),
        recipient: z.string().optional(),
        at: z.string(),
        text: z.string(),
        snippet: Snippet,
        sender_is_agent: z.boolean(),
      }),
    ),
    transcripts: group(
      z.object({
        evaluation_id: z.string(),
        run_id: z.string().nullable().openapi({
          description:
            "the run whose page shows the message: its sender's (first trial), else the evaluation's first",
        }),
        judged: z
          .boolean()
          .openapi({ description: "whether that run judged the message (its agent sent it)" }),
        id: z.string(),
        sender: z.string(),
        channel: z.string(),
        recipient: z.string().optional(),
        text: z.string(),
        snippet: Snippet,
        created_at: z.string(),
      }),
    ).openapi({ description: "messages of the transcripts persona evaluations judged, as kept with them" }),
    reasonings: group(
      z.object({
        id: z.string().openapi({ description: "the verdict's id: its row on the run page is #v-<id>" }),
        evaluation_id: z.string(),
        run_id: z.string(),
        agent_id: z.string().nullable(),
        dimension: z.string(),
        proposition_id: z.string(),
        message_id: z.string().nullable(),
        trial: z.number(),
        status: z.enum(["ok", "trivial"]),
        score: z.number().nullable(),
        reasoning: z.string(),
        snippet: Snippet,
        created_at: z.string(),
      }),
    ).openapi({ description: "verdicts whose judge's reasoning has the query's words" }),
  })
  .openapi("SearchResults");

const search = createRoute({
  method: "get",
  path: "/api/search",
  summary:
    "agents, runs, session analyses, imported messages, evaluated transcripts' messages and judge's reasoning that match a query",
  request: {
    query: z.object({
      q: z
        .string({ error: plainIssueMessage })
        .superRefine((q, ctx) => {
          const problem = searchQueryProblem(q);
          if (problem) ctx.addIssue({ code: "custom", message: problem });
        })
        .openapi({
          description: `web-search syntax (PostgreSQL's websearch_to_tsquery, 'simple' configuration): words, "a phrase", -word, or; case ignored; at most ${MAX_SEARCH_QUERY} characters. Runs and session analyses also match the first 4+ characters of their id, or an agent's id or name`,
        }),
      limit: z.coerce
        .number({ error: plainIssueMessage })
        .int({ error: plainIssueMessage })
        .min(1, { error: plainIssueMessage })
        .max(MAX_SEARCH_LIMIT, { error: plainIssueMessage })
        .default(20)
        .openapi({ description: `hits per kind, 1–${MAX_SEARCH_LIMIT}` }),
      kinds: z
        .string({ error: plainIssueMessage })
        .transform((text, ctx) => {
          const kinds = text.split(",").map((k) => k.trim());
          const unknown = kinds.find((k) => !(SEARCH_KINDS as readonly string[]).includes(k));
          if (unknown === undefined) return kinds as SearchKind[];
          ctx.addIssue({
            code: "custom",
            message: `unknown kind ${JSON.stringify(unknown)}; expected some of ${SEARCH_KINDS.join(", ")}, comma-separated`,
          });
          return z.NEVER;
        })
        .optional()
        .openapi({
          type: "string",
          description: `the kinds to search, comma-separated (${SEARCH_KINDS.join(", ")}); default all`,
        }),
    }),
  },
  responses: {
    200: {
      description: "each kind's hits, best first: messages by full-text rank, runs and sessions newest first",
      content: { "application/json": { schema: SearchResults } },
    },
    ...errorResponses,
  },
});

export function searchRoutes({ store }: ServerContext): OpenAPIHono {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  app.openapi(search, async (c) => {
    const { q, limit, kinds } = c.req.valid("query");
    return c.json(await store.search.query({ q, limit, kinds }), 200);
  });
  return app;
}
