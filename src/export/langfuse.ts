// Langfuse: its public scores API (POST /api/public/scores, one score a request, upserted by the score's id),
// with a NUMERIC score config per dimension (GET/POST /api/public/score-configs) reused when one of that name
// exists. A score goes on the observation, trace or session its messages came from; with none known, on the
// trace of its unit's item in a dataset run named after the evaluation (langfuse-dataset-run.ts), or, where
// Langfuse refuses the dataset run's requests, on a session named after the evaluation (`dramaturg-<id>`).
// Keys only from LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY (basic auth); the host from LANGFUSE_BASE_URL or
// LANGFUSE_HOST (default https://cloud.langfuse.com).
import { compareCodeUnits, InputError } from "../core/index.ts";
import { type ApiRequest, RejectedRequest, sendRequest } from "./delivery.ts";
import {
  type DestinationOptions,
  type ExportContext,
  type ExportDestination,
  hostFrom,
  type RefusedScore,
} from "./destination.ts";
import type { ExportScore } from "./export-score.ts";
import { judgedUnit, prepareDatasetRun } from "./langfuse-dataset-run.ts";

const AUTH_HINT =
  "check LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY (and LANGFUSE_BASE_URL for the project's host)";
/** Langfuse's rule for a score config's name: up to 35 letters, digits, `_ .()-` and spaces. */
const CONFIG_NAME = /^[A-Za-z0-9_ .()-]{1,35}$/;
const CONCURRENT = 4;

interface ScoreConfig {
  id: string;
  name: string;
  dataType: string;
  isArchived?: boolean;
}

/** The session scores without a trace or session of their own are put on. */
export function fallbackSessionId(evaluationId: string): string {
  return `dramaturg-${evaluationId}`;
}

/** The Langfuse page of a trace: its host's `/trace/<id>`, which Langfuse redirects to the trace's project. */
export function langfuseTraceUrl(host: string, traceId: string): string {
  return `${host.replace(/\/+$/, "")}/trace/${encodeURIComponent(traceId)}`;
}

export function langfuseDestination({ env, ...delivery }: DestinationOptions): ExportDestination {
  const publicKey = env.LANGFUSE_PUBLIC_KEY;
  const secretKey = env.LANGFUSE_SECRET_KEY;
  if (!publicKey || !secretKey)
    throw new InputError(
      "exporting to Langfuse needs LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY in the environment (the project's API keys)",
    );
  const host = hostFrom(
    env.LANGFUSE_BASE_URL || env.LANGFUSE_HOST || "https://cloud.langfuse.com",
    env.LANGFUSE_BASE_URL ? "LANGFUSE_BASE_URL" : "LANGFUSE_HOST",
    (m) => new InputError(m),
  );
  const headers = { authorization: `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString("base64")}` };
  const request = (r: Omit<ApiRequest, "headers">) => sendRequest({ ...r, headers }, AUTH_HINT, delivery);
  const configs = new Map<string, string>();
  /** Per judged unit, the trace of the dataset run its scores go on (langfuse-dataset-run.ts). */
  let datasetTraces = new Map<string, string>();

  async function existingConfigs(): Promise<ScoreConfig[]> {
    const found: ScoreConfig[] = [];
    for (let page = 1; ; page++) {
      const answer = (await request({
        method: "GET",
        url: `${host}/api/public/score-configs?page=${page}&limit=100`,
      })) as { data?: ScoreConfig[]; meta?: { totalPages?: number } } | undefined;
      found.push(...(answer?.data ?? []));
      if (!answer?.meta?.totalPages || page >= answer.meta.totalPages) return found;
    }
  }

  function body(score: ExportScore, { evaluationId }: ExportContext): Record<string, unknown> {
    const { spanId, sessionId } = score.attach;
    const traceId = score.attach.traceId ?? (sessionId ? undefined : datasetTraces.get(judgedUnit(score)));
    const configId = score.level === "dimension" ? configs.get(score.name) : undefined;
    return {
      id: score.id,
      name: score.name,
      value: score.value,
      dataType: "NUMERIC",
      ...(configId ? { configId } : {}),
      ...(score.comment ? { comment: score.comment } : {}),
      metadata: score.metadata,
      ...(traceId
        ? { traceId, ...(spanId ? { observationId: spanId } : {}) }
        : { sessionId: sessionId ?? fallbackSessionId(evaluationId) }),
    };
  }

  return {
    target: "langfuse",
    key: `langfuse ${host}`,
    holds: ["langfuse", "otlp"],
    batchSize: 20,
    leftOut: () => undefined,
    async prepare(scores, context) {
      const unattached = scores.filter((s) => !s.attach.traceId && !s.attach.sessionId);
      datasetTraces =
        (await prepareDatasetRun(
          request,
          host,
          unattached,
          context,
          fallbackSessionId(context.evaluationId),
        )) ?? new Map();
      const wanted = new Map<string, Pick<ExportScore, "scale" | "better">>();
      for (const s of scores)
        if (s.level === "dimension" && CONFIG_NAME.test(s.name) && !configs.has(s.name))
          wanted.set(s.name, { scale: s.scale, better: s.better });
      if (wanted.size === 0) return;
      for (const c of await existingConfigs())
        if (wanted.has(c.name) && c.dataType === "NUMERIC" && !c.isArchived && !configs.has(c.name))
          configs.set(c.name, c.id);
      for (const [name, { scale, better = "higher" }] of [...wanted].sort(([a], [b]) =>
        compareCodeUnits(a, b),
      )) {
        if (configs.has(name)) continue;
        const created = (await request({
          method: "POST",
          url: `${host}/api/public/score-configs`,
          body: {
            name,
            dataType: "NUMERIC",
            minValue: scale.min,
            ...(scale.max === undefined ? {} : { maxValue: scale.max }),
            description: `Dramaturg's ${name} (${scale.min}–${scale.max ?? "∞"}, ${better} is better)`,
          },
        })) as { id?: string } | undefined;
        if (created?.id) configs.set(name, created.id);
      }
    },
    async send(batch, context, arrived) {
      const failed: RefusedScore[] = [];
      // One request a score: a few at a time, each failing on its own.
      for (let i = 0; i < batch.length; i += CONCURRENT) {
        const group = batch.slice(i, i + CONCURRENT);
        const results = await Promise.allSettled(
          group.map(async (s) => {
            await request({ method: "POST", url: `${host}/api/public/scores`, body: body(s, context) });
            arrived(s);
          }),
        );
        for (const [j, r] of results.entries()) {
          if (r.status === "fulfilled") continue;
          if (r.reason instanceof RejectedRequest) failed.push({ item: group[j]!, reason: r.reason.message });
          // Authentication or an unavailable server ends the export; what arrived was reported.
          else throw r.reason;
        }
      }
      return failed;
    },
  };
}
