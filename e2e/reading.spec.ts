import { expect, test } from "./fixtures";

test("a subscriber reads an article part through the home card", async ({ page }) => {
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill("demo@example.com");
  await page.getByLabel("Password", { exact: true }).fill("glimpse-demo");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.getByRole("link", { name: "Secret Admirers" }).first().click();
  await expect(page).toHaveURL(/\/dashboard\/articles\/secret-admirers$/);
  await expect(page.getByText("Part 1", { exact: false }).first()).toBeVisible();
  await page.getByRole("link", { name: "Read article" }).first().click();
  await expect(page).toHaveURL(/\/dashboard\/articles\/secret-admirers\/key-metrics-to-identify-secret-admirers$/);
  await expect(page.getByRole("heading", { name: "Key Metrics to Identify Secret Admirers" }).first()).toBeVisible();
  await page.getByRole("link", { name: "To all articles" }).click();
  await expect(page).toHaveURL(/\/dashboard\/articles\/secret-admirers$/);
  // Back/forward land on the right screens.
  await page.goBack();
  await expect(page).toHaveURL(/key-metrics-to-identify-secret-admirers$/);
});

test("tips, trends and news are readable", async ({ page }) => {
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill("demo@example.com");
  await page.getByLabel("Password", { exact: true }).fill("glimpse-demo");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto("/dashboard/insights");
  await expect(page.getByText("1st recommendation").first()).toBeVisible();
  await expect(page.getByText("6th recommendation")).toHaveCount(2);
  await page.goto("/dashboard/top-trends");
  await expect(page.getByRole("heading", { name: "Top 7 Instagram Trends Shaping 2026" }).first()).toBeVisible();
  await page.getByRole("link", { name: "To all articles" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto("/dashboard/news");
  const items = page.getByRole("list", { name: "News" }).getByRole("listitem");
  // count() does not wait: the screen is drawn after the page's load event.
  await expect(items.first()).toBeVisible();
  expect(await items.count()).toBeGreaterThanOrEqual(8);
  await items.first().getByRole("link").click();
  await expect(page).toHaveURL(/\/dashboard\/news\/[a-z0-9-]+$/);
  await page.getByRole("link", { name: "To all news" }).click();
  await expect(page).toHaveURL(/\/dashboard\/news$/);
});

test("the legal pages are public, dated and open from the footer in a new window", async ({ page, context }) => {
  await page.goto("/sign-in");
  const [popup] = await Promise.all([
    context.waitForEvent("page"),
    page.getByRole("link", { name: "Privacy Policy" }).click(),
  ]);
  await expect(popup).toHaveURL(/\/privacy$/);
  await expect(popup.getByRole("heading", { name: "Privacy Policy" }).first()).toBeVisible();
  await expect(popup.getByText("Last updated Nov 25, 2026")).toBeVisible();
  await popup.goto("/terms-of-use");
  await expect(popup.getByText("Last updated Mar 29, 2024")).toBeVisible();
  expect(await popup.content()).not.toContain("{{");
});

test("a subscriber without the course gets the purchase modal", async ({ page }) => {
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill("ab@example.com");
  await page.getByLabel("Password", { exact: true }).fill("glimpse-ab");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto("/dashboard/course");
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("dialog", { name: "Instagram PRO course" })).toBeVisible();
  const pdf = await page.request.get("/course/lessons/lesson-01.pdf");
  expect(pdf.status()).toBe(403);
});
