import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { type Page } from "@playwright/test";
import { buyWeeklyPlan } from "./checkout";
import { expect, test } from "./fixtures";
import { unzipText } from "./unzip";

// Privacy and data, end to end: a freshly bought subscriber downloads their
// data and finds their address and plan in the ZIP, then deletes the account
// and cannot sign in again; Meta's data-deletion callback with a valid and a
// forged signed_request. (That the charge stays in the ledger, anonymised,
// is checked in Go: engine/privacy TestDeleteAccountLeavesNothingAboutThePerson.)

const metaSecret = "e2e-meta-app-secret"; // GLIMPSE_INSTAGRAM_APP_SECRET in playwright.config.ts

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

async function openMail(page: Page, to: string, subject: string): Promise<void> {
  await page.goto("/dev/mail");
  await page.getByRole("link").filter({ hasText: subject }).filter({ hasText: to }).first().click();
  await expect(page.getByRole("heading", { name: subject }).first()).toBeVisible();
}

/** Buys the weekly plan for a new address and creates its account from the mail. */
async function buyAndCreateAccount(page: Page, email: string, password: string): Promise<void> {
  await buyWeeklyPlan(page, email);
  await openMail(page, email, "Thank you for your purchase");
  await page.getByRole("link", { name: /^\/access-recovery\?key=/ }).click();
  await page.getByPlaceholder("Enter your password").fill(password);
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/dashboard$/, { timeout: 15_000 });
}

function signedRequest(userID: string, secret: string): string {
  // Fresh: Meta's callbacks refuse a request issued more than five minutes away from now.
  const issuedAt = Math.floor(Date.now() / 1000);
  const payload = Buffer.from(JSON.stringify({ algorithm: "HMAC-SHA256", issued_at: issuedAt, user_id: userID }))
    .toString("base64url");
  const sig = createHmac("sha256", secret).update(payload).digest("base64url");
  return `${sig}.${payload}`;
}

test("download my data, then delete my account", async ({ page }) => {
  const email = `leaver-${Date.now()}@example.com`;
  const password = "a-long-new-password-1";
  await buyAndCreateAccount(page, email, password);

  await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("dialog", { name: "Menu" }).getByRole("link", { name: "Privacy and data" }).click();
  await expect(page).toHaveURL(/\/dashboard\/privacy$/);
  await page.getByRole("button", { name: "Prepare my data" }).click();
  // The preparing state, then the page updates by itself.
  // A quick export may be ready before "Preparing" is ever drawn; "ready" is a line of text, not a heading.
  await expect(page.getByText("Your data is ready", { exact: true }).or(page.getByText("Preparing your data…"))).toBeVisible();
  await expect(page.getByText("Your data is ready", { exact: true })).toBeVisible({ timeout: 30_000 });

  const downloading = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download my data" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^glimpse-data-\d{4}-\d{2}-\d{2}\.zip$/);
  const path = await download.path();
  const files = unzipText(readFileSync(path));
  expect(files.get("README.txt")).toContain("subscriptions.json");
  const account = JSON.parse(files.get("account.json") ?? "{}") as { email?: string; passwordHash?: string };
  expect(account.email).toBe(email);
  expect(account.passwordHash).toBeUndefined();
  // Written for a person: the plan by its name, no internal code.
  const plans = JSON.parse(files.get("subscriptions.json") ?? "[]") as { plan?: string; planCode?: string; email?: string }[];
  expect(plans).toHaveLength(1);
  expect(plans[0]?.plan).toBe("Weekly Plan");
  expect(plans[0]?.planCode).toBeUndefined();
  expect(plans[0]?.email).toBe(email);

  // The link was mailed too.
  await openMail(page, email, "Your data is ready to download");
  await expect(page.getByRole("link", { name: /\/privacy\/export\?key=/ })).toBeVisible();

  // Delete: the screen says what happens, the wrong password is refused.
  await page.goto("/dashboard/privacy");
  await page.getByRole("link", { name: "Delete my account…" }).click();
  await expect(page).toHaveURL(/\/dashboard\/privacy\/delete$/);
  await expect(page.getByText("because tax law requires it", { exact: false })).toBeVisible();
  await page.getByLabel("Your password").fill("not-my-password");
  await page.getByRole("button", { name: "Delete my account" }).click();
  await expect(page.getByText("That is not your password.")).toBeVisible();
  await page.getByLabel("Your password").fill(password);
  await page.getByRole("button", { name: "Delete my account" }).click();
  await expect(page).toHaveURL(/\/account-deleted$/);
  await expect(page.getByRole("heading", { name: "Your account is deleted" }).or(page.getByText("Your account is deleted").first())).toBeVisible();

  // Signed out everywhere, and the password no longer signs in.
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/sign-in$/);
  await signIn(page, email, password);
  await expect(page.getByText("The supplied auth credential is malformed or has expired.")).toBeVisible();

  // One last mail said so.
  await openMail(page, email, "Your account is deleted");
});

test("Meta's data-deletion callback: a forged request is refused, a valid one gets a status page", async ({ page, request }) => {
  const forged = await request.post("/instagram/data-deletion", {
    form: { signed_request: signedRequest("17841400000000099", "not-the-app-secret") },
  });
  expect(forged.status()).toBe(401);

  const valid = await request.post("/instagram/data-deletion", {
    form: { signed_request: signedRequest("17841400000000099", metaSecret) },
  });
  expect(valid.status()).toBe(200);
  const answer = (await valid.json()) as { url: string; confirmation_code: string };
  expect(answer.confirmation_code).toMatch(/^[0-9a-f]{32}$/);
  expect(answer.url).toContain(`/instagram/deletion?code=${answer.confirmation_code}`);

  await page.goto(`/instagram/deletion?code=${answer.confirmation_code}`);
  await expect(page.getByText(`Request ${answer.confirmation_code}`, { exact: false })).toBeVisible();
  await page.goto("/instagram/deletion?code=unknown");
  await expect(page.getByText("We know no deletion request with this code.", { exact: false })).toBeVisible();
});
