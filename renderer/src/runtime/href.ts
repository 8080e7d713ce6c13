// Link targets judged the way the browser will read them. Browsers parse an href by the WHATWG
// URL standard: leading and trailing C0 controls and spaces are stripped, every tab and newline
// is removed, and (for special schemes such as https, and for paths on a page served over one)
// a backslash is a slash. Checking the raw text instead passes "/\t/evil.example", which a
// browser opens as //evil.example, another origin.

function isControlOrSpace(code: number): boolean {
  return code <= 0x20;
}

function trimControls(raw: string): string {
  let start = 0;
  let end = raw.length;
  while (start < end && isControlOrSpace(raw.charCodeAt(start))) start++;
  while (end > start && isControlOrSpace(raw.charCodeAt(end - 1))) end--;
  return raw.slice(start, end);
}

function hasForbidden(href: string): boolean {
  for (let i = 0; i < href.length; i++) {
    const code = href.charCodeAt(i);
    if (isControlOrSpace(code) || code === 0x7f) return true;
  }
  return /[<>"]/.test(href);
}

/** A path continuing with an encoded slash ("/%2f/host"), which a decoding hop turns into "//host". */
function hasEncodedSlashPrefix(rest: string): boolean {
  return /^%(2f|5c)/i.test(rest);
}

/**
 * The href a browser would follow, if it is one the app allows: https, mailto or a same-origin
 * path (one leading slash, never "//host" or "/\host"); null for anything else.
 */
export function normaliseHref(raw: string): string | null {
  const href = trimControls(raw).replace(/[\t\n\r]/g, "");
  if (href === "" || hasForbidden(href)) return null;
  const colon = href.indexOf(":");
  const scheme = colon < 0 ? "" : href.slice(0, colon).toLowerCase();
  if (scheme === "https") {
    const rest = href.slice(colon + 1).replace(/\\/g, "/");
    if (!rest.startsWith("//")) return null;
    const host = rest.slice(2);
    if (host === "" || host.startsWith("/")) return null;
    return `https://${host}`;
  }
  if (scheme === "mailto") return `mailto:${href.slice(colon + 1)}`;
  if (!href.startsWith("/") && !href.startsWith("\\")) return null;
  const path = href.replace(/\\/g, "/");
  if (path.startsWith("//") || hasEncodedSlashPrefix(path.slice(1))) return null;
  return path;
}

/** A same-origin path, already in the form a browser reads it (see normaliseHref). */
export function isLocalPath(path: string): boolean {
  return path.startsWith("/") && normaliseHref(path) === path;
}

/** An https or mailto URL, or a same-origin path, already in the form a browser reads it. */
export function isOpenable(url: string): boolean {
  return normaliseHref(url) === url;
}
