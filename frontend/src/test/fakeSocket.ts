// A fake WebSocket for tests: records what the client sends and lets the
// test play the server.

import type { Event, EventType } from "../api/types";

export class FakeSocket {
  static all: FakeSocket[] = [];
  readyState = 0;
  sent: Record<string, unknown>[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((m: { data: string }) => void) | null = null;
  onclose: (() => void) | null = null;
  onerror: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  send(s: string) {
    this.sent.push(JSON.parse(s) as Record<string, unknown>);
  }
  close() {
    this.readyState = 3;
  }
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
  drop() {
    this.readyState = 3;
    this.onclose?.();
  }
  event(run_id: string, seq: number, type: EventType = "llm.delta", data: unknown = {}, node_id?: string) {
    const e: Event = { run_id, seq, ts: 0, type, data, node_id };
    this.message({ type: "event", event: e });
  }
  message(m: unknown) {
    this.onmessage?.({ data: JSON.stringify(m) });
  }
}

