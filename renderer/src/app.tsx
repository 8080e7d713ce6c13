// The app shell: the boot loader, the current screen, its overlays, and a notice banner that
// keeps the last good screen visible when a request fails.
import { type ReactNode, useEffect, useRef, useSyncExternalStore } from "react";
import { t } from "./engine/copy";
import { EngineContext, OverlayContext, RegistryContext } from "./engine/context";
import type { Engine } from "./engine/engine";
import { NodeView } from "./engine/render";
import type { ViewState } from "./engine/store";
import { escapeToken } from "./schema/parse";
import { ErrorBoundary } from "./nodes/error-boundary";
import { Glyph } from "./nodes/icon";
import { Spinner } from "./nodes/loader";
import { registry } from "./nodes/registry";
import "./styles/global.css";

function useView<T>(engine: Engine, select: (view: ViewState) => T): T {
  return useSyncExternalStore(engine.store.subscribe, () => select(engine.store.get()));
}

function Notice({ engine, message }: { engine: Engine; message: string }): ReactNode {
  return (
    <div className="notice" role="alert">
      <Glyph name="alert" />
      <span className="notice__text">{message}</span>
      <button type="button" className="notice__retry" onClick={() => void engine.router.refresh()}>
        {t("tryAgain")}
      </button>
    </div>
  );
}

function Overlays({ engine }: { engine: Engine }): ReactNode {
  const open = useView(engine, (view) => view.overlays);
  const overlays = useView(engine, (view) => view.screen?.envelope.overlays);
  return open.map((id, index) => (
    <OverlayContext key={id} value={{ id, top: index === open.length - 1 }}>
      <ErrorBoundary>
        <NodeView raw={overlays?.[id]} pointer={`/overlays/${escapeToken(id)}`} />
      </ErrorBoundary>
    </OverlayContext>
  ));
}

function Shell({ engine }: { engine: Engine }): ReactNode {
  const screen = useView(engine, (view) => view.screen);
  const loading = useView(engine, (view) => view.loading);
  const notice = useView(engine, (view) => view.notice);
  const covered = useView(engine, (view) => view.overlays.length > 0);
  const shownKey = useRef<number | undefined>(undefined);
  const key = screen?.key;

  // A new screen after the first: move focus to its main region, as a page load would.
  useEffect(() => {
    if (key === undefined) return;
    const previous = shownKey.current;
    shownKey.current = key;
    const active = document.activeElement;
    if (previous !== undefined && (active === null || active === document.body || !active.isConnected)) {
      document.getElementById("main")?.focus({ preventScroll: true });
    }
  }, [key]);

  useEffect(() => {
    document.documentElement.classList.toggle("has-overlay", covered);
  }, [covered]);

  return (
    <>
      {notice !== null && <Notice engine={engine} message={notice} />}
      {screen !== null ? (
        <div className="app" inert={covered}>
          <NodeView key={screen.key} raw={screen.envelope.screen} pointer="/screen" />
        </div>
      ) : (
        !loading && (
          <div className="app app--error">
            <p className="render-error">{notice ?? t("genericError")}</p>
          </div>
        )
      )}
      {screen !== null && <Overlays engine={engine} />}
      {loading && <Spinner label={t("loading")} fullscreen />}
    </>
  );
}

/** The whole app inside one error boundary: a render failure shows the generic error text. */
export function App({ engine }: { engine: Engine }): ReactNode {
  return (
    <EngineContext value={engine}>
      <RegistryContext value={registry}>
        <ErrorBoundary>
          <Shell engine={engine} />
        </ErrorBoundary>
      </RegistryContext>
    </EngineContext>
  );
}
