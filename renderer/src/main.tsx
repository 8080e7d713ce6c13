// Start-up: announce the build, boot the router, mount the app.
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

// Before the first render: the boot loader already speaks the brand's words.
loadShellCopy(document);
const runtime = createEngine({ window, fetch: window.fetch.bind(window) });
const root = document.getElementById("root");
if (root === null) throw new Error("Glimpse: #root is missing from index.html");
createRoot(root).render(<App runtime={runtime} />);
void runtime.start();
