// 'Try again' on the notice of a failed request loads the screen again. When the same screen comes
// back, what the person typed is put back over it: a failed save must never cost unsaved input
// (the studio's editors type long texts), and the server's fresh state fills only what they had
// not touched.
import type { Router } from "./router";
import type { Store } from "./store";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export async function retryKeepingInput(host: { store: Store; router: Router }): Promise<boolean> {
  const before = host.store.get();
  const screenId = before.screen?.envelope.screen.id;
  const typed = before.state["form"];
  const shown = await host.router.refresh();
  const after = host.store.get();
  if (!shown || screenId === undefined || after.screen?.envelope.screen.id !== screenId || !isRecord(typed)) {
    return shown;
  }
  host.store.update((draft) => {
    const fresh = draft.state["form"];
    draft.state["form"] = { ...(isRecord(fresh) ? fresh : {}), ...typed };
  });
  return shown;
}
