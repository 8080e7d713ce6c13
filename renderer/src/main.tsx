// Start-up: announce the build, boot the router, mount the app.
import { startTransition } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app";
import { loadShellCopy } from "./runtime/copy";
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
  const reactRoot = createRoot(root);
  // The first screen usually comes with the page (runtime/api.ts), so the first render draws a
  // whole screen. As a transition React renders it in slices that yield to the browser, instead
  // of one long task that blocks input; it paints no later.
  startTransition(() => reactRoot.render(<App runtime={runtime} />));
  // Started after render is scheduled: the page's screen reaches the store in microtasks, before
  // React's first slice runs, so the first paint is the screen, not the boot loader.
  void runtime.start();
}

setTimeout(boot, 0);
