// Start-up: announce the build, boot the router, mount the app.
import { startTransition } from "react";
import { createRoot, hydrateRoot } from "react-dom/client";
import inter400 from "@fontsource/inter/files/inter-latin-400-normal.woff2?url";
import inter500 from "@fontsource/inter/files/inter-latin-500-normal.woff2?url";
import inter600 from "@fontsource/inter/files/inter-latin-600-normal.woff2?url";
import inter700 from "@fontsource/inter/files/inter-latin-700-normal.woff2?url";
import { App } from "./app";
import { loadShellCopy } from "./runtime/copy";
import { takeOverServerMarkup } from "./runtime/prerendered";
import { afterFirstContentfulPaint } from "./runtime/paint";
import { adoptFontsWithNextScreen } from "./runtime/fonts";
import { createEngine } from "./runtime/runtime";
import { startReporting } from "./reporting/reporting";
import { mountTestErrorButton } from "./reporting/TestErrorButton";

console.info("Glimpse web v" + __APP_VERSION__ + " PROD");

// Before the runtime starts: the router may rewrite the address, and errors of its start should be reported.
void startReporting(document, window.location.origin);
mountTestErrorButton(document, window.location.search);

/**
 * Starts the runtime, then mounts the app, each in a task of its own: module evaluation (React)
 * is a long task already, and a page the server has drawn is on screen meanwhile,
 * so every long task is one in which a tap goes unanswered (Lighthouse's TBT).
 */
function boot(): void {
  // Before the first render: the boot loader already speaks the brand's words.
  loadShellCopy(document);
  const runtime = createEngine({ window, fetch: window.fetch.bind(window) });
  afterFirstContentfulPaint(() => adoptFontsWithNextScreen(document.fonts, interFaces(), runtime.store));
  const root = document.getElementById("root");
  if (root === null) throw new Error("Glimpse: the page has no #root");
  // In a task after this one, and as a transition: React renders in slices that yield to the
  // browser instead of one long task that blocks input. When the server drew the screen into the
  // page (engine/ui/prerender), React adopts that markup rather than drawing it again, so nothing
  // on screen is replaced (the pictures stay the elements already painted, the reader's focus and
  // caret stay put); the text typed into it goes into the state first, so React's render agrees
  // with the page. Should the markup differ from that render after all, React draws it itself.
  const mount = (): void => {
    setTimeout(() =>
      startTransition(() => {
        const app = <App runtime={runtime} />;
        if (takeOverServerMarkup(runtime.store)) hydrateRoot(root, app);
        else createRoot(root).render(app);
      }),
    );
  };
  const started = runtime.start();
  // A drawn screen is adopted once the runtime has shown it (its state is then the screen's).
  // Otherwise the first screen usually comes with the page (runtime/api.ts) and reaches the store
  // in this task's microtasks, so React's first render draws it, not the loader.
  if (root.hasAttribute("data-prerendered")) void started.finally(mount);
  else mount();
}

// Inter, self-hosted: its faces are fetched after the first contentful paint, so the fonts'
// requests (four weights, about 100 KB) do not compete with the script and stylesheet the first
// paint waits for (issue #12), and drawn from the next screen on (runtime/fonts.ts, issue #21):
// the page's first screen stays in the stand-in sized to Inter's measure (styles/global.css).
const FACES: readonly (readonly [weight: string, url: string])[] = [
  ["400", inter400],
  ["500", inter500],
  ["600", inter600],
  ["700", inter700],
];

function interFaces(): FontFace[] {
  return FACES.map(([weight, url]) => new FontFace("Inter", `url("${url}") format("woff2")`, { weight, style: "normal", display: "swap" }));
}

setTimeout(boot, 0);
