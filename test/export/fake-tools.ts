// Local fakes of the three tools `dramaturg export` talks to, on 127.0.0.1. Each checks every request against
// the API's published schema (Langfuse: its OpenAPI slice, with ajv; Phoenix: its OpenAPI schemas restated in
// zod, the file being under the Elastic License; OTLP: the logs request's JSON shape in zod), keeps what
// arrived as the real tool would (Langfuse and Phoenix upsert by id), and answers errors on demand.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Ajv } from "ajv";
import { z } from "zod";

/** An error the test asks for: this request is answered with it instead. */
export interface Injected {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** What a request looked like, for the test to decide whether to fail it. */
export interface SeenRequest {
  method: string;
  path: string;
  body: unknown;
  /** The how-many-th request to this path (1 first). */
  n: number;
}

interface FakeBase {
  url: string;
  /** Requests as they came, with the status each was answered. */
  log: { method: string; path: string; status: number }[];
  /** Requests that broke the schema: must stay empty. */
  invalid: { path: string; errors: string }[];
  /** Answer some requests with an error instead. */
  inject: (rule: (request: SeenRequest) => Injected | undefined) => void;
  close: () => Promise<void>;
}

async function serve(
  handle: (request: SeenRequest, req: IncomingMessage) => { status: number; body?: unknown },
  extra: { auth: (req: IncomingMessage) => boolean },
): Promise<FakeBase> {
  let rule: ((request: SeenRequest) => Injected | undefined) | undefined;
  const counts = new Map<string, number>();
  const base: Omit<FakeBase, "url" | "close"> = {
    log: [],
    invalid: [],
    inject: (r) => {
      rule = r;
    },
  };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const n = (counts.get(url.pathname) ?? 0) + 1;
    counts.set(url.pathname, n);
    const seen: SeenRequest = {
      method: req.method ?? "GET",
      path: `${url.pathname}${url.search}`,
      body: text ? JSON.parse(text) : undefined,
      n,
    };
    const answer = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
      base.log.push({ method: seen.method, path: url.pathname, status });
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(body === undefined ? "" : JSON.stringify(body));
    };
    if (!extra.auth(req)) return answer(401, { message: "Invalid credentials" });
    const injected = rule?.(seen);
    if (injected) return answer(injected.status, injected.body ?? { message: "injected" }, injected.headers);
    const { status, body } = handle(seen, req);
    answer(status, body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...base,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  } as FakeBase;
}

// --- Langfuse ----------------------------------------------------------------------------------------------

const SLICE = JSON.parse(
  readFileSync(new URL("../fixtures/export/langfuse-openapi.slice.json", import.meta.url), "utf8"),
) as {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>;
};

/** OpenAPI 3.0's `nullable` as JSON Schema (ajv reads `nullable` only beside a `type`). */
function jsonSchemaOf(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(jsonSchemaOf);
  if (!node || typeof node !== "object") return node;
  const { nullable, ...rest } = node as Record<string, unknown>;
  const out = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, jsonSchemaOf(v)]));
  if (nullable !== true) return out;
  if (typeof out.type === "string") return { ...out, type: [out.type, "null"] };
  if (typeof out.$ref === "string") return { anyOf: [{ $ref: out.$ref }, { type: "null" }] };
  return out;
}

const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema(jsonSchemaOf(SLICE) as object, "langfuse");
/** The request body's schema of a path and method, from the slice (by a JSON pointer into it: inline or $ref). */
function langfuseValidator(path: string, method: string) {
  if (!SLICE.paths[path]?.[method]?.requestBody?.content["application/json"]?.schema)
    throw new Error(`${method} ${path} is not in the slice`);
  const escaped = path.replaceAll("~", "~0").replaceAll("/", "~1");
  return ajv.compile({
    $ref: `langfuse#/paths/${escaped}/${method}/requestBody/content/application~1json/schema`,
  });
}
const validScore = langfuseValidator("/api/public/scores", "post");
const validConfig = langfuseValidator("/api/public/score-configs", "post");
const validDataset = langfuseValidator("/api/public/v2/datasets", "post");
const validDatasetItem = langfuseValidator("/api/public/dataset-items", "post");
const validRunItem = langfuseValidator("/api/public/dataset-run-items", "post");
const validIngestion = langfuseValidator("/api/public/ingestion", "post");
const STAMP = "2026-01-01T00:00:00.000Z";

export interface FakeLangfuse extends FakeBase {
  /** Scores by id, as Langfuse keeps them (a second POST of an id updates it). */
  scores: Map<string, Record<string, unknown>>;
  /** Successful POSTs per score id: every score arrives once means one each. */
  arrivals: Map<string, number>;
  configs: {
    id: string;
    name: string;
    dataType: string;
    minValue?: number;
    maxValue?: number;
    isArchived: boolean;
  }[];
  /** Datasets by name (POST /api/public/v2/datasets upserts by name). */
  datasets: Map<string, { id: string; name: string; description?: string | null }>;
  /** Dataset items by id (upserted by id; an id is the project's, never reused across datasets). */
  items: Map<string, Record<string, unknown> & { datasetId: string }>;
  /** Traces by id, as `trace-create` events upsert them. */
  traces: Map<string, Record<string, unknown>>;
  /** Dataset runs by `datasetId runName` (made or found by name), and every run item made (Langfuse makes a new one each call). */
  runs: Map<string, { id: string; name: string; datasetId: string }>;
  runItems: {
    id: string;
    datasetRunId: string;
    datasetRunName: string;
    datasetItemId: string;
    traceId: string;
  }[];
}

export async function fakeLangfuse({
  publicKey = "pk-lf-test",
  secretKey = "sk-lf-test",
  configs = [],
}: {
  publicKey?: string;
  secretKey?: string;
  configs?: FakeLangfuse["configs"];
} = {}): Promise<FakeLangfuse> {
  const scores = new Map<string, Record<string, unknown>>();
  const arrivals = new Map<string, number>();
  const kept = [...configs];
  const datasets: FakeLangfuse["datasets"] = new Map();
  const items: FakeLangfuse["items"] = new Map();
  const traces: FakeLangfuse["traces"] = new Map();
  const runs: FakeLangfuse["runs"] = new Map();
  const runItems: FakeLangfuse["runItems"] = [];
  const runItemBody = (r: FakeLangfuse["runItems"][number]) => ({
    ...r,
    observationId: null,
    createdAt: STAMP,
    updatedAt: STAMP,
  });
  const expected = `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString("base64")}`;
  let base: FakeBase;
  const invalid = (path: string, errors: unknown) => {
    base.invalid.push({ path, errors: JSON.stringify(errors) });
    return { status: 400, body: { message: "Invalid request data", error: errors } };
  };
  base = await serve(
    (request) => {
      const path = request.path.split("?")[0]!;
      if (path === "/api/public/score-configs" && request.method === "GET") {
        const page = Number(new URL(request.path, "http://x").searchParams.get("page") ?? 1);
        const limit = Number(new URL(request.path, "http://x").searchParams.get("limit") ?? 50);
        const data = kept.slice((page - 1) * limit, page * limit).map((c) => ({
          ...c,
          createdAt: "2026-01-01T00:00:00.000Z",
          updatedAt: "2026-01-01T00:00:00.000Z",
          projectId: "project-1",
        }));
        return {
          status: 200,
          body: {
            data,
            meta: { page, limit, totalItems: kept.length, totalPages: Math.ceil(kept.length / limit) },
          },
        };
      }
      if (path === "/api/public/score-configs" && request.method === "POST") {
        if (!validConfig(request.body)) return invalid(path, validConfig.errors);
        const body = request.body as { name: string; dataType: string; minValue?: number; maxValue?: number };
        if (!/^[A-Za-z0-9_ .()-]{1,35}$/.test(body.name)) return invalid(path, "config name");
        const config = { id: `config-${kept.length + 1}`, isArchived: false, ...body };
        kept.push(config);
        return {
          status: 200,
          body: {
            ...config,
            createdAt: "2026-01-01T00:00:00.000Z",
            updatedAt: "2026-01-01T00:00:00.000Z",
            projectId: "project-1",
          },
        };
      }
      if (path === "/api/public/scores" && request.method === "POST") {
        if (!validScore(request.body)) return invalid(path, validScore.errors);
        const body = request.body as Record<string, unknown> & { id: string; name: string; value: number };
        if (!body.traceId && !body.sessionId && !body.datasetRunId)
          return invalid(path, "a score needs a traceId, sessionId or datasetRunId");
        if (body.observationId && !body.traceId)
          return invalid(path, "an observation score needs its traceId");
        if (body.configId) {
          const config = kept.find((c) => c.id === body.configId);
          if (!config || config.name !== body.name)
            return invalid(path, "the config's name is not the score's");
          if ((config.minValue ?? -Infinity) > body.value || (config.maxValue ?? Infinity) < body.value)
            return invalid(path, "value out of the config's range");
        }
        scores.set(body.id, body);
        arrivals.set(body.id, (arrivals.get(body.id) ?? 0) + 1);
        return { status: 200, body: { id: body.id } };
      }
      if (path === "/api/public/v2/datasets" && request.method === "POST") {
        if (!validDataset(request.body)) return invalid(path, validDataset.errors);
        const body = request.body as { name: string; description?: string | null; metadata?: unknown };
        const dataset = {
          ...datasets.get(body.name),
          ...body,
          id: datasets.get(body.name)?.id ?? `dataset-${datasets.size + 1}`,
        };
        datasets.set(body.name, dataset);
        const answer = {
          description: null,
          metadata: null,
          inputSchema: null,
          expectedOutputSchema: null,
          ...dataset,
        };
        return {
          status: 200,
          body: { ...answer, projectId: "project-1", createdAt: STAMP, updatedAt: STAMP },
        };
      }
      if (path === "/api/public/dataset-items" && request.method === "POST") {
        if (!validDatasetItem(request.body)) return invalid(path, validDatasetItem.errors);
        const body = request.body as Record<string, unknown> & { datasetName: string; id?: string };
        const dataset = datasets.get(body.datasetName);
        if (!dataset) return { status: 404, body: { message: "Dataset not found" } };
        const id = body.id ?? `item-${items.size + 1}`;
        const before = items.get(id);
        if (before && before.datasetId !== dataset.id)
          return invalid(path, "a dataset item id cannot be reused across datasets");
        const item = { ...before, ...body, id, datasetId: dataset.id, status: "ACTIVE" };
        items.set(id, item);
        return { status: 200, body: { ...item, createdAt: STAMP, updatedAt: STAMP } };
      }
      if (path === "/api/public/ingestion" && request.method === "POST") {
        if (!validIngestion(request.body)) return invalid(path, validIngestion.errors);
        const { batch } = request.body as { batch: { id: string; type: string; body: { id?: string } }[] };
        for (const event of batch)
          if (event.type === "trace-create" && event.body.id)
            traces.set(event.body.id, { ...traces.get(event.body.id), ...event.body });
        return {
          status: 207,
          body: { successes: batch.map((e) => ({ id: e.id, status: 201 })), errors: [] },
        };
      }
      if (path === "/api/public/dataset-run-items" && request.method === "POST") {
        if (!validRunItem(request.body)) return invalid(path, validRunItem.errors);
        const body = request.body as { runName: string; datasetItemId: string; traceId?: string | null };
        const item = items.get(body.datasetItemId);
        if (!item) return { status: 404, body: { message: "Dataset item not found" } };
        if (!body.traceId) return { status: 404, body: { message: "Trace not found" } };
        const key = `${item.datasetId} ${body.runName}`;
        const run = runs.get(key) ?? {
          id: `run-${runs.size + 1}`,
          name: body.runName,
          datasetId: item.datasetId,
        };
        runs.set(key, run);
        const made = {
          id: `run-item-${runItems.length + 1}`,
          datasetRunId: run.id,
          datasetRunName: run.name,
          datasetItemId: item.id as string,
          traceId: body.traceId,
        };
        runItems.push(made);
        return { status: 200, body: runItemBody(made) };
      }
      if (path === "/api/public/dataset-run-items" && request.method === "GET") {
        const query = new URL(request.path, "http://x").searchParams;
        const datasetId = query.get("datasetId");
        const runName = query.get("runName");
        if (!datasetId || !runName) return invalid(path, "datasetId and runName are required");
        const run = runs.get(`${datasetId} ${runName}`);
        if (!run) return { status: 404, body: { message: "Dataset run not found" } };
        const page = Number(query.get("page") ?? 1);
        const limit = Number(query.get("limit") ?? 50);
        const all = runItems.filter((r) => r.datasetRunId === run.id);
        const data = all.slice((page - 1) * limit, page * limit).map(runItemBody);
        return {
          status: 200,
          body: {
            data,
            meta: { page, limit, totalItems: all.length, totalPages: Math.ceil(all.length / limit) },
          },
        };
      }
      return { status: 404, body: { message: "not found" } };
    },
    { auth: (req) => req.headers.authorization === expected },
  );
  return Object.assign(base, { scores, arrivals, configs: kept, datasets, items, traces, runs, runItems });
}

// --- Phoenix -----------------------------------------------------------------------------------------------

// Restated from Phoenix's schemas/openapi.json (AnnotationResult, SpanAnnotationData, TraceAnnotationData,
// SessionAnnotationData, and the Annotate…RequestBody objects that hold them as `data`).
const AnnotationResult = z
  .object({
    label: z.string().nullable().optional(),
    score: z.number().nullable().optional(),
    explanation: z.string().nullable().optional(),
  })
  .strict();
const AnnotationData = {
  name: z.string(),
  annotator_kind: z.enum(["LLM", "CODE", "HUMAN"]),
  result: AnnotationResult.nullable().optional(),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  identifier: z.string().optional(),
};
const AnnotateSpans = z
  .object({ data: z.array(z.object({ ...AnnotationData, span_id: z.string() }).strict()) })
  .strict();
const AnnotateTraces = z
  .object({ data: z.array(z.object({ ...AnnotationData, trace_id: z.string() }).strict()) })
  .strict();
const AnnotateSessions = z
  .object({ data: z.array(z.object({ ...AnnotationData, session_id: z.string() }).strict()) })
  .strict();

export interface FakePhoenix extends FakeBase {
  /** Annotations by (span or session, name, identifier), as Phoenix upserts them. */
  annotations: Map<string, Record<string, unknown>>;
}

export async function fakePhoenix({
  apiKey,
  spans,
  traces = [],
  sessions = [],
}: {
  apiKey?: string;
  /** The spans, traces and sessions it holds: an annotation of another is a 404 for the whole request. */
  spans: readonly string[];
  traces?: readonly string[];
  sessions?: readonly string[];
}): Promise<FakePhoenix> {
  const annotations = new Map<string, Record<string, unknown>>();
  let base: FakeBase;
  base = await serve(
    (request) => {
      const path = request.path.split("?")[0]!;
      const kind = (
        {
          "/v1/span_annotations": "span",
          "/v1/trace_annotations": "trace",
          "/v1/session_annotations": "session",
        } as const
      )[path as "/v1/span_annotations"];
      if (!kind || request.method !== "POST") return { status: 404, body: "not found" };
      const parsed = { span: AnnotateSpans, trace: AnnotateTraces, session: AnnotateSessions }[
        kind
      ].safeParse(request.body);
      if (!parsed.success) {
        base.invalid.push({ path, errors: parsed.error.message });
        return { status: 422, body: { detail: parsed.error.issues } };
      }
      const items = parsed.data.data as (Record<string, unknown> & { name: string; identifier?: string })[];
      const held = { span: spans, trace: traces, session: sessions }[kind];
      const target = (a: Record<string, unknown>) => String(a[`${kind}_id`]);
      const missing = items.find((a) => !held.includes(target(a)));
      if (missing) return { status: 404, body: `${kind} not found: ${target(missing)}` };
      const ids = items.map((a) => {
        const key = `${kind} ${target(a)} ${a.name} ${a.identifier ?? ""}`;
        annotations.set(key, a);
        return { id: key };
      });
      return { status: 200, body: { data: ids } };
    },
    { auth: (req) => apiKey === undefined || req.headers.authorization === `Bearer ${apiKey}` },
  );
  return Object.assign(base, { annotations });
}

// --- OTLP collector ----------------------------------------------------------------------------------------

const AnyValue = z.union([
  z.object({ stringValue: z.string() }).strict(),
  z.object({ doubleValue: z.number() }).strict(),
  z.object({ intValue: z.union([z.string(), z.number()]) }).strict(),
  z.object({ boolValue: z.boolean() }).strict(),
]);
const KeyValue = z.object({ key: z.string(), value: AnyValue }).strict();
const LogRecord = z
  .object({
    timeUnixNano: z.string().regex(/^\d+$/),
    observedTimeUnixNano: z.string().regex(/^\d+$/).optional(),
    severityNumber: z.number().int().min(0).max(24).optional(),
    severityText: z.string().optional(),
    eventName: z.string().optional(),
    body: AnyValue.optional(),
    attributes: z.array(KeyValue).optional(),
    traceId: z
      .string()
      .regex(/^[0-9a-f]{32}$/)
      .optional(),
    spanId: z
      .string()
      .regex(/^[0-9a-f]{16}$/)
      .optional(),
  })
  .strict();
const ExportLogsServiceRequest = z
  .object({
    resourceLogs: z.array(
      z
        .object({
          resource: z
            .object({ attributes: z.array(KeyValue) })
            .strict()
            .optional(),
          scopeLogs: z.array(
            z
              .object({
                scope: z.object({ name: z.string(), version: z.string().optional() }).strict().optional(),
                schemaUrl: z.string().optional(),
                logRecords: z.array(LogRecord),
              })
              .strict(),
          ),
        })
        .strict(),
    ),
  })
  .strict();

export type OtlpRecord = z.infer<typeof LogRecord>;

export interface FakeCollector extends FakeBase {
  records: OtlpRecord[];
  /** Answer with a partial success rejecting this many of the next request's records. */
  rejectNext: (count: number) => void;
}

export async function fakeCollector({ token }: { token?: string } = {}): Promise<FakeCollector> {
  const records: OtlpRecord[] = [];
  let reject = 0;
  let base: FakeBase;
  base = await serve(
    (request) => {
      if (request.path !== "/v1/logs" || request.method !== "POST") return { status: 404 };
      const parsed = ExportLogsServiceRequest.safeParse(request.body);
      if (!parsed.success) {
        base.invalid.push({ path: request.path, errors: parsed.error.message });
        return { status: 400, body: { code: 3, message: parsed.error.message } };
      }
      const got = parsed.data.resourceLogs.flatMap((r) => r.scopeLogs.flatMap((s) => s.logRecords));
      const rejected = Math.min(reject, got.length);
      reject = 0;
      records.push(...got.slice(rejected));
      return {
        status: 200,
        body: rejected
          ? { partialSuccess: { rejectedLogRecords: String(rejected), errorMessage: "too old" } }
          : {},
      };
    },
    { auth: (req) => token === undefined || req.headers.authorization === `Bearer ${token}` },
  );
  return Object.assign(base, {
    records,
    rejectNext: (n: number) => {
      reject = n;
    },
  });
}
