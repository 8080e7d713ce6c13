import { type Page } from "@playwright/test";
import { cardNumbersIn, expect, test } from "./fixtures";

// The money side end to end on the sandbox provider, through its hosted
// payment page (the stand-in for Stripe's): buy, follow the mailed link from
// the development mailbox, create the account; a declined card corrected on
// the same page; a partner brand's host; 3-D Secure at checkout and for an
// add-on, with its receipt; buy the course; cancel by email; the public
// cancel page. No card number ever goes to a Glimpse action (fixtures.ts).

const demo = { email: "demo@example.com", password: "glimpse-demo" };

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Types a card on the sandbox's hosted page (the provider's page) and pays. */
async function payOnProviderPage(page: Page, number: string): Promise<void> {
  await expect(page).toHaveURL(/\/sandbox-pay\/cs_sandbox_/);
  await page.getByLabel("Card number").fill(number);
  await page.getByLabel("Expiration (MM / YY)").fill("12 / 30");
  await page.getByLabel("CVC").fill("123");
  await page.getByRole("button", { name: /^Pay \$/ }).click();
}

/** Starts a checkout of plan for email and lands on the provider's page. */
async function startCheckout(page: Page, origin: string, plan: RegExp, email: string): Promise<void> {
  await page.goto(`${origin}/checkout?quiz=true&page=SUBSCRIPTION`);
  await expect(page.getByRole("heading", { name: "Choose your plan" })).toBeVisible();
  await page.getByRole("radio", { name: plan }).check();
  await page.getByLabel("Email address").fill(email);
  await page.getByRole("button", { name: "Continue to payment" }).click();
  await expect(page).toHaveURL(/\/sandbox-pay\/cs_sandbox_/);
}

/** Follows the purchase mail's link and creates the account. */
async function createAccount(page: Page, email: string): Promise<void> {
  await openMail(page, email, "Thank you for your purchase");
  await page.getByRole("link", { name: /\/access-recovery\?key=/ }).first().click();
  await expect(page.getByRole("heading", { name: "Create Your Account" })).toBeVisible();
  await page.getByPlaceholder("Enter your password").fill("a-long-new-password-1");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page).toHaveURL(/\/dashboard$/, { timeout: 15_000 });
}

// openMail opens the newest mail to an address with a subject, from the
// development mailbox, and returns the page showing it.
async function openMail(page: Page, to: string, subject: string): Promise<void> {
  await page.goto("/dev/mail");
  await page.getByRole("link").filter({ hasText: subject }).filter({ hasText: to }).first().click();
  await expect(page.getByRole("heading", { name: subject }).first()).toBeVisible();
}

test("buy the weekly plan on the provider's page, open the mail, create the account, land on the dashboard", async ({ page }) => {
  const email = `buyer-${Date.now()}@example.com`;
  await startCheckout(page, "", /Weekly Plan/, email);
  // The provider's page: what it charges and how often, for whom, card
  // fields as Stripe's, the amount on the button.
  await expect(page.getByText("$1 every week", { exact: true })).toBeVisible();
  await expect(page.getByText(`For ${email}`, { exact: true })).toBeVisible();
  const number = page.getByLabel("Card number");
  await expect(number).toHaveAttribute("inputmode", "numeric");
  await number.pressSequentially("4242424242424242");
  await expect(number).toHaveValue("4242 4242 4242 4242");
  const expiry = page.getByLabel("Expiration (MM / YY)");
  await expect(expiry).toHaveAttribute("inputmode", "numeric");
  await expiry.pressSequentially("0121");
  await expect(expiry).toHaveValue("01 / 21");
  const pay = page.getByRole("button", { name: "Pay $1" });
  await pay.click();
  // A past expiry is refused with its own message, and so is a missing CVC;
  // the fields stay aligned at the top while one shows an error.
  await expect(page.getByText("Your card's expiration date is in the past.")).toBeVisible();
  await expect(page.getByText("Your card's security code is incomplete.")).toBeVisible();
  const cvc = page.getByLabel("CVC");
  await cvc.fill("12");
  await expiry.fill("");
  await expiry.pressSequentially("1230");
  await pay.click();
  await expect(page.getByText("Your card's expiration date is in the past.")).toHaveCount(0);
  const [expiryBox, cvcBox] = [await expiry.boundingBox(), await cvc.boundingBox()];
  expect(expiryBox?.y).toBe(cvcBox?.y);
  await cvc.fill("123");
  await pay.click();
  await expect(page).toHaveURL(/\/checkout\/done\?order=co_/);
  await expect(page.getByRole("heading", { name: "Payment successful" })).toBeVisible();
  await expect(page.getByText(/You bought the Weekly Plan: \$1 every week\. It renews on /)).toBeVisible();
  await expect(page.getByText(/We've sent a link to create your account to b•••@example\.com/)).toBeVisible();
  // The buyer cannot sign in before creating the account: no sign-in here.
  await expect(page.getByRole("link", { name: "Go to sign in" })).toHaveCount(0);

  await openMail(page, email, "Thank you for your purchase");
  // The link carries the mail's own key, never the order the done page showed.
  const welcome = page.getByRole("link", { name: /\/access-recovery\?key=/ }).first();
  const welcomePath = (await welcome.getAttribute("href")) ?? "";
  expect(welcomePath).not.toContain("co_");
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

test("a declined card says so on the provider's page, and the buyer corrects it there and pays", async ({ page }) => {
  const email = `declined-${Date.now()}@example.com`;
  await startCheckout(page, "", /Weekly Plan/, email);
  const pageURL = page.url();
  await payOnProviderPage(page, "4000 0000 0000 0002");
  await expect(page.getByRole("alert").filter({ hasText: "Your card was declined." })).toBeVisible();
  expect(page.url()).toBe(pageURL);
  await page.goto("/dev/mail");
  await expect(page.getByText(email)).toHaveCount(0);
  await page.goto(pageURL);
  await payOnProviderPage(page, "4242 4242 4242 4241");
  await expect(page.getByText("Your card number is invalid.")).toBeVisible();
  await payOnProviderPage(page, "4242 4242 4242 4242");
  await expect(page.getByRole("heading", { name: "Payment successful" })).toBeVisible();
  await openMail(page, email, "Thank you for your purchase");
});

test("← Back on the provider's page keeps the plan and the address; the done page sends the mail again and to a corrected address", async ({ page }) => {
  const stamp = Date.now();
  const typo = `typo-${stamp}@exmaple.com`;
  const right = `right-${stamp}@example.com`;
  await startCheckout(page, "", /Premium Plan/, typo);
  await expect(page.getByText("$13.99 every 1 month", { exact: true })).toBeVisible();
  await page.getByRole("link", { name: /Back/ }).click();
  await expect(page.getByRole("heading", { name: "Choose your plan" })).toBeVisible();
  await expect(page.getByRole("radio", { name: /Premium Plan/ })).toBeChecked();
  await expect(page.getByLabel("Email address")).toHaveValue(typo);
  // The address came back from the order, never through a URL.
  expect(page.url()).not.toContain("exmaple");
  await page.getByRole("button", { name: "Continue to payment" }).click();
  await payOnProviderPage(page, "4242 4242 4242 4242");
  await expect(page.getByRole("heading", { name: "Payment successful" })).toBeVisible();
  await expect(page.getByText(/You bought the Premium Plan: \$13\.99 every 1 month\./)).toBeVisible();
  await page.getByRole("button", { name: "Send the email again" }).click();
  await expect(page.getByText(/Sent again to t•••@exmaple\.com/)).toBeVisible();
  await page.getByLabel("Correct email address").fill(right);
  await page.getByRole("button", { name: "Send to this address" }).click();
  await expect(page.getByText(/Sent again to r•••@example\.com/)).toBeVisible();
  await createAccount(page, right);
});

test("a partner brand's buyer pays on the provider's page and comes back to the partner's host", async ({ page, baseURL }) => {
  // GLIMPSE_BRAND_HOSTS maps localhost to the partner brand _x_ (playwright.config.ts).
  const partner = (baseURL ?? "").replace("127.0.0.1", "localhost");
  const email = `partner-${Date.now()}@example.com`;
  await startCheckout(page, partner, /Weekly/, email);
  expect(new URL(page.url()).host).toBe(new URL(partner).host);
  await payOnProviderPage(page, "4242 4242 4242 4242");
  await expect(page).toHaveURL(new RegExp(`^${partner}/checkout/done\\?order=co_`));
  await expect(page.getByRole("heading", { name: "Payment successful" })).toBeVisible();
  await openMail(page, email, "Thank you for your purchase");
  // The mail's link is on the partner's host (the mailbox lists a link to
  // another origin as text).
  await expect(page.getByText(new RegExp(`^${partner}/access-recovery\\?key=`))).toBeVisible();
});

test("3-D Secure: a card that asks for it is authenticated on the provider's page, and an add-on bought with it later is too, with its receipt", async ({ page }) => {
  const email = `threeds-${Date.now()}@example.com`;
  await startCheckout(page, "", /Weekly Plan/, email);
  await payOnProviderPage(page, "4000 0027 6000 3184");
  await expect(page.getByRole("heading", { name: "Confirm with your bank" })).toBeVisible();
  await page.getByRole("button", { name: "Fail authentication" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "We are unable to authenticate your payment method." })).toBeVisible();
  await payOnProviderPage(page, "4000 0027 6000 3184");
  await page.getByRole("button", { name: "Complete authentication" }).click();
  await expect(page.getByRole("heading", { name: "Payment successful" })).toBeVisible();
  await createAccount(page, email);

  // The course is charged off-session to the saved card; the bank wants the
  // subscriber, who is brought to the provider's page to authenticate.
  await page.getByRole("button", { name: "Instagram PRO" }).click();
  await page.getByRole("dialog", { name: "Instagram PRO course" }).getByRole("button", { name: "Get the course" }).click();
  await page.getByRole("dialog", { name: "Confirm your purchase" }).getByRole("button", { name: "Pay $19.99 with Visa ••3184" }).click();
  await expect(page).toHaveURL(/\/sandbox-pay\/cs_sandbox_/);
  await page.getByRole("button", { name: /Pay \$19\.99 · Visa ••3184/ }).click();
  await page.getByRole("button", { name: "Complete authentication" }).click();
  await expect(page).toHaveURL(/\/checkout\/done\?order=co_/);
  await expect(page.getByText("Your purchase is ready in My Plan.")).toBeVisible();
  await page.goto("/dashboard/course");
  await expect(page.getByRole("link", { name: "View lesson 1", exact: true })).toBeVisible();
  await openMail(page, email, "Your Glimpse receipt");
  await expect(page.getByText(/Instagram PRO course/).first()).toBeVisible();

  // The card is replaced on the provider's page too (setup mode).
  await page.goto("/checkout/card");
  await page.getByRole("button", { name: "Continue to the payment page" }).click();
  await expect(page).toHaveURL(/\/sandbox-pay\/cs_sandbox_/);
  await page.getByLabel("Card number").fill("5555 5555 5555 4444");
  await page.getByLabel("Expiration (MM / YY)").fill("12 / 30");
  await page.getByLabel("CVC").fill("123");
  await page.getByRole("button", { name: "Save card" }).click();
  await expect(page.getByRole("heading", { name: "Your card is saved" })).toBeVisible();
  await page.goto("/checkout/card");
  await expect(page.getByText("Mastercard ••4444")).toBeVisible();
});

test("buy the course from its modal and open lesson 1", async ({ page }) => {
  await signIn(page, demo.email, demo.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.getByRole("button", { name: "Instagram PRO" }).click();
  const modal = page.getByRole("dialog", { name: "Instagram PRO course" });
  await expect(modal.getByText("$19.99")).toBeVisible();
  await modal.getByRole("button", { name: "Get the course" }).click();
  // Nothing is charged yet: the confirmation names the price and the card.
  const confirm = page.getByRole("dialog", { name: "Confirm your purchase" });
  await confirm.getByRole("button", { name: "Pay $19.99 with Visa ••4242" }).click();
  await expect(page.getByText("Payment successful")).toBeVisible();
  await page.getByRole("link", { name: "Open the course" }).or(page.getByRole("button", { name: "Open the course" })).click();
  await expect(page).toHaveURL(/\/dashboard\/course$/);
  const lesson = page.getByRole("link", { name: "View lesson 1", exact: true });
  await expect(lesson).toBeVisible();
  const href = await lesson.getAttribute("href");
  expect(href).toBeTruthy();
  const pdf = await page.request.get(href!);
  expect(pdf.status()).toBe(200);
  expect(pdf.headers()["content-type"]).toContain("application/pdf");
});

test("cancel by email: one tap on the mailed link's page cancels and My Plan shows Canceled", async ({ page }) => {
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
  // Opening the link cancels nothing (mail scanners open links): one tap does.
  await expect(page.getByRole("heading", { name: "Cancel your subscription?" })).toBeVisible();
  await page.getByRole("button", { name: "Cancel my subscription" }).click();
  await expect(page.getByRole("heading", { name: "Your subscription has been canceled" })).toBeVisible();
  await expect(page.getByText("We've successfully canceled your subscription.")).toBeVisible();
  await expect(page.getByText(/^You can keep using Glimpse until /)).toBeVisible();

  await page.goto("/dashboard");
  await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("button", { name: "My Plan" }).click();
  await expect(page.getByRole("button", { name: "Canceled" })).toBeDisabled();
});

test("the public cancel page for an unknown link says there are no subscriptions and asks for a link", async ({ page }) => {
  await page.goto("/unsubscription?from=nobody-knows-this");
  await expect(page.getByRole("heading", { name: "No subscriptions" })).toBeVisible();
  // It offers to mail a cancel link, and answers alike for any address.
  await page.getByLabel("Email address").fill("nobody-knows-this@example.com");
  await page.getByRole("button", { name: "Send me a cancel link" }).click();
  await expect(page.getByRole("heading", { name: "Check your email" })).toBeVisible();
  await expect(page.getByText(/^If nobody-knows-this@example\.com has a Glimpse subscription, we've sent a link/)).toBeVisible();
  await expect(page.getByRole("link", { name: "Have a question? Reach our friendly support team here" })).toHaveAttribute(
    "href",
    /^mailto:/,
  );
});

test("the action guard finds card numbers and lets other digits pass", () => {
  expect(cardNumbersIn('{"values":{"card":"4242 4242 4242 4242"}}')).toEqual(["4242424242424242"]);
  expect(cardNumbersIn('{"n":"4000-0027-6000-3184"}')).toEqual(["4000002760003184"]);
  expect(cardNumbersIn('{"email":"buyer-1764090000000@example.com","at":1764090000000}')).toEqual([]);
  expect(cardNumbersIn('{"card":"4242 4242 4242 4241"}')).toEqual([]);
});
