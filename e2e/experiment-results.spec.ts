import { type Browser, type Page } from "@playwright/test";
import { expect, test } from "./fixtures";

// The experiment results a tester can act on (issue #34), at a desk: one
// always-valid interval per difference, explained in a sentence; the
// sample-ratio check in words; the chance each variant beats the control;
// retained revenue per attempt with its interval; and what an attempt and
// an exposure are, with a subscriber who opens the flow twice and reloads it
// counted once.
//
// Two demo subscribers (fixed user ids, engine/app/demo.go) are put in the
// two variants of a copy experiment on step 0's claim (a key no other spec
// experiments on) by weights computed from the experiment's id, as
// experiments.spec.ts does; both stay, so no plan changes. The experiment
// is stopped at the end.

const tester = { email: "tester@example.com", password: "glimpse-tester" };
const subscribers = [
  { email: "demo@example.com", password: "glimpse-demo", id: "demo-subscriber" },
  { email: "ab@example.com", password: "glimpse-ab", id: "ab-subscriber" },
];
const desk = { width: 1440, height: 900 };

/** FNV-1a, 32 bits, as engine/experiment/assign.go. */
function fnv1a32(text: string): number {
  let h = 2166136261;
  for (const byte of new TextEncoder().encode(text)) h = Math.imul((h ^ byte) >>> 0, 16777619) >>> 0;
  return h >>> 0;
}

/** The subscriber's bucket (0–9999) in an experiment. */
function bucket(experimentId: string, userId: string): number {
  return fnv1a32(String(fnv1a32(experimentId + userId))) % 10000;
}

async function signedIn(browser: Browser, path: string, who: { email: string; password: string }): Promise<Page> {
  const page = await (await browser.newContext({ viewport: desk })).newPage();
  await page.goto(path);
  await page.getByLabel("Email address").fill(who.email);
  await page.getByLabel("Password", { exact: true }).fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  return page;
}

/** Starts the experiment on its edit screen, confirming if the studio asks. */
async function start(studio: Page): Promise<void> {
  await studio.getByRole("button", { name: "Start", exact: true }).click();
  const running = studio.getByText("Phase 1 · running");
  const confirm = studio.getByRole("dialog").getByRole("button", { name: /^Start/ });
  await expect(running.or(confirm)).toBeVisible();
  if (await confirm.isVisible()) await confirm.click();
  await expect(running).toBeVisible();
}

test("results at a desk: one always-valid interval, the ratio check in words, chance to beat, revenue, clear counting", async ({
  browser,
}) => {
  const studio = await signedIn(browser, "/studio", tester);
  await expect(studio.getByText(`Signed in as ${tester.email} (tester)`)).toBeVisible();

  await studio.goto("/studio/experiments/new");
  await studio.getByLabel("Name", { exact: true }).fill(`Step 0 claim ${Date.now()}`);
  const hypothesis = studio.getByLabel("Hypothesis", { exact: true });
  if ((await hypothesis.count()) > 0) await hypothesis.fill("A warmer claim keeps more people.");
  await studio.getByRole("searchbox", { name: "Search keys and their texts" }).fill("step0.claim");
  await studio.getByRole("radio", { name: /^unsubscribe\.step0\.claim\b/ }).check();
  const saveRate = studio.getByRole("radio", { name: /^Save rate/ });
  if ((await saveRate.count()) > 0) await saveRate.check();
  await studio.getByLabel(/text \(or offer id\)/i).nth(1).fill("Premium members grow faster, with friends");
  await studio.getByRole("button", { name: "Save", exact: true }).click();
  await expect(studio).toHaveURL(/\/studio\/experiments\/edit\/x[0-9a-f]+$/);
  await expect(studio.getByRole("button", { name: "Start", exact: true })).toBeVisible();
  const id = new URL(studio.url()).pathname.split("/").pop() ?? "";

  // Weights that put the two subscribers in different variants.
  const buckets = subscribers.map((s) => bucket(id, s.id));
  const low = Math.min(...buckets);
  expect(Math.max(...buckets), "both subscribers in the same bucket").toBeGreaterThan(low);
  const weights = studio.getByLabel(/^(Variant \w+ )?weight$/i);
  await weights.nth(0).fill(String(low + 1));
  await weights.nth(1).fill(String(10000 - low - 1));
  const saved = studio.waitForResponse((r) => r.url().includes("/ui/actions/experiment.save") && r.ok());
  await studio.getByRole("button", { name: "Save", exact: true }).click();
  await saved;
  await expect(weights.nth(0)).toHaveValue(String(low + 1));
  await start(studio);

  try {
    for (const s of subscribers) {
      const page = await signedIn(browser, "/sign-in", s);
      await expect(page).toHaveURL(/\/dashboard$/, { timeout: 15_000 });
      // Opening the flow, reloading it, and opening it again: one attempt.
      await page.goto("/dashboard?unsubscription=true");
      await expect(page).toHaveURL(/\/dashboard\/unsubscribe\/0\?attempt=/, { timeout: 10_000 });
      const attempt = new URL(page.url()).searchParams.get("attempt");
      await page.reload();
      await expect(page.getByRole("dialog").getByRole("button", { name: "Stay premium" })).toBeVisible();
      await page.goto("/dashboard?unsubscription=true");
      await expect(page).toHaveURL(new RegExp(`/dashboard/unsubscribe/0\\?attempt=${attempt}$`), { timeout: 10_000 });
      await page.getByRole("dialog").getByRole("button", { name: "Stay premium" }).click();
      await expect(page).toHaveURL(/\/dashboard$/);
      await page.context().close();
    }

    await studio.goto(`/studio/experiments/results/${id}`);
    // Counting, after the reloads: one attempt and one exposure each, and the page says what they are.
    await expect(studio.getByText("Attempts 1 · Exposed 1 · Saves 1 · Cancels 0")).toHaveCount(2);
    await expect(studio.getByRole("heading", { name: "How people are counted" })).toBeVisible();
    await expect(studio.getByText(/^An attempt is one visit to the unsubscribe flow .* An exposure is the first time/)).toBeVisible();

    // The sample-ratio check in words, with the split and the planned shares.
    await expect(
      studio.getByText(/^Exposures split 1 \/ 1 against the planned [\d.]+\/[\d.]+: too few for the sample-ratio check yet/),
    ).toBeVisible();

    // One interval for the difference, the always-valid one, and a sentence saying what it means.
    await expect(
      studio.getByText(/whenever you look, and however often, the true difference lies in it 95% of the time/),
    ).toBeVisible();
    await expect(studio.getByText("+0.0 pts [-100.0, +100.0]", { exact: true })).toBeVisible();
    await expect(studio.getByText(/pts \[/)).toHaveCount(1);
    await expect(studio.getByText(/Always valid \(95%\):/)).toHaveCount(0);

    // The chance to beat the control: 1 of 1 against 1 of 1 is an even chance.
    await expect(studio.getByText("Chance to beat Control", { exact: true })).toBeVisible();
    await expect(studio.getByText("50.0%", { exact: true })).toBeVisible();

    // Revenue: each stayed on the weekly $1 plan, $1 × 30/7 = $4.29 over the 30-day window, with its
    // interval (kept within what one person's revenue has been, as a rate's within [0%, 100%]).
    await expect(studio.getByText("Retained revenue per attempt (30 days, 95%): $4.29 [$0.33, $4.29]")).toHaveCount(2);
    await expect(studio.getByText("Revenue per attempt vs Control", { exact: true })).toBeVisible();
    await expect(studio.getByText("+$0.00 [-$4.29, +$4.29]", { exact: true })).toBeVisible();

    // A desk layout: the variants side by side.
    await studio.screenshot({ path: "test-results/experiment-results-desk.png", fullPage: true });
    const [a, b] = [
      await studio.getByRole("heading", { name: "Control", exact: true }).boundingBox(),
      await studio.getByRole("heading", { name: "Variant B", exact: true }).boundingBox(),
    ];
    expect(Math.abs((a?.y ?? 0) - (b?.y ?? 1000))).toBeLessThan(5);
    const main = await studio.locator("main").first().boundingBox();
    expect(main?.width ?? 0).toBeGreaterThan(1000);
  } finally {
    await studio.goto(`/studio/experiments/edit/${id}`);
    await studio.getByRole("button", { name: "Stop for good" }).click();
    await expect(studio.getByText("Phase 1 · stopped")).toBeVisible();
  }
});
