// Waiting for the page's first paint: the app's bundle and its fonts are asked for only once the
// page has painted, so that neither competes with what the first paint waits for (issue #12).

/** `run`, made safe to call from several paths (an event and its timeout): it runs the first time only. */
function onlyOnce(run: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    run();
  };
}

/**
 * Runs `then` once the page has painted content (the first-contentful-paint entry, which is
 * reported once the frame is on screen). Without paint timing it runs after the next frame; a
 * page that never paints (hidden from the start) gets it after `latestMs`.
 */
export function afterFirstContentfulPaint(then: () => void, latestMs = 3000): void {
  const once = onlyOnce(then);
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

/**
 * Runs `then` once the page has painted its content with its pictures: after the first
 * contentful paint, once the page's images have loaded and been decoded (the `load` event, then
 * each image's decode()), and a frame later, so that no long task of the app's start-up holds a
 * picture's paint back. A page whose pictures are slow waits at most `imagesMs` for them.
 */
export function afterContentPainted(then: () => void, imagesMs = 1000): void {
  afterFirstContentfulPaint(() => {
    const next = onlyOnce(() => requestAnimationFrame(() => setTimeout(then, 0)));
    setTimeout(next, imagesMs);
    const decoded = (): void => {
      const images = Array.from(document.images, (image) => image.decode().catch(() => undefined));
      void Promise.all(images).then(next);
    };
    if (document.readyState === "complete") decoded();
    else window.addEventListener("load", decoded, { once: true });
  });
}
