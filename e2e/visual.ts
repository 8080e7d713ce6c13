import { expect, type Locator, type Page } from "@playwright/test";
import percySnapshot from "@percy/playwright";

// snap records a visual snapshot twice: against the PNG baselines committed
// in e2e/__screenshots__ (offline, pixel compared), and with Percy when a
// PERCY_TOKEN is set (`percy exec` runs the server; without it the call is
// a logged no-op). mask hides parts that change from run to run (times).
export async function snap(page: Page, name: string, mask: Locator[] = []): Promise<void> {
  // The renderer fetches Inter after the first paint and draws it from the second screen on
  // (renderer/src/runtime/fonts.ts): a page's first screen is in Inter's local stand-in. Wait for
  // whichever is in use to load.
  await page.evaluate(async () => {
    const inter = [...document.fonts].filter((face) => face.family.replaceAll('"', "") === "Inter");
    await Promise.all(inter.map((face) => face.load()));
    await document.fonts.ready;
  });
  await expect(page).toHaveScreenshot(`${name}.png`, {
    fullPage: true,
    mask: [page.locator("[data-visual-mask]"), ...mask],
  });
  await percySnapshot(page, name, { widths: [390] });
}
