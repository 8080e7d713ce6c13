import { type Page } from "@playwright/test";
import { expect, test } from "./fixtures";

// The unsubscribe flow (issue #11) end to end: every branch to the final
// cancel and to each save, for subscribers who buy their plan on the
// sandbox checkout (so each test has its own subscription), and the demo
// subscriber's way in from My Plan.

const demo = { email: "demo@example.com", password: "glimpse-demo" };

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Buys a plan on the sandbox, creates the account from the mailed link and lands on the dashboard. */
async function buyer(page: Page, plan: RegExp, tag: string): Promise<string> {
  const email = `${tag}-${Date.now()}@example.com`;
  await page.goto("/checkout?quiz=true&page=SUBSCRIPTION");
  await page.getByRole("radio", { name: plan }).check();
  await page.getByLabel("Email address").fill(email);
  await page.getByRole("button", { name: "Continue to payment" }).click();
  // The card is typed on the payment provider's page (the sandbox's).
  await expect(page).toHaveURL(/\/sandbox-pay\/cs_sandbox_/);
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByLabel("Expiration (MM / YY)").fill("12 / 30");
  await page.getByLabel("CVC").fill("123");
  await page.getByRole("button", { name: /^Pay \$/ }).click();
  await expect(page).toHaveURL(/\/checkout\/done\?order=co_/);
  await expect(page.getByRole("heading", { name: "Payment successful" })).toBeVisible();
  await page.goto("/dev/mail");
  await page.getByRole("link").filter({ hasText: "Thank you for your purchase" }).filter({ hasText: email }).first().click();
  await page.getByRole("link", { name: /^\/access-recovery\?key=/ }).click();
  await page.getByPlaceholder("Enter your password").fill("a-long-new-password-1");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/dashboard$/, { timeout: 15_000 });
  return email;
}

const flow = (page: Page) => page.getByRole("dialog");

/**
 * An outcome screen's one composed layout (issue #21): the dialog is named by its headline, which
 * sits centred under the success mark in the body, with the words and the ways on centred below.
 */
async function expectOutcomeLayout(page: Page, headline: string): Promise<void> {
  const dialog = page.getByRole("dialog", { name: headline });
  await expect(dialog.locator(".dialog__mark--success")).toBeVisible();
  const panel = await dialog.boundingBox();
  const mark = await dialog.locator(".dialog__mark--success").boundingBox();
  const title = dialog.getByRole("heading", { name: headline });
  const box = await title.boundingBox();
  if (panel === null || mark === null || box === null) throw new Error("no box");
  const centre = panel.x + panel.width / 2;
  expect(Math.abs(mark.x + mark.width / 2 - centre)).toBeLessThan(2);
  expect(box.y).toBeGreaterThan(mark.y + mark.height - 1);
  expect(await title.evaluate((el) => getComputedStyle(el).textAlign)).toBe("center");
  expect(await dialog.locator(".dialog__body--outcome p").first().evaluate((el) => getComputedStyle(el).textAlign)).toBe("center");
}

async function atStep(page: Page, step: number, title: string): Promise<void> {
  await expect(page).toHaveURL(new RegExp(`/dashboard/unsubscribe/${step}\\?attempt=`), { timeout: 10_000 });
  await expect(flow(page).getByRole("heading", { name: title })).toBeVisible();
}

/** Opens the flow with ?unsubscription=true and walks to the plan step (2), through the 2.5 s wait. */
async function toPlanStep(page: Page): Promise<void> {
  await page.goto("/dashboard?unsubscription=true");
  await atStep(page, 0, "Before you go");
  await expect(flow(page).getByRole("link", { name: "Cancel subscription now" })).toBeVisible();
  await flow(page).getByRole("link", { name: "I'm ready to let go" }).click();
  await atStep(page, 1, "Please wait");
  // Said once (issue #21): the loader's own words.
  await expect(flow(page).getByText("Getting your plan details…")).toHaveCount(1);
  await atStep(page, 2, "Your plan");
}

/** From the plan step, through 'have you made the most of it', to the survey (5). */
async function toSurvey(page: Page): Promise<void> {
  await flow(page).getByRole("link", { name: "Cancel membership" }).click();
  await atStep(page, 4, "Have you made the most of it?");
  await flow(page).getByRole("link", { name: "I still want to opt out" }).click();
  await atStep(page, 5, "Why are you leaving?");
}

/** Answers the survey and the review, which leads to the step after it. */
async function answer(page: Page, reason: string): Promise<void> {
  const cont = flow(page).getByRole("button", { name: "Continue" });
  await expect(cont).toBeDisabled();
  await flow(page).getByRole("radio", { name: reason }).check();
  await cont.click();
  await atStep(page, 6, "How was your experience?");
  const next = flow(page).getByRole("button", { name: "Continue" });
  await expect(next).toBeDisabled();
  await flow(page).locator("label", { hasText: "4 of 5" }).click();
  await expect(next).toBeDisabled(); // the stars are optional, the review is not
  await flow(page).getByLabel("Your review").fill("Good, but I have no time for it.");
  await next.click();
}

test("My Plan's Cancel opens the flow; 'Stay premium' closes it (demo)", async ({ page }) => {
  await signIn(page, demo.email, demo.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("button", { name: "My Plan" }).click();
  await page.getByRole("link", { name: "Cancel", exact: true }).click();
  await atStep(page, 0, "Before you go");
  await expect(page.getByRole("dialog")).toHaveAttribute("aria-modal", "true");
  await flow(page).getByRole("button", { name: "Stay premium" }).click();
  // Back where it started: My Plan (issue #21).
  await expect(page).toHaveURL(/\/dashboard\?open=my-plan$/);
  await expect(page.getByRole("dialog", { name: "My Plan" })).toBeVisible();
  // Escape closes it too, back where it was opened.
  await page.goto("/dashboard/analytics?unsubscription=true");
  await atStep(page, 0, "Before you go");
  await page.keyboard.press("Escape");
  await expect(page).toHaveURL(/\/dashboard\/analytics$/);
});

test("click to cancel: step 0 straight to the final cancel", async ({ page }) => {
  await buyer(page, /Weekly Plan/, "unsub-direct");
  await page.goto("/dashboard?unsubscription=true");
  await atStep(page, 0, "Before you go");
  await flow(page).getByRole("link", { name: "Cancel subscription now" }).click();
  await atStep(page, 8, "Cancel your membership");
  await flow(page).getByRole("button", { name: "Cancel membership" }).click();
  await expect(flow(page).getByRole("heading", { name: "Your membership has been canceled" })).toBeVisible();
  await expectOutcomeLayout(page, "Your membership has been canceled");
  await expect(flow(page).getByRole("link", { name: "Contact us" })).toHaveAttribute("href", /^mailto:/);
  await flow(page).getByRole("link", { name: "Back to home page" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("button", { name: "My Plan" }).click();
  await expect(page.getByRole("button", { name: "Canceled" })).toBeDisabled();
});

test("saves: the plan change, 'Keep me subscribed', and the survey's first reason", async ({ page }) => {
  await buyer(page, /Weekly Plan/, "unsub-saves");
  await toPlanStep(page);
  await flow(page).getByRole("link", { name: "Change my plan" }).click();
  await atStep(page, 3, "A better price for you");
  for (const text of ["$13.99 a month", "Full price $139.99", "90% off"]) {
    await expect(flow(page).getByText(text)).toBeVisible();
  }
  await expect(flow(page).getByText(/100% money-back guarantee/)).toBeVisible();
  await flow(page).getByRole("button", { name: "Switch to this plan" }).click();
  await expect(flow(page).getByRole("heading", { name: "Your plan has been successfully updated!" })).toBeVisible();
  await expectOutcomeLayout(page, "Your plan has been successfully updated!");
  await flow(page).getByRole("link", { name: "Great!" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  await toPlanStep(page);
  await flow(page).getByRole("link", { name: "Cancel membership" }).click();
  await atStep(page, 4, "Have you made the most of it?");
  await flow(page).getByRole("link", { name: "Back" }).click();
  await atStep(page, 2, "Your plan");
  await page.goBack();
  await atStep(page, 4, "Have you made the most of it?");
  await flow(page).getByRole("button", { name: "Keep me subscribed" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  await toPlanStep(page);
  await toSurvey(page);
  await flow(page).getByRole("radio", { name: "Forget it - I want to keep my membership" }).check();
  await flow(page).getByRole("button", { name: "Continue" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
});

test("the free month, then the way to the final cancel without the offer", async ({ page }) => {
  await buyer(page, /3-Month Plan/, "unsub-gift");
  await toPlanStep(page);
  await toSurvey(page);
  await answer(page, "Not seeing immediate results");
  await atStep(page, 7, "A gift before you go");
  await flow(page).getByRole("button", { name: "Get my free month" }).click();
  await expect(flow(page).getByRole("heading", { name: "Your free month has been added!" })).toBeVisible();
  await expectOutcomeLayout(page, "Your free month has been added!");
  await flow(page).getByRole("link", { name: "Great!" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  // The free month is offered once: this time the review leads to the end.
  await toPlanStep(page);
  await toSurvey(page);
  await answer(page, "Other");
  await atStep(page, 8, "Cancel your membership");
  await flow(page).getByRole("link", { name: "Back" }).click();
  await atStep(page, 6, "How was your experience?");
});

test("every step to the final cancel, with the browser's back, and the mailed link as a second way", async ({ page }) => {
  await buyer(page, /Weekly Plan/, "unsub-full");
  await toPlanStep(page);
  await toSurvey(page);
  await answer(page, "I'm cutting down on expenses");
  await atStep(page, 7, "A gift before you go");
  await flow(page).getByRole("link", { name: "No, thanks" }).click();
  await atStep(page, 8, "Cancel your membership");
  await page.goBack();
  await atStep(page, 7, "A gift before you go");
  await page.goForward();
  await atStep(page, 8, "Cancel your membership");
  await flow(page).getByRole("button", { name: "Send me a cancellation link instead" }).click();
  await expect(page.getByRole("button", { name: "Send confirmation email" })).toBeVisible();
  await page.keyboard.press("Escape");
  await flow(page).getByRole("button", { name: "Cancel membership" }).click();
  await expect(flow(page).getByRole("heading", { name: "Your membership has been canceled" })).toBeVisible();
});
