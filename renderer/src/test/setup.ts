// Vitest setup: unmount what each test rendered (Testing Library's auto-cleanup needs globals)
// and stand in for the window APIs jsdom lacks.
import { cleanup } from "@testing-library/react";
import { afterEach, beforeEach, vi } from "vitest";
import { stopEngines } from "./harness";

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
});
