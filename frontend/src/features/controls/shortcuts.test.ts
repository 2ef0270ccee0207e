import { describe, expect, it } from "vitest";
import { moveApprovalFocus, shortcutFor, type KeyLike } from "./shortcuts";

function key(k: string, target: EventTarget | null = document.body, mods: Partial<KeyLike> = {}): KeyLike {
  return { key: k, ctrlKey: false, metaKey: false, altKey: false, repeat: false, target, ...mods };
}

function el(html: string): HTMLElement {
  const box = document.createElement("div");
  box.innerHTML = html;
  document.body.append(box);
  return box.firstElementChild as HTMLElement;
}

describe("shortcutFor", () => {
  it("maps the keys to their actions", () => {
    expect(["p", "s", "c", "f", "/", "t", "g", "b", "w", "?"].map((k) => shortcutFor(key(k)))).toEqual([
      "pauseOrContinue", "step", "cancel", "fork", "search", "transcript", "graph", "both", "timeline", "help",
    ]);
    expect(shortcutFor(key("x"))).toBeUndefined();
  });

  it("ignores keys typed into text fields, but not into a checkbox or a button", () => {
    expect(shortcutFor(key("p", el(`<input type="text">`)))).toBeUndefined();
    expect(shortcutFor(key("p", el(`<input type="search">`)))).toBeUndefined();
    expect(shortcutFor(key("p", el(`<textarea></textarea>`)))).toBeUndefined();
    expect(shortcutFor(key("p", el(`<select></select>`)))).toBeUndefined();
    expect(shortcutFor(key("p", el(`<div contenteditable="true"></div>`)))).toBeUndefined();
    expect(shortcutFor(key("p", el(`<input type="checkbox">`)))).toBe("pauseOrContinue");
    expect(shortcutFor(key("p", el(`<button>x</button>`)))).toBe("pauseOrContinue");
  });

  it("leaves keys with Ctrl, Cmd or Alt, held keys, and keys in a dialog alone", () => {
    expect(shortcutFor(key("f", document.body, { ctrlKey: true }))).toBeUndefined();
    expect(shortcutFor(key("f", document.body, { metaKey: true }))).toBeUndefined();
    expect(shortcutFor(key("p", document.body, { altKey: true }))).toBeUndefined();
    expect(shortcutFor(key("p", document.body, { repeat: true }))).toBeUndefined();
    expect(shortcutFor(key("p", el(`<div role="dialog"><button>ok</button></div>`).querySelector("button")))).toBeUndefined();
  });
});

describe("moveApprovalFocus", () => {
  function cards(ids: string[], decided: string[] = []): HTMLElement {
    const box = document.createElement("div");
    box.innerHTML = ids
      .map((id) => `<div data-testid="approval-card" data-interaction-id="${id}" ${decided.includes(id) ? "" : "data-pending"} tabindex="-1"></div>`)
      .join("");
    document.body.append(box);
    return box;
  }

  it("moves between the pending cards, each interaction once, wrapping around", () => {
    // ia_2 shows twice (inbox and transcript); ia_3 is decided.
    const box = cards(["ia_1", "ia_2", "ia_3", "ia_2", "ia_4"], ["ia_3"]);
    const focused = () => (document.activeElement as HTMLElement).dataset.interactionId;
    expect(moveApprovalFocus(document, 1)).toBe(true);
    expect(focused()).toBe("ia_1");
    moveApprovalFocus(document, 1);
    expect(focused()).toBe("ia_2");
    moveApprovalFocus(document, 1);
    expect(focused()).toBe("ia_4");
    moveApprovalFocus(document, 1);
    expect(focused()).toBe("ia_1");
    moveApprovalFocus(document, -1);
    expect(focused()).toBe("ia_4");
    box.remove();
  });

  it("says when nothing waits", () => {
    const box = cards(["ia_1"], ["ia_1"]);
    expect(moveApprovalFocus(document, 1)).toBe(false);
    box.remove();
  });

  it("maps the approval keys", () => {
    expect(["a", "d", "e", "j", "k"].map((k) => shortcutFor(key(k)))).toEqual(["approve", "deny", "edit", "nextApproval", "prevApproval"]);
  });
});
