// The flags of a command that talks to a live agent with a simulated user (converse, drift): the agent's
// endpoint and the simulated user's model and server, declared once (the user's model is built in simulated-user-model.ts).
import type { Command } from "commander";

export interface TargetFlags {
  targetUrl?: string;
  userModel?: string;
  userBaseUrl?: string;
  userApiKeyEnv?: string;
}

/** `--target-url` and the simulated user's `--user-model`, `--user-base-url`, `--user-api-key-env`. */
export function addTargetOptions(command: Command, help: { targetUrl: string; userModel: string }): Command {
  return command
    .option("--target-url <url>", help.targetUrl)
    .option("--user-model <spec>", help.userModel)
    .option("--user-base-url <url>", "base URL of an OpenAI-compatible server for the simulated user")
    .option("--user-api-key-env <name>", "environment variable that holds the simulated user's API key");
}
