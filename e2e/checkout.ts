import { type Page } from "@playwright/test";
import { expect } from "./fixtures";

/**
 * Buys the weekly plan for email as a new visitor does: the plan and the address on our checkout,
 * then 4242… on the payment provider's hosted page (the sandbox's), landing on the done page.
 */
export async function buyWeeklyPlan(page: Page, email: string): Promise<void> {
  await page.goto("/checkout?quiz=true&page=SUBSCRIPTION");
  await page.getByRole("radio", { name: /Weekly Plan/ }).check();
  await page.getByLabel("Email address").fill(email);
  await page.getByRole("button", { name: "Continue to payment" }).click();
  await expect(page).toHaveURL(/\/sandbox-pay\/cs_sandbox_/);
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByLabel("Expiration (MM / YY)").fill("12 / 30");
  await page.getByLabel("CVC").fill("123");
  await page.getByRole("button", { name: /^Pay \$/ }).click();
  await expect(page).toHaveURL(/\/checkout\/done\?order=co_/);
  await expect(page.getByRole("heading", { name: "Payment successful" })).toBeVisible();
}
