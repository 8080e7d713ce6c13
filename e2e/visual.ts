import { expect, type Locator, type Page } from "@playwright/test";
import percySnapshot from "@percy/playwright";

// snap records a visual snapshot twice: against the PNG baselines committed
// in e2e/__screenshots__ (offline, pixel compared), and with Percy when a
// PERCY_TOKEN is set (`percy exec` runs the server; without it the call is
// a logged no-op). mask hides parts that change from run to run (times).
export async function snap(page: Page, name: string, mask: Locator[] = []): Promise<void> {
  await page.evaluate(() => document.fonts.ready);
  await expect(page).toHaveScreenshot(`${name}.png`, {
    fullPage: true,
    mask: [page.locator("[data-visual-mask]"), ...mask],
  });
  await percySnapshot(page, name, { widths: [390] });
}
