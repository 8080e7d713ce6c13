import { type Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { snap } from "./visual";

const demo = { email: "demo@example.com", password: "glimpse-demo" };

async function signIn(page: Page, email = demo.email, password = demo.password): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

test("signed out, / lands on sign-in with the spec's form", async ({ page }) => {
  const logs: string[] = [];
  page.on("console", (msg) => logs.push(msg.text()));
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-in$/);
  await expect(
    page.getByRole("heading", { name: "Analyze your Instagram account and gain valuable insights" }),
  ).toBeVisible();
  const email = page.getByLabel("Email address");
  await expect(email).toHaveAttribute("placeholder", "Enter your email address");
  const password = page.getByLabel("Password", { exact: true });
  await expect(password).toHaveAttribute("placeholder", "Enter your password");
  await expect(password).toHaveAttribute("type", "password");
  await expect(page.getByRole("link", { name: "Forgot password?" })).toHaveAttribute("href", "/access-recovery");
  await expect(page.getByRole("button", { name: "Sign in" })).toBeEnabled();
  expect(logs.some((l) => /^Glimpse web v\S+ PROD$/.test(l))).toBe(true);
  await snap(page, "sign-in");
});

test("validation messages show on submit and clear on editing", async ({ page }) => {
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill("not-an-email");
  await page.getByLabel("Password", { exact: true }).fill("12345");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("Wrong email format")).toBeVisible();
  await expect(page.getByText("Min 6 symbols")).toBeVisible();
  await expect(page.getByLabel("Email address")).toHaveAttribute("aria-invalid", "true");
  await page.getByLabel("Email address").fill("demo@example.com");
  await expect(page.getByText("Wrong email format")).toHaveCount(0);
  await expect(page.getByText("Min 6 symbols")).toHaveCount(0);
});

test("a wrong password shows the identity error line", async ({ page }) => {
  await signIn(page, demo.email, "not-the-password");
  await expect(page.getByRole("alert").filter({ hasText: "The supplied auth credential is malformed or has expired." })).toBeVisible();
  await expect(page).toHaveURL(/\/sign-in$/);
});

test("sign in lands on the dashboard with header, menu, hero links and six cards", async ({ page }) => {
  await signIn(page);
  await expect(page).toHaveURL(/\/dashboard$/);
  for (const name of ["Top 7 Instagram Trends Shaping 2026", "Top 5 Instagram Algorithm Hacks to Grow in 2026"]) {
    await expect(page.getByRole("link", { name })).toBeVisible();
  }
  for (const title of ["Tips & Insights", "Secret Admirers", "Detect Stalkers", "Password safety", "News", "Instagram PRO"]) {
    await expect(page.getByRole("heading", { name: title, exact: true })).toBeVisible();
  }
  await expect(page.getByRole("link", { name: "Tips & Insights" }).first()).toHaveAttribute("href", "/dashboard/insights");
  await snap(page, "dashboard");

  await page.getByRole("button", { name: "Menu" }).click();
  const menu = page.getByRole("dialog", { name: "Menu" });
  await expect(menu).toBeVisible();
  const entries = ["Tips & Insights", "Secret Admirers", "Detect Stalkers", "Password safety", "News",
    "Terms of Service", "Privacy Policy", "My Plan", "Log out"];
  for (const name of entries) {
    await expect(menu.getByRole(name === "My Plan" || name === "Log out" ? "button" : "link", { name, exact: true })).toBeVisible();
  }
  await expect(menu.getByRole("link", { name: "Terms of Service" })).toHaveAttribute("target", "_blank");
  await snap(page, "dashboard-menu");

  await menu.getByRole("button", { name: "Log out" }).click();
  const modal = page.getByRole("dialog", { name: "Are you sure you want to log out?" });
  await expect(modal.getByRole("button", { name: "Yes, log out" })).toBeVisible();
  await modal.getByRole("button", { name: "Not now" }).click();
  await expect(modal).toHaveCount(0);
  await expect(page).toHaveURL(/\/dashboard$/);
});

test("the header turns white after scrolling", async ({ page }) => {
  await signIn(page);
  await expect(page).toHaveURL(/\/dashboard$/);
  const header = page.locator("header").first();
  const before = await header.evaluate((el) => getComputedStyle(el).backgroundColor);
  await page.mouse.wheel(0, 600);
  await expect
    .poll(async () => header.evaluate((el) => getComputedStyle(el).backgroundColor))
    .toBe("rgb(255, 255, 255)");
  expect(before).not.toBe("rgb(255, 255, 255)");
});

test("guards: unknown paths go home, sign-in goes to the dashboard when signed in", async ({ page }) => {
  await page.goto("/somewhere/else");
  await expect(page).toHaveURL(/\/sign-in$/);
  await signIn(page);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto("/no/such/page");
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto("/sign-in");
  await expect(page).toHaveURL(/\/dashboard$/);
});

test("log out ends the session", async ({ page }) => {
  await signIn(page);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("dialog", { name: "Menu" }).getByRole("button", { name: "Log out" }).click();
  await page.getByRole("button", { name: "Yes, log out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/sign-in$/);
});

test("?creds= signs in behind the full-screen loader and leaves the address bar at once", async ({ page }) => {
  const creds = Buffer.from(JSON.stringify(demo)).toString("base64");
  const seen: string[] = [];
  page.on("request", (req) => seen.push(req.url()));
  await page.goto(`/?creds=${encodeURIComponent(creds)}`);
  await expect(page).toHaveURL(/\/dashboard$/);
  // Only the initial document request may carry the parameter; no API call does.
  expect(seen.filter((u) => u.includes(creds) || u.includes(encodeURIComponent(creds))).length).toBeLessThanOrEqual(1);
  expect(seen.filter((u) => u.includes("/ui/") && u.includes("creds")).length).toBe(0);
});

test("a bad sign-in link gives way to sign-in", async ({ page }) => {
  await page.goto("/?login=not-a-real-token");
  await expect(page).toHaveURL(/\/sign-in$/);
  expect(page.url()).not.toContain("login=");
});

test("repeated failures are blocked with the spec's message", async ({ page }) => {
  await page.goto("/sign-in");
  const message = "We have blocked all requests from this device due to unusual activity. Try again later.";
  for (let i = 0; i < 11; i++) {
    await page.getByLabel("Email address").fill("ghost@example.com");
    await page.getByLabel("Password", { exact: true }).fill(`wrong-${i}-password`);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").first()).toBeVisible();
  }
  await expect(page.getByRole("alert").filter({ hasText: message })).toBeVisible();
});
