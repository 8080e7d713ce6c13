import { type Browser, type BrowserContext, expect, test as base } from "@playwright/test";

// Every spec imports test and expect from here, so every request any page
// sends to a Glimpse action (/ui/actions/*), in the test's own context and
// in any context or page it opens from the browser, is read before it
// leaves: a body holding something shaped like a card number fails the
// test. Cards are typed only on the payment provider's page (#19).

/**
 * The card numbers in text: runs of 13 to 19 digits (spaces or dashes
 * between them allowed) that stand alone, pass the Luhn check and start as
 * a card network's numbers do (2–6). Timestamps (1…) and ids do not: a run
 * is a candidate only when no letter, digit or underscore, nor a dash
 * joined to one, touches either end, so the digits inside a random hex id
 * (an attempt id such as b4aadc42731869320200f01f2448f422, whose
 * 42731869320200 passes Luhn), a prefixed one (co_…) or a UUID's last groups
 * are never read as a card.
 */
export function cardNumbersIn(text: string): string[] {
  const found: string[] = [];
  const run = /(?<![\p{L}\p{N}_]-?)\d(?:[ -]?\d){12,18}(?!-?[\p{L}\p{N}_])/gu;
  for (const m of text.matchAll(run)) {
    const digits = m[0].replace(/[ -]/g, "");
    if (/^[2-6]/.test(digits) && luhn(digits)) found.push(digits);
  }
  return found;
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

async function guard(context: BrowserContext, seen: string[]): Promise<void> {
  await context.route("**/ui/actions/**", async (route) => {
    const request = route.request();
    const body = request.postData() ?? "";
    if (cardNumbersIn(body).length > 0) {
      seen.push(`${request.method()} ${request.url()}: ${body}`);
      await route.abort();
      return;
    }
    await route.continue();
  });
}

export const test = base.extend<{ noCardInActions: undefined }>({
  noCardInActions: [
    async ({ browser, context }: { browser: Browser; context: BrowserContext }, use: (v: undefined) => Promise<void>) => {
      const seen: string[] = [];
      await guard(context, seen);
      // Contexts and pages a test opens itself are guarded too.
      const newContext = browser.newContext.bind(browser);
      const newPage = browser.newPage.bind(browser);
      browser.newContext = async (options) => {
        const c = await newContext(options);
        await guard(c, seen);
        return c;
      };
      browser.newPage = async (options) => {
        const c = await newContext(options);
        await guard(c, seen);
        return c.newPage();
      };
      try {
        await use(undefined);
      } finally {
        browser.newContext = newContext;
        browser.newPage = newPage;
      }
      expect(seen, "a card number was sent to a Glimpse action").toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
