import { type Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { snap } from "./visual";

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
}

test("the demo subscriber's email is in the sample breaches", async ({ page }) => {
  await signIn(page, "demo@example.com", "glimpse-demo");
  await page.getByRole("link", { name: "Password safety" }).first().click();
  await expect(page).toHaveURL(/\/dashboard\/password-safety$/);
  await expect(page.getByText("EMAIL COMPROMISED!")).toBeVisible();
  const sites = page.getByRole("list", { name: "Breached sites" });
  await expect(sites.getByRole("listitem")).toHaveCount(4);
  await expect(sites.getByText("Email addresses").first()).toBeVisible();
  await expect(page.getByText(/^Sample data:/)).toBeVisible();
  await snap(page, "password-safety-compromised", [page.getByText(/^Last checked/)]);
  // The result is stored: a second visit shows it without checking again.
  await page.goto("/dashboard");
  await page.goto("/dashboard/password-safety");
  await expect(page.getByText("EMAIL COMPROMISED!")).toBeVisible();
  await expect(page.getByText("Checking your email address")).toHaveCount(0);
  await page.getByRole("link", { name: "Back" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
});

test("an email in no breach sees 'No breached accounts'", async ({ page }) => {
  await signIn(page, "clean@example.com", "glimpse-clean");
  // Opened from the app, not loaded: a loaded page's first screen is in Inter's stand-in and the
  // check's answer, a screen of its own, would be in Inter or not as the font's fetch and the
  // check race (runtime/fonts.ts); from the app, Inter is in use before the check starts.
  await page.getByRole("link", { name: "Password safety" }).first().click();
  await expect(page).toHaveURL(/\/dashboard\/password-safety$/);
  await expect(page.getByText("No breached accounts")).toBeVisible();
  await expect(page.getByText("EMAIL COMPROMISED!")).toHaveCount(0);
  await snap(page, "password-safety-clean", [page.getByText(/^Last checked/)]);
});
