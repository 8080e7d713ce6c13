// Bundle budget: gzips the JavaScript a first visit needs before it can show anything (the
// entry chunk plus the static imports index.html preloads) and fails above the budget.
// Lazily loaded chunks are not counted. Run after `npm run build`.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const BUDGET_KB = 90;
const dist = fileURLToPath(new URL("../dist/app/", import.meta.url));

let html;
try {
  html = readFileSync(join(dist, "index.html"), "utf8");
} catch {
  console.error("size: renderer/dist/app/index.html is missing; run `npm run build` first");
  process.exit(1);
}

const scripts = [...html.matchAll(/<script\b[^>]*\btype="module"[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]);
const preloads = [...html.matchAll(/<link\b[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+)"/g)].map((m) => m[1]);
const files = [...new Set([...scripts, ...preloads])];
if (scripts.length === 0) {
  console.error("size: no module script in index.html");
  process.exit(1);
}

let bytes = 0;
for (const file of files) {
  const size = gzipSync(readFileSync(join(dist, file.replace(/^\//, ""))), { level: 9 }).length;
  bytes += size;
  console.log(`  ${file}: ${(size / 1024).toFixed(1)} KB gzip`);
}
const kb = bytes / 1024;
console.log(`initial JS gzip: ${kb.toFixed(1)} KB`);
if (kb > BUDGET_KB) {
  console.error(`size: initial JS is over the ${BUDGET_KB} KB budget`);
  process.exit(1);
}
