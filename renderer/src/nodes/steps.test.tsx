import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

const steps = {
  type: "steps",
  id: "unsubscribe",
  bind: "/ui/step",
  steps: [
    {
      id: "benefits",
      children: [
        { type: "text", text: "Your benefits" },
        { type: "button", label: "I'm ready to let go", action: { type: "set_state", path: "/ui/step", value: "reason" } },
      ],
    },
    { id: "reason", children: [{ type: "text", text: "Why are you leaving?" }] },
  ],
};

describe("steps", () => {
  it("shows the step named in the state and moves on set_state, focusing the new step", async () => {
    const { user, container } = await renderNode(steps, { state: { ui: { step: "benefits" } } });
    expect(screen.getByText("Your benefits")).toBeTruthy();
    expect(screen.queryByText("Why are you leaving?")).toBeNull();
    await user.click(screen.getByRole("button", { name: "I'm ready to let go" }));
    expect(screen.getByText("Why are you leaving?")).toBeTruthy();
    expect(screen.queryByText("Your benefits")).toBeNull();
    expect(document.activeElement).toBe(container.querySelector(".steps"));
  });

  it("shows the first step when the state names none", async () => {
    await renderNode(steps, { state: {} });
    expect(screen.getByText("Your benefits")).toBeTruthy();
  });
});
