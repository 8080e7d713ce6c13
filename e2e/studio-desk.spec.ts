import { type Browser, type BrowserContext, type Page } from "@playwright/test";
import { expect, test } from "./fixtures";

// The studio as an editor's desk (#34), at 1440×900: every studio address
// reloads to its own screen (a copy key's too, though its last segment has a
// dot), the copy catalogue is searched by key or text and grouped by the
// screen each key appears on, a copy key is edited beside its screen drawn
// with the text and names the brand edited, and the home is searched and
// sorted from its address.

test.use({ viewport: { width: 1440, height: 900 } });

async function staffAtDesk(browser: Browser, email: string, password: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto("/studio");
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText(`Signed in as ${email}`)).toBeVisible();
  return { context, page };
}

const editor = (browser: Browser) => staffAtDesk(browser, "editor@example.com", "glimpse-editor");

/**
 * Reloads the page and checks it comes back, as HTML, on the same address with the same main
 * heading (the one given, or the one shown before the reload).
 */
async function reloadsTo(page: Page, expected?: string): Promise<void> {
  const url = page.url();
  const h1 = page.getByRole("heading", { level: 1 });
  if (expected !== undefined) await expect(h1.filter({ hasText: expected })).toBeVisible();
  const heading = expected ?? ((await h1.first().textContent()) ?? "").trim();
  expect(heading).not.toBe("");
  const answer = await page.reload();
  expect(answer?.status()).toBe(200);
  expect(answer?.headers()["content-type"]).toContain("text/html");
  expect(page.url()).toBe(url);
  await expect(page.getByRole("heading", { name: heading, level: 1, exact: true })).toBeVisible();
}

test("every kind of studio address reloads to its own screen", async ({ browser }) => {
  const { context, page } = await editor(browser);
  await reloadsTo(page, "Glimpse studio");

  // An item of each kind the home lists, opened from the home.
  for (const kind of ["News", "Topics", "Articles", "Pages"]) {
    await page.goto("/studio");
    await page.getByRole("list", { name: kind, exact: true }).getByRole("link").first().click();
    await expect(page).toHaveURL(/\/studio\/edit\/(news|topic|article|page)\//);
    await expect(page.getByRole("button", { name: "Save draft" })).toBeVisible();
    await reloadsTo(page);
  }

  await page.goto("/studio/new/news");
  await reloadsTo(page, "New news item");

  await page.goto("/studio");
  await page.getByRole("list", { name: "News", exact: true }).getByRole("link").first().click();
  await page.getByRole("link", { name: "Preview" }).click();
  await expect(page).toHaveURL(/\/studio\/preview\/news\//);
  await reloadsTo(page, "Preview of the draft");

  for (const brand of ["default", "_x_"]) {
    await page.goto(`/studio/copy/${brand}`);
    await reloadsTo(page, "Edit copy");
  }

  // A copy key's address: its last segment has dots, and it is a page, not a file.
  await page.goto("/studio/edit/copy/default/unsubscribe.step0.title");
  await reloadsTo(page, "unsubscribe.step0.title");
  await page.goto("/studio/edit/copy/_x_/signIn.title");
  await reloadsTo(page, "signIn.title");
  await expect(page.getByText("Brand: Profilio")).toBeVisible();

  // A key that does not exist: the studio's own screen, never raw JSON.
  await page.goto("/studio/edit/copy/default/no.such.key");
  await reloadsTo(page, "No such copy key");
  await expect(page.getByText(/has no copy key “no\.such\.key”/)).toBeVisible();
  await page.getByRole("link", { name: "Back to the copy list" }).click();
  await expect(page).toHaveURL(/\/studio\/copy\/default$/);

  // A browser asking for an address that looks like a file gets the app, not a JSON 404.
  const navigation = await page.request.get("/studio/edit/copy/default/nothing.here.json", {
    headers: { Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" },
  });
  expect(navigation.status()).toBe(200);
  expect(navigation.headers()["content-type"]).toContain("text/html");
  // A script or an image asking for a missing file still gets a 404.
  const asset = await page.request.get("/assets/missing.js", { headers: { Accept: "*/*" } });
  expect(asset.status()).toBe(404);
  await context.close();

  const tester = await staffAtDesk(browser, "tester@example.com", "glimpse-tester");
  await tester.page.goto("/studio/experiments");
  await reloadsTo(tester.page, "Experiments");
  await tester.page.goto("/studio/experiments/new");
  await reloadsTo(tester.page, "New experiment");
  await tester.context.close();

  const support = await staffAtDesk(browser, "support@example.com", "glimpse-support");
  await expect(support.page).toHaveURL(/\/studio\/support/);
  await reloadsTo(support.page, "Support desk");
  await support.context.close();
});

test("the copy catalogue is searched by key or text and grouped by the screen each key appears on", async ({ browser }) => {
  const { context, page } = await editor(browser);
  await page.goto("/studio/copy/default");
  // Grouped by screen: a list per screen, named as the screen.
  await expect(page.getByRole("list", { name: "Sign in", exact: true })).toBeVisible();
  await expect(page.getByRole("list", { name: "Unsubscribe · step 3 (A better price for you)" })).toBeVisible();

  // By text: every key whose text holds the words, under its screen.
  const search = page.getByRole("textbox", { name: "Search by key, text or screen" });
  await search.fill("free month");
  await search.press("Enter");
  await expect(page).toHaveURL(/\/studio\/copy\/default\?q=free\+month$/);
  const step7 = page.getByRole("list", { name: "Unsubscribe · step 7 (A gift before you go)" });
  await expect(step7.getByRole("link", { name: /unsubscribe\.step7\.accept/ })).toBeVisible();
  await expect(step7.getByText("Get my free month")).toBeVisible();
  await expect(page.getByRole("list", { name: "Sign in", exact: true })).toHaveCount(0);
  await expect(page.getByText(/^Keys matching “free month”: \d+$/)).toBeVisible();

  // The search is in the address: a reload and another brand keep it.
  await page.reload();
  await expect(search).toHaveValue("free month");
  await expect(step7.getByRole("link", { name: /unsubscribe\.step7\.accept/ })).toBeVisible();
  await page.getByRole("link", { name: "Profilio", exact: true }).click();
  await expect(page).toHaveURL(/\/studio\/copy\/_x_\?q=free\+month$/);
  await expect(page.getByRole("textbox", { name: "Search by key, text or screen" })).toHaveValue("free month");

  // By key.
  await page.goto("/studio/copy/default");
  await search.fill("signIn.title");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page.getByRole("list", { name: "Sign in", exact: true }).getByRole("link", { name: /^signIn\.title/ })).toBeVisible();
  await expect(page.getByRole("list", { name: /Unsubscribe/ })).toHaveCount(0);

  // Nothing found says so.
  await search.fill("zebra quartz");
  await search.press("Enter");
  await expect(page.getByText("Nothing matches “zebra quartz”")).toBeVisible();
  await context.close();
});

test("a copy key is edited beside its screen drawn with the text, and the brand edited is named", async ({ browser }) => {
  const { context, page } = await editor(browser);
  await page.goto("/studio/copy/_x_?q=step3.title");
  await page.getByRole("link", { name: /unsubscribe\.step3\.title/ }).click();
  await expect(page).toHaveURL(/\/studio\/edit\/copy\/_x_\/unsubscribe\.step3\.title$/);
  await expect(page.getByText("Brand: Profilio")).toBeVisible();

  const preview = page.getByRole("region", { name: "Preview of the draft" });
  await expect(preview.getByText("On screen: Unsubscribe · step 3 (A better price for you)")).toBeVisible();
  // The real step, its buttons too, with the key's text in place.
  await expect(preview.getByText("A better price for you", { exact: true })).toBeVisible();
  await expect(preview.getByRole("button").first()).toBeVisible();

  // Side by side at a desk.
  const formBox = await page.locator("form").first().boundingBox();
  const previewBox = await preview.boundingBox();
  expect(formBox !== null && previewBox !== null && previewBox.x >= formBox.x + formBox.width).toBe(true);
  // A desk's buttons are as wide as their label; the subscriber's step in the preview keeps its
  // phone's full-width buttons.
  const save = await page.getByRole("button", { name: "Save draft" }).boundingBox();
  expect(save !== null && formBox !== null && save.width < formBox.width / 2).toBe(true);
  const stepButton = await preview.getByRole("button").first().boundingBox();
  expect(stepButton !== null && previewBox !== null && stepButton.width > previewBox.width * 0.8).toBe(true);

  // Typing redraws the step with the new text, unsaved.
  await page.getByRole("textbox", { name: "Text" }).fill("A kinder price, just for you");
  await expect(preview.getByText("A kinder price, just for you", { exact: true })).toBeVisible();
  await expect(preview.getByText("A better price for you", { exact: true })).toHaveCount(0);

  // The default brand is named as such; a sign-in text is drawn on the sign-in screen.
  await page.goto("/studio/edit/copy/default/signIn.submit");
  await expect(page.getByText("Brand: Glimpse (default)")).toBeVisible();
  await expect(preview.getByText("On screen: Sign in")).toBeVisible();
  await page.getByRole("textbox", { name: "Text" }).fill("Let me in");
  await expect(preview.getByRole("button", { name: "Let me in" })).toBeVisible();
  // The preview's inputs are its own: the editor's text box keeps its value.
  await expect(page.getByRole("textbox", { name: "Text" })).toHaveValue("Let me in");
  await context.close();
});

test("the studio's home is searched and sorted by date and by editor from its address", async ({ browser }) => {
  const { context, page } = await editor(browser);
  // An edit, so one item has a newest date and an editor.
  await page.getByRole("list", { name: "Articles", exact: true }).getByRole("link").first().click();
  const titleBox = page.getByRole("textbox", { name: "Title", exact: true });
  const edited = `${await titleBox.inputValue()} (desk)`;
  await titleBox.fill(edited);
  await page.getByRole("button", { name: "Save draft" }).click();
  await expect(page.getByText(/save by editor@example.com/).first()).toBeVisible();

  await page.goto("/studio");
  await page.getByRole("link", { name: "Last edited", exact: true }).click();
  await expect(page).toHaveURL(/\/studio\?sort=date$/);
  await expect(page.getByText("Last edited (shown)")).toBeVisible();
  const byDate = page.getByRole("list", { name: "Last edited" });
  // The item just edited comes first, with when and by whom.
  await expect(byDate.getByRole("link").first()).toContainText(edited);
  await expect(byDate.getByRole("link").first()).toContainText(/edited .* by editor@example.com/);
  await expect(page.getByRole("list", { name: "News", exact: true })).toHaveCount(0);

  await page.getByRole("link", { name: "By editor", exact: true }).click();
  await expect(page).toHaveURL(/\/studio\?sort=editor$/);
  await expect(page.getByRole("heading", { name: "editor@example.com" })).toBeVisible();
  await expect(page.getByRole("list", { name: "editor@example.com" }).getByRole("link", { name: new RegExp(escape(edited)) })).toBeVisible();

  // Search within the sort; the address holds both, so a reload keeps the view.
  const search = page.getByRole("textbox", { name: "Search by title, slug or kind" });
  await search.fill("(desk)");
  await search.press("Enter");
  await expect(page).toHaveURL(/\/studio\?q=%28desk%29&sort=editor$/);
  await page.reload();
  await expect(search).toHaveValue("(desk)");
  await expect(page.getByText("Items matching “(desk)”: 1")).toBeVisible();
  await expect(page.getByText("By editor (shown)")).toBeVisible();

  // Back to the kinds, the search kept: only the matching kind's list has a row.
  await page.getByRole("link", { name: "By kind", exact: true }).click();
  await expect(page).toHaveURL(/\/studio\?q=%28desk%29$/);
  await expect(page.getByRole("list", { name: "Articles", exact: true }).getByRole("link")).toHaveCount(1);
  await expect(page.getByRole("list", { name: "News", exact: true }).getByRole("link")).toHaveCount(0);
  // Searching by kind.
  await search.fill("news");
  await search.press("Enter");
  await expect(page.getByRole("list", { name: "News", exact: true }).getByRole("link").first()).toBeVisible();
  await context.close();
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

test("a mail's text and a form's error are drawn in place in the preview as the editor types", async ({ browser }) => {
  const { context, page } = await editor(browser);
  const preview = page.getByRole("region", { name: "Preview of the draft" });
  const text = page.getByRole("textbox", { name: "Text" });

  // A receipt's subject: the mail as the dev mailbox shows it, for a sample subscriber, its
  // placeholders filled in.
  await page.goto("/studio/edit/copy/default/mail.receipt.subject");
  await expect(preview.getByText("On screen: Emails")).toBeVisible();
  await text.fill("Receipt {number} from {brand}");
  await expect(preview.getByRole("heading", { name: "Receipt GL-2026-004217 from Glimpse" })).toBeVisible();
  await expect(preview.getByText("To: jamie.rivera@example.com")).toBeVisible();
  await expect(preview.getByText("Thank you for your payment", { exact: true })).toBeVisible();

  // The welcome mail's button, in the body with its (sample) link.
  await page.goto("/studio/edit/copy/default/mail.purchase.button");
  await text.fill("Set up my account");
  await expect(preview.getByText(/^Set up my account:\s*http.*\/access-recovery\?key=/)).toBeVisible();

  // A sign-in error: the sign-in screen with the message where its form shows an error.
  await page.goto("/studio/edit/copy/default/auth.invalidCredential");
  await expect(preview.getByText("On screen: Sign in")).toBeVisible();
  await text.fill("That email and password do not match");
  await expect(preview.getByText("That email and password do not match", { exact: true })).toBeVisible();
  await expect(preview.getByRole("button", { name: "Sign in" })).toBeVisible();
  await context.close();
});
