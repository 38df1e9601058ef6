// The registry of stored kinds: every kind a store keeps and reads back, each declared once in its own folder
// (its `StoredKind`). `show`, `runs`, the API, the dashboard and the static report iterate this list, so a new
// kind is its folder and one line here. Only those faces import it: no command's start-up loads the kinds.
import { calibrationKind } from "../calibration/index.ts";
import { conversationKind } from "../conversations/index.ts";
import type { StoredKind } from "../engine/index.ts";
import { experimentKind } from "../experiments/index.ts";
import { personaKind } from "../personas/index.ts";
import { driftKind, redteamKind } from "../redteam/index.ts";
import { sessionKind } from "../sessions/index.ts";
import { simulationKind } from "../sim/index.ts";
import { validationKind } from "../validation/index.ts";

/**
 * In the order `show` tries an id: each kind's loader refuses an id of another kind. The persona kind comes
 * last, as the default: `show` with no id, or with an id of no kind, is its (its message explains).
 */
const KINDS: StoredKind[] = [
  sessionKind,
  conversationKind,
  calibrationKind,
  simulationKind,
  experimentKind,
  validationKind,
  driftKind,
  redteamKind,
  personaKind,
];

/** Every stored kind, the default (persona) last. */
export function storedKinds(): readonly StoredKind[] {
  return KINDS;
}

/** The kinds read back by evaluation id, each with its API and pages at `/<section>/{id}`. */
export function evaluationKinds(): readonly StoredKind[] {
  return KINDS.filter((k) => k.readBack === "evaluation");
}

/** The kind of a store's evaluations of `kind`, if one is registered. */
export function storedKindOf(kind: string): StoredKind | undefined {
  return KINDS.find((k) => k.kind === kind);
}

/**
 * Adds a kind (before the default, so that `show` tries it first). For kinds outside this package, such as a
 * test's: the package's own are listed above. A kind already registered under its name is replaced.
 */
export function registerStoredKind(kind: StoredKind): void {
  const at = KINDS.findIndex((k) => k.kind === kind.kind);
  if (at >= 0) KINDS[at] = kind;
  else KINDS.splice(KINDS.length - 1, 0, kind);
}
