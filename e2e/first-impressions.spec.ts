import { type Locator, type Page } from "@playwright/test";
import { expect, test } from "./fixtures";

// What subscribers tripped over on a phone (issue #12): one check per fix.

const demo = { email: "demo@example.com", password: "glimpse-demo" };

async function signIn(page: Page, who = demo): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill(who.email);
  await page.getByLabel("Password", { exact: true }).fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
}

/** The dashboard card whose heading is title. */
function homeCard(page: Page, title: string): Locator {
  return page.locator(".card").filter({ has: page.getByRole("heading", { name: title, exact: true }) });
}

/** Taps the middle of what locator shows, as a finger would: whatever is on top there takes it. */
async function tap(page: Page, target: Locator): Promise<void> {
  await target.scrollIntoViewIfNeeded();
  const box = await target.boundingBox();
  expect(box).not.toBeNull();
  if (box === null) return;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}

test("the home card and the menu lead to Analytics, the card showing the engagement", async ({ page }) => {
  await signIn(page);
  const card = homeCard(page, "Analytics");
  // The first card under the hero, with the latest analysis's engagement.
  await expect(page.locator(".card").first()).toContainText("Analytics");
  await expect(card.getByRole("meter", { name: "Engagement rate" })).toHaveAttribute("aria-valuetext", /^\d+\.\d\d%, \S/);
  await tap(page, card.getByRole("heading", { name: "Analytics" }));
  await expect(page).toHaveURL(/\/dashboard\/analytics$/);
  await expect(page.getByRole("heading", { name: "User Engagement", exact: true })).toBeVisible();

  await page.goto("/dashboard");
  await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("dialog", { name: "Menu" }).getByRole("link", { name: "Analytics", exact: true }).click();
  await expect(page).toHaveURL(/\/dashboard\/analytics$/);
  await expect(page.getByRole("heading", { name: "User Engagement", exact: true })).toBeVisible();
});

// Before any analysis the card invites to one: checked in analytics.spec.ts, on the subscriber
// it uploads an export for, before the upload (the specs share one database).

test("tapping a home card's title or its picture opens it", async ({ page }) => {
  await signIn(page);
  await tap(page, homeCard(page, "Tips & Insights").getByRole("heading", { name: "Tips & Insights" }));
  await expect(page).toHaveURL(/\/dashboard\/insights$/);
  await page.goto("/dashboard");
  await tap(page, homeCard(page, "News").locator("img"));
  await expect(page).toHaveURL(/\/dashboard\/news$/);
});

test("the trend charts fit their data, label both ends and say their change", async ({ page }) => {
  await signIn(page);
  await page.goto("/dashboard/analytics");
  for (const name of ["Followers over time", "Engagement rate over time"]) {
    const chart = page.getByRole("figure", { name });
    await expect(chart).toBeVisible();
    const labels = await chart.getByRole("row").locator("td").allTextContents();
    const values = labels.map((l) => Number(l.replace(/[^\d.]/g, "")));
    const ys = ((await chart.locator("polyline").getAttribute("points")) ?? "").split(" ").map((p) => Number(p.split(",")[1]));
    const lowest = labels[values.indexOf(Math.min(...values))] ?? "";
    const highest = labels[values.indexOf(Math.max(...values))] ?? "";
    if (lowest === highest) {
      // Values whose labels read the same are one level line, labelled once (issue #21).
      await expect(chart.locator(".chart__scale-level")).toHaveText(highest);
      ys.forEach((y) => expect(y).toBe(60));
    } else {
      // The axis fits the data (issue #21): the lowest value on the base line (112), the highest on
      // the top line (8), each labelled, every other point in proportion between.
      await expect(chart.locator(".chart__scale-low")).toHaveText(lowest);
      await expect(chart.locator(".chart__scale-high")).toHaveText(highest);
      const low = Math.min(...values);
      const span = Math.max(...values) - low;
      values.forEach((v, i) => expect(Math.abs((ys[i] ?? 0) - (112 - ((v - low) / span) * 104))).toBeLessThan(1.5));
    }
    // And the change is said in words under the chart.
    await expect(chart.locator("xpath=following-sibling::*[1]")).toHaveText(/^(No change since|Change since) [A-Z][a-z]{2} \d{1,2}/);
  }
});

test("paired cards on Analytics have one height and aligned tops", async ({ page }) => {
  await signIn(page);
  await page.goto("/dashboard/analytics");
  await expect(page.getByRole("heading", { name: "Audience", exact: true })).toBeVisible();
  const rows = page.locator("main .row").filter({ has: page.locator(".stat-tile") });
  const count = await rows.count();
  expect(count).toBe(5); // averages, totals and three rows of audience tiles
  for (let i = 0; i < count; i++) {
    const tiles = rows.nth(i).locator(".stat-tile");
    await expect(tiles).toHaveCount(2);
    const [a, b] = [await tiles.nth(0).boundingBox(), await tiles.nth(1).boundingBox()];
    expect(a).not.toBeNull();
    expect(b).not.toBeNull();
    if (a === null || b === null) continue;
    expect(Math.abs(a.y - b.y)).toBeLessThanOrEqual(0.5);
    expect(Math.abs(a.height - b.height)).toBeLessThanOrEqual(0.5);
    expect(Math.abs(a.width - b.width)).toBeLessThanOrEqual(1);
  }
  // The averages' labels wrap differently ("Average comments per post" takes two lines); their
  // figures still stand level.
  const averages = rows.first().locator(".stat-tile__value");
  const [x, y] = [await averages.nth(0).boundingBox(), await averages.nth(1).boundingBox()];
  expect(Math.abs((x?.y ?? 0) - (y?.y ?? 1))).toBeLessThanOrEqual(0.5);
});

test("the sticky banner on Analytics takes at most a tenth of a phone screen", async ({ page }) => {
  await signIn(page);
  await page.goto("/dashboard/analytics");
  const banner = page.locator(".banner--sticky-bottom");
  await expect(banner.getByText("It takes time for our algorithms to analyse your profile data.")).toBeVisible();
  await expect(banner.getByRole("timer", { name: "Next update in" })).toBeVisible();
  const box = await banner.boundingBox();
  const viewport = page.viewportSize();
  expect(box).not.toBeNull();
  expect(viewport).not.toBeNull();
  if (box === null || viewport === null) return;
  expect(box.height).toBeLessThanOrEqual(viewport.height * 0.1);
  // Still in view at the bottom, and nothing in it is cut off.
  expect(Math.abs(box.y + box.height - viewport.height)).toBeLessThanOrEqual(1);
  const spill = await banner.evaluate((el) => {
    const outer = el.getBoundingClientRect();
    return [...el.querySelectorAll("*")]
      .map((c) => c.getBoundingClientRect())
      .filter((r) => r.left < outer.left - 0.5 || r.right > outer.right + 0.5 || r.bottom > outer.bottom + 0.5).length;
  });
  expect(spill).toBe(0);
});

for (const path of ["/privacy", "/terms-of-use"]) {
  test(`the legal page ${path} keeps its text 16px from the screen's edges`, async ({ page }) => {
    await page.goto(path);
    const blocks = page.locator("main").locator("h1, h2, h3, h4, p, li");
    await expect(blocks.first()).toBeVisible();
    const viewport = page.viewportSize();
    expect(viewport).not.toBeNull();
    if (viewport === null) return;
    const boxes = await blocks.evaluateAll((els) =>
      els.map((el) => {
        const r = el.getBoundingClientRect();
        return { left: r.left, right: r.right, text: (el.textContent ?? "").slice(0, 30) };
      }),
    );
    expect(boxes.length).toBeGreaterThan(5);
    for (const b of boxes) {
      expect(b.left, b.text).toBeGreaterThanOrEqual(16);
      expect(viewport.width - b.right, b.text).toBeGreaterThanOrEqual(16);
    }
  });
}
