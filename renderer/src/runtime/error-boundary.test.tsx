import { render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { ErrorBoundary } from "./error-boundary";

function Broken(): never {
  throw new Error("boom");
}

describe("error boundary", () => {
  it("shows 'Something went wrong' in place of a failing subtree and keeps its siblings", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    render(
      <div>
        <ErrorBoundary>
          <Broken />
        </ErrorBoundary>
        <p>Still here</p>
      </div>,
    );
    expect(screen.getByText("Something went wrong").tagName).toBe("P");
    expect(screen.getByText("Still here")).toBeTruthy();
    expect(error).toHaveBeenCalled();
  });

  it("renders its children when nothing fails", () => {
    render(
      <ErrorBoundary>
        <p>Fine</p>
      </ErrorBoundary>,
    );
    expect(screen.getByText("Fine")).toBeTruthy();
  });
});
