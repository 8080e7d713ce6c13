// The History API router: every screen is fetched from the server for the current path.
// It intercepts plain clicks on same-origin links, loads a screen on popstate (scrolling to the
// top), and at boot takes the secret `creds`/`login` parameters out of the address bar before
// any request, then signs in with them through session.from_url.
import type { Answer, Api } from "./api";
import { isLocalPath } from "./href";
import type { Store } from "./store";

/** Where an answer came from: a screen fetch or a posted action (of a form, if any). */
export type Origin = { kind: "screen" } | { kind: "action"; formId?: string | undefined };

export interface RouterHost {
  window: Window;
  api: Api;
  store: Store;
  apply(answer: Answer, origin: Origin): Promise<boolean>;
}

export interface Router {
  /** Boots: secret parameters, listeners, the first screen. */
  start(): Promise<void>;
  stop(): void;
  navigate(to: string, options?: { replace?: boolean }): Promise<boolean>;
  /** History back when the previous entry is ours, else navigate to `fallback`. */
  back(fallback?: string): Promise<boolean>;
  /** Fetches the current screen again. */
  refresh(): Promise<boolean>;
  /** The current path with its query. */
  path(): string;
}

/** The query parameters that must never reach the server in a URL. */
export const SECRET_PARAMS = ["creds", "login"] as const;

/**
 * The secrets a link carries in its fragment (`#reset=<token>` of a password-reset mail), which
 * browsers never send to a server; they are posted like SECRET_PARAMS.
 */
export const SECRET_FRAGMENT_PARAMS = ["reset"] as const;

/** Whether a path's fragment carries a secret, so it must load as a page for boot to take it. */
export function hasSecretFragment(to: string): boolean {
  const hash = to.indexOf("#");
  if (hash < 0) return false;
  const fragment = new URLSearchParams(to.slice(hash + 1));
  return SECRET_FRAGMENT_PARAMS.some((name) => fragment.has(name));
}

/** The default target of `back` when there is no previous entry of ours. */
export const DEFAULT_BACK = "/dashboard";

// A same-origin path as a browser reads it (never "//host", "/\host" or "/\t/host"); see href.ts.
export { isLocalPath };

function historyIndex(state: unknown): number | null {
  if (typeof state !== "object" || state === null || !("glimpse" in state)) return null;
  const index = state.glimpse;
  return typeof index === "number" ? index : null;
}

export function createRouter(host: RouterHost): Router {
  const { window, api, store } = host;
  const { history, location, document } = window;
  let index = 0;
  let loads = 0;

  const path = (): string => location.pathname + location.search;

  async function load(target: string): Promise<boolean> {
    loads += 1;
    const ticket = loads;
    const answer = await api.screen(target);
    if (ticket !== loads) return false; // a later navigation won
    return host.apply(answer, { kind: "screen" });
  }

  async function navigate(to: string, options: { replace?: boolean } = {}): Promise<boolean> {
    if (!isLocalPath(to)) {
      console.error(`Glimpse: refusing to navigate to ${JSON.stringify(to)}`);
      return false;
    }
    if (hasSecretFragment(to)) {
      location.assign(to);
      return true;
    }
    const replace = options.replace === true || to === path();
    if (replace) history.replaceState({ glimpse: index }, "", to);
    else {
      index += 1;
      history.pushState({ glimpse: index }, "", to);
    }
    const shown = await load(path());
    window.scrollTo(0, 0);
    return shown;
  }

  async function onPopState(event: PopStateEvent): Promise<void> {
    index = historyIndex(event.state) ?? 0;
    await load(path());
    window.scrollTo(0, 0);
  }

  function onClick(event: MouseEvent): void {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const target = event.target as Element | null;
    const anchor = target?.closest("a[href]");
    if (!anchor || anchor.localName !== "a") return;
    const targetAttribute = anchor.getAttribute("target");
    if (targetAttribute !== null && targetAttribute !== "" && targetAttribute !== "_self") return;
    if (anchor.hasAttribute("download") || anchor.getAttribute("data-router") === "off") return;
    const url = new URL(anchor.getAttribute("href") ?? "", location.href);
    if (url.origin !== location.origin) return;
    if (url.hash !== "" && url.pathname === location.pathname && url.search === location.search) return;
    // A link with a secret in its fragment (a reset link in the dev mailbox) loads as a page, so
    // that boot takes the secret out and posts it.
    if (hasSecretFragment(url.hash)) return;
    event.preventDefault();
    void navigate(url.pathname + url.search);
  }

  const popstate = (event: PopStateEvent): void => void onPopState(event);

  return {
    async start() {
      history.scrollRestoration = "manual";
      index = historyIndex(history.state) ?? 0;
      const url = new URL(location.href);
      const secrets: Record<string, string> = {};
      for (const name of SECRET_PARAMS) {
        const value = url.searchParams.get(name);
        if (value === null) continue;
        secrets[name] = value;
        url.searchParams.delete(name);
      }
      const fragment = new URLSearchParams(url.hash.slice(1));
      for (const name of SECRET_FRAGMENT_PARAMS) {
        const value = fragment.get(name);
        if (value === null) continue;
        secrets[name] = value;
        fragment.delete(name);
        url.hash = fragment.toString();
      }
      // Out of the address bar (and so out of history and referrers) before any request.
      history.replaceState({ glimpse: index }, "", url.pathname + url.search + url.hash);
      window.addEventListener("popstate", popstate);
      document.addEventListener("click", onClick);
      store.setLoading(true);
      if (Object.keys(secrets).length > 0) {
        const before = loads;
        const answer = await api.action("session.from_url", secrets, path());
        await host.apply(answer, { kind: "action" });
        if (answer.kind !== "envelope" && loads === before && answer.kind !== "reload") await load(path());
        return;
      }
      await load(path());
    },
    stop() {
      window.removeEventListener("popstate", popstate);
      document.removeEventListener("click", onClick);
    },
    navigate,
    async back(fallback) {
      if (index > 0) {
        history.back();
        return true;
      }
      return navigate(fallback ?? DEFAULT_BACK);
    },
    refresh: () => load(path()),
    path,
  };
}
