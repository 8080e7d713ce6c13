// The app shell: the boot loader, the current screen, its overlays, and a notice banner that
// keeps the last good screen visible when a request fails.
import { type ReactNode, useEffect, useRef, useSyncExternalStore } from "react";
// The boundary and the node modules come first: the bundle's module order, and so its gzip size
// (`npm run size`), is as it was before the boundary left nodes/.
import { ErrorBoundary } from "./runtime/error-boundary";
import { registry } from "./nodes/registry";
import { t } from "./runtime/copy";
import { endServerMarkup } from "./runtime/prerendered";
import { EngineContext, OverlayContext, RegistryContext } from "./runtime/context";
import { retryKeepingInput } from "./runtime/retry";
import type { Runtime } from "./runtime/runtime";
import { NodeView } from "./runtime/render";
import type { ViewState } from "./runtime/store";
import { escapeToken } from "./schema/token";
import { Glyph } from "./nodes/icon";
import { Spinner } from "./nodes/loader";
import "./styles/global.css";

function useView<T>(runtime: Runtime, select: (view: ViewState) => T): T {
  const snapshot = (): T => select(runtime.store.get());
  // The same snapshot while React adopts the server's markup: the store already holds that screen.
  return useSyncExternalStore(runtime.store.subscribe, snapshot, snapshot);
}

function Notice({ runtime, message }: { runtime: Runtime; message: string }): ReactNode {
  return (
    <div className="notice" role="alert">
      <Glyph name="alert" />
      <span className="notice__text">{message}</span>
      <button type="button" className="notice__retry" onClick={() => void retryKeepingInput(runtime)}>
        {t("tryAgain")}
      </button>
    </div>
  );
}

function Overlays({ runtime }: { runtime: Runtime }): ReactNode {
  const open = useView(runtime, (view) => view.overlays);
  const overlays = useView(runtime, (view) => view.screen?.envelope.overlays);
  return open.map((id, index) => (
    <OverlayContext key={id} value={{ id, top: index === open.length - 1 }}>
      <ErrorBoundary>
        <NodeView raw={overlays?.[id]} pointer={`/overlays/${escapeToken(id)}`} />
      </ErrorBoundary>
    </OverlayContext>
  ));
}

function Shell({ runtime }: { runtime: Runtime }): ReactNode {
  const screen = useView(runtime, (view) => view.screen);
  const loading = useView(runtime, (view) => view.loading);
  const notice = useView(runtime, (view) => view.notice);
  const covered = useView(runtime, (view) => view.overlays.length > 0);
  const shownKey = useRef<number | undefined>(undefined);
  const top = useRef<HTMLDivElement>(null);
  const key = screen?.key;
  const shown = screen !== null;

  // After the first screen's own effects (a form sending what was sent before the app mounted):
  // the server's markup, if the page had it, is the app's now.
  useEffect(() => {
    if (shown) endServerMarkup();
  }, [shown]);

  // A new screen after the first: focus goes to its top, as a page load would put it, so the
  // next Tab reaches the screen's first control (the header's menu button), not one after the
  // header (issue #21). Focus already placed by the new screen (an open dialog's) stays.
  useEffect(() => {
    if (key === undefined) return;
    const previous = shownKey.current;
    shownKey.current = key;
    const active = document.activeElement;
    if (previous !== undefined && (active === null || active === document.body || !active.isConnected)) {
      const app = top.current;
      if (app === null) return;
      // Set here, not drawn: the server's markup of the first screen has no tabindex to adopt.
      app.tabIndex = -1;
      app.focus({ preventScroll: true });
    }
  }, [key]);

  useEffect(() => {
    document.documentElement.classList.toggle("has-overlay", covered);
  }, [covered]);

  return (
    <>
      {notice !== null && <Notice runtime={runtime} message={notice} />}
      {screen !== null ? (
        <div ref={top} className="app" inert={covered}>
          <NodeView key={screen.key} raw={screen.envelope.screen} pointer="/screen" />
        </div>
      ) : (
        !loading && (
          <div className="app app--error">
            <p className="render-error">{notice ?? t("genericError")}</p>
          </div>
        )
      )}
      {screen !== null && <Overlays runtime={runtime} />}
      {loading && <Spinner label={t("loading")} fullscreen />}
    </>
  );
}

/** The whole app inside one error boundary: a render failure shows the generic error text. */
export function App({ runtime }: { runtime: Runtime }): ReactNode {
  return (
    <EngineContext value={runtime}>
      <RegistryContext value={registry}>
        <ErrorBoundary>
          <Shell runtime={runtime} />
        </ErrorBoundary>
      </RegistryContext>
    </EngineContext>
  );
}
