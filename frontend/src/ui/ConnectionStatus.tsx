import "./connection.css";
import type { SocketStatus } from "../api/ws";
import { useApp } from "../store/context";

// connectionPhase is what the live connection is doing, for a person:
// live; connecting (the first time); reconnecting after it dropped; or back
// and replaying what was missed (catching up), then live again.
export type ConnectionPhase = "live" | "connecting" | "reconnecting" | "catching-up";

export function connectionPhase(connection: SocketStatus, reconnecting: boolean): ConnectionPhase {
  if (!reconnecting) return connection === "open" ? "live" : connection === "closed" ? "reconnecting" : "connecting";
  return connection === "open" ? "catching-up" : "reconnecting";
}

const words: Record<ConnectionPhase, string> = {
  live: "live",
  connecting: "connecting…",
  reconnecting: "reconnecting…",
  "catching-up": "catching up…",
};

const titles: Record<ConnectionPhase, string> = {
  live: "Live updates flow (WebSocket)",
  connecting: "Connecting for live updates",
  reconnecting: "The live connection dropped: reconnecting by itself; what happens meanwhile is caught up afterwards",
  "catching-up": "Reconnected: replaying the events missed while disconnected",
};

// ConnectionStatus is the top bar's indicator of live updates. While the
// connection is down or catching up it stands out (data-testid
// reconnecting), and it says live again once the missed events are in.
export function ConnectionStatus() {
  const connection = useApp((s) => s.connection);
  const reconnecting = useApp((s) => s.reconnecting);
  const phase = connectionPhase(connection, reconnecting);
  const troubled = phase === "reconnecting" || phase === "catching-up";
  return (
    <span
      className={`conn conn-${phase}`}
      role="status"
      title={titles[phase]}
      data-testid={troubled ? "reconnecting" : "connection"}
      data-phase={phase}
    >
      {words[phase]}
    </span>
  );
}
