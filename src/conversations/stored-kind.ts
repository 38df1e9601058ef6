// The conversation kind read back: a stored run by id, the list of runs, its reports, the API's schemas.
import { z } from "zod";
import { type StoredKind, storedListTable } from "../engine/index.ts";
import { num, renderConversationTable } from "./conversation-report.ts";
import {
  CONVERSATION_RESULT_FORMAT,
  type ConversationResult,
  listConversationResults,
  loadConversationResult,
} from "./run-conversation.ts";

type ConversationLine = Awaited<ReturnType<typeof listConversationResults>>[number];

export const conversationKind: StoredKind<ConversationResult, ConversationLine> = {
  kind: "conversation",
  noun: "conversation",
  section: "conversations",
  format: CONVERSATION_RESULT_FORMAT,
  load: (store, id) => loadConversationResult({ store, id }),
  list: (store, query) => listConversationResults({ store, ...query }),
  text: (result) => `${renderConversationTable([result])}\n`,
  // `show --format markdown` has always printed the table for a conversation (`converse` prints Markdown).
  markdown: (result) => `${renderConversationTable([result])}\n`,
  json: (result) => result,
  listTable: (rows) =>
    storedListTable(rows, "without facts  with facts  job", (r) => {
      const score = (pass: string) => num(r.passes.find((p) => p.pass === pass)?.score ?? null);
      return `${score("without_facts").padStart(13)}  ${score("with_facts").padStart(10)}  ${r.job}`;
    }),
  readBack: "evaluation",
  htmlReport: true,
  api: {
    list: {
      summary: "stored conversation runs, newest first",
      description: "a page of conversation runs: id, status, job, each pass's composite score",
      // A conversation's agent is the agent under test: its job's `target.chatbot`. Conversations are scored by
      // tasks and assertions, not by dimensions, so there is no dimension filter.
      agent: "only conversations with this agent under test (the job's target.chatbot)",
      row: z.looseObject({ id: z.string() }),
    },
    one: {
      summary: "one stored conversation run's result",
      description: "the result",
      conflict: "the run did not complete",
      document: z.looseObject({ format: z.string(), evaluation_id: z.string() }).meta({
        id: "ConversationResult",
        description: "dramaturg.conversation-result/v1 with its evaluation id",
      }),
    },
  },
};
