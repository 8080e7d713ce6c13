import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

const picker = {
  type: "image_choice",
  id: "image-picker",
  bind: "/form/image",
  label: "Picture",
  options: [
    { value: "", label: "No picture" },
    { value: "/static/news/a.svg", label: "/static/news/a.svg", image: { src: "/static/news/a.svg", alt: "" } },
    { value: "/static/news/b.svg", label: "/static/news/b.svg", image: { src: "/static/news/b.svg", alt: "" } },
  ],
};

describe("image_choice", () => {
  it("is a labelled radio group of thumbnails showing the bound value as checked", async () => {
    const { container } = await renderNode(picker, { state: { form: { image: "/static/news/b.svg" } } });
    expect(await screen.findByRole("group", { name: "Picture" })).toBeTruthy();
    const radios = screen.getAllByRole("radio");
    expect(radios.map((radio) => (radio as HTMLInputElement).checked)).toEqual([false, false, true]);
    expect(Array.from(container.querySelectorAll("img.image-choice__thumb")).map((img) => img.getAttribute("src"))).toEqual([
      "/static/news/a.svg",
      "/static/news/b.svg",
    ]);
    // The thumbnails are decorative: the label names each choice.
    expect(container.querySelector("img.image-choice__thumb")?.getAttribute("alt")).toBe("");
  });

  // Arrow keys are the browser's own radio behaviour (jsdom lacks it); e2e/studio.spec.ts uses them.
  it("writes the chosen picture into the state", async () => {
    const { user, runtime } = await renderNode(picker, { state: { form: { image: "" } } });
    await user.click(await screen.findByRole("radio", { name: "/static/news/a.svg" }));
    expect(runtime.store.get().state).toEqual({ form: { image: "/static/news/a.svg" } });
    await user.click(screen.getByRole("radio", { name: "No picture" }));
    expect(runtime.store.get().state).toEqual({ form: { image: "" } });
  });

  it("shows a field error from the server under the group", async () => {
    const { runtime } = await renderNode(picker, { state: { form: { image: "" } } });
    runtime.store.setErrors({ "image-picker": "Use an image under /static/." });
    expect(await screen.findByText("Use an image under /static/.")).toBeTruthy();
    expect(screen.getAllByRole("radio")[0]?.getAttribute("aria-invalid")).toBe("true");
  });

  it("lets a path's label wrap after its slashes and underscores only, reading as the whole path", async () => {
    const { container } = await renderNode(
      { ...picker, options: [{ value: "/static/topics/secret_admirers-cover.svg", label: "/static/topics/secret_admirers-cover.svg" }] },
      { state: { form: { image: "" } } },
    );
    const label = container.querySelector(".image-choice__label");
    expect(label?.textContent).toBe("/static/topics/secret_admirers-cover.svg");
    expect(label?.innerHTML).toBe("/<wbr>static/<wbr>topics/<wbr>secret_<wbr>admirers-cover.svg");
    expect(await screen.findByRole("radio", { name: "/static/topics/secret_admirers-cover.svg" })).toBeTruthy();
  });
});

