// WebSocket client of /api/v1/ws. It reconnects with backoff and, on each
// reconnect, subscribes every run again from the last seq it delivered, so
// each event of a subscribed run reaches onEvent exactly once, in seq order.

import { runLevelTypes, type ClientMessage, type Event, type ServerMessage } from "./types";

// WebSocket.OPEN, spelled out so that a test's fake WebSocket needs no statics.
const OPEN = 1;

export type SocketStatus = "connecting" | "open" | "closed";

export type EventSocketOptions = {
  // Called once per event of a subscribed run, in seq order.
  onEvent: (e: Event) => void;
  // Called for every run-level event seen (run.created, run.status,
  // approval.*, run.forked) of any run; a run's event can come twice (once per
  // subscription), so use it only as a hint to refetch.
  onRunLevel?: (e: Event) => void;
  // Called after each (re)connect once the subscriptions are sent: the
  // all-runs subscription does not replay, so refetch lists then.
  onOpen?: () => void;
  onStatus?: (s: SocketStatus) => void;
  onCaughtUp?: (runId: string | undefined, seq: number) => void;
  url?: string;
  WebSocket?: typeof WebSocket;
  // Reconnect delays: initialMs doubling up to maxMs, with jitter.
  initialMs?: number;
  maxMs?: number;
};

export function defaultSocketURL(): string {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}/api/v1/ws`;
}

export class EventSocket {
  private readonly opts: EventSocketOptions;
  private ws: WebSocket | undefined;
  // last holds, per subscribed run, the seq of the last event delivered.
  private readonly last = new Map<string, number>();
  private all = false;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private nextId = 1;

  constructor(opts: EventSocketOptions) {
    this.opts = opts;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.connect();
  }

  stop(): void {
    if (!this.running) return;
    this.running = false;
    clearTimeout(this.timer);
    const ws = this.ws;
    this.ws = undefined;
    ws?.close(1000, "bye");
    this.opts.onStatus?.("closed");
  }

  // subscribeAll asks for the run-level events of all runs.
  subscribeAll(): void {
    this.all = true;
    this.send({ type: "subscribe", id: this.id() });
  }

  // subscribeRun asks for the events of runId with seq > after, then live
  // ones. A run already subscribed keeps its position.
  subscribeRun(runId: string, after = 0): void {
    if (this.last.has(runId)) return;
    this.last.set(runId, after);
    this.send({ type: "subscribe", id: this.id(), run_id: runId, after });
  }

  unsubscribeRun(runId: string): void {
    if (!this.last.delete(runId)) return;
    this.send({ type: "unsubscribe", id: this.id(), run_id: runId });
  }

  // lastSeq is the seq of the last event of runId delivered to onEvent.
  lastSeq(runId: string): number | undefined {
    return this.last.get(runId);
  }

  private connect(): void {
    this.opts.onStatus?.("connecting");
    const Ctor = this.opts.WebSocket ?? WebSocket;
    const ws = new Ctor(this.opts.url ?? defaultSocketURL());
    this.ws = ws;
    ws.onopen = () => {
      if (ws !== this.ws) return;
      this.attempt = 0;
      this.opts.onStatus?.("open");
      if (this.all) this.send({ type: "subscribe", id: this.id() });
      for (const [runId, after] of this.last) {
        this.send({ type: "subscribe", id: this.id(), run_id: runId, after });
      }
      this.opts.onOpen?.();
    };
    ws.onmessage = (msg: MessageEvent) => {
      if (ws !== this.ws || typeof msg.data !== "string") return;
      let m: ServerMessage;
      try {
        m = JSON.parse(msg.data) as ServerMessage;
      } catch {
        return; // not ours to interpret
      }
      this.handle(m);
    };
    ws.onclose = () => {
      if (ws !== this.ws) return;
      this.ws = undefined;
      this.scheduleReconnect();
    };
    // An error is always followed by close, which reconnects.
    ws.onerror = () => {};
  }

  private handle(m: ServerMessage): void {
    switch (m.type) {
      case "event":
        this.handleEvent(m.event);
        return;
      case "caught_up":
        this.opts.onCaughtUp?.(m.run_id, m.seq);
        return;
      case "error":
        console.warn(`steward ws: ${m.code}: ${m.message}`);
        return;
      default:
        return;
    }
  }

  private handleEvent(e: Event): void {
    const last = this.last.get(e.run_id);
    // A subscribed run's events are delivered only in order: a seq already
    // seen is a duplicate, and one past a gap is the copy from the all-runs
    // subscription overtaking the run's own replay, which brings it in turn.
    if (last !== undefined && e.seq === last + 1) {
      this.last.set(e.run_id, e.seq);
      this.opts.onEvent(e);
    }
    if (runLevelTypes.has(e.type)) this.opts.onRunLevel?.(e);
  }

  private scheduleReconnect(): void {
    if (!this.running) return;
    this.opts.onStatus?.("closed");
    const initial = this.opts.initialMs ?? 500;
    const max = this.opts.maxMs ?? 10_000;
    const delay = Math.min(max, initial * 2 ** this.attempt) * (0.75 + Math.random() * 0.25);
    this.attempt++;
    this.timer = setTimeout(() => {
      if (this.running) this.connect();
    }, delay);
  }

  private send(m: ClientMessage): void {
    // While not open the message is dropped: onopen sends every subscription.
    if (this.ws?.readyState === OPEN) this.ws.send(JSON.stringify(m));
  }

  private id(): string {
    return `c${this.nextId++}`;
  }
}
