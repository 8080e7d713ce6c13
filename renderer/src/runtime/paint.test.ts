import { afterEach, describe, expect, it, vi } from "vitest";
import { afterContentPainted, afterFirstContentfulPaint } from "./paint";

/** A PerformanceObserver that reports the entries `emit` is later called with. */
function fakePaintObserver(): { emit: (names: string[]) => void } {
  const observers: ((list: { getEntriesByName: (name: string) => unknown[] }) => void)[] = [];
  class FakeObserver {
    static supportedEntryTypes = ["paint"];
    constructor(private readonly callback: (list: { getEntriesByName: (name: string) => unknown[] }) => void) {}
    observe(): void {
      observers.push(this.callback);
    }
    disconnect(): void {
      observers.splice(observers.indexOf(this.callback), 1);
    }
  }
  vi.stubGlobal("PerformanceObserver", FakeObserver);
  return {
    emit: (names) => {
      for (const callback of [...observers]) {
        callback({ getEntriesByName: (name) => names.filter((n) => n === name).map((n) => ({ name: n })) });
      }
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("afterFirstContentfulPaint", () => {
  it("runs once the first contentful paint is reported, and only once", () => {
    vi.useFakeTimers();
    const paint = fakePaintObserver();
    const then = vi.fn();
    afterFirstContentfulPaint(then, 3000);
    paint.emit(["first-paint"]);
    expect(then).not.toHaveBeenCalled();
    paint.emit(["first-contentful-paint"]);
    expect(then).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(3000);
    expect(then).toHaveBeenCalledTimes(1);
  });

  it("runs after `latestMs` on a page that never paints", () => {
    vi.useFakeTimers();
    fakePaintObserver();
    const then = vi.fn();
    afterFirstContentfulPaint(then, 3000);
    vi.advanceTimersByTime(2999);
    expect(then).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(then).toHaveBeenCalledTimes(1);
  });

  it("without paint timing, runs after the next frame", () => {
    vi.useFakeTimers();
    vi.stubGlobal("PerformanceObserver", undefined);
    const frames: FrameRequestCallback[] = [];
    vi.stubGlobal("requestAnimationFrame", (callback: FrameRequestCallback) => frames.push(callback));
    const then = vi.fn();
    afterFirstContentfulPaint(then, 3000);
    expect(then).not.toHaveBeenCalled();
    for (const frame of frames) frame(0);
    vi.advanceTimersByTime(0);
    expect(then).toHaveBeenCalledTimes(1);
  });
});

describe("afterContentPainted", () => {
  it("runs a frame after the first contentful paint once the page's images are decoded", async () => {
    vi.useFakeTimers();
    const paint = fakePaintObserver();
    const frames: FrameRequestCallback[] = [];
    vi.stubGlobal("requestAnimationFrame", (callback: FrameRequestCallback) => frames.push(callback));
    let decodeImage = (): void => undefined;
    const image = document.createElement("img");
    image.decode = () => new Promise<void>((resolve) => (decodeImage = resolve));
    document.body.append(image);
    const then = vi.fn();
    afterContentPainted(then, 1000);
    paint.emit(["first-contentful-paint"]);
    await vi.advanceTimersByTimeAsync(10);
    expect(frames).toHaveLength(0);
    decodeImage();
    await vi.advanceTimersByTimeAsync(0);
    expect(frames).toHaveLength(1);
    expect(then).not.toHaveBeenCalled();
    for (const frame of frames) frame(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(then).toHaveBeenCalledTimes(1);
    image.remove();
  });

  it("waits at most `imagesMs` for pictures that do not come", async () => {
    vi.useFakeTimers();
    const paint = fakePaintObserver();
    vi.stubGlobal("requestAnimationFrame", (callback: FrameRequestCallback) => setTimeout(() => callback(0), 16));
    const image = document.createElement("img");
    image.decode = () => new Promise<void>(() => undefined);
    document.body.append(image);
    const then = vi.fn();
    afterContentPainted(then, 1000);
    paint.emit(["first-contentful-paint"]);
    await vi.advanceTimersByTimeAsync(999);
    expect(then).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(20);
    expect(then).toHaveBeenCalledTimes(1);
    image.remove();
  });
});
