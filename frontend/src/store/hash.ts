// The selected run lives in the URL's hash as #run=ID, so a link or a reload
// opens that run.

import type { AppStore } from "./store";

export function runFromHash(hash: string): string | undefined {
  const id = new URLSearchParams(hash.replace(/^#/, "")).get("run");
  return id || undefined;
}

// bindHash selects the run the hash names, now and when it changes, and
// writes the selection back to the hash. It returns a function that stops it.
export function bindHash(store: AppStore, win: Window = window): () => void {
  const fromHash = () => {
    const id = runFromHash(win.location.hash);
    if (id && id !== store.getState().selectedRunId) store.getState().select(id);
  };
  fromHash();
  win.addEventListener("hashchange", fromHash);
  const unsubscribe = store.subscribe((s, prev) => {
    if (s.selectedRunId === prev.selectedRunId) return;
    if (runFromHash(win.location.hash) === s.selectedRunId) return;
    const url = new URL(win.location.href);
    url.hash = s.selectedRunId ? `run=${encodeURIComponent(s.selectedRunId)}` : "";
    win.history.replaceState(win.history.state, "", url);
  });
  return () => {
    win.removeEventListener("hashchange", fromHash);
    unsubscribe();
  };
}
