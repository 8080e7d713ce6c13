import { type Browser, type BrowserContext, type Page } from "@playwright/test";
import { expect, test } from "./fixtures";

test("an editor changes a news title, publishes it, and subscribers see it without a restart", async ({ browser }) => {
  const editorContext = await browser.newContext();
  const editor = await editorContext.newPage();
  await editor.goto("/studio");
  await editor.getByLabel("Email address").fill("editor@example.com");
  await editor.getByLabel("Password", { exact: true }).fill("glimpse-editor");
  await editor.getByRole("button", { name: "Sign in" }).click();
  await expect(editor.getByText("Signed in as editor@example.com (editor)")).toBeVisible();
  await editor.getByRole("list", { name: "News" }).getByRole("link", { name: /Carousels Are Back/ }).click();
  await expect(editor).toHaveURL(/\/studio\/edit\/news\/carousels-are-back$/);
  await editor.getByLabel("Title", { exact: true }).fill("Carousels are back, and here is how to win with them");
  await editor.getByRole("button", { name: "Save draft" }).click();
  await expect(editor.getByText("Published, with unpublished changes")).toBeVisible();
  await editor.getByRole("button", { name: "Publish", exact: true }).click();
  await editor.getByRole("dialog", { name: "Publish this draft?" }).getByRole("button", { name: "Publish", exact: true }).click();
  await expect(editor.getByText(/publish by editor@example.com/).first()).toBeVisible();

  const { readerContext, reader } = await subscriberReadingNews(browser);
  await expect(reader.getByText("Carousels are back, and here is how to win with them")).toBeVisible();
  await editorContext.close();
  await readerContext.close();
});

/** A subscriber in a browser of their own, on the news list. */
async function subscriberReadingNews(browser: Browser): Promise<{ readerContext: BrowserContext; reader: Page }> {
  const readerContext = await browser.newContext();
  const reader = await readerContext.newPage();
  await reader.goto("/sign-in");
  await reader.getByLabel("Email address").fill("clean@example.com");
  await reader.getByLabel("Password", { exact: true }).fill("glimpse-clean");
  await reader.getByRole("button", { name: "Sign in" }).click();
  await expect(reader).toHaveURL(/\/dashboard$/);
  await reader.goto("/dashboard/news");
  return { readerContext, reader };
}

async function signInToStudio(page: Page): Promise<void> {
  await page.goto("/studio");
  await page.getByLabel("Email address").fill("editor@example.com");
  await page.getByLabel("Password", { exact: true }).fill("glimpse-editor");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("Signed in as editor@example.com (editor)")).toBeVisible();
}

test("at a desk the editor sits beside a phone-width live preview; a picture is picked from thumbnails", async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await signInToStudio(page);
  await page.goto("/studio/edit/news/collab-posts-guide");
  const title = page.getByRole("textbox", { name: "Title", exact: true });
  const preview = page.getByRole("region", { name: "Preview of the draft" });
  await expect(preview.getByText("Getting More From Collab Posts", { exact: true })).toBeVisible();

  // Side by side: the preview to the right of the form, a phone's width.
  const formBox = await page.locator("form").first().boundingBox();
  const previewBox = await preview.boundingBox();
  expect(formBox).not.toBeNull();
  expect(previewBox).not.toBeNull();
  if (formBox === null || previewBox === null) return;
  expect(previewBox.x).toBeGreaterThanOrEqual(formBox.x + formBox.width);
  expect(previewBox.y).toBeLessThan(formBox.y + 200);
  expect(Math.abs(previewBox.width - 390)).toBeLessThanOrEqual(2);
  expect(formBox.width).toBeGreaterThan(500);

  // Typing updates the preview, unsaved.
  await title.fill("Collab posts, previewed as you type");
  await expect(preview.getByText("Collab posts, previewed as you type", { exact: true })).toBeVisible();

  // The picker: thumbnails in a radio group; picking one writes its path and the preview shows it.
  const picker = page.getByRole("group", { name: "Or choose one of the pictures" });
  const path = page.getByRole("textbox", { name: "Image path (/static/…)" });
  await expect(picker.getByRole("radio", { name: "/static/news/collab-posts-guide.svg" })).toBeChecked();
  // The chosen picture is scrolled into the grid's view.
  await expect(picker.getByText("/static/news/collab-posts-guide.svg", { exact: true })).toBeInViewport();
  await expect(picker.locator('img[src="/static/news/trial-reels-explained.svg"]')).toHaveCount(1);
  await picker.getByText("/static/news/trial-reels-explained.svg", { exact: true }).click();
  await expect(path).toHaveValue("/static/news/trial-reels-explained.svg");
  await expect(preview.locator('img[src="/static/news/trial-reels-explained.svg"]')).toBeVisible();
  // The keyboard moves the choice too, as in any radio group.
  await page.keyboard.press("ArrowLeft");
  await expect(picker.getByRole("radio", { name: "/static/news/trial-reels-explained.svg" })).not.toBeChecked();
  const chosen = await path.inputValue();
  expect(chosen).toMatch(/^\/static\/.+\.svg$/);
  expect(chosen).not.toBe("/static/news/trial-reels-explained.svg");
  await expect(preview.locator(`img[src="${chosen}"]`)).toBeVisible();
  await context.close();
});

test("on a phone the studio stacks the preview under the editor", async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await signInToStudio(page);
  await page.goto("/studio/edit/news/collab-posts-guide");
  const preview = page.getByRole("region", { name: "Preview of the draft" });
  await expect(preview.getByText("Getting More From Collab Posts", { exact: true })).toBeAttached();
  const formBox = await page.locator("form").first().boundingBox();
  const previewBox = await preview.boundingBox();
  if (formBox === null || previewBox === null) throw new Error("the form or the preview has no box");
  expect(previewBox.y).toBeGreaterThanOrEqual(formBox.y + formBox.height);
  expect(previewBox.width).toBeLessThanOrEqual(390);
  // Nothing wider than the phone: no sideways scrolling.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await context.close();
});

test("Publish with an unsaved edit saves it first, and subscribers read the new text", async ({ browser }) => {
  const editorContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const editor = await editorContext.newPage();
  await signInToStudio(editor);
  await editor.goto("/studio/edit/news/reposts-and-originality");
  await editor.getByRole("textbox", { name: "Title", exact: true }).fill("Reposts: published without pressing Save");
  await editor.getByRole("button", { name: "Publish", exact: true }).click();
  await editor.getByRole("dialog", { name: "Publish this draft?" }).getByRole("button", { name: "Publish", exact: true }).click();
  await expect(editor.getByText(/#\d+ publish by editor@example.com/).first()).toBeVisible();
  await expect(editor.getByText(/#\d+ save by editor@example.com/).first()).toBeVisible();
  await expect(editor.getByRole("textbox", { name: "Title", exact: true })).toHaveValue("Reposts: published without pressing Save");

  const { readerContext, reader } = await subscriberReadingNews(browser);
  await expect(reader.getByText("Reposts: published without pressing Save")).toBeVisible();
  await editorContext.close();
  await readerContext.close();
});

/** The editor at a 1440px desk, signed in. */
async function editorAtDesk(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await signInToStudio(page);
  return { context, page };
}

test("at a desk the studio's home uses the width, and still fits a phone", async ({ browser }) => {
  const { context, page } = await editorAtDesk(browser);
  const main = await page.locator("main").first().boundingBox();
  expect(main?.width ?? 0).toBeGreaterThan(1000);
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole("list", { name: "News" })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await context.close();
});

test("Publish and Restore ask first: Escape or Cancel does nothing, the keyboard confirms", async ({ browser }) => {
  const { context, page } = await editorAtDesk(browser);
  await page.goto("/studio/edit/news/instagram-search-keywords");
  const revisions = page.getByRole("list", { name: "Revisions" });
  await expect(revisions.getByRole("listitem").first()).toBeVisible();
  const title = page.getByRole("textbox", { name: "Title", exact: true });
  await title.fill("Keyword search, published after a question");

  // Publish: the dialog asks; Escape leaves everything as it was.
  await page.getByRole("button", { name: "Publish", exact: true }).click();
  const publish = page.getByRole("dialog", { name: "Publish this draft?" });
  await expect(publish).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(publish).toHaveCount(0);
  await expect(revisions.getByText(/by editor@example.com/)).toHaveCount(0);
  await expect(title).toHaveValue("Keyword search, published after a question");
  // Then the keyboard alone: Enter on Publish opens the dialog, Tab reaches its Publish, Enter confirms.
  await page.getByRole("button", { name: "Publish", exact: true }).focus();
  await page.keyboard.press("Enter");
  await expect(publish).toBeVisible();
  const confirm = publish.getByRole("button", { name: "Publish", exact: true });
  for (let i = 0; i < 5 && !(await confirm.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
  await expect(confirm).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(revisions.getByText(/publish by editor@example.com/).first()).toBeVisible();
  const after = await revisions.getByRole("listitem").count();

  // Restore: Cancel does nothing; confirming restores the revision chosen (the seed's title).
  const oldest = revisions.getByRole("listitem").last();
  await oldest.getByRole("button", { name: "Restore" }).click();
  const restore = page.getByRole("dialog", { name: "Restore this revision?" });
  await restore.getByRole("button", { name: "Cancel" }).click();
  await expect(restore).toHaveCount(0);
  await expect(revisions.getByText(/restore by editor@example.com/)).toHaveCount(0);
  await expect(revisions.getByRole("listitem")).toHaveCount(after);
  await oldest.getByRole("button", { name: "Restore" }).click();
  await restore.getByRole("button", { name: "Restore" }).click();
  await expect(revisions.getByText(/restore by editor@example.com/).first()).toBeVisible();
  await expect(title).not.toHaveValue("Keyword search, published after a question");
  await context.close();
});

test("the copy page's brand switcher names the brands", async ({ browser }) => {
  const { context, page } = await editorAtDesk(browser);
  await page.goto("/studio/copy/default");
  await expect(page.getByText("Showing Glimpse (default)")).toBeVisible();
  await expect(page.getByText(/as brand Glimpse \(default\) shows it now/)).toBeVisible();
  await page.getByRole("link", { name: "Profilio", exact: true }).click();
  await expect(page).toHaveURL(/\/studio\/copy\/_x_$/);
  await expect(page.getByText("Showing Profilio")).toBeVisible();
  await expect(page.getByRole("link", { name: "Followly", exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: /^_x_$|^_y_$|^default$/ })).toHaveCount(0);
  await context.close();
});

/** Labels in the picture picker whose lines break inside a word (between two letters or digits). */
async function labelsBrokenMidWord(page: Page): Promise<string[]> {
  return page.locator(".image-choice__label").evaluateAll((labels) =>
    labels.flatMap((label) => {
      const text = label.textContent ?? "";
      const range = document.createRange();
      const tops: number[] = [];
      let offset = 0;
      for (const node of Array.from(label.childNodes)) {
        if (node.nodeType !== Node.TEXT_NODE) continue;
        for (let i = 0; i < (node.textContent ?? "").length; i++) {
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          tops[offset++] = Math.round(range.getBoundingClientRect().top);
        }
      }
      for (let i = 1; i < text.length; i++) {
        if (tops[i] !== tops[i - 1] && /[A-Za-z0-9]/.test(text[i - 1] ?? "") && /[A-Za-z0-9]/.test(text[i] ?? "")) return [text];
      }
      return [];
    }),
  );
}

test("the picture picker's labels wrap between a path's parts, never inside a word", async ({ browser }) => {
  const { context, page } = await editorAtDesk(browser);
  await page.goto("/studio/edit/news/collab-posts-guide");
  const picker = page.getByRole("group", { name: "Or choose one of the pictures" });
  await expect(picker.getByRole("radio").first()).toBeAttached();
  expect(await picker.getByRole("radio").count()).toBeGreaterThan(3);
  expect(await labelsBrokenMidWord(page)).toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(picker).toBeVisible();
  expect(await labelsBrokenMidWord(page)).toEqual([]);
  await context.close();
});

