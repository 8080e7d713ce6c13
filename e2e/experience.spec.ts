import { type Page } from "@playwright/test";
import { buyWeeklyPlan } from "./checkout";
import { expect, test } from "./fixtures";

// The subscriber's experience (issue #21): no text jumps, errors keep their room, focus starts at
// the top of a new screen, the audience lists go all the way, and the small finishing touches.

const demo = { email: "demo@example.com", password: "glimpse-demo" };

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Records every layout shift of the page from its first frame (the Layout Instability API). */
async function recordShifts(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const shifts: { value: number; sources: string[] }[] = [];
    (window as unknown as { __shifts: typeof shifts }).__shifts = shifts;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as unknown as { value: number; sources?: { node?: Node }[] }[]) {
        shifts.push({ value: entry.value, sources: (entry.sources ?? []).map((s) => s.node?.textContent?.slice(0, 40) ?? "") });
      }
    }).observe({ type: "layout-shift", buffered: true });
  });
}

/** The page's layout shifts once it has settled: the fonts fetched after its first paint have arrived. */
async function shiftsAfterLoad(page: Page): Promise<{ value: number; sources: string[] }[]> {
  await page.waitForLoadState("networkidle");
  await page.evaluate(() => document.fonts.ready);
  await page.waitForTimeout(500);
  return page.evaluate(() => (window as unknown as { __shifts: { value: number; sources: string[] }[] }).__shifts);
}

/** Natural order, as the server sorts names (engine/analysis CompareNatural). */
function naturalLess(a: string, b: string): boolean {
  return a.localeCompare(b, "en", { numeric: true, sensitivity: "base" }) <= 0;
}

test("full page loads of the cancel page and the privacy policy do not move (CLS 0)", async ({ page }) => {
  await recordShifts(page);
  for (const path of ["/unsubscription", "/privacy", "/sign-in"]) {
    await page.goto(path);
    const shifts = await shiftsAfterLoad(page);
    expect(shifts, `layout shifts on ${path}`).toEqual([]);
  }
  // The first screen stays in Inter's local stand-in; Inter is drawn from the next screen on.
  await page.getByRole("link", { name: "Forgot password?" }).click();
  await expect(page.getByRole("heading", { name: "Access Recovery" })).toBeVisible();
  await expect
    .poll(() => page.evaluate(() => [...document.fonts].some((f) => f.family.replaceAll('"', "") === "Inter" && f.status === "loaded")))
    .toBe(true);
});

test("sign-in keeps its error lines' room, offers the plans, and focus starts at the top after it", async ({ page }) => {
  await page.goto("/sign-in");
  const button = page.getByRole("button", { name: "Sign in" });
  const before = await button.boundingBox();
  await page.getByLabel("Email address").fill("not-an-email");
  await page.getByLabel("Password", { exact: true }).fill("123");
  await button.click();
  await expect(page.getByText("Wrong email format")).toBeVisible();
  await expect(page.getByText("Min 6 symbols")).toBeVisible();
  expect(await button.boundingBox()).toEqual(before);
  await page.getByLabel("Email address").fill(demo.email);
  await expect(page.getByText("Wrong email format")).toHaveCount(0);
  expect(await button.boundingBox()).toEqual(before);

  // A new visitor has a way to buy.
  const plans = page.getByRole("link", { name: "New here? Choose a plan" });
  await expect(plans).toHaveAttribute("href", /^\/checkout\?/);

  await page.getByLabel("Password", { exact: true }).fill(demo.password);
  await button.click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("heading", { name: "Tips & Insights", exact: true })).toBeVisible();
  await page.keyboard.press("Tab");
  await expect(page.getByRole("button", { name: "Menu" })).toBeFocused();

  // The hero's article links are the articles' own titles (content/articles), this year's.
  await expect(page.getByRole("link", { name: "Top 7 Instagram Trends Shaping 2026" })).toBeVisible();
});

test("the plans link leads a new visitor to checkout", async ({ page }) => {
  await page.goto("/sign-in");
  await page.getByRole("link", { name: "New here? Choose a plan" }).click();
  await expect(page.getByRole("heading", { name: "Choose your plan" })).toBeVisible();
});

test("an account without a plan sees the modal's picture centred", async ({ page }) => {
  await signIn(page, "no-plan@example.com", "glimpse-no-plan");
  const dialog = page.getByRole("dialog", { name: "Something went wrong..." });
  await expect(dialog).toBeVisible();
  const box = await dialog.boundingBox();
  const picture = await dialog.locator("img").boundingBox();
  if (box === null || picture === null) throw new Error("no box");
  expect(Math.abs(picture.x + picture.width / 2 - (box.x + box.width / 2))).toBeLessThan(2);

});

test("the menu drawer's close button keeps its whole focus ring on screen", async ({ page }) => {
  await signIn(page, demo.email, demo.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.getByRole("button", { name: "Menu" }).click();
  const dialog = page.getByRole("dialog", { name: "Menu" });
  const close = dialog.getByRole("button", { name: "Close" });
  await close.focus();
  await page.keyboard.press("Shift+Tab");
  await page.keyboard.press("Tab");
  await expect(close).toBeFocused();
  const ring = await close.evaluate((el) => {
    const style = getComputedStyle(el);
    const rect = el.getBoundingClientRect();
    const panel = el.closest(".dialog")?.getBoundingClientRect();
    const reach = Math.max(0, parseFloat(style.outlineOffset) + parseFloat(style.outlineWidth));
    return { right: rect.right + reach, top: rect.top - reach, panelRight: panel?.right ?? 0, panelTop: panel?.top ?? 0, outline: style.outlineStyle };
  });
  expect(ring.outline).toBe("solid");
  expect(ring.right).toBeLessThanOrEqual(ring.panelRight);
  expect(ring.top).toBeGreaterThanOrEqual(ring.panelTop);
});

test("a breach count stays with its words", async ({ page }) => {
  await signIn(page, demo.email, demo.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto("/dashboard/password-safety");
  const line = page.getByText(/^Breaches that include demo@example\.com:/);
  await expect(line).toBeVisible();
  expect(await line.textContent()).toContain(":\u00a04.");
});

test("an audience list goes on as the reader scrolls, searches, sorts naturally and links to profiles", async ({ page }) => {
  await signIn(page, demo.email, demo.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto("/dashboard/analytics");
  await page.getByRole("button", { name: /Your fans/ }).click();
  const dialog = page.getByRole("dialog", { name: "Your fans" });
  const list = dialog.getByRole("list", { name: "Your fans" });
  const count = dialog.getByText(/^Showing [\d,]+ of [\d,]+$/);
  await expect(count).toHaveText(/^Showing 100 of /);
  const total = Number((await count.textContent())?.replace(/^Showing [\d,]+ of /, "").replaceAll(",", ""));
  expect(total).toBeGreaterThan(200);

  const names = await list.locator("a").evaluateAll((links) => links.map((a) => a.textContent?.replace(/ \(opens.*$/, "").slice(1) ?? ""));
  expect(names).toHaveLength(100);
  for (let i = 1; i < names.length; i++) expect(naturalLess(names[i - 1] ?? "", names[i] ?? ""), `${names[i - 1]} before ${names[i]}`).toBe(true);
  const first = list.locator("a").first();
  await expect(first).toHaveAttribute("href", `https://www.instagram.com/${names[0]}/`);
  await expect(first).toHaveAttribute("target", "_blank");
  await expect(first).toHaveAttribute("rel", /noopener/);

  // Scrolling to the end loads the next page.
  await dialog.getByRole("button", { name: "Show more" }).scrollIntoViewIfNeeded();
  await expect(count).toHaveText(/^Showing 200 of /);
  // The keyboard reaches 'Show more' too.
  await dialog.getByRole("button", { name: "Show more" }).focus();
  await page.keyboard.press("Enter");
  await expect(count).toHaveText(/^Showing 300 of /);

  // A search narrows the whole group, not only the names shown.
  const wanted = names[57] ?? "";
  await dialog.getByRole("searchbox", { name: "Search by username" }).fill(wanted);
  await expect(list.locator("a").first()).toContainText(wanted);
  await expect(count).not.toHaveText(new RegExp(`of ${total.toLocaleString("en-US")}$`));
  await dialog.getByRole("searchbox", { name: "Search by username" }).fill("no-such-name-at-all");
  await expect(dialog.getByText("No one here matches your search.")).toBeVisible();
});

test("the follower chart's axis fits its data and is labelled", async ({ page }) => {
  await signIn(page, demo.email, demo.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto("/dashboard/analytics");
  const chart = page.getByRole("figure", { name: "Followers over time" });
  await expect(chart).toBeVisible();
  const high = chart.locator(".chart__scale-high, .chart__scale-level").first();
  await expect(high).toHaveText(/^\d[\d,]*$/);
  const low = chart.locator(".chart__scale-low");
  if ((await low.count()) > 0) {
    // The base is the lowest value, not zero.
    await expect(low).not.toHaveText("0");
    const values = await chart.locator("tbody td").allTextContents();
    const numbers = values.map((v) => Number(v.replaceAll(",", "")));
    expect(Number((await low.textContent())?.replaceAll(",", ""))).toBe(Math.min(...numbers));
    expect(Number((await high.textContent())?.replaceAll(",", ""))).toBe(Math.max(...numbers));
  }
});

test("a new subscriber is told what is offered and gets a styled file picker", async ({ page }) => {
  // A fresh subscriber: the seeded ones may have connected a profile in another spec.
  await buyer(page, "ux-upload");
  await page.goto("/dashboard/analytics");
  await expect(page.getByText("Analyse your Instagram followers")).toBeVisible();
  // No Instagram Login on this server: it is not promised.
  await expect(page.getByText(/Instagram Login/)).toHaveCount(0);
  const input = page.getByLabel("Instagram data export (ZIP)");
  await expect(input).toHaveAttribute("type", "file");
  await expect(page.getByText("Choose file", { exact: true })).toBeVisible();
  await expect(page.getByText("No file chosen", { exact: true })).toBeVisible();
  await input.setInputFiles({ name: "my-export.zip", mimeType: "application/zip", buffer: Buffer.from("PK") });
  await expect(page.getByText("my-export.zip", { exact: true })).toBeVisible();
  // The picker is keyboard reachable and shows where focus is.
  await input.focus();
  const outline = await page.locator(".file-picker").evaluate((el) => getComputedStyle(el).outlineStyle);
  expect(outline).toBe("solid");
});

/** Buys a weekly plan on the sandbox checkout and sets up the account from the mailed link. */
async function buyer(page: Page, tag: string): Promise<string> {
  const email = `${tag}-${Date.now()}@example.com`;
  await buyWeeklyPlan(page, email);
  await page.goto("/dev/mail");
  await page.getByRole("link").filter({ hasText: "Thank you for your purchase" }).filter({ hasText: email }).first().click();
  await page.getByRole("link", { name: /^\/access-recovery\?key=/ }).click();
  await page.getByPlaceholder("Enter your password").fill("a-long-new-password-1");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/dashboard$/, { timeout: 15_000 });
  return email;
}

test("the mailed cancel link's page: no shift, one tap, one brand, one alignment, 'canceled', the day access ends", async ({ page }) => {
  const email = await buyer(page, "ux-cancel-link");
  await page.goto("/dashboard?unsubscription=true");
  const flow = page.getByRole("dialog");
  await flow.getByRole("link", { name: "Cancel subscription now" }).click();
  await flow.getByRole("button", { name: "Send me a cancellation link instead" }).click();
  await page.getByRole("button", { name: "Send confirmation email" }).click();
  // Sent before the mailbox is opened: leaving sooner could cut the request off.
  await expect(page.getByRole("dialog", { name: "We've sent you a confirmation email" })).toBeVisible();
  await page.goto("/dev/mail");
  await page.getByRole("link").filter({ hasText: "Confirm your cancellation" }).filter({ hasText: email }).first().click();
  const link = page.getByRole("link", { name: /\/unsubscription\?/ }).first();
  const href = await link.getAttribute("href");
  if (href === null) throw new Error("no cancel link");

  await recordShifts(page);
  await page.goto(href);
  // Opening the link cancels nothing (mail scanners open links): one tap does.
  await expect(page.getByRole("heading", { name: "Cancel your subscription?" })).toBeVisible();
  expect(await shiftsAfterLoad(page)).toEqual([]);
  await page.getByRole("button", { name: "Cancel my subscription" }).click();
  await expect(page.getByRole("heading", { name: "Your subscription has been canceled" })).toBeVisible();
  await expect(page.getByText("We've successfully canceled your subscription.")).toBeVisible();
  await expect(page.getByText(/^You can keep using Glimpse until [A-Z][a-z]{2} \d{1,2}, \d{4}\. You won't be charged again\.$/)).toBeVisible();
  expect(await page.content()).not.toContain("cancelled");
  // The brand once: its lockup, no name written again under it.
  await expect(page.locator("main img")).toHaveCount(1);
  await expect(page.locator("main").getByText("Glimpse", { exact: true })).toHaveCount(0);
  // One alignment: every line is centred on the column.
  const main = await page.locator("main").boundingBox();
  if (main === null) throw new Error("no main");
  for (const part of [page.getByRole("heading", { name: "Your subscription has been canceled" }), page.getByRole("link", { name: /Have a question\?/ })]) {
    const box = await part.boundingBox();
    if (box === null) throw new Error("no box");
    expect(Math.abs(box.x + box.width / 2 - (main.x + main.width / 2))).toBeLessThan(2);
  }
});
