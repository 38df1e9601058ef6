// Agents and their personas; the persona hash tells later runs whether a persona changed.
import { type Agent, contentHash, type Persona } from "../core/index.ts";
import { iso } from "./columns.ts";
import type { Queryable } from "./db.ts";

export interface AgentRow {
  id: string;
  name: string;
  persona: Persona;
  persona_hash: string;
  created_at: string;
  updated_at: string;
}

export interface AgentRepository {
  /** Inserts or updates agents by id (`updated_at` moves only when name or persona changed). */
  upsert(
    agents: Pick<Agent, "id" | "name" | "persona"> | readonly Pick<Agent, "id" | "name" | "persona">[],
  ): Promise<AgentRow[]>;
  get(id: string): Promise<AgentRow | undefined>;
  list(): Promise<AgentRow[]>;
}

/** The hash stored with an agent and with each of its runs. */
export function personaHash(persona: Persona): string {
  return contentHash(persona);
}

type Raw = Omit<AgentRow, "created_at" | "updated_at"> & {
  created_at: Date | string;
  updated_at: Date | string;
};

const toRow = (r: Raw): AgentRow => ({ ...r, created_at: iso(r.created_at), updated_at: iso(r.updated_at) });

export function agentRepository(db: Queryable): AgentRepository {
  return {
    async upsert(input) {
      const agents = Array.isArray(input) ? input : [input as Pick<Agent, "id" | "name" | "persona">];
      if (agents.length === 0) return [];
      // One statement may not update a row twice: the last spelling of an id wins.
      const byId = new Map(agents.map((a) => [a.id, a]));
      const records = [...byId.values()].map((a) => ({
        id: a.id,
        name: a.name,
        persona: a.persona,
        persona_hash: personaHash(a.persona),
      }));
      const result = await db.query<Raw>(
        `INSERT INTO agents (id, name, persona, persona_hash)
         SELECT x.id, x.name, x.persona, x.persona_hash
           FROM jsonb_to_recordset($1::jsonb) AS x(id text, name text, persona jsonb, persona_hash text)
         ON CONFLICT (id) DO UPDATE
           SET name = excluded.name, persona = excluded.persona, persona_hash = excluded.persona_hash,
               updated_at = CASE
                 WHEN agents.name IS DISTINCT FROM excluded.name OR agents.persona_hash IS DISTINCT FROM excluded.persona_hash
                 THEN now() ELSE agents.updated_at END
         RETURNING *`,
        [JSON.stringify(records)],
      );
      return result.rows.map(toRow);
    },
    async get(id) {
      const result = await db.query<Raw>("SELECT * FROM agents WHERE id = $1", [id]);
      const row = result.rows[0];
      return row && toRow(row);
    },
    async list() {
      const result = await db.query<Raw>("SELECT * FROM agents ORDER BY id");
      return result.rows.map(toRow);
    },
  };
}
