// Telling a person who is looking elsewhere that a run waits for them: the
// page title counts the pending approvals and questions of all runs, and a
// browser notification announces each new one while the page is hidden or
// not focused. "New" is judged against the inbox as first loaded, so the
// interactions that were already waiting when the page opened (history, not
// news) never notify; ones that arrive later, live or after a reconnect, do.

import type { Interaction } from "../../api/types";
import type { AppStore } from "../../store/store";
import { shortId } from "../../ui/format";

export const baseTitle = "Steward";

// The parts of the browser's Notification constructor used here, so that a
// test can pass a fake and a browser without the API (some webviews) works.
export type NotificationCtor = {
  readonly permission: NotificationPermission;
  requestPermission(): Promise<NotificationPermission>;
  new (title: string, options?: NotificationOptions): Pick<Notification, "close" | "onclick">;
};

export type NotifyEnv = {
  doc: { title: string; readonly hidden: boolean; hasFocus(): boolean };
  Notification?: NotificationCtor;
  focusWindow: () => void;
};

function browserEnv(): NotifyEnv {
  return {
    doc: document,
    Notification: typeof Notification === "undefined" ? undefined : (Notification as unknown as NotificationCtor),
    focusWindow: () => window.focus(),
  };
}

// titleFor is the page title with n interactions pending.
export function titleFor(n: number): string {
  return n > 0 ? `(${n}) ${baseTitle}` : baseTitle;
}

// notificationText is what a notification of ia says.
export function notificationText(ia: Interaction): { title: string; body: string } {
  if (ia.kind === "question") {
    return { title: `${baseTitle}: question`, body: `${ia.question?.text || ia.tool} (run ${shortId(ia.run_id)})` };
  }
  if (ia.kind === "elicitation") {
    const server = ia.question?.server || "an MCP server";
    return { title: `${baseTitle}: ${server} asks`, body: `${ia.question?.text || ia.tool} (run ${shortId(ia.run_id)})` };
  }
  return { title: `${baseTitle}: approval needed`, body: `${ia.tool} in run ${shortId(ia.run_id)}` };
}

// startNotifications keeps the title and the notifications in step with the
// store's inbox until the returned function is called.
export function startNotifications(store: AppStore, env: NotifyEnv = browserEnv()): () => void {
  // The pending ids already seen; undefined until the lists first load.
  let seen: Set<string> | undefined;

  function announce(ia: Interaction): void {
    const N = env.Notification;
    if (!N || N.permission !== "granted") return;
    if (!env.doc.hidden && env.doc.hasFocus()) return; // the inbox on screen says it already
    const { title, body } = notificationText(ia);
    try {
      // tag: a second copy of the same interaction replaces the first.
      const n = new N(title, { body, tag: ia.id });
      n.onclick = () => {
        env.focusWindow();
        store.getState().select(ia.run_id);
        n.close();
      };
    } catch {
      // Some browsers allow notifications only from a service worker: the title still counts.
    }
  }

  function update(inbox: Interaction[], loaded: boolean): void {
    env.doc.title = titleFor(inbox.length);
    if (!loaded) return;
    const ids = new Set(inbox.map((ia) => ia.id));
    if (seen) for (const ia of inbox) if (!seen.has(ia.id)) announce(ia);
    // An answered interaction never comes back: forgetting it keeps the set small.
    seen = ids;
  }

  const s = store.getState();
  update(s.inbox, s.listsLoaded);
  return store.subscribe((next, prev) => {
    if (next.inbox !== prev.inbox || next.listsLoaded !== prev.listsLoaded) update(next.inbox, next.listsLoaded);
  });
}

// notificationPermission is the browser's permission, or "unsupported".
export function notificationPermission(N: NotificationCtor | undefined = browserEnv().Notification): NotificationPermission | "unsupported" {
  return N ? N.permission : "unsupported";
}

// requestNotificationPermission asks the browser (it must follow a click).
export async function requestNotificationPermission(
  N: NotificationCtor | undefined = browserEnv().Notification,
): Promise<NotificationPermission | "unsupported"> {
  if (!N) return "unsupported";
  try {
    return await N.requestPermission();
  } catch {
    return N.permission;
  }
}
