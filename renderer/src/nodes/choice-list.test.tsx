import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

describe("choice_list", () => {
  it("is a labelled group of radio choices bound to the state", async () => {
    const { user, runtime } = await renderNode(
      {
        type: "choice_list",
        id: "reason",
        bind: "/form/reason",
        label: "Why are you leaving?",
        options: [
          { value: "price", label: "It's too expensive" },
          { value: "time", label: "I don't have time", description: "Life happens" },
        ],
      },
      { state: { form: { reason: null } } },
    );
    expect(screen.getByRole("group", { name: "Why are you leaving?" })).toBeTruthy();
    const radio = screen.getByRole("radio", { name: /I don't have time/ });
    await user.click(radio);
    expect((radio as HTMLInputElement).checked).toBe(true);
    expect(runtime.store.get().state).toEqual({ form: { reason: "time" } });
    expect(screen.getByText("Life happens")).toBeTruthy();
  });
});
