import { afterEach, describe, expect, it, vi } from "vitest";
import { holdWhilePressed } from "./viewHold";

afterEach(() => vi.useRealTimers());

describe("holdWhilePressed", () => {
  it("runs a move at once while nothing is pressed", () => {
    const el = document.createElement("div");
    const hold = holdWhilePressed(el);
    const move = vi.fn();
    hold.run("fit", move);
    expect(move).toHaveBeenCalledTimes(1);
    hold.dispose();
  });

  it("holds moves from the press until after the release's click, the latest of each kind", () => {
    vi.useFakeTimers();
    const el = document.createElement("div");
    const child = el.appendChild(document.createElement("div"));
    const hold = holdWhilePressed(el);
    const order: string[] = [];
    child.dispatchEvent(new Event("pointerdown", { bubbles: true }));
    hold.run("fit", () => order.push("fit 1"));
    hold.run("follow", () => order.push("follow"));
    hold.run("fit", () => order.push("fit 2"));
    expect(hold.held()).toBe(true);
    // Released outside the canvas: still a release.
    window.dispatchEvent(new Event("pointerup"));
    // The click comes in the same task as the release: nothing has moved yet.
    hold.run("reveal", () => order.push("reveal"));
    expect(order).toEqual([]);
    vi.runAllTimers();
    expect(order).toEqual(["fit 2", "follow", "reveal"]);
    expect(hold.held()).toBe(false);
    hold.run("fit", () => order.push("fit 3"));
    expect(order.at(-1)).toBe("fit 3");
    hold.dispose();
  });

  it("lets go on a cancelled pointer, and drops what it held when disposed", () => {
    vi.useFakeTimers();
    const el = document.createElement("div");
    const hold = holdWhilePressed(el);
    const move = vi.fn();
    el.dispatchEvent(new Event("pointerdown"));
    window.dispatchEvent(new Event("pointercancel"));
    vi.runAllTimers();
    hold.run("fit", move);
    expect(move).toHaveBeenCalledTimes(1);
    el.dispatchEvent(new Event("pointerdown"));
    hold.run("fit", move);
    hold.dispose();
    window.dispatchEvent(new Event("pointerup"));
    vi.runAllTimers();
    expect(move).toHaveBeenCalledTimes(1);
  });
});
