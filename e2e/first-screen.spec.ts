import { type Page } from "@playwright/test";
import { expect, test } from "./fixtures";

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

/**
 * Holds the app's bundle (main-*.js; boot.ts asks for it once the server's markup has painted)
 * until `release` is called, so a test can act on the page the server drew.
 */
async function holdApp(page: Page): Promise<{ release: () => void; requested: Promise<void> }> {
  let release = (): void => undefined;
  let markRequested = (): void => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const requested = new Promise<void>((resolve) => (markRequested = resolve));
  await page.route(/\/assets\/main-[^/]+\.js$/, async (route) => {
    markRequested();
    await held;
    await route.continue();
  });
  return { release, requested };
}

/** Signs the demo subscriber in, then loads the dashboard with the app held: on screen is the server's markup. */
async function serverDashboard(page: Page): Promise<{ release: () => void }> {
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill(demo.email);
  await page.getByLabel("Password", { exact: true }).fill(demo.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  const app = await holdApp(page);
  await page.goto("/dashboard");
  await app.requested;
  return app;
}

/** Waits until React has adopted (hydrated) the server's markup: its elements carry React's fiber. */
async function adopted(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const app = document.querySelector("#root .app");
    return app !== null && Object.keys(app).some((key) => key.startsWith("__reactFiber"));
  });
}

/** Content-Security-Policy violations the page reports in its console. */
function cspViolations(page: Page): string[] {
  const seen: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy/i.test(message.text())) seen.push(message.text());
  });
  return seen;
}

test("the server draws sign-in: it shows before the app loads, and what is typed and sent then is kept", async ({ page }) => {
  const violations = cspViolations(page);
  const addresses: string[] = [];
  page.on("request", (request) => addresses.push(request.url()));
  const app = await holdApp(page);
  await page.goto("/sign-in");
  // The app is asked for only after the server's markup has painted, and is held: all on screen
  // now is the server's.
  await app.requested;
  await expect(page.locator("#root[data-prerendered]")).toHaveCount(1);
  await expect(page).toHaveTitle("Sign in · Glimpse");
  await expect(page.getByRole("heading", { name: "Analyze your Instagram account and gain valuable insights" })).toBeVisible();
  await page.getByLabel("Email address").fill(demo.email);
  await page.getByLabel("Password", { exact: true }).fill(demo.password);
  await page.getByLabel("Password", { exact: true }).press("Enter");
  // The browser did not send the form itself.
  await expect(page).toHaveURL(/\/sign-in$/);

  app.release();
  // The app mounts, takes the typed text and sends the held form as its own sign-in.
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("heading", { name: "Tips & Insights", exact: true })).toBeVisible();
  expect(addresses.filter((address) => address.includes(encodeURIComponent(demo.password)) || address.includes(demo.password))).toEqual([]);
  expect(violations).toEqual([]);
});

test("the field being typed in keeps its text and the focus when the app adopts the server's markup", async ({ page }) => {
  const app = await holdApp(page);
  await page.goto("/sign-in");
  await app.requested;
  const email = page.getByLabel("Email address");
  await email.fill("someone@exam");
  app.release();
  await adopted(page);
  await expect(page.locator("#root .app")).toHaveCount(1);
  // Adopted: the same field, now the app's, holds the text and the focus.
  await expect(page.locator("main")).toHaveCount(1);
  await expect(email).toHaveValue("someone@exam");
  await expect(email).toBeFocused();
  await email.pressSequentially("ple.com");
  await expect(email).toHaveValue("someone@example.com");
});

test("the dashboard is in the page as markup, in the brand's colours, and the app takes it over", async ({ page }) => {
  const violations = cspViolations(page);
  const app = await serverDashboard(page);
  await expect(page).toHaveTitle("Home · Glimpse");
  await expect(page.getByRole("heading", { name: "Tips & Insights", exact: true })).toBeVisible();
  await expect(page.locator('img[src="/static/home/hero.svg"]')).toBeVisible();
  // The theme block (admitted by its hash in the CSP) paints the brand before the app sets it.
  const primary = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue("--color-primary").trim());
  expect(primary).toBe("#3d5afe");
  const drawn = await page.locator("#root").evaluate((root) => root.textContent);

  const element = await page.locator("#root .app").elementHandle();
  app.release();
  await adopted(page);
  // Adopted, not drawn again: the page's elements are the app's now, and its buttons work.
  expect(await page.locator("#root .app").evaluate((node, before) => node === before, element)).toBe(true);
  await page.getByRole("button", { name: "Menu" }).click();
  await expect(page.getByRole("dialog", { name: "Menu" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.locator("#root main")).toHaveCount(1);
  expect(await page.locator("#root .app").evaluate((app) => app.textContent)).toBe(drawn);
  expect(violations).toEqual([]);
});

test("the menu pressed on the server's dashboard before the app has loaded opens once it has", async ({ page }) => {
  const app = await serverDashboard(page);
  // A tap on the server's markup: nothing answers it yet.
  await page.getByRole("button", { name: "Menu" }).click();
  await expect(page.getByRole("dialog", { name: "Menu" })).toHaveCount(0);
  app.release();
  await expect(page.getByRole("dialog", { name: "Menu" })).toBeVisible();
  // Opened once, not opened and closed again by a second press.
  await page.waitForTimeout(300);
  await expect(page.getByRole("dialog", { name: "Menu" })).toBeVisible();
});
