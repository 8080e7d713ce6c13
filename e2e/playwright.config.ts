import { defineConfig } from "@playwright/test";

// End-to-end tests drive the real binary (bin/glimpse, built by `make build`)
// in Debian's Chromium at a phone size. The server gets a fresh embedded
// database in e2e/.data on every run and stops when the tests end.
const port = Number(process.env.E2E_PORT ?? 18181);
const baseURL = `http://127.0.0.1:${port}`;
// Several checkouts' worth of work can share one machine: a run may name its
// own binary and data folder (E2E_BIN, E2E_DATA_DIR), relative to the repo.
// localhost is the partner brand _x_'s host (GLIMPSE_BRAND_HOSTS), so a spec
// can buy on a partner's host as well as on the default one (127.0.0.1).
const binary = process.env.E2E_BIN ?? "./bin/glimpse";
const dataDir = process.env.E2E_DATA_DIR ?? "e2e/.data";

export default defineConfig({
  testDir: ".",
  testMatch: /.*\.spec\.ts/,
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  reporter: [["list"]],
  snapshotPathTemplate: "{testDir}/__screenshots__/{testFilePath}/{arg}{ext}",
  expect: {
    timeout: 10_000,
    toHaveScreenshot: { maxDiffPixelRatio: 0.01, animations: "disabled", caret: "hide" },
  },
  use: {
    baseURL,
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 1,
    isMobile: false,
    locale: "en-US",
    timezoneId: "UTC",
    colorScheme: "light",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--font-render-hinting=none",
      ],
    },
  },
  webServer: {
    command: `rm -rf ${dataDir} && GLIMPSE_DEMO=1 GLIMPSE_DEV_MAILBOX=1 GLIMPSE_ENVIRONMENT=development GLIMPSE_BRAND_HOSTS=localhost=_x_ GLIMPSE_ADDR=127.0.0.1:${port} GLIMPSE_DATA_DIR=${dataDir} GLIMPSE_LOG_LEVEL=warn GLIMPSE_COUNTRY_HEADER=CF-IPCountry GLIMPSE_INSTAGRAM_APP_SECRET=e2e-meta-app-secret ${binary} serve`,
    cwd: "..",
    url: `${baseURL}/readyz`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
  },
});
