import { describe, expect, it, vi } from "vitest";
import type { Interaction } from "../../api/types";
import { createAppStore } from "../../store/store";
import {
  notificationPermission,
  requestNotificationPermission,
  startNotifications,
  type NotificationCtor,
  type NotifyEnv,
} from "./notifications";

type Shown = { title: string; options?: NotificationOptions; n: FakeNotification };

class FakeNotification {
  static permission: NotificationPermission = "granted";
  static shown: Shown[] = [];
  static requestPermission = vi.fn(async () => "granted" as NotificationPermission);
  onclick: ((this: Notification, ev: Event) => unknown) | null = null;
  close = vi.fn();
  constructor(title: string, options?: NotificationOptions) {
    FakeNotification.shown.push({ title, options, n: this });
  }
}

function ia(id: string, extra: Partial<Interaction> = {}): Interaction {
  return {
    id, run_id: "run_abcdefghijklmnop", node_id: "n1", kind: "approval", status: "pending", tool: "write_file",
    arguments: {}, risk: "write", reason: "", created_at: 1, ...extra,
  };
}

function setup(opts: { hidden?: boolean; focused?: boolean; permission?: NotificationPermission } = {}) {
  FakeNotification.shown = [];
  FakeNotification.permission = opts.permission ?? "granted";
  const doc = { title: "Steward", hidden: opts.hidden ?? true, hasFocus: () => opts.focused ?? false };
  const env: NotifyEnv = { doc, Notification: FakeNotification as unknown as NotificationCtor, focusWindow: vi.fn() };
  const store = createAppStore();
  const stop = startNotifications(store, env);
  return { store, doc, env, stop };
}

describe("notifications", () => {
  it("counts pending interactions in the title", () => {
    const { store, doc, stop } = setup();
    expect(doc.title).toBe("Steward");
    store.getState().setLists([], [ia("ia_1"), ia("ia_2", { kind: "question" })]);
    expect(doc.title).toBe("(2) Steward");
    store.getState().setLists([], []);
    expect(doc.title).toBe("Steward");
    stop();
  });

  it("does not announce what was pending at load, only what arrives later", () => {
    const { store, stop } = setup();
    store.getState().setLists([], [ia("ia_old")]);
    expect(FakeNotification.shown).toEqual([]);

    store.getState().setLists([], [ia("ia_new"), ia("ia_old")]);
    expect(FakeNotification.shown).toHaveLength(1);
    expect(FakeNotification.shown[0]).toMatchObject({
      title: "Steward: approval needed",
      options: { body: "write_file in run run_abcdef", tag: "ia_new" },
    });

    // The same list again, or a refetch in another order: nothing new.
    store.getState().setLists([], [ia("ia_old"), ia("ia_new")]);
    expect(FakeNotification.shown).toHaveLength(1);
    stop();
  });

  it("announces a question with its text", () => {
    const { store, stop } = setup();
    store.getState().setLists([], []);
    store.getState().setLists([], [ia("ia_q", { kind: "question", tool: "ask_user", question: { text: "Which colour?" } })]);
    expect(FakeNotification.shown[0]).toMatchObject({ title: "Steward: question", options: { body: "Which colour? (run run_abcdef)" } });
    stop();
  });

  it("announces an MCP server's request with the server and its message", () => {
    const { store, stop } = setup();
    store.getState().setLists([], []);
    store.getState().setLists([], [ia("ia_e", { kind: "elicitation", tool: "mcp__github__create_issue", question: { text: "Which repository?", server: "github" } })]);
    expect(FakeNotification.shown[0]).toMatchObject({ title: "Steward: github asks", options: { body: "Which repository? (run run_abcdef)" } });
    stop();
  });

  it("stays quiet while the page is visible and focused, or without permission", () => {
    for (const opts of [{ hidden: false, focused: true }, { permission: "default" as const }, { permission: "denied" as const }]) {
      const { store, stop } = setup(opts);
      store.getState().setLists([], []);
      store.getState().setLists([], [ia("ia_1")]);
      expect(FakeNotification.shown).toEqual([]);
      stop();
    }
  });

  it("announces when the page is visible but another window has the focus", () => {
    const { store, stop } = setup({ hidden: false, focused: false });
    store.getState().setLists([], []);
    store.getState().setLists([], [ia("ia_1")]);
    expect(FakeNotification.shown).toHaveLength(1);
    stop();
  });

  it("opens the run when the notification is clicked", () => {
    const { store, env, stop } = setup();
    store.getState().setLists([], []);
    store.getState().setLists([], [ia("ia_1")]);
    const { n } = FakeNotification.shown[0]!;
    (n.onclick as () => void)();
    expect(env.focusWindow).toHaveBeenCalled();
    expect(store.getState().selectedRunId).toBe("run_abcdefghijklmnop");
    expect(n.close).toHaveBeenCalled();
    stop();
  });

  it("stops following the store when stopped", () => {
    const { store, doc, stop } = setup();
    stop();
    store.getState().setLists([], [ia("ia_1")]);
    expect(doc.title).toBe("Steward");
  });

  it("reports and asks for the permission, and copes without the API", async () => {
    FakeNotification.permission = "default";
    const N = FakeNotification as unknown as NotificationCtor;
    expect(notificationPermission(N)).toBe("default");
    expect(await requestNotificationPermission(N)).toBe("granted");
    expect(FakeNotification.requestPermission).toHaveBeenCalled();
    // jsdom has no Notification: the browser's default is "unsupported" there.
    expect(notificationPermission()).toBe("unsupported");
    expect(await requestNotificationPermission()).toBe("unsupported");
  });
});
