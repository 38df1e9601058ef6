// The dashboard's two static files, read once from beside this module (the build copies them to dist/):
// the stylesheet and the small script. Served from the package, never from a CDN.
import { readFileSync } from "node:fs";

const read = (name: string) => readFileSync(new URL(`./assets/${name}`, import.meta.url), "utf8");

export const ASSETS: Readonly<Record<string, { body: string; type: string }>> = {
  "dashboard.css": { body: read("dashboard.css"), type: "text/css; charset=utf-8" },
  "dashboard.js": { body: read("dashboard.js"), type: "text/javascript; charset=utf-8" },
};
