import { produce } from "immer";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { type NodeProps, t, useNamePages } from "../runtime/hooks";
import { Glyph } from "./icon";
import "./button.css";
import "./field.css";
import "./list.css";
import "./name-list.css";

/** Names asked for at a time; the server answers at most 200 (profile.AudiencePageMax). */
const PAGE = 100;
/** How long typing pauses before the list is searched. */
const SEARCH_DELAY_MS = 250;

interface Listing {
  names: string[];
  /** Names matching the search; null until the first page arrives. */
  total: number | null;
  /** Where the next page starts; null when this is all. */
  next: number | null;
  loading: boolean;
  failed: boolean;
}

/** Numbers as the server writes them (screens.Thousands): 22,046. */
const count = (n: number): string => n.toLocaleString("en-US");

/** A name's profile address: the node's href with {name} filled in. */
function profileHref(pattern: string, name: string): string {
  return pattern.replaceAll("{name}", encodeURIComponent(name));
}

/**
 * A long list of names read a page at a time from the server: a search box narrows it, and the
 * next page loads when the reader scrolls to the end (the 'Show more' button at the end loads it
 * too, by click or keyboard). Each name links to its profile in a new tab.
 */
export default function NameListView({ node }: NodeProps<"name_list">) {
  const read = useNamePages();
  const [search, setSearch] = useState("");
  const [listing, setListing] = useState<Listing>({ names: [], total: null, next: 0, loading: true, failed: false });
  const ticket = useRef(0);
  const more = useRef<HTMLButtonElement>(null);
  const searchId = useId();
  const countId = useId();

  const load = useCallback(
    async (query: string, offset: number): Promise<void> => {
      ticket.current += 1;
      const mine = ticket.current;
      setListing(
        produce((draft) => {
          draft.loading = true;
          draft.failed = false;
        }),
      );
      const page = await read(node.src, { search: query, offset, limit: PAGE });
      if (mine !== ticket.current) return; // a newer search or page won
      setListing(
        produce((draft) => {
          draft.loading = false;
          if (page === null) {
            draft.failed = true;
            return;
          }
          if (offset === 0) draft.names = page.names;
          else draft.names.push(...page.names);
          draft.total = page.total;
          draft.next = page.next;
        }),
      );
    },
    [read, node.src],
  );

  // The first page, and a new first page for each search once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => void load(search, 0), search === "" ? 0 : SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [search, load]);

  const { next, loading, failed } = listing;
  // The next page when the end of the list scrolls into view.
  useEffect(() => {
    const end = more.current;
    if (end === null || next === null || loading || failed || typeof IntersectionObserver === "undefined") return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) void load(search, next);
    });
    observer.observe(end);
    return () => observer.disconnect();
  }, [next, loading, failed, search, load]);

  const shown = listing.names.length;
  return (
    <div className="name-list">
      <div className="field">
        <label className="field__label" htmlFor={searchId}>
          {node.searchLabel}
        </label>
        <div className="field__control">
          <input
            id={searchId}
            className="field__input"
            type="search"
            value={search}
            autoComplete="off"
            spellCheck={false}
            autoCapitalize="none"
            aria-describedby={countId}
            onChange={(event) => setSearch(event.target.value)}
          />
        </div>
      </div>
      <p id={countId} className="name-list__count" aria-live="polite">
        {listing.total !== null &&
          node.countLabel.replaceAll("{shown}", count(shown)).replaceAll("{total}", count(listing.total))}
      </p>
      {shown > 0 && (
        <ul className="list list--divided name-list__names" aria-label={node.label}>
          {listing.names.map((name) => (
            <li key={name} className="list__entry">
              <a className="name-list__name" href={profileHref(node.href, name)} target="_blank" rel="noopener noreferrer">
                <span className="name-list__label">@{name}</span>
                {node.linkHint !== undefined && <span className="sr-only"> {node.linkHint}</span>}
                <Glyph name="chevron" className="name-list__chevron" />
              </a>
            </li>
          ))}
        </ul>
      )}
      {listing.total === 0 && node.text !== undefined && <p className="name-list__empty">{node.text}</p>}
      {failed && (
        <p className="name-list__failed" role="alert">
          {t("genericError")}{" "}
          <button type="button" className="link" onClick={() => void load(search, next ?? 0)}>
            {t("tryAgain")}
          </button>
        </p>
      )}
      {next !== null && !failed && (listing.total !== null || loading) && (
        <button
          ref={more}
          type="button"
          className={loading ? "button button--secondary is-busy" : "button button--secondary"}
          aria-busy={loading}
          onClick={() => {
            if (!loading) void load(search, next);
          }}
        >
          {loading ? (node.pendingLabel ?? t("loading")) : node.moreLabel}
        </button>
      )}
    </div>
  );
}
