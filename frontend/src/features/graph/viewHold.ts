// The graph moves its view by itself: it fits the graph when the canvas is
// resized or the graph grows, follows the running node, and brings a node
// selected elsewhere into view. None of those may happen while a pointer is
// pressed on the canvas. Moved between the press and the release, the node
// under the pointer slides away, the release lands on the pane, and the
// browser sends the click to the pane (the nearest element holding both):
// the node is not selected, and the pane click even clears the selection.
// That is what made the Graph tab look frozen in the end-to-end test: the
// canvas widened as the tab opened, its fit ran between the test's press and
// release on a node, and the test waited for a selection that never came.
//
// holdWhilePressed runs a move at once, or, while a pointer is pressed on
// the element, keeps it (the latest of each kind) and runs it after the
// click that the release makes.

export type ViewHold = {
  // run runs move now, or once the pointer is released; a move held of the
  // same kind is replaced.
  run: (kind: string, move: () => void) => void;
  // held says whether moves are being held.
  held: () => boolean;
  dispose: () => void;
};

export function holdWhilePressed(el: HTMLElement): ViewHold {
  const win = el.ownerDocument.defaultView ?? window;
  const pending = new Map<string, () => void>();
  let pressed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const flush = () => {
    timer = undefined;
    if (pressed) return;
    const moves = [...pending.values()];
    pending.clear();
    for (const m of moves) m();
  };
  const stopListening = () => {
    win.removeEventListener("pointerup", release, true);
    win.removeEventListener("pointercancel", release, true);
    win.removeEventListener("blur", release);
  };
  function release() {
    if (!pressed) return;
    pressed = false;
    stopListening();
    // The release's click is dispatched in the same task as the release:
    // a timeout runs after it.
    timer ??= setTimeout(flush, 0);
  }
  const press = () => {
    if (pressed) return;
    pressed = true;
    // On the window: the release may come outside the canvas.
    win.addEventListener("pointerup", release, true);
    win.addEventListener("pointercancel", release, true);
    win.addEventListener("blur", release);
  };
  // Capturing: the flow stops some events on their way down to a node.
  el.addEventListener("pointerdown", press, true);

  return {
    run: (kind, move) => {
      if (pressed || timer !== undefined) pending.set(kind, move);
      else move();
    },
    held: () => pressed || timer !== undefined,
    dispose: () => {
      el.removeEventListener("pointerdown", press, true);
      stopListening();
      if (timer !== undefined) clearTimeout(timer);
      pending.clear();
    },
  };
}
