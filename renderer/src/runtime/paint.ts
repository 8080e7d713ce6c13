// Waiting for the page's first paint: the app's bundle and its fonts are asked for only once the
// page has painted, so that neither competes with what the first paint waits for (issue #12).

/**
 * Runs `then` once the page has painted content (the first-contentful-paint entry, which is
 * reported once the frame is on screen). Without paint timing it runs after the next frame; a
 * page that never paints (hidden from the start) gets it after `latestMs`.
 */
export function afterFirstContentfulPaint(then: () => void, latestMs = 3000): void {
  let done = false;
  const once = (): void => {
    if (done) return;
    done = true;
    then();
  };
  setTimeout(once, latestMs);
  if (typeof PerformanceObserver === "undefined" || !PerformanceObserver.supportedEntryTypes.includes("paint")) {
    requestAnimationFrame(() => setTimeout(once, 0));
    return;
  }
  const observer = new PerformanceObserver((list) => {
    if (list.getEntriesByName("first-contentful-paint").length === 0) return;
    observer.disconnect();
    once();
  });
  observer.observe({ type: "paint", buffered: true });
}
