// A language model whose provider package is imported by its first call, so that importing dramaturg or
// building a judge (parsing the spec, checking the key) does not load the AI SDK providers.
import type { LanguageModelV4 } from "@ai-sdk/provider";

export function deferredLanguageModel(
  provider: string,
  modelId: string,
  load: () => Promise<LanguageModelV4>,
): LanguageModelV4 {
  let loading: Promise<LanguageModelV4> | undefined;
  const model = () => (loading ??= load());
  return {
    specificationVersion: "v4",
    provider,
    modelId,
    get supportedUrls() {
      return model().then((m) => m.supportedUrls);
    },
    doGenerate: async (options) => (await model()).doGenerate(options),
    doStream: async (options) => (await model()).doStream(options),
  };
}
