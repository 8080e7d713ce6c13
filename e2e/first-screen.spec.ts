import { expect, test, type Page } from "@playwright/test";

// The first screen comes with the page (issue #12): the server writes what /ui/screen would answer
// into the HTML, so the renderer draws it without a second round trip. Later screens are fetched.

const demo = { email: "demo@example.com", password: "glimpse-demo" };

/** Records every /ui/screen request the page makes from now on. */
function screenRequests(page: Page): string[] {
  const seen: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.pathname === "/ui/screen") seen.push(url.searchParams.get("path") ?? "");
  });
  return seen;
}

/** The heading levels on the page in document order. */
function headingLevels(page: Page): Promise<number[]> {
  return page.locator("h1, h2, h3, h4, h5, h6").evaluateAll((hs) => hs.map((h) => Number(h.tagName.slice(1))));
}

test("signed out, / shows sign-in from the page itself, and the next screen is fetched", async ({ page }) => {
  const fetched = screenRequests(page);
  const response = await page.goto("/");
  expect(await response?.text()).toContain('<script type="application/json" id="glimpse-first">');
  await expect(page).toHaveURL(/\/sign-in$/);
  await expect(page.getByRole("heading", { name: "Analyze your Instagram account and gain valuable insights" })).toBeVisible();
  await expect(page.getByLabel("Email address")).toBeVisible();
  expect(fetched).toEqual([]);

  await page.getByRole("link", { name: "Forgot password?" }).click();
  await expect(page.getByRole("heading", { name: "Access Recovery" })).toBeVisible();
  expect(fetched).toEqual(["/access-recovery"]);
});

test("signed in, Analytics and the dashboard render from the page with no /ui/screen request", async ({ page }) => {
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill(demo.email);
  await page.getByLabel("Password", { exact: true }).fill(demo.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  const fetched = screenRequests(page);
  await page.goto("/dashboard/analytics");
  for (const heading of ["User Engagement", "Likes & Comments", "Audience"]) {
    await expect(page.getByRole("heading", { name: heading, exact: true })).toBeVisible();
  }
  // The countdown runs on the server's clock, which the page's block carries.
  await expect(page.getByRole("timer", { name: "Next update in" })).toBeVisible();
  expect(fetched).toEqual([]);
  // Lighthouse's heading-order: no level is skipped.
  const levels = await headingLevels(page);
  expect(levels[0]).toBe(1);
  for (const [i, level] of levels.entries()) if (i > 0) expect(level).toBeLessThanOrEqual((levels[i - 1] ?? 0) + 1);

  await page.goto("/");
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("heading", { name: "Tips & Insights", exact: true })).toBeVisible();
  expect(fetched).toEqual([]);

  // An action (a form post) still works with the token the page carried.
  await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("dialog", { name: "Menu" }).getByRole("button", { name: "Log out" }).click();
  await page.getByRole("dialog", { name: "Are you sure you want to log out?" }).getByRole("button", { name: "Yes, log out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
});
