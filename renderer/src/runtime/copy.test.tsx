import { act, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { App } from "../app";
import { envelope, fakeServer, makeEngine, renderApp, renderNodes } from "../test/harness";
import { createApi } from "./api";
import { FALLBACK_COPY, loadShellCopy, t } from "./copy";

/** What the server writes into the page for a German brand (only some keys: the rest fall back). */
const GERMAN = {
  loading: "Wird geladen",
  tryAgain: "Erneut versuchen",
  genericError: "Etwas ist schiefgelaufen",
  showPassword: "Passwort anzeigen",
  calculating: "Wird berechnet",
  back: "Zurück",
  menu: "Menü",
  close: "Schließen",
  "countdown.label": "Verbleibende Zeit",
  "countdown.seconds": "Sekunden",
  "rating.star": "{n} von {max} Sternen",
};

/** Puts a copy block into the page as the server does, and reads it as main.tsx does at boot. */
function shell(content: string): void {
  const meta = document.createElement("meta");
  meta.name = "glimpse-copy";
  meta.content = content;
  document.head.append(meta);
  loadShellCopy(document);
}

describe("shell copy", () => {
  it("uses the page's copy block, keeps the fallback for keys it lacks, and fills placeholders", () => {
    shell(JSON.stringify({ ...GERMAN, unknownToThisRenderer: "ignored" }));
    expect(t("loading")).toBe("Wird geladen");
    expect(t("countdown.days")).toBe("days");
    expect(t("rating.star", { n: 2, max: 5 })).toBe("2 von 5 Sternen");
  });

  it("falls back to English without a block, and ignores a block that is not JSON or not all text", () => {
    loadShellCopy(document);
    expect(t("showPassword")).toBe("Show password");
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    shell("{not json");
    expect(t("loading")).toBe("Loading");
    document.head.querySelector('meta[name="glimpse-copy"]')?.remove();
    shell(JSON.stringify({ loading: "Wird geladen", tryAgain: 3 }));
    expect(t("loading")).toBe("Loading");
    expect(error).toHaveBeenCalledTimes(2);
  });

  it("leaves a placeholder it has no value for, even one named like an object's own property", () => {
    shell(JSON.stringify({ "rating.star": "{n}/{max} {constructor}" }));
    expect(t("rating.star", { n: 1, max: 5 })).toBe("1/5 {constructor}");
    expect(t("rating.star", { n: 1 })).toBe("1/{max} {constructor}");
  });

  it("labels the boot loader with the shell's words before any screen arrives", () => {
    shell(JSON.stringify(GERMAN));
    const runtime = makeEngine(fakeServer(() => new Promise(() => undefined)));
    render(<App runtime={runtime} />);
    void runtime.start();
    expect(screen.getByRole("status", { name: "Wird geladen" })).toBeTruthy();
  });

  it("words the failure notice's retry button and a failed request", async () => {
    shell(JSON.stringify(GERMAN));
    let fail = false;
    const { runtime } = await renderApp(() => (fail ? undefined : envelope([])));
    fail = true;
    await act(() => runtime.router.navigate("/broken"));
    expect(screen.getByRole("button", { name: "Erneut versuchen" })).toBeTruthy();
    const offline = createApi(() => Promise.reject(new TypeError("offline")));
    expect(await offline.screen("/")).toMatchObject({ kind: "failure", message: "Etwas ist schiefgelaufen" });
  });

  it("words the nodes' own labels from the shell, while a label the node carries wins", async () => {
    shell(JSON.stringify(GERMAN));
    await renderNodes([
      { type: "text_input", id: "pw", bind: "/pw", label: "Passwort", kind: "password" },
      { type: "stat_tile", label: "Likes", value: null },
      { type: "stat_tile", label: "Posts", value: null, pendingLabel: "Zählt" },
      { type: "rating", id: "stars", bind: "/stars", label: "Bewertung", max: 3 },
      { type: "countdown", endsAt: "2099-01-01T00:00:00Z" },
    ]);
    expect(screen.getByRole("button", { name: "Passwort anzeigen" })).toBeTruthy();
    expect(screen.getByRole("img", { name: "Wird berechnet" })).toBeTruthy();
    expect(screen.getByRole("img", { name: "Zählt" })).toBeTruthy();
    expect(screen.getByRole("radio", { name: "2 von 3 Sternen" })).toBeTruthy();
    expect(screen.getByRole("timer", { name: "Verbleibende Zeit" })).toBeTruthy();
    expect(screen.getByText("Sekunden")).toBeTruthy();
    expect(screen.getByText("days")).toBeTruthy();
  });

  it("words the header's back and menu fallbacks", async () => {
    shell(JSON.stringify(GERMAN));
    await renderNodes(
      [],
      {
        screen: {
          header: { type: "header", back: { type: "navigate", to: "/dashboard" }, menu: "menu" },
        },
        overlays: { menu: { type: "dialog", id: "menu", title: "M", dismissible: true, children: [] } },
      },
    );
    expect(screen.getByRole("link", { name: "Zurück" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Menü" })).toBeTruthy();
  });

  it("shows the English fallback in every component without a block", async () => {
    await renderNodes([
      { type: "text_input", id: "pw", bind: "/pw", label: "Password", kind: "password" },
      { type: "stat_tile", label: "Likes", value: null },
      { type: "rating", id: "stars", bind: "/stars", label: "Rate" },
      { type: "countdown", endsAt: "2099-01-01T00:00:00Z" },
    ]);
    expect(screen.getByRole("button", { name: FALLBACK_COPY.showPassword })).toBeTruthy();
    expect(screen.getByRole("img", { name: "Calculating" })).toBeTruthy();
    expect(screen.getByRole("radio", { name: "4 of 5" })).toBeTruthy();
    expect(screen.getByRole("timer", { name: "Time left" })).toBeTruthy();
    expect(screen.getByText("minutes")).toBeTruthy();
  });
});
