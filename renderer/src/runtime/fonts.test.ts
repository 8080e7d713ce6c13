import { describe, expect, it, vi } from "vitest";
import { adoptFontsWithNextScreen, type FontSet } from "./fonts";
import { createStore } from "./store";
import { envelopeSchema } from "../schema/envelope";
import { envelope } from "../test/harness";

const screenEnvelope = () => envelopeSchema.parse(envelope([]));

function face(status: FontFaceLoadStatus = "loaded"): FontFace {
  return { status, load: vi.fn(() => Promise.resolve()) } as unknown as FontFace;
}

function fontSet(): FontSet & { added: FontFace[] } {
  const added: FontFace[] = [];
  return { added, add: (f: FontFace) => added.push(f) };
}

describe("adoptFontsWithNextScreen", () => {
  it("fetches the faces at once and adds them when a second screen is shown", () => {
    const store = createStore();
    store.showScreen(screenEnvelope(), 0);
    const fonts = fontSet();
    const faces = [face(), face()];
    adoptFontsWithNextScreen(fonts, faces, store);
    for (const f of faces) expect(f.load).toHaveBeenCalledTimes(1);
    store.setNotice("still the landing screen");
    expect(fonts.added).toEqual([]);
    store.showScreen(screenEnvelope(), 0);
    expect(fonts.added).toEqual(faces);
    store.showScreen(screenEnvelope(), 0);
    expect(fonts.added).toEqual(faces);
  });

  it("takes the first screen shown as the landing one when the store had none yet", () => {
    const store = createStore();
    const fonts = fontSet();
    adoptFontsWithNextScreen(fonts, [face()], store);
    store.showScreen(screenEnvelope(), 0);
    expect(fonts.added).toHaveLength(0);
    store.showScreen(screenEnvelope(), 0);
    expect(fonts.added).toHaveLength(1);
  });

  it("waits for a later screen while a face is still loading, so none swaps in under a screen", () => {
    const store = createStore();
    store.showScreen(screenEnvelope(), 0);
    const fonts = fontSet();
    const slow = face("loading");
    const faces = [face(), slow];
    adoptFontsWithNextScreen(fonts, faces, store);
    store.showScreen(screenEnvelope(), 0);
    expect(fonts.added).toEqual([]);
    (slow as { status: FontFaceLoadStatus }).status = "loaded";
    store.showScreen(screenEnvelope(), 0);
    expect(fonts.added).toEqual(faces);
  });

  it("leaves a face that fails to load to the stand-in without an unhandled rejection", async () => {
    const store = createStore();
    const failing = { status: "error", load: vi.fn(() => Promise.reject(new Error("offline"))) } as unknown as FontFace;
    adoptFontsWithNextScreen(fontSet(), [failing], store);
    await Promise.resolve();
    expect(failing.load).toHaveBeenCalled();
  });
});
