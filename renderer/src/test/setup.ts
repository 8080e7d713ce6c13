// Vitest setup: unmount what each test rendered (Testing Library's auto-cleanup needs globals)
// and stand in for the window APIs jsdom lacks.
import { cleanup } from "@testing-library/react";
import { afterEach, beforeAll, beforeEach, vi } from "vitest";
import { resetShellCopy } from "../runtime/copy";
import { contractValidator } from "../runtime/validator";
import { stopEngines } from "./harness";

// The contract's validator is a chunk the app loads after its first screen; tests have it at once
// (runtime/validator.test.tsx hands the runtime one that comes later, or never).
beforeAll(async () => {
  await contractValidator.load();
});

beforeEach(() => {
  window.scrollTo = vi.fn();
  window.scrollY = 0;
});

afterEach(() => {
  cleanup();
  stopEngines();
  window.history.replaceState(null, "", "/");
  document.documentElement.removeAttribute("style");
  document.documentElement.className = "";
  document.title = "";
  sessionStorage.clear();
  // A test that gave the page a copy block must not lend its words to the next file's tests.
  for (const meta of document.head.querySelectorAll('meta[name="glimpse-copy"]')) meta.remove();
  resetShellCopy();
});
