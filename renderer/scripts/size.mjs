// Bundle budget: gzips the JavaScript a first visit needs before the app runs and fails above
// the budget. That is the entry (boot.ts), the app it always loads (main.tsx, a dynamic import
// so that a page the server has drawn paints first), and what those import statically: every
// script and modulepreload the page names. Chunks the app loads lazily are not counted: error
// reporting, and the contract's validator (zod and the schemas; runtime/validator.ts), which the
// page's first screen does not wait for. Run after `npm run build`.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const BUDGET_KB = 80;
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
if (scripts.length === 0) {
  console.error("size: no module script in index.html");
  process.exit(1);
}

// Chunk paths a built module names: static imports ("from"./x.js""), and for the entries, the
// dynamic ones (import("./x.js")), in any quotes. Vite writes them relative to the chunk.
const importsOf = (file, dynamic) => {
  const code = readFileSync(join(dist, file.replace(/^\//, "")), "utf8");
  const pattern = dynamic ? /(?:\bfrom\s*|\bimport\s*\(\s*)["'`](\.\/[^"'`]+\.js)["'`]/g : /\bfrom\s*["'`](\.\/[^"'`]+\.js)["'`]/g;
  const dir = file.slice(0, file.lastIndexOf("/") + 1);
  return [...code.matchAll(pattern)].map((m) => dir + m[1].slice(2));
};
const files = [];
const visit = (file, dynamic) => {
  if (files.includes(file)) return;
  files.push(file);
  for (const next of importsOf(file, dynamic)) visit(next, false);
};
for (const file of [...scripts, ...preloads]) visit(file, true);

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
