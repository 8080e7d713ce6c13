import { expect, type Locator, type Page } from "@playwright/test";
import percySnapshot from "@percy/playwright";

// snap records a visual snapshot twice: against the PNG baselines committed
// in e2e/__screenshots__ (offline, pixel compared), and with Percy when a
// PERCY_TOKEN is set (`percy exec` runs the server; without it the call is
// a logged no-op). mask hides parts that change from run to run (times).
//
// A snapshot shows only faces the app ships, so it looks the same on every
// machine. The renderer fetches Inter after the first paint and draws it from
// the second screen on (renderer/src/runtime/fonts.ts): a page's first screen
// is in Inter's local stand-in (styles/global.css), DejaVu Sans on one machine,
// Liberation Sans or Arial on another, each sized to Inter's measure but
// different on every glyph (#32 item 15). snap puts the shipped Inter faces in
// use on such a screen before taking it: it is the screen as the app draws it
// from the second screen on, the look the stand-in stands in for.
export async function snap(page: Page, name: string, mask: Locator[] = []): Promise<void> {
  await useShippedFaces(page);
  await expect(page).toHaveScreenshot(`${name}.png`, {
    fullPage: true,
    mask: [page.locator("[data-visual-mask]"), ...mask],
  });
  await percySnapshot(page, name, { widths: [390] });
}

/** The weights main.tsx ships Inter in (one woff2 file each, fetched after the first paint). */
const WEIGHTS = ["400", "500", "600", "700"];

/**
 * Puts Inter in use if the page still draws its stand-in: adds the renderer's own Inter files (the
 * ones it fetched after the first paint, so from the cache) to the page's fonts, as the renderer
 * does from the second screen on, and waits until every face has loaded.
 */
async function useShippedFaces(page: Page): Promise<void> {
  const inter = (): Promise<boolean> =>
    page.evaluate(() => [...document.fonts].some((face) => face.family.replaceAll('"', "") === "Inter"));
  if (!(await inter())) {
    // The files' names carry a content hash: read them off the requests the renderer made.
    const urls = await page.waitForFunction(
      (weights) => {
        const found = new Map<string, string>();
        for (const entry of performance.getEntriesByType("resource")) {
          const m = /\/inter-latin-(\d00)-normal[^/]*\.woff2$/.exec(new URL(entry.name).pathname);
          if (m?.[1] !== undefined) found.set(m[1], entry.name);
        }
        return weights.every((w) => found.has(w)) ? Object.fromEntries(found) : false;
      },
      WEIGHTS,
      { timeout: 10_000 },
    );
    const byWeight = (await urls.jsonValue()) as Record<string, string>;
    // As main.tsx adds them (a style element would be refused by the page's CSP).
    await page.evaluate((faces) => {
      for (const [weight, url] of faces) {
        document.fonts.add(new FontFace("Inter", `url("${url}") format("woff2")`, { weight, style: "normal", display: "block" }));
      }
    }, Object.entries(byWeight));
  }
  await page.evaluate(async (weights) => {
    await Promise.all(weights.map((w) => document.fonts.load(`${w} 16px Inter`)));
    const inter = [...document.fonts].filter((face) => face.family.replaceAll('"', "") === "Inter");
    await Promise.all(inter.map((face) => face.load()));
    await document.fonts.ready;
    const missing = weights.filter((w) => !inter.some((face) => face.weight === w && face.status === "loaded"));
    if (missing.length > 0) throw new Error(`snap: Inter ${missing.join(", ")} did not load`);
  }, WEIGHTS);
}
