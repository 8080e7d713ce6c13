import { type Browser, type Page } from "@playwright/test";
import { expect, test } from "./fixtures";

// The studio's history and scheduled publishing at a desk (#34): a revision
// is read whole with its changes marked before it is restored, and a news
// item goes out at the time an editor set, once, on the public page.
// The editor's browser is in Berlin: the times typed are UTC, and the
// input also says them in the editor's zone.
test.use({ viewport: { width: 1440, height: 900 }, timezoneId: "Europe/Berlin" });

async function signInToStudio(page: Page): Promise<void> {
  await page.goto("/studio");
  await page.getByLabel("Email address").fill("editor@example.com");
  await page.getByLabel("Password", { exact: true }).fill("glimpse-editor");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("Signed in as editor@example.com (editor)")).toBeVisible();
}

/** A date and time input's value in UTC, seconds from now. */
function utcInput(secondsFromNow: number): string {
  return new Date(Date.now() + secondsFromNow * 1000).toISOString().slice(0, 19);
}

test("a revision shows what changed, word by word, and is read whole before it is restored", async ({ page }) => {
  await signInToStudio(page);
  await page.goto("/studio/edit/news/collab-posts-guide");
  await page.getByRole("textbox", { name: "Title", exact: true }).fill("Getting Less From Collab Posts");
  await page.getByRole("button", { name: "Save draft" }).click();
  const revisions = page.getByRole("list", { name: "Revisions" });
  await expect(revisions.getByText(/#2 save by editor@example.com/)).toBeVisible();

  // The newest revision's page: its changes against the seed, marked as
  // <ins>/<del> and worded for screen readers.
  await revisions.getByRole("listitem").first().getByRole("link", { name: "View" }).click();
  await expect(page).toHaveURL(/\/studio\/revision\/2\/news\/collab-posts-guide$/);
  await expect(page.getByRole("heading", { name: "Revision #2 of Getting Less From Collab Posts" })).toBeVisible();
  await expect(page.getByText("Marked: what changed since revision #1.", { exact: false })).toBeVisible();
  await expect(page.locator("del")).toHaveText(["removed: More"]);
  await expect(page.locator("ins")).toHaveText(["added: Less"]);
  // The whole revision, unchanged fields too, and nothing to type into.
  await expect(page.getByText(/Collab posts put one piece of content on more than one profile/)).toBeVisible();
  await expect(page.getByRole("textbox")).toHaveCount(0);

  // The seed's page, compared with the draft: what a restore would change.
  await page.goto("/studio/revision/1/news/collab-posts-guide");
  await expect(page.getByText("The first revision kept: nothing to compare it with.")).toBeVisible();
  await expect(page.locator("ins, del")).toHaveCount(0);
  await page.getByRole("link", { name: "Compare with the current draft" }).click();
  await expect(page).toHaveURL(/\?against=draft$/);
  await expect(page.locator("del")).toHaveText(["removed: Less"]);
  await expect(page.locator("ins")).toHaveText(["added: More"]);

  // Restore asks first, from the view; Cancel does nothing.
  await page.getByRole("button", { name: "Restore this revision" }).click();
  const dialog = page.getByRole("dialog", { name: "Restore this revision?" });
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page).toHaveURL(/\/studio\/revision\/1\//);
  await page.getByRole("button", { name: "Restore this revision" }).click();
  await dialog.getByRole("button", { name: "Restore", exact: true }).click();
  await expect(page).toHaveURL(/\/studio\/edit\/news\/collab-posts-guide$/);
  await expect(page.getByRole("textbox", { name: "Title", exact: true })).toHaveValue("Getting More From Collab Posts");
  await expect(revisions.getByText(/#3 restore by editor@example.com/)).toBeVisible();
});

test("a news item is published at the time set, on the public page; another schedule is cancelled", async ({ page, browser }) => {
  test.setTimeout(120_000);
  await signInToStudio(page);
  const schedules = page.getByRole("list", { name: "Scheduled publishes of this item" });

  // A time in the past is refused under the input.
  await page.goto("/studio/edit/news/comment-moderation-tools");
  await page.getByLabel("Publish at (UTC)").fill(utcInput(-3600));
  await page.getByRole("button", { name: "Schedule publish" }).click();
  await expect(page.getByText("Choose a time after now (times are in UTC).")).toBeVisible();
  // An hour ahead: listed on the item, to be cancelled below. The input
  // says the moment in the editor's zone too (December: UTC+1).
  await page.getByLabel("Publish at (UTC)").fill("2026-12-01T09:00");
  await expect(page.getByText("Dec 1, 2026, 10:00 AM in your time zone (Europe/Berlin)")).toBeVisible();
  await page.getByLabel("Publish at (UTC)").fill(utcInput(3600));
  await page.getByRole("button", { name: "Schedule publish" }).click();
  await expect(schedules.getByText(/^Scheduled for .* UTC by editor@example.com$/)).toBeVisible();

  // The headline edit, scheduled 15 seconds ahead: the form is saved with it.
  await page.goto("/studio/edit/news/broadcast-channels-guide");
  await page.getByRole("textbox", { name: "Title", exact: true }).fill("Broadcast channels, published on schedule");
  await page.getByLabel("Publish at (UTC)").fill(utcInput(15));
  await page.getByRole("button", { name: "Schedule publish" }).click();
  await expect(schedules.getByText(/^Scheduled for .* UTC by editor@example.com$/)).toBeVisible();
  await expect(page.getByText("Published, with unpublished changes")).toBeVisible();

  // The studio's home lists both, soonest first; cancel the later one.
  await page.goto("/studio");
  const home = page.getByRole("list", { name: "Scheduled publishing" });
  await expect(home.getByRole("listitem")).toHaveCount(2);
  await expect(home.getByRole("listitem").first()).toContainText("Broadcast channels, published on schedule");
  const later = home.getByRole("listitem").filter({ hasText: "The Comment Moderation Tools" });
  await later.getByRole("button", { name: "Cancel schedule" }).click();
  await expect(home.getByRole("listitem")).toHaveCount(1);
  await expect(home.getByText("The Comment Moderation Tools")).toHaveCount(0);

  // After its time, subscribers read the new headline; the item records one
  // publish by the editor who scheduled it, and nothing is pending.
  await expectOnNews(browser, "Broadcast channels, published on schedule");
  await page.goto("/studio/edit/news/broadcast-channels-guide");
  await expect(page.getByText("Published", { exact: true })).toBeVisible();
  await expect(page.getByRole("list", { name: "Revisions" }).getByText(/publish by editor@example.com/)).toHaveCount(1);
  await expect(schedules).toHaveCount(0);
  await page.goto("/studio");
  await expect(page.getByRole("list", { name: "Scheduled publishing" })).toHaveCount(0);
  // The cancelled item was not published.
  await expectOnNews(browser, "The Comment Moderation Tools Every Creator Should Use");
});

/** A subscriber's news list shows title, within the schedule's time and a runner's tick. */
async function expectOnNews(browser: Browser, title: string): Promise<void> {
  const context = await browser.newContext();
  const reader = await context.newPage();
  await reader.goto("/sign-in");
  await reader.getByLabel("Email address").fill("clean@example.com");
  await reader.getByLabel("Password", { exact: true }).fill("glimpse-clean");
  await reader.getByRole("button", { name: "Sign in" }).click();
  await expect(reader).toHaveURL(/\/dashboard$/);
  await expect(async () => {
    await reader.goto("/dashboard/news");
    await expect(reader.getByText(title)).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 45_000 });
  await context.close();
}
