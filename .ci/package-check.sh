#!/usr/bin/env bash
# The package as a user gets it: packs dramaturg, installs the tarball in a fresh folder and there runs the CLI,
# the demo on the installed example, `dramaturg init` with every command it suggests and its workflow's steps,
# plain .mjs consumers (persona scores; sessions, the action gate and the server; the command against a model
# judge over HTTP), a strict TypeScript consumer, a Vitest consumer, and the commands README.md and docs/ give for
# an installed project; then `npx dramaturg` in the clone itself. Uses the `node` on PATH (.ci/run calls it once
# per Node). Consumers are in .ci/consumer/.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

WORK=$(mktemp -d /tmp/dramaturg-package.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
step() { echo "package-check ($(node --version)): $*"; }

step "npm pack"
TARBALL="$WORK/$(npm pack --silent --pack-destination "$WORK" | tail -1)"
SHIPPED=$(tar tzf "$TARBALL")
if grep -E '^package/(src|test|bench|scripts|\.ci|\.github)/|\.test\.|\.ts$' <<<"$SHIPPED" | grep -v '\.d\.ts$'; then
  echo "package-check: the tarball ships the files above (tests, sources, benchmarks or CI)" >&2
  exit 1
fi
echo "  $(wc -l <<<"$SHIPPED") files, $(du -k "$TARBALL" | cut -f1) kB"

# The consumers' tools at the versions this repository is tested with.
version() { node -p "require('$ROOT/node_modules/$1/package.json').version"; }
APP="$WORK/app"
mkdir -p "$APP"
cp .ci/consumer/* "$APP/"
cd "$APP"
npm init -y >/dev/null
step "npm install the tarball (npm's warnings: only the expected ones, .ci/npm-warnings.mjs)"
# What the user sees: npm's own output, not silenced. The packed package.json has no `prepare`, which npm would
# list as an install script to approve (scripts/pack-manifest.mjs).
tar xzOf "$TARBALL" package/package.json | node -e '
  if (JSON.parse(require("fs").readFileSync(0, "utf8")).scripts?.prepare) throw new Error("the tarball has a prepare script");'
npm install --no-audit --no-fund "$TARBALL" \
  "typescript@$(version typescript)" "vitest@$(version vitest)" "@types/node@$(version @types/node)" >"$WORK/install.log" 2>&1 ||
  { cat "$WORK/install.log" >&2; exit 1; }
node "$ROOT/.ci/npm-warnings.mjs" "$WORK/install.log" "npm install of the tarball"

EXAMPLE=node_modules/dramaturg/examples/ensemble
step "dramaturg --help / --version"
npx --no-install dramaturg --help >/dev/null
npx --no-install dramaturg --version
step "demo on the installed example"
npx --no-install dramaturg eval "$EXAMPLE/transcript.json" --propositions "$EXAMPLE/propositions" \
  --judge "fixtures:$EXAMPLE/judge-fixtures.json" --db memory:// | tail -3
step "eval into a new folder store, then runs and show from it (the bundled CLI's PGlite thread and data directory)"
npx --no-install dramaturg eval "$EXAMPLE/transcript.json" --propositions "$EXAMPLE/propositions" \
  --judge "fixtures:$EXAMPLE/judge-fixtures.json" --db ./store --format json --out ./stored.json >/dev/null
npx --no-install dramaturg runs --db ./store --format json | node -e '
  const { runs } = JSON.parse(require("fs").readFileSync(0, "utf8"));
  if (!Array.isArray(runs) || runs.length === 0) throw new Error("no stored runs");
  console.log(`  ${runs.length} stored runs`);'
npx --no-install dramaturg show --db ./store | tail -1
step "the bin's code cache: made by the first eval in the project's node_modules/.cache, taken by the next (src/cli/code-cache.ts)"
ls node_modules/.cache/dramaturg/ | grep -E '^code-[0-9a-f]{16}-v[0-9.]+-.*-eval\.v8$' | sed 's/^/  /'
BEFORE=$(stat -c %i node_modules/.cache/dramaturg/code-*-eval.v8)
npx --no-install dramaturg eval "$EXAMPLE/transcript.json" --propositions "$EXAMPLE/propositions" \
  --judge "fixtures:$EXAMPLE/judge-fixtures.json" --db memory:// --format json | node -e '
  const r = JSON.parse(require("fs").readFileSync(0, "utf8"));
  if (r.format !== "dramaturg.eval-result/v1") throw new Error("no result from the cached bin");'
[ "$(stat -c %i node_modules/.cache/dramaturg/code-*-eval.v8)" = "$BEFORE" ] || { echo "the eval cache was written again" >&2; exit 1; }
step "dramaturg init, then every Next: command it prints and the generated workflow's run: steps (scripts/init-next-steps.ts)"
npx --no-install dramaturg init project >"$WORK/init.txt"
(cd "$ROOT" && node --import tsx scripts/init-next-steps.ts "$APP" "$WORK/init.txt")
step "strict TypeScript consumer (tsc --noEmit, module nodenext)"
npx --no-install tsc -p tsconfig.json

step "plain Node consumer (consumer.mjs: evaluatePersonas with the fixture judge)"
node consumer.mjs
step "plain Node consumer of the other families (families.mjs: a session's tool findings, the action gate, dramaturg/server)"
node families.mjs
step "the command with a model judge over HTTP (judge-over-http.mjs: the fake OpenAI server, key and user-agent checked)"
node judge-over-http.mjs
step "Vitest consumer (dramaturg/vitest: passes in character, fails naming the propositions on a drift)"
npx --no-install vitest run --root "$APP" stays-in-character.test.ts
step "the README's and docs/' installed commands (<!-- run: installed --> blocks), each page in a new folder of the app"
(cd "$ROOT" && node --import tsx scripts/doc-commands.ts installed "$APP")
# In a clone after npm ci, `npx dramaturg` is the clone's own command: npm links the clone into its npx
# cache and runs its prepare there, which finds dist/ up to date (scripts/prepare.mjs) and builds nothing.
step "npx dramaturg --help in the clone"
(cd "$ROOT" && npx dramaturg --help >/dev/null)
step "ok"
