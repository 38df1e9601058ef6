// Turns a judge spec such as `openai:gpt-5-mini` or `openai-compatible:llama3.1` (plus a base URL) into an
// AI SDK model. API keys come from the environment only, and never reach the descriptor.
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { LanguageModel } from "ai";
import {
  InputError,
  type JudgeProvider,
  type JudgeSpec,
  parseJudgeSpec,
  redactSecrets,
} from "../core/index.ts";
import { gateAtTransport } from "./answered.ts";
import { deferredLanguageModel } from "./deferred-model.ts";
import { rateLimitKey } from "./rate-limit.ts";
import { endpointOf, type ProbeOptions, probeEndpoint } from "./reachability.ts";

/** Sent as the key to local servers that want none (Ollama, vLLM, llama.cpp); the clients insist on one. */
export const PLACEHOLDER_API_KEY = "not-needed";

const DEFAULT_KEY_VARIABLES: Readonly<Record<JudgeProvider, string | undefined>> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  // A key meant for OpenAI is never sent to some other server unless the user names it with apiKeyEnv.
  "openai-compatible": undefined,
};

export interface JudgeModelOptions {
  /**
   * Base URL of the server, ending where the API paths start (`http://127.0.0.1:11434/v1`). With `openai:`
   * it selects the chat-completions API, which is all most local servers speak.
   */
  baseUrl?: string;
  /** Name of the environment variable that holds the API key, instead of the provider's usual one. */
  apiKeyEnv?: string;
  /** Where to read keys; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Before its first call the model checks once that its server answers at all (reachability.ts): when it
   * does not, that call and every later one fail at once with a fatal `network` JudgeError naming the URL.
   * `role` and `fix` word that message ("judge" and the judge's flags by default); `false` skips the check.
   */
  probe?: false | Pick<ProbeOptions, "role" | "fix" | "timeoutMs">;
}

export interface JudgeModel {
  model: LanguageModel;
  /** Provider, model id and base URL (stripped of credentials and query), for the run record. */
  descriptor: { provider: JudgeProvider; model: string; base_url?: string };
  /** Removes this model's API key (and anything else that looks like a secret) from text, for error messages. */
  redact: (text: string) => string;
  /** The key its rate limit is kept under: provider, model and a digest of the API key (rate-limit.ts). */
  rateLimitKey: string;
}

/**
 * Builds the model of a judge spec (text is parsed with {@link parseJudgeSpec}). Bad specs, a fixtures
 * spec and missing keys throw an {@link InputError}.
 */
export function createJudgeModel(
  spec: string | JudgeSpec,
  { baseUrl, apiKeyEnv, env = process.env, probe = {} }: JudgeModelOptions = {},
): JudgeModel {
  const parsed = typeof spec === "string" ? parseJudgeSpec(spec) : spec;
  if (parsed.kind === "fixtures")
    throw new InputError(
      `judge "fixtures:${parsed.file}" replays a file and has no model; expected openai:MODEL, anthropic:MODEL or openai-compatible:MODEL`,
    );
  const { provider, model: modelId } = parsed;
  const name = `${provider}:${modelId}`;

  const url = baseUrl === undefined ? undefined : parseBaseUrl(baseUrl);
  if (provider === "openai-compatible" && !url)
    throw new InputError(
      `judge "${name}" needs a base URL (the server's address, e.g. http://127.0.0.1:8000/v1)`,
    );

  const apiKey = resolveApiKey(provider, url, apiKeyEnv, env);
  const baseURL = url?.href.replace(/\/$/, "");
  const endpoint = endpointOf(provider, url ? publicUrl(url) : undefined);
  // The provider package loads with the first call (see deferred-model.ts).
  // Every request goes through nodeFetch with its call's signal: the judge's slot is taken there (answered.ts).
  const model: LanguageModel = gateAtTransport(
    deferredLanguageModel(provider, modelId, async (): Promise<LanguageModelV4> => {
      // Once, before the first call: a server that is not there stops the run now, not after its timeouts.
      // The probe's round trip overlaps the provider package's load; the probe's failure is the one reported.
      const [, built] = await Promise.all([
        probe && endpoint ? probeEndpoint({ url: endpoint, ...probe }) : undefined,
        providerModel(provider, modelId, baseURL, apiKey),
      ]);
      return built;
    }),
  );
  return {
    model,
    descriptor: { provider, model: modelId, ...(url ? { base_url: publicUrl(url) } : {}) },
    redact: (text) => redactSecrets(text, { secrets: apiKey === PLACEHOLDER_API_KEY ? [] : [apiKey] }),
    rateLimitKey: rateLimitKey(provider, modelId, apiKey),
  };
}

/** The provider's model on our fetch: node:http(s) and zlib load with the provider, not with dramaturg. */
async function providerModel(
  provider: JudgeProvider,
  modelId: string,
  baseURL: string | undefined,
  apiKey: string,
): Promise<LanguageModelV4> {
  const { nodeFetch } = await import("./node-fetch.ts");
  switch (provider) {
    case "openai": {
      const { createOpenAI } = await import("@ai-sdk/openai");
      return baseURL
        ? createOpenAI({ baseURL, apiKey, fetch: nodeFetch }).chat(modelId)
        : createOpenAI({ apiKey, fetch: nodeFetch })(modelId);
    }
    case "anthropic": {
      const { createAnthropic } = await import("@ai-sdk/anthropic");
      return createAnthropic({ apiKey, fetch: nodeFetch, ...(baseURL ? { baseURL } : {}) })(modelId);
    }
    case "openai-compatible": {
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
      return createOpenAICompatible({
        name: "openai-compatible",
        baseURL: baseURL!,
        apiKey,
        fetch: nodeFetch,
        supportsStructuredOutputs: true,
      }).chatModel(modelId);
    }
  }
}

function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new InputError(
      `invalid judge base URL "${publicText(baseUrl)}": expected an http(s) URL such as http://127.0.0.1:11434/v1`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new InputError(`invalid judge base URL "${publicUrl(url)}": expected http:// or https://`);
  if (url.username || url.password)
    throw new InputError(
      `the judge base URL "${publicUrl(url)}" carries credentials: put the key in an environment variable and name it with --judge-api-key-env`,
    );
  return url;
}

function resolveApiKey(
  provider: JudgeProvider,
  url: URL | undefined,
  apiKeyEnv: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string {
  if (apiKeyEnv !== undefined) {
    const key = env[apiKeyEnv];
    if (!key)
      throw new InputError(
        `the environment variable ${apiKeyEnv}, named as the judge's API key variable, is not set`,
      );
    return key;
  }
  // Local servers get the placeholder even when a hosted key is set: there is no reason to hand it over.
  if (url && isLocalHost(url.hostname)) return PLACEHOLDER_API_KEY;
  const variable = DEFAULT_KEY_VARIABLES[provider];
  const key = variable ? env[variable] : undefined;
  if (key) return key;
  if (url) return PLACEHOLDER_API_KEY;
  throw new InputError(
    `judge ${provider} needs an API key: set ${variable} in the environment, or name another variable with --judge-api-key-env`,
  );
}

/** Loopback, `.local`/`.localhost` names and private IPv4 ranges: servers on this machine or network. */
export function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host === "::1" || host === "0.0.0.0") return true;
  if (host.endsWith(".localhost") || host.endsWith(".local")) return true;
  const ip = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(host);
  if (!ip) return false;
  const [a, b] = [Number(ip[1]), Number(ip[2])];
  return a === 127 || a === 10 || (a === 192 && b === 168) || (a === 172 && b >= 16 && b <= 31);
}

/** The URL without user info, query or fragment: safe to store and print. */
function publicUrl(url: URL): string {
  const clean = new URL(url.href);
  clean.username = "";
  clean.password = "";
  clean.search = "";
  clean.hash = "";
  return clean.href.replace(/\/$/, "");
}

function publicText(text: string): string {
  return text.replace(/\/\/[^/@]*@/, "//").replace(/\?.*$/, "");
}
