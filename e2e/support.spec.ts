import { type Browser, type Page } from "@playwright/test";
import { expect, test } from "./fixtures";

// The support desk end to end: support signs in at /studio and lands on the
// desk, finds the demo subscriber, refunds their Reels playbook with a
// reason; the playbook is no longer theirs in My Plan, and the audit log
// shows the refund. An editor is refused the desk.

async function signInToStudio(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/studio");
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Opens the demo subscriber's My Plan in a browser of their own. */
async function demoPlan(browser: Browser): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill("demo@example.com");
  await page.getByLabel("Password", { exact: true }).fill("glimpse-demo");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("button", { name: "My Plan" }).click();
  await expect(page.getByRole("dialog", { name: "My Plan" })).toBeVisible();
  return { page, close: () => context.close() };
}

test("support refunds the demo subscriber's add-on with a reason; it leaves My Plan and the audit log shows it", async ({ browser }) => {
  const before = await demoPlan(browser);
  const playbook = before.page.getByRole("dialog", { name: "My Plan" });
  await expect(playbook.getByRole("link", { name: "Download playbook" })).toBeVisible();
  // What else is on offer depends on what earlier specs bought for demo; the playbook is owned.
  const offered = await playbook.getByRole("button", { name: "Buy for $28.99" }).count();
  await before.close();

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await signInToStudio(page, "support@example.com", "glimpse-support");
  await expect(page).toHaveURL(/\/studio\/support$/);
  await expect(page.getByRole("heading", { name: "Support desk" }).first()).toBeVisible();

  await page.getByLabel("Subscriber's email").fill("demo@example.com");
  await page.getByRole("button", { name: "Find", exact: true }).click();
  await expect(page).toHaveURL(/\/studio\/support\?email=demo%40example\.com$/);
  const charges = page.getByRole("list", { name: "Charges" });
  const charge = charges.getByRole("listitem").filter({ hasText: "Reels playbook · $28.99" });
  await expect(charge).toBeVisible();
  // Desktop-first: what Glimpse holds on the left, the actions on the right.
  const chargesBox = await charges.boundingBox();
  const actionsBox = await page.getByRole("heading", { name: "Actions" }).boundingBox();
  expect(chargesBox).not.toBeNull();
  expect(actionsBox).not.toBeNull();
  if (chargesBox !== null && actionsBox !== null) expect(actionsBox.x).toBeGreaterThan(chargesBox.x + chargesBox.width - 1);

  await charge.getByRole("button", { name: "Refund" }).click();
  const dialog = page.getByRole("dialog", { name: "Refund a charge" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("radio", { name: /Reels playbook · \$28\.99/ })).toBeChecked();
  // No reason: refused, nothing refunded.
  await dialog.getByRole("button", { name: "Refund", exact: true }).click();
  await expect(dialog.getByText("Say why.")).toBeVisible();
  await dialog.getByLabel("Reason").fill("Bought the playbook twice by mistake, asked by mail");
  // Full or partial is a choice: nothing is refunded until one is made.
  await dialog.getByRole("button", { name: "Refund", exact: true }).click();
  await expect(dialog.getByText("Choose a full or a partial refund.")).toBeVisible();
  await dialog.getByRole("radio", { name: /All that is left/ }).check();
  await dialog.getByRole("button", { name: "Refund", exact: true }).click();
  await expect(dialog).toBeHidden();

  await expect(charge.getByText(/refunded/).first()).toBeVisible();
  const audit = page.getByRole("list", { name: "Audit log for this subscriber" });
  await expect(audit.getByText(/support@example\.com · refund \(\$28\.99 \(nothing left\)\) · demo@example\.com/)).toBeVisible();
  await expect(audit.getByText("Why: Bought the playbook twice by mistake, asked by mail", { exact: false })).toBeVisible();

  // On a phone the desk stacks its two columns and still works.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole("heading", { name: "Actions" })).toBeVisible();
  await context.close();

  const after = await demoPlan(browser);
  const plan = after.page.getByRole("dialog", { name: "My Plan" });
  await expect(plan.getByRole("heading", { name: "Reels playbook" })).toBeVisible();
  await expect(plan.getByRole("link", { name: "Download playbook" })).toHaveCount(0);
  // The playbook is on offer again.
  await expect(plan.getByRole("button", { name: "Buy for $28.99" })).toHaveCount(offered + 1);
  await after.close();
});

test("an editor is refused the support desk", async ({ page }) => {
  await signInToStudio(page, "editor@example.com", "glimpse-editor");
  await expect(page.getByText("Signed in as editor@example.com (editor)")).toBeVisible();
  const answer = await page.request.get("/ui/screen?path=" + encodeURIComponent("/studio/support?email=demo@example.com"), {
    headers: { "X-SDUI-Version": "1" },
  });
  expect(answer.status()).toBe(403);
  expect(await answer.text()).not.toContain("demo@example.com");
  await page.goto("/studio/support");
  await expect(page.getByText("Only support staff and admins may use the support desk.")).toBeVisible();
  await expect(page.getByLabel("Subscriber's email")).toHaveCount(0);
});
