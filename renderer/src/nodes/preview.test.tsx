import { screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { type Call, renderNodes, settle } from "../test/harness";

const preview = {
  type: "preview",
  label: "Preview of the draft",
  bind: "/preview",
  watch: "/form",
  action: { type: "submit", action: "studio.preview", include: ["/form", "/doc/slug"], validate: "none" },
  children: [
    { type: "text", style: "title", text: "First title" },
    { type: "button", label: "All news", emphasis: "primary", action: { type: "submit", action: "news.open", validate: "none" } },
  ],
};

const input = { type: "text_input", id: "title", bind: "/form/title", kind: "text", label: "Title" };
const state = { form: { title: "First title" }, doc: { slug: "carousels" } };

function previewCalls(calls: Call[]): Call[] {
  return calls.filter((call) => call.path === "/ui/actions/studio.preview");
}

describe("preview", () => {
  it("shows the server's first tree in a labelled frame and asks for no other until the state changes", async () => {
    const { server } = await renderNodes([input, preview], { state });
    const region = await screen.findByRole("region", { name: "Preview of the draft" });
    expect(region.textContent).toContain("First title");
    await settle();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(previewCalls(server.calls)).toHaveLength(0);
  });

  it("after typing pauses, posts the watched values once and shows the tree the answer sets", async () => {
    const { user, server } = await renderNodes([input, preview], { state }, {
      onAction: (call) =>
        call.path === "/ui/actions/studio.preview"
          ? {
              body: {
                effects: [
                  {
                    type: "set_state",
                    path: "/preview",
                    value: { type: "stack", children: [{ type: "text", style: "title", text: "Second title" }] },
                  },
                ],
              },
            }
          : { body: {} },
    });
    const region = await screen.findByRole("region", { name: "Preview of the draft" });
    await user.type(screen.getByLabelText("Title"), " again");
    await waitFor(() => expect(region.textContent).toContain("Second title"));
    const calls = previewCalls(server.calls);
    // One request for the whole burst of typing, with what the editor typed.
    expect(calls).toHaveLength(1);
    expect(calls[0]?.body).toMatchObject({
      values: { "/form": { title: "First title again" }, "/doc/slug": "carousels" },
    });
    expect(region.textContent).not.toContain("First title");
  });

  it("is a picture: a button inside the frame runs nothing", async () => {
    const { user, server } = await renderNodes([preview], { state });
    await user.click(await screen.findByRole("button", { name: "All news" }));
    await settle();
    expect(server.calls.filter((call) => call.method === "POST")).toHaveLength(0);
  });
});
