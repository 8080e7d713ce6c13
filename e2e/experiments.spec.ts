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
  await studio.getByRole("radio", { name: "unsubscribe.step0.title", exact: true }).check();
  const texts = studio.getByLabel(/^Text \(or offer id\)/);
  await texts.nth(0).fill(headlines[0]);
  await texts.nth(1).fill(headlines[1]);
  await studio.getByRole("button", { name: "Save", exact: true }).click();
  await expect(studio).toHaveURL(/\/studio\/experiments\/edit\/x[0-9a-f]+$/);
  const id = new URL(studio.url()).pathname.split("/").pop() ?? "";

  // Weights that split the two subscribers: variant A owns buckets
  // [0, low], variant B the rest (a draft's weights change no phase).
  const buckets = subscribers.map((s) => bucket(id, s.id));
  const low = Math.min(...buckets);
  expect(Math.max(...buckets), "both subscribers in the same bucket").toBeGreaterThan(low);
  const weightA = low + 1;
  const weights = studio.getByLabel("Weight", { exact: true });
  await weights.nth(0).fill(String(weightA));
  await weights.nth(1).fill(String(10000 - weightA));
  await studio.getByRole("button", { name: "Save", exact: true }).click();
  await expect(weights.nth(0)).toHaveValue(String(weightA));
  await studio.getByRole("button", { name: "Start", exact: true }).click();
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

    // The results count each subscriber's exposure, attempt and save in their variant.
    await studio.goto(`/studio/experiments/results/${id}`);
    await expect(studio.getByText("Attempts 1 · Exposed 1 · Saves 1 · Cancels 0")).toHaveCount(2);
  } finally {
    // Stop it for good: the other specs' step 0 says "Before you go".
    await studio.goto(`/studio/experiments/edit/${id}`);
    await studio.getByRole("button", { name: "Stop for good" }).click();
    await expect(studio.getByText("Phase 1 · stopped")).toBeVisible();
  }
});
