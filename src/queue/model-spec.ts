// A model a queued job names: its spec, where it is served and which variable holds its key — never the key:
// the worker builds the model with its own environment's.
import { z } from "zod";

const optionalText = z.string().min(1).optional();

export const ModelSpecSchema = z.object({
  spec: z.string().min(1),
  base_url: optionalText,
  api_key_env: optionalText,
});
export type ModelSpec = z.infer<typeof ModelSpecSchema>;

/** A model spec with the settings a job keeps of it (base URL, key variable). */
export function modelSpec(
  model: string,
  { baseUrl, apiKeyEnv }: { baseUrl?: string; apiKeyEnv?: string } = {},
): ModelSpec {
  return {
    spec: model,
    ...(baseUrl !== undefined ? { base_url: baseUrl } : {}),
    ...(apiKeyEnv !== undefined ? { api_key_env: apiKeyEnv } : {}),
  };
}
