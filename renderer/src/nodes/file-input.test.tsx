import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNode } from "../test/harness";

const node = {
  type: "file_input",
  id: "export",
  label: "Instagram data export (ZIP)",
  accept: ".zip",
  help: "Choose JSON and All time.",
  maxBytes: 10,
  requiredMessage: "Choose your export ZIP file first.",
  tooLargeMessage: "Too large.",
};

describe("file_input", () => {
  it("is a labelled file chooser with its help, and shows the chosen file's name", async () => {
    const { user } = await renderNode(node);
    const input = screen.getByLabelText<HTMLInputElement>("Instagram data export (ZIP)");
    expect(input.type).toBe("file");
    expect(input.accept).toBe(".zip");
    expect(input.getAttribute("aria-describedby")).toBeTruthy();
    expect(screen.getByText("Choose JSON and All time.")).toBeTruthy();
    await user.upload(input, new File(["PK"], "export.zip", { type: "application/zip" }));
    expect(screen.getByText("export.zip")).toBeTruthy();
  });
});
