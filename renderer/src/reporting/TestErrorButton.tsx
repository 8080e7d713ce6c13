// The hidden test-error button (spec: the URL parameter `showerrbtn=plz` "shows a hidden test-error
// button"): an operator opens the app with it, presses the button and sees the error arrive in
// the error-reporting service, which proves the whole path works in that environment.
import { createRoot } from "react-dom/client";
import { captureError, wantsTestErrorButton } from "./reporting";

export const TEST_ERROR_MESSAGE = "Glimpse test error (showerrbtn)";

/**
 * A small fixed button that raises a client error. It reports the error itself, then throws it
 * uncaught as a real failure would be; Sentry's de-duplication keeps that to one event.
 */
export function TestErrorButton() {
  return (
    <button
      type="button"
      aria-label="Raise a test error"
      style={{ position: "fixed", bottom: 8, left: 8, zIndex: 1000, fontSize: 12, padding: "4px 8px" }}
      onClick={() => {
        const error = new Error(TEST_ERROR_MESSAGE);
        void captureError(error);
        throw error;
      }}
    >
      Test error
    </button>
  );
}

/**
 * Mounts the button in its own root when search asks for it, outside the server-driven screen.
 * Returns a function that removes it again, or null when the URL does not ask for it.
 */
export function mountTestErrorButton(doc: Document, search: string): (() => void) | null {
  if (!wantsTestErrorButton(search)) return null;
  const host = doc.createElement("div");
  host.id = "glimpse-test-error";
  doc.body.append(host);
  const root = createRoot(host);
  root.render(<TestErrorButton />);
  return () => {
    root.unmount();
    host.remove();
  };
}
