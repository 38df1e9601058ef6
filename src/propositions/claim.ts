// Fills a proposition's claim with the template variables of the format doc (`{{agent_name}}`, …).
import { type PropositionSpec, renderTemplate } from "../core/index.ts";

/** The variable names a claim may use (format doc); any other `{{name}}` in a proposition file is refused. */
export const CLAIM_VARIABLE_NAMES = ["agent_name", "action", "channel_name", "recipient_name"] as const;

/** The variables a claim may use; a variable without a value stays as its `{{placeholder}}`. */
export interface ClaimVariables {
  agent_name?: string;
  action?: string;
  channel_name?: string;
  recipient_name?: string;
  readonly [name: string]: string | undefined;
}

/** Builds the claim variables from named values; omitted ones are left out (and stay placeholders). */
export function claimVariables({
  agentName,
  action,
  channelName,
  recipientName,
}: {
  /** The agent's display name, e.g. "Marta Ilves" → `{{agent_name}}`. */
  agentName?: string;
  /** The agent's action (message text) being evaluated → `{{action}}`. */
  action?: string;
  /** The channel the message was sent in → `{{channel_name}}`. */
  channelName?: string;
  /** The recipient's name, for direct messages only → `{{recipient_name}}`. */
  recipientName?: string;
}): ClaimVariables {
  const variables: Record<string, string> = {};
  if (agentName !== undefined) variables.agent_name = agentName;
  if (action !== undefined) variables.action = action;
  if (channelName !== undefined) variables.channel_name = channelName;
  if (recipientName !== undefined) variables.recipient_name = recipientName;
  return variables;
}

/** The proposition's claim with its variables filled in; unmatched variables stay as placeholders. */
export function renderClaim(
  proposition: Pick<PropositionSpec, "claim">,
  variables: Readonly<Record<string, string | undefined>>,
): string {
  return renderTemplate(proposition.claim, variables);
}
