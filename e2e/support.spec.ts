import { type Browser, type Page } from "@playwright/test";
import { expect, test } from "./fixtures";

// The support desk end to end: support signs in at /studio and lands on the
// desk, finds the demo subscriber, refunds their Reels playbook with a
// reason; the playbook is no longer theirs in My Plan, and the audit log
// shows the refund. An editor is refused the desk.

async function signInToStudio(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/studio");
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Opens the demo subscriber's My Plan in a browser of their own (with headers, e.g. the country a proxy reports). */
async function demoPlan(browser: Browser, headers?: Record<string, string>): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.newContext({ extraHTTPHeaders: headers });
  const page = await context.newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email address").fill("demo@example.com");
  await page.getByLabel("Password", { exact: true }).fill("glimpse-demo");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("button", { name: "My Plan" }).click();
  await expect(page.getByRole("dialog", { name: "My Plan" })).toBeVisible();
  return { page, close: () => context.close() };
}

test("support refunds the demo subscriber's add-on with a reason; it leaves My Plan and the audit log shows it", async ({ browser }) => {
  const before = await demoPlan(browser);
  const playbook = before.page.getByRole("dialog", { name: "My Plan" });
  await expect(playbook.getByRole("link", { name: "Download playbook" })).toBeVisible();
  // What else is on offer depends on what earlier specs bought for demo; the playbook is owned.
  const offered = await playbook.getByRole("button", { name: "Buy for $28.99" }).count();
  await before.close();

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await signInToStudio(page, "support@example.com", "glimpse-support");
  await expect(page).toHaveURL(/\/studio\/support$/);
  await expect(page.getByRole("heading", { name: "Support desk" }).first()).toBeVisible();

  await page.getByLabel("Subscriber's email").fill("demo@example.com");
  await page.getByRole("button", { name: "Find", exact: true }).click();
  await expect(page).toHaveURL(/\/studio\/support\?email=demo%40example\.com$/);
  const charges = page.getByRole("list", { name: "Charges" });
  const charge = charges.getByRole("listitem").filter({ hasText: "Reels playbook · $28.99" });
  await expect(charge).toBeVisible();
  // Desktop-first (#34): the search on the left, the subscriber's dossier (its actions first) beside it.
  const searchBox = await page.getByLabel("Subscriber's email").boundingBox();
  const chargesBox = await charges.boundingBox();
  expect(searchBox).not.toBeNull();
  expect(chargesBox).not.toBeNull();
  if (searchBox !== null && chargesBox !== null) expect(chargesBox.x).toBeGreaterThan(searchBox.x + searchBox.width - 1);

  await charge.getByRole("button", { name: "Refund" }).click();
  const dialog = page.getByRole("dialog", { name: "Refund a charge" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("radio", { name: /Reels playbook · \$28\.99/ })).toBeChecked();
  // No reason: refused, nothing refunded.
  await dialog.getByRole("button", { name: "Refund", exact: true }).click();
  await expect(dialog.getByText("Say why.")).toBeVisible();
  await dialog.getByLabel("Reason").fill("Bought the playbook twice by mistake, asked by mail");
  // Full or partial is a choice: nothing is refunded until one is made.
  await dialog.getByRole("button", { name: "Refund", exact: true }).click();
  await expect(dialog.getByText("Choose a full or a partial refund.")).toBeVisible();
  await dialog.getByRole("radio", { name: /All that is left/ }).check();
  await dialog.getByRole("button", { name: "Refund", exact: true }).click();
  await expect(dialog).toBeHidden();
  // Every action is confirmed on screen, in words (#34).
  await expect(page.getByText("Refunded $28.99 (nothing left) to demo@example.com.")).toBeVisible();

  await expect(charge.getByText(/refunded/).first()).toBeVisible();
  const audit = page.getByRole("list", { name: "Audit log for this subscriber" });
  await expect(audit.getByText(/support@example\.com · refund \(\$28\.99 \(nothing left\)\) · demo@example\.com/)).toBeVisible();
  await expect(audit.getByText("Why: Bought the playbook twice by mistake, asked by mail", { exact: false })).toBeVisible();

  // On a phone the desk stacks its two columns and still works.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole("heading", { name: "Actions" })).toBeVisible();
  await context.close();

  const after = await demoPlan(browser);
  const plan = after.page.getByRole("dialog", { name: "My Plan" });
  await expect(plan.getByRole("heading", { name: "Reels playbook" })).toBeVisible();
  await expect(plan.getByRole("link", { name: "Download playbook" })).toHaveCount(0);
  // The playbook is on offer again.
  await expect(plan.getByRole("button", { name: "Buy for $28.99" })).toHaveCount(offered + 1);
  await after.close();
});

test("an editor is refused the support desk", async ({ page }) => {
  await signInToStudio(page, "editor@example.com", "glimpse-editor");
  await expect(page.getByText("Signed in as editor@example.com (editor)")).toBeVisible();
  const answer = await page.request.get("/ui/screen?path=" + encodeURIComponent("/studio/support?email=demo@example.com"), {
    headers: { "X-SDUI-Version": "1" },
  });
  expect(answer.status()).toBe(403);
  expect(await answer.text()).not.toContain("demo@example.com");
  await page.goto("/studio/support");
  await expect(page.getByText("Only support staff and admins may use the support desk.")).toBeVisible();
  await expect(page.getByLabel("Subscriber's email")).toHaveCount(0);
});

// The desk at a desk's size (#34): Stripe's customer view as the bar.
test.describe("the support desk at 1440x900", () => {
  test.use({ viewport: { width: 1440, height: 900 } });

  test("finds a subscriber by the start of an email or Instagram username, a card's last four, a receipt number or a charge id; several are listed beside the dossier", async ({
    page,
    browser,
  }) => {
    // The subscriber signs in from a browser, through a proxy that reports their country (the e2e server reads
    // CF-IPCountry: GLIMPSE_COUNTRY_HEADER in playwright.config.ts): the desk's sign-ins name the browser and the country.
    await (await demoPlan(browser, { "CF-IPCountry": "DE" })).close();
    await signInToStudio(page, "support@example.com", "glimpse-support");
    await expect(page).toHaveURL(/\/studio\/support$/);
    const search = page.getByLabel("Subscriber's email");

    // Part of an email: "demo" is no longer "Wrong email format"; its one match opens, the keyboard on its heading.
    await search.fill("demo");
    await page.getByRole("button", { name: "Find", exact: true }).click();
    await expect(page).toHaveURL(/\/studio\/support\?email=demo%40example\.com$/);
    await expect(page.getByRole("heading", { name: "demo@example.com" })).toBeFocused();
    await expect(page.getByText("Wrong email format")).toHaveCount(0);

    // Charges in words: what, how much, when, with which card, the receipt's number and the charge's id.
    const line = page.getByRole("list", { name: "Charges" }).getByRole("listitem").filter({ hasText: "Reels playbook · $28.99" });
    await expect(line).toContainText(/(paid|refunded) [A-Z][a-z]{2} \d{1,2}, \d{4} with Visa ••4242 · receipt [0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}/);
    const words = (await line.textContent()) ?? "";
    const receipt = /receipt ([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4})/.exec(words)?.[1] ?? "";
    const chargeId = /charge (ch_[0-9a-f]+)/.exec(words)?.[1] ?? "";
    expect(receipt).not.toBe("");
    expect(chargeId).not.toBe("");
    // No raw keys: the charge's line shows no "purchase:…" key.
    await expect(line).not.toContainText("purchase:");
    // Sign-ins name the browser and system (Debian's headless Chromium here) and the country the proxy reported; no IP.
    const signIn = page.getByRole("list", { name: "Recent sign-ins" }).getByRole("listitem").first();
    await expect(signIn).toContainText("Chrome on Linux · Germany");
    await expect(signIn).not.toContainText(/\d+\.\d+\.\d+\.\d+/);

    // The start of the Instagram username (the one name Glimpse keeps), with its "@", in any case: the demo
    // subscriber's "glimpse.demo" is found, said to be matched by it, and the dossier names it.
    await page.goto("/studio/support");
    await search.fill("@Glimpse.De");
    await page.getByRole("button", { name: "Find", exact: true }).click();
    await expect(page).toHaveURL(/\/studio\/support\?(q=%40Glimpse\.De&)?email=demo%40example\.com$|\?q=%40Glimpse\.De$/);
    const byName = page.getByRole("list", { name: /^Matches \(\d+\)$/ });
    if ((await byName.count()) > 0) {
      // Another spec's subscriber may share the start: the list says what matched; pick demo.
      const demoMatch = byName.getByRole("listitem").filter({ hasText: "demo@example.com" });
      await expect(demoMatch).toContainText("Instagram @glimpse.demo");
      await byName.getByRole("link", { name: /demo@example\.com/ }).or(byName.getByRole("button", { name: /demo@example\.com/ })).click();
    }
    await expect(page.getByRole("heading", { name: "demo@example.com" })).toBeFocused();
    await expect(page.getByRole("list", { name: "Connected profile" })).toContainText("@glimpse.demo");

    // A card's last four: everyone paying with it, listed with their plan; nobody opened until picked.
    await search.fill("4242");
    await page.getByRole("button", { name: "Find", exact: true }).click();
    await expect(page).toHaveURL(/\?q=4242$/);
    const matches = page.getByRole("list", { name: /^Matches \(\d+\)$/ });
    await expect(matches.getByRole("listitem").filter({ hasText: "demo@example.com" })).toContainText("Weekly Plan");
    expect(await matches.getByRole("listitem").count()).toBeGreaterThan(1);
    await expect(page.getByRole("heading", { name: "Actions" })).toHaveCount(0);
    await matches.getByRole("link", { name: /demo@example\.com/ }).or(matches.getByRole("button", { name: /demo@example\.com/ })).click();
    await expect(page).toHaveURL(/\?q=4242&email=demo%40example\.com$/);
    await expect(page.getByRole("heading", { name: "demo@example.com" })).toBeFocused();
    // Side by side: the list on the left, the dossier beside it, the list still there.
    const listBox = await matches.boundingBox();
    const dossierBox = await page.getByRole("heading", { name: "demo@example.com" }).boundingBox();
    expect(listBox).not.toBeNull();
    expect(dossierBox).not.toBeNull();
    if (listBox !== null && dossierBox !== null) {
      expect(dossierBox.x).toBeGreaterThan(listBox.x + listBox.width - 1);
      // Both in the first screenful: no scrolling between the list and the subscriber.
      expect(listBox.y + 40).toBeLessThan(900);
      expect(dossierBox.y + dossierBox.height).toBeLessThan(900);
    }
    if (process.env.E2E_SHOTS !== undefined) {
      await page.screenshot({ path: `${process.env.E2E_SHOTS}/desk-1440.png` });
    }
    // Buttons as wide as their label at a desk, not stretched across the column.
    const find = await page.getByRole("button", { name: "Find", exact: true }).boundingBox();
    expect(find?.width ?? 1000).toBeLessThan(200);

    // A receipt number as quoted on the phone (lower case, no dashes), and a charge's id: each opens the subscriber.
    for (const q of [receipt.toLowerCase().replaceAll("-", ""), chargeId, "nobody-here"]) {
      // From the empty desk each time, so what opens is this search's answer.
      await page.goto("/studio/support");
      await expect(page.getByRole("list", { name: "Audit log" })).toBeVisible();
      if (q === "nobody-here") break;
      await search.fill(q);
      await page.getByRole("button", { name: "Find", exact: true }).click();
      await expect(page).toHaveURL(/\/studio\/support\?email=demo%40example\.com$/);
      await expect(page.getByRole("heading", { name: "demo@example.com" })).toBeFocused();
    }

    // Nothing found is said in words.
    await search.fill("nobody-here");
    await page.getByRole("button", { name: "Find", exact: true }).click();
    await expect(page.getByText("Nothing matches “nobody-here”.")).toBeVisible();
  });

  test("finds subscribers by a part inside their email, as Stripe's search does: a domain lists several, a middle opens the one", async ({ page }) => {
    await signInToStudio(page, "support@example.com", "glimpse-support");
    await expect(page).toHaveURL(/\/studio\/support$/);
    const search = page.getByLabel("Subscriber's email");

    // "example.com" starts no address but is inside every demo subscriber's: they are listed, each saying so.
    await search.fill("example.com");
    await page.getByRole("button", { name: "Find", exact: true }).click();
    await expect(page).toHaveURL(/\?q=example\.com$/);
    const matches = page.getByRole("list", { name: /^Matches \(\d+\)$/ });
    for (const email of ["ab@example.com", "clean@example.com", "demo@example.com"]) {
      await expect(matches.getByRole("listitem").filter({ hasText: email })).toContainText("address contains “example.com”");
    }
    await expect(matches.getByRole("listitem").filter({ hasText: "demo@example.com" })).toContainText("Weekly Plan");
    expect(await matches.getByRole("listitem").count()).toBeGreaterThanOrEqual(3);
    // In address order.
    const listed = (await matches.getByRole("listitem").allTextContents()).map((t) => /[^\s·]+@[^\s·]+/.exec(t)?.[0] ?? "");
    expect(listed).toEqual([...listed].sort());
    // Nobody opened until picked; picking one opens them beside the list.
    await expect(page.getByRole("heading", { name: "Actions" })).toHaveCount(0);
    await matches.getByRole("link", { name: /clean@example\.com/ }).or(matches.getByRole("button", { name: /clean@example\.com/ })).click();
    await expect(page).toHaveURL(/\?q=example\.com&email=clean%40example\.com$/);
    await expect(page.getByRole("heading", { name: "clean@example.com" })).toBeFocused();
    if (process.env.E2E_SHOTS !== undefined) await page.screenshot({ path: `${process.env.E2E_SHOTS}/contains-1440.png` });

    // The middle of an address, across the "@", in any case: only demo@example.com has it, so it opens at once.
    await page.goto("/studio/support");
    await search.fill("MO@exam");
    await page.getByRole("button", { name: "Find", exact: true }).click();
    await expect(page).toHaveURL(/\/studio\/support\?email=demo%40example\.com$/);
    await expect(page.getByRole("heading", { name: "demo@example.com" })).toBeFocused();

    // Two characters are searched as a start only: "xa" is inside every address here, and starts none.
    await page.goto("/studio/support");
    await search.fill("xa");
    await page.getByRole("button", { name: "Find", exact: true }).click();
    await expect(page.getByText("Nothing matches “xa”.")).toBeVisible();
  });

  test("an extension has its only plan chosen, shows the new date before it is confirmed, and is confirmed on screen", async ({ page }) => {
    await signInToStudio(page, "support@example.com", "glimpse-support");
    await expect(page).toHaveURL(/\/studio\/support$/);
    await page.goto("/studio/support?email=demo%40example.com");
    await page.getByRole("button", { name: "Extend", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Extend a plan" });
    await expect(dialog.getByRole("radio", { name: /Weekly Plan/ })).toBeChecked();
    await dialog.getByRole("radio", { name: "7 days", exact: true }).check();
    const seven = dialog.getByText(/^New renewal date: /);
    await expect(seven).toBeVisible();
    const sevenText = (await seven.textContent()) ?? "";
    await dialog.getByRole("radio", { name: "30 days", exact: true }).check();
    const thirty = dialog.getByText(/^New renewal date: /);
    await expect(thirty).not.toHaveText(sevenText);
    const date = /New renewal date: ([A-Z][a-z]{2} \d{1,2}, \d{4})/.exec((await thirty.textContent()) ?? "")?.[1] ?? "";
    expect(date).not.toBe("");
    await dialog.getByLabel("Reason").fill("Outage last week, asked by mail");
    if (process.env.E2E_SHOTS !== undefined) await page.screenshot({ path: `${process.env.E2E_SHOTS}/extend-1440.png` });
    await dialog.getByRole("button", { name: "Extend", exact: true }).click();
    await expect(dialog).toBeHidden();
    if (process.env.E2E_SHOTS !== undefined) await page.screenshot({ path: `${process.env.E2E_SHOTS}/extended-1440.png` });
    await expect(page.getByText(`Extended by 30 days: demo@example.com's plan now runs to ${date}.`)).toBeFocused();
    await expect(
      page.getByRole("list", { name: "Subscriptions" }).getByRole("listitem").filter({ hasText: "Weekly Plan" }),
    ).toContainText(`renews ${date}`);
  });

  test("keyboard only: find a subscriber, open them and sign them out everywhere", async ({ page }) => {
    await signInToStudio(page, "support@example.com", "glimpse-support");
    await expect(page).toHaveURL(/\/studio\/support$/);
    const search = page.getByLabel("Subscriber's email");
    // Tab from the top of the page to the search box.
    for (let i = 0; i < 15 && !(await search.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
    await expect(search).toBeFocused();
    await page.keyboard.type("4242");
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\?q=4242$/);
    // Tab to demo's match, open it with Enter: the keyboard lands on their heading.
    const demo = page.getByRole("list", { name: /^Matches/ }).getByRole("listitem").filter({ hasText: "demo@example.com" });
    for (let i = 0; i < 15 && !(await demo.evaluate((el) => el.contains(document.activeElement))); i++) await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    const heading = page.getByRole("heading", { name: "demo@example.com" });
    await expect(heading).toBeFocused();
    // From the heading, the next stops are the actions.
    const signOut = page.getByRole("button", { name: "Sign out everywhere" });
    for (let i = 0; i < 10 && !(await signOut.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
    await expect(signOut).toBeFocused();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Sign out everywhere" });
    await expect(dialog).toBeVisible();
    const reason = dialog.getByLabel("Reason");
    for (let i = 0; i < 5 && !(await reason.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
    await expect(reason).toBeFocused();
    await page.keyboard.type("Lost their phone, asked by mail");
    await page.keyboard.press("Tab");
    await expect(dialog.getByRole("button", { name: "Sign out everywhere" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(dialog).toBeHidden();
    await expect(page.getByText("Signed demo@example.com out of every browser.")).toBeFocused();
  });
});
