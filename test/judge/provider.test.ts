import { afterEach, describe, expect, it } from "vitest";
import {
  createJudgeModel,
  isFatalJudgeError,
  isLocalHost,
  LlmJudge,
  PLACEHOLDER_API_KEY,
} from "../../src/judge/index.ts";
import type { FakeOpenAIServer } from "../../src/testing/index.ts";
import { startFakeOpenAIServer } from "../../src/testing/index.ts";
import { inputError } from "../input-error.ts";

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const request = {
  items: [
    { key: { dimension: "adherence", proposition_id: "a", trial: 1 }, kind: "score" as const, claim: "c" },
  ],
  context: { trajectory: { title: "t", text: "Marta acts: [TALK] hi" } },
  doubleCheck: false,
};

describe("createJudgeModel", () => {
  it("builds an OpenAI model from openai:MODEL with the key from OPENAI_API_KEY", () => {
    const { model, descriptor } = createJudgeModel("openai:fake-model-b", {
      env: { OPENAI_API_KEY: "sk-secret-123456" },
    });
    expect(typeof model).toBe("object");
    expect(descriptor).toEqual({ provider: "openai", model: "fake-model-b" });
  });

  it("builds an Anthropic model from anthropic:MODEL", () => {
    const { descriptor } = createJudgeModel("anthropic:fake-model-a", {
      env: { ANTHROPIC_API_KEY: "k-123456" },
    });
    expect(descriptor).toEqual({ provider: "anthropic", model: "fake-model-a" });
  });

  it("rejects a malformed spec with the accepted forms", () => {
    for (const spec of ["fake-model", "openai:", "openai: fake", ""]) {
      expect(inputError(() => createJudgeModel(spec, { env: {} })).message).toMatch(
        /expected openai:MODEL, anthropic:MODEL/,
      );
    }
  });

  it("rejects an unknown provider with the accepted forms", () => {
    const error = inputError(() => createJudgeModel("gemini:pro", { env: {} }));
    expect(error.message).toMatch(/unknown judge provider "gemini"/);
    expect(error.message).toMatch(/openai-compatible:MODEL/);
    expect(error.exitCode).toBe(2);
  });

  it("an openai-compatible judge needs a base URL", () => {
    expect(inputError(() => createJudgeModel("openai-compatible:llama3", { env: {} })).message).toMatch(
      /needs a base URL/,
    );
  });

  it("a hosted judge without its key names the variable to set", () => {
    expect(inputError(() => createJudgeModel("openai:fake-model-b", { env: {} })).message).toMatch(
      /set OPENAI_API_KEY/,
    );
    expect(inputError(() => createJudgeModel("anthropic:fake-model-a", { env: {} })).message).toMatch(
      /set ANTHROPIC_API_KEY/,
    );
  });

  it("a variable named by apiKeyEnv must be set", () => {
    const error = inputError(() => createJudgeModel("openai:fake-model", { apiKeyEnv: "MY_KEY", env: {} }));
    expect(error.message).toMatch(/MY_KEY/);
  });

  it("rejects a base URL that is not http(s) or that carries credentials", () => {
    expect(
      inputError(() => createJudgeModel("openai:m", { baseUrl: "ftp://x/v1", env: {} })).message,
    ).toMatch(/http/);
    expect(inputError(() => createJudgeModel("openai:m", { baseUrl: "not a url", env: {} })).message).toMatch(
      /invalid judge base URL/,
    );
    const error = inputError(() =>
      createJudgeModel("openai:m", { baseUrl: "http://u:hunter2@h/v1", env: {} }),
    );
    expect(error.message).not.toContain("hunter2");
  });

  it("keeps query strings and credentials out of the descriptor's base URL", () => {
    const { descriptor } = createJudgeModel("openai-compatible:m", {
      baseUrl: "https://gateway.example.com/v1?token=abc",
      apiKeyEnv: "GW_KEY",
      env: { GW_KEY: "gw-secret-999" },
    });
    expect(descriptor).toEqual({
      provider: "openai-compatible",
      model: "m",
      base_url: "https://gateway.example.com/v1",
    });
    expect(JSON.stringify(descriptor)).not.toMatch(/abc|gw-secret/);
  });

  it("recognises local and private hosts", () => {
    for (const host of [
      "localhost",
      "127.0.0.1",
      "[::1]",
      "10.1.2.3",
      "192.168.1.5",
      "172.20.0.2",
      "box.local",
    ])
      expect(isLocalHost(host), host).toBe(true);
    for (const host of ["api.example.com", "8.8.8.8", "172.32.0.1"])
      expect(isLocalHost(host), host).toBe(false);
  });

  it("a local openai: server gets the placeholder key, not the hosted one", async () => {
    server = await startFakeOpenAIServer({ requireApiKey: PLACEHOLDER_API_KEY });
    const { model, descriptor, redact } = createJudgeModel("openai:fake-model", {
      baseUrl: server.url,
      env: { OPENAI_API_KEY: "sk-hosted-should-not-leave" },
    });
    const response = await new LlmJudge({ model, descriptor, redact }).judge(request);
    expect(response.verdicts[0]!.ok).toBe(true);
    expect(descriptor).toEqual({ provider: "openai", model: "fake-model", base_url: server.url });
    expect(server.stats.requests[0]!.model).toBe("fake-model");
  });

  it("an openai-compatible server is called with the key from apiKeyEnv, with a json_schema response format", async () => {
    server = await startFakeOpenAIServer({ requireApiKey: "local-key-42" });
    const judgeModel = createJudgeModel("openai-compatible:qwen", {
      baseUrl: server.url,
      apiKeyEnv: "LOCAL_KEY",
      env: { LOCAL_KEY: "local-key-42" },
    });
    const response = await new LlmJudge(judgeModel).judge(request);
    expect(response.verdicts[0]!.ok).toBe(true);
    expect(server.stats.requests[0]!.response_format?.type).toBe("json_schema");
  });

  it("a wrong key surfaces as a fatal error without the key in it", async () => {
    server = await startFakeOpenAIServer({ requireApiKey: "the-right-one" });
    const judgeModel = createJudgeModel("openai:fake-model", {
      baseUrl: server.url,
      apiKeyEnv: "JUDGE_KEY",
      env: { JUDGE_KEY: "plain-wrong-key" },
    });
    const judge = new LlmJudge(judgeModel);
    const error = await judge.judge(request).catch((e: unknown) => e);
    expect(isFatalJudgeError(error)).toBe(true);
    expect((error as Error).message).toMatch(/HTTP 401/);
    expect((error as Error).message).not.toContain("plain-wrong-key");
    expect(JSON.stringify(judge.descriptor)).not.toContain("plain-wrong-key");
    expect(judgeModel.redact("echo plain-wrong-key echo")).toBe("echo [redacted] echo");
  });
});
