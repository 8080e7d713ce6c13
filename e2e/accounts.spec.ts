import { type Page } from "@playwright/test";
import { expect, test } from "./fixtures";

// Restoring a password through the emailed link, opened from the dev mailbox (/dev/mail, on with
// GLIMPSE_DEV_MAILBOX=1). The demo subscriber's password is set back at the end, so the other
// specs still sign in with it.
const demo = { email: "demo@example.com", password: "glimpse-demo" };

async function requestReset(page: Page, email: string): Promise<void> {
  await page.goto("/password-recovery");
  await page.getByLabel("Email address").fill(email);
  await page.getByRole("button", { name: "Restore password" }).click();
  const dialog = page.getByRole("dialog", { name: "Check your email" });
  await expect(dialog).toBeVisible();
  await expect(
    dialog.getByText("We have sent instructions for changing your password to the specified email address."),
  ).toBeVisible();
}

/** The reset link of the newest reset mail to `email` in the dev mailbox, as a path with its fragment. */
async function newestResetLink(page: Page, email: string, seen: Set<string>): Promise<string> {
  let link = "";
  await expect(async () => {
    await page.goto("/dev/mail");
    await page.getByRole("link", { name: /Reset your password/ }).first().click();
    await expect(page.getByText(`To: ${email}`)).toBeVisible();
    const href = await page.getByRole("link", { name: /^\/password-recovery#reset=/ }).first().getAttribute("href");
    expect(href).not.toBeNull();
    expect(seen.has(href ?? "")).toBe(false);
    link = href ?? "";
  }).toPass({ timeout: 15_000 });
  seen.add(link);
  return link;
}

async function setPassword(page: Page, link: string, password: string): Promise<void> {
  // A mail link opens as a new page load: the renderer takes the token from the fragment.
  await page.goto(link);
  await expect(page).toHaveURL(/\/password-recovery$/);
  await expect(page.getByText("Choose a new password").first()).toBeVisible();
  await page.getByLabel("New password").fill(password);
  await page.getByRole("button", { name: "Save password" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await expect(page.getByRole("dialog", { name: "Your password has been changed" })).toBeVisible();
  await page.getByRole("button", { name: "Ok" }).click();
}

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

test("restore a password through the mailed link; the link works once", async ({ page }) => {
  const seen = new Set<string>();
  await requestReset(page, demo.email);
  await page.getByRole("link", { name: "Got it" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);

  const link = await newestResetLink(page, demo.email, seen);
  await setPassword(page, link, "a-new-e2e-password");

  await signIn(page, demo.email, demo.password);
  await expect(page.getByText("The supplied auth credential is malformed or has expired.")).toBeVisible();
  await signIn(page, demo.email, "a-new-e2e-password");
  await expect(page).toHaveURL(/\/dashboard$/);

  // The same link again: a notice and the form to ask for a new one.
  await page.context().clearCookies();
  await page.goto(link);
  await expect(page.getByText("This link has expired or was already used.", { exact: false })).toBeVisible();
  await expect(page.getByRole("button", { name: "Restore password" })).toBeVisible();

  // Put the demo password back for the other specs.
  await requestReset(page, demo.email);
  await setPassword(page, await newestResetLink(page, demo.email, seen), demo.password);
  await signIn(page, demo.email, demo.password);
  await expect(page).toHaveURL(/\/dashboard$/);
});

test("access recovery answers an unknown address like a sent mail", async ({ page }) => {
  await page.goto("/access-recovery");
  await expect(page.getByRole("heading", { name: "Access Recovery" })).toBeVisible();
  await page.getByLabel("Email address").fill("nobody-e2e@example.com");
  await page.getByRole("button", { name: "Send email" }).click();
  const dialog = page.getByRole("dialog", { name: "First, let's activate your account!" });
  await expect(dialog.getByText("Recovery email was sent to nobody-e2e@example.com. Check your email, please.")).toBeVisible();
  await dialog.getByRole("button", { name: "Ok" }).click();
  await expect(dialog).toHaveCount(0);
});
