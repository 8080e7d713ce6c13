// The first-screen half of `make bench` (issue #12): starts the real binary as `make run` does
// (GLIMPSE_DEMO=1, a data folder of its own, a free loopback port), signs the demo subscriber in
// through the same HTTP API the renderer uses, and runs Lighthouse (mobile, simulated throttling:
// its defaults) in Debian's Chromium on the sign-in page signed out, the dashboard and Analytics.
// It prints LCP, TBT, FCP, CLS, the performance and accessibility scores and the failing audits.
//
//   node scripts/lighthouse.mjs                  # bin/glimpse, one run per page
//   LIGHTHOUSE_BIN=bin/other LIGHTHOUSE_RUNS=3 node scripts/lighthouse.mjs
//   LIGHTHOUSE_OUT=some/dir ...                # also keeps each run's full report as JSON
//   LIGHTHOUSE_VERBOSE=1 ...                   # names each page's LCP element
//   LIGHTHOUSE_PAGES=analytics,sign-in ...     # only these pages
//
// The machine's load moves the simulated figures too (Lighthouse scales its CPU model by the
// benchmark it takes at the start of each run), so compare runs made on the same machine.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";

const binary = process.env.LIGHTHOUSE_BIN ?? "bin/glimpse";
const runs = Number(process.env.LIGHTHOUSE_RUNS ?? "1");
const chromePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const demo = { email: "demo@example.com", password: "glimpse-demo" };
const chromeFlags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
const pages = [
  { name: "sign-in", path: "/sign-in", signedIn: false },
  { name: "dashboard", path: "/dashboard", signedIn: true },
  { name: "analytics", path: "/dashboard/analytics", signedIn: true },
];

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitReady(base, child) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${binary} exited with ${child.exitCode}`);
    try {
      const response = await fetch(`${base}/readyz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${binary} was not ready within 120 s`);
}

/** The name=value pairs of a response's Set-Cookie headers, merged into jar. */
function keepCookies(response, jar) {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const eq = pair.indexOf("=");
    if (eq > 0) jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
}

const cookieHeader = (jar) => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");

/** Signs in as the renderer does: the page's CSRF token and browser cookie, then session.sign_in. */
async function signIn(base) {
  const jar = new Map();
  const page = await fetch(`${base}/sign-in`);
  keepCookies(page, jar);
  const csrf = /<meta name="glimpse-csrf" content="([^"]+)"/.exec(await page.text())?.[1];
  if (csrf === undefined) throw new Error("the sign-in page carries no CSRF token");
  const response = await fetch(`${base}/ui/actions/session.sign_in`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json",
      "X-SDUI-Version": "1",
      "X-CSRF-Token": csrf,
      Cookie: cookieHeader(jar),
    },
    body: JSON.stringify({ values: { email: demo.email, password: demo.password }, path: "/sign-in" }),
  });
  keepCookies(response, jar);
  if (!response.ok) throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
  if (![...jar.keys()].some((name) => name.endsWith("glimpse_session"))) throw new Error("sign-in set no session cookie");
  return cookieHeader(jar);
}

/** The snippet of the first DOM node an audit's details name (the LCP element's audit). */
function firstNode(value) {
  if (typeof value !== "object" || value === null) return undefined;
  if (value.type === "node" && typeof value.snippet === "string") return value.snippet;
  for (const child of Object.values(value)) {
    const found = firstNode(child);
    if (found !== undefined) return found;
  }
  return undefined;
}

function figures(lhr) {
  const audit = (id) => lhr.audits[id]?.numericValue;
  // Every accessibility audit that fails, and the performance audits that score poorly.
  const refs = (category) => new Set(lhr.categories[category].auditRefs.map((ref) => ref.id));
  const accessibility = refs("accessibility");
  const performance = refs("performance");
  const failing = Object.values(lhr.audits)
    .filter((a) => a.score !== null && ["binary", "metricSavings"].includes(a.scoreDisplayMode))
    .filter((a) => (accessibility.has(a.id) && a.score < 1) || (performance.has(a.id) && a.score < 0.5))
    .map((a) => a.id);
  return {
    lcp: audit("largest-contentful-paint"),
    tbt: audit("total-blocking-time"),
    fcp: audit("first-contentful-paint"),
    cls: audit("cumulative-layout-shift"),
    performance: Math.round(lhr.categories.performance.score * 100),
    accessibility: Math.round(lhr.categories.accessibility.score * 100),
    failing,
    benchmarkIndex: lhr.environment.benchmarkIndex,
    lcpElement: firstNode(lhr.audits["largest-contentful-paint-element"] ?? lhr.audits["lcp-breakdown-insight"]),
  };
}

function printTable(rows) {
  // The CPU benchmark Lighthouse took before the run: its simulation scales the main thread's
  // observed work by 4 whatever the machine, so a slow or busy machine (an index well under
  // 1000) inflates LCP and TBT.
  const header = ["page", "run", "LCP ms", "TBT ms", "FCP ms", "CLS", "perf", "a11y", "cpu index", "failing audits"];
  const lines = rows.map((r) => [
    r.page,
    String(r.run),
    r.lcp.toFixed(0),
    r.tbt.toFixed(0),
    r.fcp.toFixed(0),
    r.cls.toFixed(3),
    String(r.performance),
    String(r.accessibility),
    String(Math.round(r.benchmarkIndex)),
    r.failing.join(" ") || "-",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const format = (cells) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join("  ");
  console.log(format(header));
  for (const line of lines) console.log(format(line));
}

/**
 * One Lighthouse run of url in a browser of its own: cookies one page's server sets (a signed-out
 * browser's id) would otherwise travel with the next page's and sign it out. A run whose trace
 * comes out broken (NO_NAVSTART, NO_FCP: seen on a loaded machine) is made again, twice at most.
 */
async function audit(url, cookie, started) {
  for (let attempt = 1; ; attempt += 1) {
    const chrome = await chromeLauncher.launch({ chromePath, chromeFlags });
    started(chrome);
    try {
      const result = await lighthouse(url, {
        port: chrome.port,
        output: "json",
        logLevel: "error",
        onlyCategories: ["performance", "accessibility"],
        extraHeaders: cookie === undefined ? undefined : { Cookie: cookie },
      });
      if (result === undefined) throw new Error(`Lighthouse gave no result for ${url}`);
      const error = result.lhr.runtimeError;
      if (error === undefined) return result.lhr;
      if (attempt === 3) throw new Error(`${url}: ${error.code} ${error.message}`);
      console.error(`lighthouse: ${url}: ${error.code}, running it again`);
    } finally {
      chrome.kill();
      started(undefined);
    }
  }
}

async function main() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), "glimpse-lighthouse-"));
  const child = spawn(binary, ["serve"], {
    env: {
      ...process.env,
      GLIMPSE_DEMO: "1",
      GLIMPSE_ENVIRONMENT: "development",
      GLIMPSE_ADDR: `127.0.0.1:${port}`,
      GLIMPSE_DATA_DIR: dataDir,
      GLIMPSE_LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  let chrome;
  const stop = () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    chrome?.kill();
  };
  process.once("SIGINT", () => {
    stop();
    process.exit(130);
  });
  try {
    await waitReady(base, child);
    const cookie = await signIn(base);
    const rows = [];
    const only = process.env.LIGHTHOUSE_PAGES?.split(",");
    for (let run = 1; run <= runs; run += 1) {
      for (const page of pages.filter((p) => only === undefined || only.includes(p.name))) {
        // A browser of its own for every page: cookies one page's server sets (a signed-out
        // browser's id) would otherwise travel with the next page's and sign it out.
        const lhr = await audit(`${base}${page.path}`, page.signedIn ? cookie : undefined, (c) => (chrome = c));
        if (lhr.finalDisplayedUrl !== `${base}${page.path}`) throw new Error(`${page.path} ended at ${lhr.finalDisplayedUrl}`);
        const row = { page: page.name, run, ...figures(lhr) };
        if (process.env.LIGHTHOUSE_OUT !== undefined) {
          writeFileSync(join(process.env.LIGHTHOUSE_OUT, `${page.name}-${run}.json`), JSON.stringify(lhr));
        }
        rows.push(row);
        if (process.env.LIGHTHOUSE_VERBOSE === "1") console.error(page.name, "LCP element:", row.lcpElement);
      }
    }
    printTable(rows);
  } finally {
    stop();
    await new Promise((resolve) => (child.exitCode === null ? child.once("exit", resolve) : resolve()));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error("lighthouse:", error instanceof Error ? error.message : error);
  process.exit(1);
});
