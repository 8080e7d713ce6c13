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

  it("with a search box filters long lists by every word typed, under their group headings", async () => {
    const { user, runtime } = await renderNode(
      {
        type: "choice_list",
        id: "key",
        bind: "/form/key",
        label: "Copy key",
        search: "Search keys and texts",
        empty: "No key matches.",
        options: [
          { value: "unsubscribe.step0.title", label: "unsubscribe.step0.title", description: "Before you go", group: "Step 0" },
          { value: "unsubscribe.step0.body", label: "unsubscribe.step0.body", description: "Your tips stay", group: "Step 0" },
          { value: "unsubscribe.step5.title", label: "unsubscribe.step5.title", description: "Tell us why", group: "Step 5" },
        ],
      },
      { state: { form: { key: "" } } },
    );
    expect(screen.getByRole("group", { name: "Step 0" })).toBeTruthy();
    expect(screen.getByRole("group", { name: "Step 5" })).toBeTruthy();
    const search = screen.getByRole("searchbox", { name: "Search keys and texts" });
    await user.type(search, "TELL w");
    expect(screen.queryByRole("group", { name: "Step 0" })).toBeNull();
    const radio = screen.getByRole("radio", { name: /unsubscribe\.step5\.title/ });
    await user.click(radio);
    expect(runtime.store.get().state).toEqual({ form: { key: "unsubscribe.step5.title" } });
    await user.clear(search);
    await user.type(search, "zq");
    expect(screen.queryAllByRole("radio")).toHaveLength(0);
    expect(screen.getByRole("status").textContent).toBe("No key matches.");
  });
});

