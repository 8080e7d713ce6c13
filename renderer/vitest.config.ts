import { defineConfig, mergeConfig } from "vitest/config";
import viteConfig from "./vite.config.ts";

export default mergeConfig(
  viteConfig,
  defineConfig({
    test: {
      environment: "jsdom",
      include: ["src/**/*.test.{ts,tsx}"],
      setupFiles: ["src/test/setup.ts"],
      restoreMocks: true,
      // One jsdom per worker instead of per file: the suite runs in seconds, not minutes.
      // setup.ts resets what tests share (the DOM, history, runtimes, storage).
      isolate: false,
      unstubGlobals: true,
    },
  }),
);
