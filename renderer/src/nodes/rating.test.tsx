import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

describe("rating", () => {
  it("is a group of star radios storing a number", async () => {
    const { user, runtime } = await renderNode(
      { type: "rating", id: "stars", bind: "/stars", label: "Rate us" },
      { state: { stars: null } },
    );
    expect(screen.getByRole("group", { name: "Rate us" })).toBeTruthy();
    expect(screen.getAllByRole("radio")).toHaveLength(5);
    await user.click(screen.getByRole("radio", { name: "4 of 5" }));
    expect(runtime.store.get().state).toEqual({ stars: 4 });
  });

  it("honours max", async () => {
    await renderNode({ type: "rating", id: "stars", bind: "/stars", label: "Rate", max: 3 });
    expect(screen.getAllByRole("radio")).toHaveLength(3);
  });
});
