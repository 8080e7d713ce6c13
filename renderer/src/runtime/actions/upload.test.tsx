import { act, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderNodes } from "../../test/harness";

const input = {
  type: "file_input",
  id: "export",
  label: "Export",
  maxBytes: 10,
  requiredMessage: "Choose your export ZIP file first.",
  tooLargeMessage: "This file is too large.",
};
const upload = { type: "upload", action: "profile.upload_export", input: "export" } as const;

describe("upload", () => {
  it("asks for a file when none is chosen and posts nothing", async () => {
    const { runtime, server } = await renderNodes([input]);
    await act(async () => {
      expect(await runtime.run(upload)).toBe(false);
    });
    expect(screen.getByRole("alert").textContent).toBe("Choose your export ZIP file first.");
    expect(server.calls.filter((call) => call.method === "POST")).toHaveLength(0);
  });

  it("refuses a file over maxBytes before sending it", async () => {
    const { runtime, server, user } = await renderNodes([input]);
    await user.upload(screen.getByLabelText("Export"), new File(["01234567890123"], "big.zip"));
    await act(() => runtime.run(upload));
    expect(screen.getByRole("alert").textContent).toBe("This file is too large.");
    expect(server.calls.filter((call) => call.method === "POST")).toHaveLength(0);
  });

  it("posts the file as the raw body with the CSRF token, and shows the server's field error", async () => {
    const { runtime, server, user } = await renderNodes([input], {}, {
      onAction: () => ({ status: 422, body: { errors: { fields: { export: "This export is incomplete." } } } }),
    });
    const file = new File(["PK"], "export.zip", { type: "application/zip" });
    await user.upload(screen.getByLabelText("Export"), file);
    await act(() => runtime.run(upload));
    const call = server.calls.at(-1);
    expect(call?.url).toBe("/ui/actions/profile.upload_export");
    expect(call?.raw).toBe(file);
    expect(call?.headers["Content-Type"]).toBe("application/zip");
    expect(call?.headers["X-CSRF-Token"]).toBeTruthy();
    expect(screen.getByRole("alert").textContent).toBe("This export is incomplete.");
  });
});
