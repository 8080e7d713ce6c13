import { type Browser, type Locator, type Page } from "@playwright/test";
import { readFile } from "node:fs/promises";
import { buyWeeklyPlan } from "./checkout";
import { expect, test } from "./fixtures";

// Every promise kept, on a phone (issue #31): one new buyer buys the weekly
// plan, is refused a second plan for the same address, changes plan from My
// Plan and takes it back, buys an add-on and downloads its receipt, is
// refunded that add-on by support, cancels and resumes. Each step shows its
// confirmation on screen and mails it (the development mailbox, /dev/mail).

test.use({ viewport: { width: 390, height: 844 } });

/**
 * Opens the newest mail to an address with a subject in the development mailbox and returns its
 * text. Mail is queued after the answer, so the list is read again until it holds at least `count`
 * such mails (the newest first).
 */
async function openMail(page: Page, to: string, subject: string, count = 1): Promise<string> {
  const links = page.getByRole("link").filter({ hasText: subject }).filter({ hasText: to });
  await expect(async () => {
    await page.goto("/dev/mail");
    await expect(links.first()).toBeVisible({ timeout: 2_000 });
    expect(await links.count()).toBeGreaterThanOrEqual(count);
  }).toPass({ timeout: 15_000 });
  expect(await links.count(), `mails "${subject}" to ${to}`).toBe(count);
  await links.first().click();
  await expect(page.getByRole("heading", { name: subject }).first()).toBeVisible();
  return (await page.locator("main").innerText()).replace(/\s+/g, " ");
}

async function openMyPlan(page: Page): Promise<Locator> {
  await page.goto("/dashboard");
  await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("button", { name: "My Plan" }).click();
  const plan = page.getByRole("dialog", { name: "My Plan" });
  await expect(plan).toBeVisible();
  return plan;
}

/** Support refunds all that is left of the subscriber's charge for item, with a reason. */
async function supportRefunds(browser: Browser, email: string, item: string): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await page.goto("/studio");
  await page.getByLabel("Email address").fill("support@example.com");
  await page.getByLabel("Password", { exact: true }).fill("glimpse-support");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/studio\/support$/);
  await page.getByLabel("Subscriber's email").fill(email);
  await page.getByRole("button", { name: "Find", exact: true }).click();
  const charge = page.getByRole("list", { name: "Charges" }).getByRole("listitem").filter({ hasText: item });
  await expect(charge).toBeVisible();
  await charge.getByRole("button", { name: "Refund" }).click();
  const dialog = page.getByRole("dialog", { name: "Refund a charge" });
  await expect(dialog.getByRole("radio", { name: new RegExp(item.replace(/[.$]/g, "\\$&")) })).toBeChecked();
  await dialog.getByLabel("Reason").fill("Asked by mail: bought by mistake");
  await dialog.getByRole("radio", { name: /All that is left/ }).check();
  await dialog.getByRole("button", { name: "Refund", exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(charge.getByText(/refunded/).first()).toBeVisible();
  await context.close();
}

test("a buyer's walk on a phone: buy, refused a second plan, change plan and keep it, buy an add-on, refunded, cancel, resume — each confirmed on screen and by mail", async ({
  page,
  browser,
}) => {
  test.setTimeout(90_000);
  const email = `promises-${Date.now()}@example.com`;

  // 1. Buy the weekly plan on the provider's page; the welcome mail names the plan, price, period
  // and renewal date, and creates the account.
  await buyWeeklyPlan(page, email);
  const welcome = await openMail(page, email, "Thank you for your purchase");
  const renews = /Your Weekly Plan is active: \$1 every week, renewing on (\w{3} \d{1,2}, \d{4}) until you cancel\./.exec(welcome);
  expect(renews, welcome).not.toBeNull();
  const renewDate = renews![1];
  expect(Date.parse(`${renewDate} UTC`) - Date.now()).toBeGreaterThan(6 * 86_400_000);
  expect(Date.parse(`${renewDate} UTC`) - Date.now()).toBeLessThan(8 * 86_400_000);
  expect(welcome).toContain("You can cancel any time");
  await page.getByRole("link", { name: /^\/access-recovery\?key=/ }).first().click();
  await expect(page.getByRole("heading", { name: "Create Your Account" })).toBeVisible();
  await page.getByPlaceholder("Enter your password").fill("a-long-new-password-1");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/dashboard$/, { timeout: 15_000 });

  // 2. The same address at checkout again: told it has an active plan, no second payment page.
  const stranger = await browser.newPage();
  await stranger.goto("/checkout?quiz=true&page=SUBSCRIPTION");
  await stranger.getByRole("radio", { name: /Gift Plan|Premium Plan/ }).first().check();
  await stranger.getByLabel("Email address").fill(email);
  await stranger.getByRole("button", { name: "Continue to payment" }).click();
  await expect(stranger.getByText("This email address already has an active plan. Sign in to manage it or change plan in My Plan.")).toBeVisible();
  expect(stranger.url()).not.toContain("/sandbox-pay/");
  await stranger.context().close();

  // 3. Change plan from My Plan: Premium from the renewal, shown on My Plan and mailed; then kept as it is.
  let plan = await openMyPlan(page);
  await expect(plan.getByText(`Renews on ${renewDate}`)).toBeVisible();
  await plan.getByRole("button", { name: "Change plan" }).click();
  const change = page.getByRole("dialog", { name: "Change your plan" });
  await expect(change.getByText(new RegExp(`the new price applies from ${renewDate}, nothing is charged now`))).toBeVisible();
  await change.getByRole("radio", { name: /^Premium Plan · \$13\.99 every 1 month/ }).check();
  await change.getByRole("button", { name: "Confirm the change" }).click();
  await expect(change).toBeHidden();
  await expect(plan.getByText(`From ${renewDate}: Premium Plan, $13.99 every 1 month`)).toBeVisible();
  const scheduled = await openMail(page, email, "Your plan change is scheduled");
  expect(scheduled).toContain(`From ${renewDate}, you are on the Premium Plan: $13.99 every 1 month.`);
  plan = await openMyPlan(page);
  await plan.getByRole("button", { name: "Keep my Weekly Plan" }).click();
  await expect(plan.getByText(/Premium Plan, \$13\.99/)).toHaveCount(0);
  await expect(plan.getByRole("button", { name: "Keep my Weekly Plan" })).toHaveCount(0);
  await expect(plan.getByText(`Renews on ${renewDate}`)).toBeVisible();
  const kept = await openMail(page, email, "Your plan stays as it is");
  expect(kept).toContain("your Weekly Plan renews as it is");
  expect(kept).toContain(`Next payment: $1 on ${renewDate}, then every week until you cancel.`);

  // 4. Buy the Reels playbook from My Plan; its receipt downloads as a PDF.
  plan = await openMyPlan(page);
  const playbook = plan
    .locator("div, section, article")
    .filter({ hasText: "Reels playbook" })
    .filter({ has: page.getByRole("button", { name: "Buy for $28.99" }) })
    .last();
  await playbook.getByRole("button", { name: "Buy for $28.99" }).click();
  const confirm = page.getByRole("dialog", { name: "Confirm your purchase" });
  await expect(confirm.getByText("One-time payment of $28.99, charged now to your Visa ••4242.")).toBeVisible();
  await confirm.getByRole("button", { name: "Pay $28.99 with Visa ••4242" }).click();
  await expect(page).toHaveURL(/\/dashboard\/receipts\/[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}\?purchase=done$/);
  await expect(page.getByText("Payment successful")).toBeVisible();
  const number = /receipts\/([0-9A-Z-]+)\?/.exec(page.url())![1];
  const downloading = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download PDF" }).or(page.getByRole("button", { name: "Download PDF" })).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`receipt-${number}.pdf`);
  const pdf = await readFile((await download.path())!);
  expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-");
  const receipt = await openMail(page, email, `Your Glimpse receipt ${number}`);
  expect(receipt).toContain("We charged $28.99 for Reels playbook on");

  // 5. Support refunds all of it with a reason; the subscriber is mailed and billing history says so.
  await supportRefunds(browser, email, "Reels playbook · $28.99");
  const refund = await openMail(page, email, "Your refund of $28.99");
  expect(refund).toMatch(/We have refunded \$28\.99 of your payment of \w{3} \d{1,2}, \d{4} for Reels playbook to Visa ••4242\./);
  expect(refund).toContain("The payment is refunded in full, so the purchase it paid for is no longer yours.");
  expect(refund).toContain("within 5 to 10 business days");
  await page.goto("/dashboard/billing");
  const line = page.getByRole("link").filter({ hasText: "Reels playbook" });
  await expect(line).toContainText(/\$28\.99 refunded on \w{3} \d{1,2}, \d{4}/);
  await expect(line).toContainText("Refunded");
  plan = await openMyPlan(page);
  await expect(plan.getByRole("link", { name: "Download playbook" })).toHaveCount(0);

  // 6. Cancel through the unsubscribe flow, mailed; then resume, said on screen and mailed.
  await page.goto("/dashboard?unsubscription=true");
  const flow = page.getByRole("dialog");
  await flow.getByRole("link", { name: "Cancel subscription now" }).click();
  await expect(flow.getByRole("heading", { name: "Cancel your membership" })).toBeVisible();
  await flow.getByRole("button", { name: "Cancel membership" }).click();
  await expect(flow.getByRole("heading", { name: "Your membership has been canceled" })).toBeVisible();
  const canceled = await openMail(page, email, "Your subscription is canceled");
  expect(canceled).toContain(`Your Weekly Plan is canceled and will not renew. You keep your access until ${renewDate}.`);
  expect(canceled).toContain(`choose Resume my plan before ${renewDate}`);

  plan = await openMyPlan(page);
  await expect(plan.getByRole("button", { name: "Canceled" })).toBeDisabled();
  await expect(plan.getByText(`Active until ${renewDate}`)).toBeVisible();
  await plan.getByRole("button", { name: "Resume my plan" }).click();
  const resumed = page.getByRole("dialog", { name: "Your plan is active again" });
  await expect(resumed).toBeVisible();
  await expect(resumed.getByText(`Your Weekly Plan keeps running: the next payment is $1 on ${renewDate}, then every week until you cancel.`)).toBeVisible();
  await expect(resumed.getByText(`We've emailed a confirmation to ${email}.`)).toBeVisible();
  await resumed.getByRole("button", { name: "OK" }).click();
  await expect(resumed).toBeHidden();
  await expect(plan.getByText(`Renews on ${renewDate}`)).toBeVisible();
  const again = await openMail(page, email, "Your plan is active again");
  expect(again).toContain("Your cancellation is taken back: your Weekly Plan keeps running.");
  expect(again).toContain(`Next payment: $1 on ${renewDate}, then every week until you cancel.`);
});
