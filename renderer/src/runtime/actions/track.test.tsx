import { describe, expect, it } from "vitest";
import { envelope, renderApp } from "../../test/harness";

describe("track", () => {
  it("posts event.track with the event and props, fire and forget", async () => {
    let answered = false;
    const { runtime, server } = await renderApp(() => envelope([]), {
      onAction: () =>
        new Promise((resolve) =>
          setTimeout(() => {
            answered = true;
            resolve({ body: {} });
          }, 50),
        ),
    });
    expect(await runtime.run({ type: "track", event: "log", props: { source: "sww_modal" } })).toBe(true);
    expect(answered).toBe(false);
    const post = server.calls.find((call) => call.method === "POST");
    expect(post?.url).toBe("/ui/actions/event.track");
    expect(post?.body).toEqual({ values: { event: "log", props: { source: "sww_modal" } }, path: "/" });
  });

  it("sends empty props when there are none", async () => {
    const { runtime, server } = await renderApp(() => envelope([]));
    await runtime.run({ type: "track", event: "opened" });
    expect(server.calls.at(-1)?.body).toEqual({ values: { event: "opened", props: {} }, path: "/" });
  });
});
