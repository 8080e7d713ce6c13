import { type Page } from "@playwright/test";
import { expect, test } from "./fixtures";

// Buying an add-on from My Plan: the confirmation names the price and the
// card, the payment lands on its receipt, billing history lists it, and
// the receipt mail reads the same in the development mailbox.

const demo = { email: "demo@example.com", password: "glimpse-demo" };

async function signIn(page: Page): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill(demo.email);
  await page.getByLabel("Password", { exact: true }).fill(demo.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
}

async function openMyPlan(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("button", { name: "My Plan" }).click();
}

test("buy the profile report with its confirmation, see it in billing history, read the receipt mail", async ({ page }) => {
  await signIn(page);
  await openMyPlan(page);
  const myPlan = page.getByRole("dialog", { name: "My Plan" });
  // The active plan comes first, above the offers.
  const active = myPlan.getByText("Active plan");
  const offers = myPlan.getByRole("heading", { name: /^Extras for you/ }).or(myPlan.getByText(/^Extras for you/));
  const activeBox = await active.boundingBox();
  const offersBox = await offers.first().boundingBox();
  expect(activeBox && offersBox && activeBox.y < offersBox.y).toBeTruthy();

  // One tap charges nothing: it opens the confirmation. (The playbook costs
  // the same, so the report's button is found in the report's card: the
  // innermost element holding both.)
  const buyReport = myPlan
    .locator("div, section, article")
    .filter({ hasText: "Profile report" })
    .filter({ has: page.getByRole("button", { name: "Buy for $28.99" }) })
    .last()
    .getByRole("button", { name: "Buy for $28.99" });
  await buyReport.click();
  const confirm = page.getByRole("dialog", { name: "Confirm your purchase" });
  await expect(confirm.getByText("One-time payment of $28.99, charged now to your Visa ••4242.")).toBeVisible();
  // 'Not now' leaves without buying.
  await confirm.getByRole("button", { name: "Not now" }).click();
  await expect(confirm).toBeHidden();
  await buyReport.click();
  await confirm.getByRole("button", { name: "Pay $28.99 with Visa ••4242" }).click();

  // The receipt says it went through and offers the report.
  await expect(page).toHaveURL(/\/dashboard\/receipts\/[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}\?purchase=done$/);
  await expect(page.getByText("Payment successful")).toBeVisible();
  await expect(page.getByText(`You paid $28.99 with Visa ••4242. Your receipt is on its way to ${demo.email}.`)).toBeVisible();
  await expect(page.getByRole("button", { name: "Download the report" }).or(page.getByRole("link", { name: "Download the report" }))).toBeVisible();
  const number = /receipts\/([0-9A-Z-]+)\?/.exec(page.url())?.[1] ?? "";
  expect(number).not.toBe("");
  await expect(page.getByRole("heading", { name: `Receipt ${number}` }).or(page.getByText(`Receipt ${number}`)).first()).toBeVisible();

  // Billing history lists the charge, paid, and opens its receipt.
  await page.getByRole("link", { name: "All charges" }).click();
  await expect(page).toHaveURL(/\/dashboard\/billing$/);
  const line = page.getByRole("link").filter({ hasText: "Profile report" });
  await expect(line).toContainText("$28.99");
  await expect(line).toContainText("Paid");
  await line.click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/receipts/${number}$`));
  await expect(page.getByText("Payment successful")).toHaveCount(0);
  await expect(page.getByText("One-time purchase")).toBeVisible();

  // My Plan now offers the report as bought, and links to the history.
  await page.goto("/dashboard");
  await openMyPlan(page);
  await expect(myPlan.getByRole("link", { name: "Download report" })).toBeVisible();
  await myPlan.getByRole("link", { name: "Billing history" }).click();
  await expect(page).toHaveURL(/\/dashboard\/billing$/);

  // The receipt mail names the item, amount, card, number, seller and brand.
  await page.goto("/dev/mail");
  await page.getByRole("link").filter({ hasText: `Your Glimpse receipt ${number}` }).filter({ hasText: demo.email }).first().click();
  const body = page.locator("main");
  await expect(body).toContainText("We charged $28.99 for Profile report on");
  await expect(body).toContainText("Paid with: Visa ••4242");
  await expect(body).toContainText(`Receipt number: ${number}`);
  // make run's operator is a fictional one, named as such (a deployment must name its own).
  await expect(body).toContainText("Sold by Example Operator (fictional: this is a demo) for Glimpse.");
  await expect(body).toContainText("support@glimpse.example");
});

test("another subscriber's receipt number reads as not found", async ({ page }) => {
  await signIn(page);
  await page.goto("/dashboard/receipts/0000-0000-0000");
  await expect(page.getByText("There is no receipt with this number.")).toBeVisible();
});
