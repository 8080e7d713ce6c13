import { expect, test, type Page } from "@playwright/test";

// The money side end to end on the sandbox provider: buy, follow the mailed
// link from the development mailbox, create the account; a declined card;
// buy the course; cancel by email; the public cancel page.

const demo = { email: "demo@example.com", password: "glimpse-demo" };

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

async function fillCard(page: Page, number: string): Promise<void> {
  await page.getByLabel("Card number").fill(number);
  await page.getByLabel("Expiry date (MM/YY)").fill("12/30");
  await page.getByLabel("Security code (CVC)").fill("123");
}

// openMail opens the newest mail to an address with a subject, from the
// development mailbox, and returns the page showing it.
async function openMail(page: Page, to: string, subject: string): Promise<void> {
  await page.goto("/dev/mail");
  await page.getByRole("link").filter({ hasText: subject }).filter({ hasText: to }).first().click();
  await expect(page.getByRole("heading", { name: subject }).first()).toBeVisible();
}

test("buy the weekly plan, open the mail, create the account, land on the dashboard", async ({ page }) => {
  const email = `buyer-${Date.now()}@example.com`;
  await page.goto("/checkout?quiz=true&page=SUBSCRIPTION");
  await expect(page.getByRole("heading", { name: "Choose your plan" })).toBeVisible();
  await page.getByRole("radio", { name: /Weekly Plan/ }).check();
  await page.getByLabel("Email address").fill(email);
  await fillCard(page, "4242 4242 4242 4242");
  await page.getByRole("button", { name: "Subscribe" }).click();
  await expect(page).toHaveURL(/\/checkout\/done\?id=sub_/);
  await expect(page.getByRole("heading", { name: "Payment successful" })).toBeVisible();

  await openMail(page, email, "Thank you for your purchase");
  // The link carries the mail's own key, never the subscription id the done page showed.
  const welcome = page.getByRole("link", { name: /^\/access-recovery\?key=/ });
  const welcomePath = (await welcome.getAttribute("href")) ?? "";
  expect(welcomePath).not.toContain("sub_");
  await welcome.click();
  await expect(page.getByRole("heading", { name: "Create Your Account" })).toBeVisible();
  await expect(page.getByLabel("Email address")).toHaveValue(email);
  await expect(page.getByLabel("Email address")).toBeDisabled();
  await page.getByPlaceholder("Enter your password").fill("a-long-new-password-1");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/dashboard$/, { timeout: 15_000 });
  await expect(page.getByRole("heading", { name: "Tips & Insights", exact: true })).toBeVisible();
  // Opened again from another browser, the link says the account is ready and offers sign-in.
  const browser = page.context().browser();
  if (browser === null) throw new Error("no browser");
  const other = await browser.newPage();
  await other.goto(new URL(welcomePath, page.url()).toString());
  await expect(other.getByText("Your account is ready.")).toBeVisible();
  await expect(other.getByRole("link", { name: "Sign in" }).or(other.getByRole("button", { name: "Sign in" }))).toBeVisible();
  await other.close();
});

test("a declined card says so and creates nothing", async ({ page }) => {
  const email = `declined-${Date.now()}@example.com`;
  await page.goto("/checkout");
  await page.getByLabel("Email address").fill(email);
  await fillCard(page, "4000 0000 0000 0002");
  await page.getByRole("button", { name: "Subscribe" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Your card was declined." })).toBeVisible();
  await expect(page).toHaveURL(/\/checkout$/);
  await fillCard(page, "4242 4242 4242 4241");
  await page.getByRole("button", { name: "Subscribe" }).click();
  await expect(page.getByText("Your card number is incorrect.")).toBeVisible();
  await page.goto("/dev/mail");
  await expect(page.getByText(email)).toHaveCount(0);
});

test("buy the course from its modal and open lesson 1", async ({ page }) => {
  await signIn(page, demo.email, demo.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.getByRole("button", { name: "Instagram PRO" }).click();
  const modal = page.getByRole("dialog", { name: "Instagram PRO course" });
  await expect(modal.getByText("$19.99")).toBeVisible();
  await modal.getByRole("button", { name: "Get the course" }).click();
  await expect(page).toHaveURL(/\/dashboard\/course$/);
  const lesson = page.getByRole("link", { name: "View lesson 1", exact: true });
  await expect(lesson).toBeVisible();
  const href = await lesson.getAttribute("href");
  expect(href).toBeTruthy();
  const pdf = await page.request.get(href!);
  expect(pdf.status()).toBe(200);
  expect(pdf.headers()["content-type"]).toContain("application/pdf");
});

test("cancel by email: the mailed link cancels and My Plan shows Canceled", async ({ page }) => {
  await signIn(page, "clean@example.com", "glimpse-clean");
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("button", { name: "My Plan" }).click();
  // Cancel opens the unsubscribe flow (#11); its final step keeps the mailed link.
  await page.getByRole("link", { name: "Cancel", exact: true }).click();
  await page.getByRole("dialog").getByRole("link", { name: "Cancel subscription now" }).click();
  await page.getByRole("button", { name: "Send me a cancellation link instead" }).click();
  await page.getByRole("button", { name: "Send confirmation email" }).click();
  await expect(page.getByRole("heading", { name: "We've sent you a confirmation email" })).toBeVisible();
  await page.getByRole("button", { name: "OK" }).click();

  await openMail(page, "clean@example.com", "Confirm your cancellation");
  await page.getByRole("link", { name: /^\/unsubscription\?from=/ }).click();
  await expect(page.getByRole("heading", { name: "Your subscription has been canceled" })).toBeVisible();
  await expect(page.getByText("We've successfully canceled your subscription.")).toBeVisible();
  await expect(page.getByText(/^You can keep using Glimpse until /)).toBeVisible();

  await page.goto("/dashboard");
  await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("button", { name: "My Plan" }).click();
  await expect(page.getByRole("button", { name: "Canceled" })).toBeDisabled();
});

test("the public cancel page for an unknown link says there are no subscriptions", async ({ page }) => {
  await page.goto("/unsubscription?from=nobody-knows-this");
  await expect(page.getByRole("heading", { name: "No subscriptions" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Have a question? Reach our friendly support team here" })).toHaveAttribute(
    "href",
    /^mailto:/,
  );
});
