// The renderer's own words: the boot loader's label, 'Try again', a password's reveal button, a
// countdown's units and the like. They are brand copy (`renderer.*` keys in content/brands), which
// the server writes into the page shell as `<meta name="glimpse-copy" content="{JSON}">` for the
// brand of the request's host; a node's own label, when the server sends one, wins over them.

/**
 * The last resort, and the only English in the bundle: it is used only when the page has no copy
 * block (a shell served by something else, or tests), so the app never shows a bare key.
 */
export const FALLBACK_COPY = {
  loading: "Loading",
  tryAgain: "Try again",
  genericError: "Something went wrong",
  showPassword: "Show password",
  calculating: "Calculating",
  back: "Back",
  menu: "Menu",
  close: "Close",
  "countdown.label": "Time left",
  "countdown.months": "months",
  "countdown.days": "days",
  "countdown.hours": "hours",
  "countdown.minutes": "minutes",
  "countdown.seconds": "seconds",
  "rating.star": "{n} of {max}",
  chooseFile: "Choose file",
  noFile: "No file chosen",
  "diff.added": "added",
  "diff.removed": "removed",
  "datetime.inZone": "{time} in your time zone ({zone})",
} as const satisfies Record<string, string>;

export type CopyKey = keyof typeof FALLBACK_COPY;

/**
 * Keys the renderer does not know are allowed (a newer server may send more), but every value must
 * be text: a block with anything else is ignored whole rather than trusted in part.
 */
function isTextRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((text) => typeof text === "string")
  );
}

let shell: Readonly<Record<string, string>> | null = null;

/**
 * Reads the page's copy block; main.tsx calls it once at boot, before the first render. Without a
 * block, or with one that does not parse, the fallback serves.
 */
export function loadShellCopy(document: Document): void {
  shell = null;
  const content = document.querySelector('meta[name="glimpse-copy"]')?.getAttribute("content");
  if (content === null || content === undefined) return;
  let raw: unknown;
  try {
    raw = JSON.parse(content);
  } catch {
    console.error("Glimpse: the page's copy block is not JSON");
    return;
  }
  if (!isTextRecord(raw)) {
    console.error("Glimpse: invalid copy block: not an object of texts");
    return;
  }
  shell = raw;
}

/** Forgets the shell's copy (tests share one module instance across files). */
export function resetShellCopy(): void {
  shell = null;
}

/**
 * The text for key: the shell's copy, else the fallback. `{name}` placeholders are replaced by
 * `values[name]`; a placeholder with no value is left as it is so the gap shows.
 */
export function t(key: CopyKey, values?: Readonly<Record<string, string | number>>): string {
  const text = (shell !== null && Object.hasOwn(shell, key) ? shell[key] : undefined) ?? FALLBACK_COPY[key];
  if (values === undefined) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? String(values[name]) : whole,
  );
}
