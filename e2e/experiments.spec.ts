import { type Browser, type Page } from "@playwright/test";
import { expect, test } from "./fixtures";

// A/B experiments on the unsubscribe flow (issue #11) end to end: the demo
// tester starts an experiment on step 0's headline, two demo subscribers in
// its two variants see different headlines, and the results count one
// exposure each. The experiment is stopped at the end, so the other specs
// see the flow's own copy whatever order they run in.
//
// Assignment is deterministic (docs/experiments.md §2): the seeded
// subscribers have fixed user ids (engine/app/demo.go), so once the
// experiment's id is known the test computes where each one falls and sets
// the weights so they land in different variants. ab@example.com is a demo
// subscriber no other spec cancels (billing.spec.ts cancels clean@example.com,
// and a canceled plan's flow shows only the canceled page).

const tester = { email: "tester@example.com", password: "glimpse-tester" };
const subscribers = [
  { email: "demo@example.com", password: "glimpse-demo", id: "demo-subscriber" },
  { email: "ab@example.com", password: "glimpse-ab", id: "ab-subscriber" },
];
const headlines = ["One more look before you go", "Wait, there is more for you"];

/** FNV-1a, 32 bits, as engine/experiment/assign.go. */
function fnv1a32(text: string): number {
  let h = 2166136261;
  for (const byte of new TextEncoder().encode(text)) h = Math.imul((h ^ byte) >>> 0, 16777619) >>> 0;
  return h >>> 0;
}

/** The subscriber's bucket (0–9999) in an experiment: experiment.Hash times 10,000. */
function bucket(experimentId: string, userId: string): number {
  return fnv1a32(String(fnv1a32(experimentId + userId))) % 10000;
}

async function newPage(browser: Browser): Promise<Page> {
  return (await browser.newContext()).newPage();
}

test("a tester's headline experiment: two subscribers, two headlines, one exposure each", async ({ browser }) => {
  const studio = await newPage(browser);
  await studio.goto("/studio");
  await studio.getByLabel("Email address").fill(tester.email);
  await studio.getByLabel("Password", { exact: true }).fill(tester.password);
  await studio.getByRole("button", { name: "Sign in" }).click();
  await expect(studio.getByText(`Signed in as ${tester.email} (tester)`)).toBeVisible();

  // Create the experiment: the control's own headline and a variant's.
  await studio.goto("/studio/experiments/new");
  await studio.getByLabel("Name", { exact: true }).fill(`Step 0 headline ${Date.now()}`);
  // Issue #34: a hypothesis and a primary metric are asked for at creation.
  await studio.getByLabel("Hypothesis").fill("A warmer headline keeps more people");
  await studio.getByRole("radio", { name: /^Save rate/ }).check();
  await studio.getByRole("searchbox", { name: "Search keys and their texts" }).fill("step0.title");
  await studio.getByRole("radio", { name: /^unsubscribe\.step0\.title\b/ }).check();
  // Issue #34: each variant's inputs are named after it.
  await studio.getByLabel(/^Variant A text/).fill(headlines[0]);
  await studio.getByLabel(/^Variant B text/).fill(headlines[1]);
  await studio.getByRole("button", { name: "Save", exact: true }).click();
  await expect(studio).toHaveURL(/\/studio\/experiments\/edit\/x[0-9a-f]+$/);
  // The address changes as the saved experiment's screen is asked for; its weights are typed once
  // it is drawn (typed into the form before it, they would be drawn over).
  await expect(studio.getByRole("button", { name: "Start", exact: true })).toBeVisible();
  const id = new URL(studio.url()).pathname.split("/").pop() ?? "";

  // Weights that split the two subscribers: variant A owns buckets
  // [0, low], variant B the rest (a draft's weights change no phase).
  const buckets = subscribers.map((s) => bucket(id, s.id));
  const low = Math.min(...buckets);
  expect(Math.max(...buckets), "both subscribers in the same bucket").toBeGreaterThan(low);
  const weightA = low + 1;
  const weights = [studio.getByLabel("Variant A weight"), studio.getByLabel("Variant B weight")];
  await weights[0].fill(String(weightA));
  await weights[1].fill(String(10000 - weightA));
  // Start only once the weights are stored: a change after the start would begin phase 2.
  const saved = studio.waitForResponse((r) => r.url().includes("/ui/actions/experiment.save") && r.ok());
  await studio.getByRole("button", { name: "Save", exact: true }).click();
  await saved;
  await expect(weights[0]).toHaveValue(String(weightA));
  // Issue #34: Start asks first, in a dialog.
  await studio.getByRole("button", { name: "Start", exact: true }).click();
  await studio.getByRole("dialog", { name: /^Start '/ }).getByRole("button", { name: "Start", exact: true }).click();
  await expect(studio.getByText("Phase 1 · running")).toBeVisible();

  try {
    // Each subscriber opens the flow and sees their variant's headline.
    for (const [i, s] of subscribers.entries()) {
      const variant = buckets[i] === low ? 0 : 1;
      const page = await newPage(browser);
      await page.goto("/sign-in");
      await page.getByLabel("Email address").fill(s.email);
      await page.getByLabel("Password", { exact: true }).fill(s.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect(page).toHaveURL(/\/dashboard$/, { timeout: 15_000 });
      await page.goto("/dashboard?unsubscription=true");
      await expect(page).toHaveURL(/\/dashboard\/unsubscribe\/0\?attempt=/, { timeout: 10_000 });
      const flow = page.getByRole("dialog");
      await expect(flow.getByRole("heading", { name: headlines[variant] })).toBeVisible();
      await expect(flow.getByRole("heading", { name: headlines[1 - variant] })).toHaveCount(0);
      // A reload is the same person: still one exposure.
      await page.reload();
      await expect(flow.getByRole("heading", { name: headlines[variant] })).toBeVisible();
      await flow.getByRole("button", { name: "Stay premium" }).click();
      await expect(page).toHaveURL(/\/dashboard$/);
      await page.context().close();
    }

    // The results count each subscriber's exposure, attempt and save in their variant, and say
    // in plain words that two people settle nothing; the intervals stay within what a rate and a
    // difference of rates can be.
    await studio.setViewportSize({ width: 1440, height: 900 });
    await studio.goto(`/studio/experiments/results/${id}`);
    await expect(studio.getByText("Attempts 1 · Exposed 1 · Saves 1 · Cancels 0")).toHaveCount(2);
    await expect(studio.getByText(/^Not enough data yet: about [\d,]+ more cancel attempts needed$/)).toBeVisible();
    await expect(studio.getByText(/^Exposures split 1 \/ 1 against the planned [\d.]+\/[\d.]+: too few for the sample-ratio check yet/)).toBeVisible();
    await expect(studio.getByText("+0.0 pts [-100.0, +100.0]", { exact: true })).toBeVisible();
    await expect(studio.getByText("Save rate (95%): 100.0% [20.7%, 100.0%]")).toHaveCount(2);
    // The save rate over time, one chart per variant, drawn by the server's chart node.
    await expect(studio.getByRole("figure", { name: /: save rate over time$/ })).toHaveCount(2);
    // The desk's width, not a phone column.
    const main = await studio.locator("main").first().boundingBox();
    expect(main?.width ?? 0).toBeGreaterThan(1000);
  } finally {
    // Stop it for good: the other specs' step 0 says "Before you go".
    await studio.goto(`/studio/experiments/edit/${id}`);
    await studio.getByRole("button", { name: "Stop for good" }).click();
    await expect(studio.getByText("Phase 1 · stopped")).toBeVisible();
  }
});

/** The demo tester, signed in to the studio. */
async function testerStudio(browser: Browser, viewport: { width: number; height: number }): Promise<Page> {
  const page = await (await browser.newContext({ viewport })).newPage();
  await page.goto("/studio");
  await page.getByLabel("Email address").fill(tester.email);
  await page.getByLabel("Password", { exact: true }).fill(tester.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText(`Signed in as ${tester.email} (tester)`)).toBeVisible();
  return page;
}

test("at a desk, a new experiment is a searchable key picker beside a live preview of the real step", async ({ browser }) => {
  const page = await testerStudio(browser, { width: 1440, height: 900 });
  await page.goto("/studio/experiments/new");
  const picker = page.getByRole("group", { name: "Copy key or offer slot" });
  // Every key shows the text it has now, under its step.
  await expect(picker.getByRole("group", { name: "Step 0 · Before you go" })).toBeVisible();
  await expect(picker.getByRole("group", { name: "Offer slots" })).toBeAttached();
  const step0 = picker.getByRole("radio", { name: /^unsubscribe\.step0\.title\b/ });
  await expect(step0).toHaveAccessibleName(/Before you go/);
  // The page is a page, not ~95 radio cards stacked 7,900px tall: the list scrolls in its box.
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  expect(height).toBeLessThan(3000);

  // Searching by the text a key shows finds it, under its step's heading.
  const search = picker.getByRole("searchbox", { name: "Search keys and their texts" });
  await search.fill("why are you leaving");
  await expect(picker.getByRole("group", { name: /^Step 5 · / })).toBeVisible();
  await expect(picker.getByRole("group", { name: "Step 0 · Before you go" })).toHaveCount(0);
  await search.fill("zzz no such key");
  await expect(picker.getByText("No key or slot matches the search.")).toBeVisible();
  await search.fill("step0.title");
  await step0.check();

  // The preview sits beside the form and draws step 0 as subscribers see it: its buttons are
  // buttons, not plain text; typing a variant's text shows it there, unsaved.
  const preview = page.getByRole("region", { name: "Preview of each variant" });
  await expect(preview.getByRole("button", { name: "Stay premium" })).toHaveCount(2);
  const formBox = await page.locator("form").first().boundingBox();
  const previewBox = await preview.boundingBox();
  if (formBox === null || previewBox === null) throw new Error("the form or the preview has no box");
  expect(previewBox.x).toBeGreaterThanOrEqual(formBox.x + formBox.width);
  expect(previewBox.y).toBeLessThan(formBox.y + 200);
  await page.getByLabel(/^Variant B text/).fill("Leaving already? Look at what you keep");
  await expect(preview.getByRole("heading", { name: "Leaving already? Look at what you keep" })).toBeVisible();
  await expect(preview.getByRole("heading", { name: "Before you go" })).toBeVisible();
  // A click in the preview goes nowhere: it is a picture of the step.
  await preview.getByRole("button", { name: "Stay premium" }).first().click();
  await expect(page).toHaveURL(/\/studio\/experiments\/new$/);
  await page.context().close();
});

test("on a phone, the new experiment stacks its preview under the form without sideways scrolling", async ({ browser }) => {
  const page = await testerStudio(browser, { width: 390, height: 844 });
  await page.goto("/studio/experiments/new");
  await page.getByRole("searchbox", { name: "Search keys and their texts" }).fill("step0.title");
  await page.getByRole("radio", { name: /^unsubscribe\.step0\.title\b/ }).check();
  const preview = page.getByRole("region", { name: "Preview of each variant" });
  await expect(preview.getByRole("button", { name: "Stay premium" })).toHaveCount(2);
  const formBox = await page.locator("form").first().boundingBox();
  const previewBox = await preview.boundingBox();
  if (formBox === null || previewBox === null) throw new Error("the form or the preview has no box");
  expect(previewBox.y).toBeGreaterThanOrEqual(formBox.y + formBox.height);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.context().close();
});

test("an editor sent away from the experiments is told why", async ({ browser }) => {
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  await page.goto("/studio");
  await page.getByLabel("Email address").fill("editor@example.com");
  await page.getByLabel("Password", { exact: true }).fill("glimpse-editor");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("Signed in as editor@example.com (editor)")).toBeVisible();
  await page.goto("/studio/experiments");
  await expect(page).toHaveURL(/\/studio\?from=experiments$/);
  await expect(page.getByText("The experiments are for testers")).toBeVisible();
  await expect(page.getByText(/Only testers and admins can open the A\/B experiments/)).toBeVisible();
  await page.context().close();
});

