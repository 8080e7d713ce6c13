import { expect, test } from "./fixtures";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { zipTree } from "./zip";

const here = dirname(fileURLToPath(import.meta.url));

test("the demo subscriber's analytics shows every section of the demo profile", async ({ page }) => {
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill("demo@example.com");
  await page.getByLabel("Password", { exact: true }).fill("glimpse-demo");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto("/dashboard/analytics");
  for (const heading of ["User Engagement", "Likes & Comments", "Most Liked Posts", "Audience"]) {
    await expect(page.getByRole("heading", { name: heading, exact: true })).toBeVisible();
  }
  await expect(page.getByText("Analysis of your Instagram account based on")).toBeVisible();
  await expect(page.getByText("12 latest posts")).toBeVisible();
  await expect(page.getByText("*calculated as total likes + comments divided by total posts")).toBeVisible();
  await expect(page.getByText("It takes time for our algorithms to analyse your profile data.")).toBeVisible();
  await expect(page.getByRole("timer", { name: "Next update in" })).toBeVisible();
  for (const tile of ["Lost followers", "New followers", "Secret fans", "Inactive followers", "Your friends", "Your fans"]) {
    // Each tile shows a count with thousands separators.
    await expect(page.getByText(tile, { exact: true })).toBeVisible();
  }
  await expect(page.getByText(/^\d{1,3}(,\d{3})+$/).first()).toBeVisible();
  await expect(page.getByText(/^\d[\d,]* likes?$/).first()).toBeVisible();
  // A tile opens the list of accounts.
  await page.getByRole("button", { name: /Your friends/ }).click();
  const dialog = page.getByRole("dialog", { name: "Your friends" });
  await expect(dialog.getByRole("listitem").first()).toContainText("@");
  await expect(dialog.getByRole("listitem").first().getByRole("link")).toHaveAttribute("href", /^https:\/\/www\.instagram\.com\//);
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(dialog).toHaveCount(0);
});

test("a subscriber with nothing connected uploads a data export and sees the audience", async ({ page }) => {
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill("clean@example.com");
  await page.getByLabel("Password", { exact: true }).fill("glimpse-clean");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  // Before any analysis the dashboard's Analytics card invites to one (issue #12), and leads there.
  const card = page.locator(".card").filter({ has: page.getByRole("heading", { name: "Analytics", exact: true }) });
  await expect(card).toContainText("Analyse your Instagram account");
  await expect(card.getByRole("meter")).toHaveCount(0);
  await card.getByRole("link", { name: "Analytics" }).click();
  await expect(page).toHaveURL(/\/dashboard\/analytics$/);
  await expect(page.getByText("Analyse your Instagram followers")).toBeVisible();
  // Uploading without choosing a file asks for one.
  await page.getByRole("button", { name: "Upload and analyse" }).click();
  await expect(page.getByText("Choose your export ZIP file first.")).toBeVisible();
  // A data export is imported and analysed: the status moves to completed.
  const zip = zipTree(join(here, "..", "fixtures", "instagram", "exports", "accounts-center-2024"));
  await page.getByLabel("Instagram data export (ZIP)").setInputFiles({ name: "export.zip", mimeType: "application/zip", buffer: zip });
  await page.getByRole("button", { name: "Upload and analyse" }).click();
  await expect(page.getByRole("heading", { name: "Audience", exact: true })).toBeVisible();
  for (const tile of ["Your friends", "Your fans"]) {
    await expect(page.getByText(tile, { exact: true })).toBeVisible();
  }
  await expect(page.getByText("Choose your export ZIP file first.")).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole("heading", { name: "User Engagement", exact: true })).toBeVisible();
  // The dashboard's card now shows the engagement instead of the invitation.
  await page.goto("/dashboard");
  await expect(card.getByRole("meter", { name: "Engagement rate" })).toBeVisible();
  await expect(card).not.toContainText("Analyse your Instagram account");
});
