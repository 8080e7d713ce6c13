import { type Page } from "@playwright/test";
import { expect, test } from "./fixtures";

// Nothing typed is lost (issue #21): a person may type into the sign-in form the server drew at any
// moment while the app loads: before its script runs, while React adopts the markup, after. On a
// CPU slowed four times those moments stretch, and each of these runs starts typing at another
// one. Whatever the moment, the sign-in the app sends carries exactly what the fields show.

const email = "typing-check@example.com";
const password = "typed while loading";
// `make test` types at 6 moments; `make soak` at 20 in each of its three rounds (E2E_TYPING_RUNS).
const runs = Number(process.env.E2E_TYPING_RUNS ?? 6);

/** Waits until React has adopted (hydrated) the server's markup: its elements carry React's fiber. */
async function adopted(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const app = document.querySelector("#root .app");
    return app !== null && Object.keys(app).some((key) => key.startsWith("__reactFiber"));
  });
}

for (let run = 0; run < runs; run++) {
  // Spread over the first 800 ms after the page's first bytes arrive.
  const startAfter = Math.round((run * 800) / runs);
  test(`run ${run + 1} of ${runs}: typing ${startAfter} ms into the load, the sign-in sends what the fields show`, async ({
    page,
  }) => {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });

    // The sign-in request is caught and answered here, so twenty runs leave no sessions and count no
    // failed sign-ins against this machine's address.
    const sent: unknown[] = [];
    await page.route("**/ui/actions/session.sign_in", async (route) => {
      sent.push(route.request().postDataJSON());
      await route.abort();
    });

    // What happened to the email field, in order, to read when a run fails: each keystroke's input
    // event, each value set by script (with where it came from), each screen fetched, each error.
    const trace: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/ui/screen")) trace.push(`fetch ${request.url()}`);
    });
    page.on("framenavigated", (frame) => {
      if (frame === page.mainFrame()) trace.push(`navigated to ${frame.url()}`);
    });
    page.on("console", (message) => {
      if (message.type() === "error") trace.push(`console error ${message.text()}`);
    });
    await page.exposeFunction("glimpseTypingTrace", (line: string) => trace.push(line));
    await page.addInitScript(() => {
      const report = (window as unknown as { glimpseTypingTrace: (line: string) => void }).glimpseTypingTrace;
      const started = performance.now();
      const at = (): string => `${Math.round(performance.now() - started)}ms`;
      const value = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value");
      Object.defineProperty(HTMLInputElement.prototype, "value", {
        ...value,
        set(this: HTMLInputElement, next: string) {
          if (this.dataset.bind === "/form/email") report(`${at()} set "${next}" over "${value?.get?.call(this)}" ${new Error().stack?.split("\n").slice(2, 5).join(" < ")}`);
          value?.set?.call(this, next);
        },
      });
      // The value attribute (defaultValue) decides the value of a field nobody has typed in yet.
      const defaultValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "defaultValue");
      Object.defineProperty(HTMLInputElement.prototype, "defaultValue", {
        ...defaultValue,
        set(this: HTMLInputElement, next: string) {
          if (this.dataset.bind === "/form/email") report(`${at()} defaultValue "${next}" over value "${value?.get?.call(this)}"`);
          defaultValue?.set?.call(this, next);
        },
      });
      document.addEventListener("input", (event) => {
        const input = event.target as HTMLInputElement;
        if (input.name === "email") report(`${at()} input "${input.value}" hydrated=${Object.keys(input).some((key) => key.startsWith("__react"))}`);
      }, true);
    });

    await page.goto("/sign-in", { waitUntil: "commit" });
    await page.waitForTimeout(startAfter);
    const emailField = page.getByLabel("Email address");
    const passwordField = page.getByLabel("Password", { exact: true });
    await emailField.pressSequentially(email, { delay: 10 });
    await passwordField.pressSequentially(password, { delay: 10 });
    await adopted(page);
    await expect(emailField, trace.join("\n")).toHaveValue(email);
    await expect(passwordField).toHaveValue(password);

    await passwordField.press("Enter");
    await expect.poll(() => sent.length).toBe(1);
    expect(sent[0]).toMatchObject({ values: { email, password } });
  });
}
