// The brand theme as CSS variables, and the document title. Nodes carry only semantic tones;
// colours come from here (`--color-<key>`), with defaults in styles/global.css.
import type { Brand } from "../schema/envelope";

const applied = new WeakMap<Document, string[]>();

/** Sets `--color-<key>` on the root element for every theme key, removing the last brand's. */
export function applyTheme(document: Document, brand: Brand): void {
  const style = document.documentElement.style;
  for (const key of applied.get(document) ?? []) {
    if (!Object.hasOwn(brand.theme, key)) style.removeProperty(`--color-${key}`);
  }
  for (const [key, value] of Object.entries(brand.theme)) style.setProperty(`--color-${key}`, value);
  applied.set(document, Object.keys(brand.theme));
  document.documentElement.dataset.brand = brand.key;
}

/** "Screen title · Brand", or the brand name alone for an untitled screen. */
export function documentTitle(screenTitle: string | undefined, brandName: string): string {
  const title = screenTitle?.trim() ?? "";
  return title === "" || title === brandName ? brandName : `${title} · ${brandName}`;
}

export function applyTitle(document: Document, screenTitle: string | undefined, brandName: string): void {
  document.title = documentTitle(screenTitle, brandName);
}
