// The page's entry. When the server drew the first screen into the page (engine/ui/prerender),
// the app (main.tsx: React and the renderer) is loaded once that screen has been painted with its
// pictures: on a slow phone its download and start-up would otherwise hold the paint back, and the
// page has nothing to wait for. A page without a drawn screen, or one opened in a
// background tab, loads the app at once (the server has it preloaded then).
import { afterContentPainted } from "./runtime/paint";
import { watchServerMarkup } from "./runtime/prerendered";

const load = (): void => {
  void import("./main");
};

const root = document.getElementById("root");
const prerendered = root?.hasAttribute("data-prerendered") === true;
if (root !== null) watchServerMarkup(root);
if (prerendered && document.visibilityState === "visible") afterContentPainted(load);
else load();
