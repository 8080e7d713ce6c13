// Start-up: announce the build, boot the router, mount the app.
import { startTransition } from "react";
import { createRoot } from "react-dom/client";
import inter400 from "@fontsource/inter/files/inter-latin-400-normal.woff2?url";
import inter500 from "@fontsource/inter/files/inter-latin-500-normal.woff2?url";
import inter600 from "@fontsource/inter/files/inter-latin-600-normal.woff2?url";
import inter700 from "@fontsource/inter/files/inter-latin-700-normal.woff2?url";
import { App } from "./app";
import { loadShellCopy } from "./runtime/copy";
import { afterFirstContentfulPaint } from "./runtime/paint";
import { carryOver, readPrerendered } from "./runtime/prerendered";
import { createEngine } from "./runtime/runtime";
import { startReporting } from "./reporting/reporting";
import { mountTestErrorButton } from "./reporting/TestErrorButton";

console.info("Glimpse web v" + __APP_VERSION__ + " PROD");

// Before the runtime starts: the router may rewrite the address, and errors of its start should be reported.
void startReporting(document, window.location.origin);
mountTestErrorButton(document, window.location.search);

/**
 * Starts the runtime and mounts the app. Module evaluation (React, the schemas) is one long task
 * already; validating the page's first screen and rendering it are left to the tasks after it, so
 * that neither adds to it (Lighthouse's TBT).
 */
function boot(): void {
  // Before the first render: the boot loader already speaks the brand's words.
  loadShellCopy(document);
  const runtime = createEngine({ window, fetch: window.fetch.bind(window) });
  const root = document.getElementById("root");
  if (root === null) throw new Error("Glimpse: #root is missing from index.html");
  // The screen the server drew into the page (if it did) is replaced by React's own on the first
  // commit; read what the reader typed into it first.
  carryOver(readPrerendered(root), runtime.store, root);
  const reactRoot = createRoot(root);
  // The first screen usually comes with the page (runtime/api.ts), so the first render draws a
  // whole screen. As a transition React renders it in slices that yield to the browser, instead
  // of one long task that blocks input; it paints no later.
  startTransition(() => reactRoot.render(<App runtime={runtime} />));
  // Started after render is scheduled: the page's screen reaches the store in microtasks, before
  // React's first slice runs, so the first paint is the screen, not the boot loader.
  void runtime.start();
}

// Inter, self-hosted: its faces are registered after the first contentful paint, so the fonts'
// requests (four weights, about 100 KB) do not compete with the script and stylesheet the first
// paint waits for (issue #12). A registered face loads when text first needs it, so a weight the
// page does not use is never fetched.
const FACES: readonly (readonly [weight: string, url: string])[] = [
  ["400", inter400],
  ["500", inter500],
  ["600", inter600],
  ["700", inter700],
];

/** Adds Inter's faces to the document; text using them is redrawn once each arrives. */
function addFonts(doc: Document): void {
  for (const [weight, url] of FACES) {
    doc.fonts.add(new FontFace("Inter", `url("${url}") format("woff2")`, { weight, style: "normal", display: "swap" }));
  }
}

setTimeout(boot, 0);
afterFirstContentfulPaint(() => addFonts(document));
