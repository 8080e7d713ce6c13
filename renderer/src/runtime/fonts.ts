// When Inter takes over from its local stand-in (styles/global.css, issue #21). Its faces are
// fetched once the page has painted (issue #12) but put in use only with the next screen the app
// draws: swapped in under a screen someone is reading, a line that wraps one word differently in
// Inter moves every line below it, however closely the stand-in is sized. A screen drawn after
// that change is laid out in Inter from its first frame, so the swap moves nothing on screen.
import type { Store } from "./store";

/** Where faces are put in use: the document's FontFaceSet. */
export interface FontSet {
  add(face: FontFace): unknown;
}

/**
 * Starts loading `faces` now and adds them to `fonts` when the store shows a screen other than
 * the first one it shows (the one on screen when the page loaded), once every face has loaded.
 */
export function adoptFontsWithNextScreen(fonts: FontSet, faces: readonly FontFace[], store: Pick<Store, "get" | "subscribe">): void {
  // A face fetched before it is added is drawn at once when added; a failed one is left to the stand-in.
  for (const face of faces) face.load().catch(() => undefined);
  let landing = store.get().screen?.key;
  const unsubscribe = store.subscribe(() => {
    const key = store.get().screen?.key;
    if (key === undefined || key === landing) return;
    if (landing === undefined || faces.some((face) => face.status !== "loaded")) {
      landing = key;
      return;
    }
    unsubscribe();
    for (const face of faces) fonts.add(face);
  });
}
