import { expect, test } from "@playwright/test";

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
  await expect(editor.getByText(/publish by editor@example.com/).first()).toBeVisible();

  const readerContext = await browser.newContext();
  const reader = await readerContext.newPage();
  await reader.goto("/sign-in");
  await reader.getByLabel("Email address").fill("clean@example.com");
  await reader.getByLabel("Password", { exact: true }).fill("glimpse-clean");
  await reader.getByRole("button", { name: "Sign in" }).click();
  await expect(reader).toHaveURL(/\/dashboard$/);
  await reader.goto("/dashboard/news");
  await expect(reader.getByText("Carousels are back, and here is how to win with them")).toBeVisible();
  await editorContext.close();
  await readerContext.close();
});
