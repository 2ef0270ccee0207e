import { useApp } from "../../store/context";
import type { RunSandbox } from "../../api/types";

// What the run's commands may do, said once per state: for the badge's
// title, and for the banner when they are not sandboxed.
export function sandboxText(s: RunSandbox): string {
  if (s.confined) {
    return s.network === "on"
      ? "Commands run in the sandbox: the workspace writable, the rest read-only, your credentials and Steward's data hidden, with the network"
      : "Commands run in the sandbox: the workspace writable, the rest read-only, your credentials and Steward's data hidden, no network";
  }
  const why = s.reason ? ` (${s.reason})` : "";
  switch (s.mode) {
    case "on":
      return `The sandbox is on for this agent but cannot work on this machine${why}: its commands are refused.`;
    case "off":
      return "The sandbox is off for this run: its commands run as Steward's user and can read and change what that user can (your files, your keys, the network).";
    default:
      return `Commands cannot be sandboxed on this machine${why}. They run as Steward's user, so every command asks for your approval, whatever the mode.`;
  }
}

// SandboxBadge says whether the run's commands are sandboxed; nothing for a
// run recorded before runs said so.
export function SandboxBadge({ runId }: { runId: string }) {
  const s = useApp((st) => st.stream.runs[runId]?.sandbox);
  if (!s) return null;
  const label = s.confined ? (s.network === "on" ? "sandboxed · network" : "sandboxed") : "not sandboxed";
  return (
    <span className={`sandbox-badge${s.confined ? "" : " unconfined"}`} data-testid="sandbox-badge" title={sandboxText(s)}>
      {label}
    </span>
  );
}

// SandboxBanner says, on a run whose commands are not sandboxed, why, and
// what follows: every command asks (auto), commands are refused (on), or
// they see what Steward's user sees (off).
export function SandboxBanner({ runId }: { runId: string }) {
  const s = useApp((st) => st.stream.runs[runId]?.sandbox);
  if (!s || s.confined) return null;
  return (
    <section className={`run-banner banner-sandbox sandbox-${s.mode}`} role="note" aria-label="Command sandbox" data-testid="sandbox-banner">
      {sandboxText(s)}
    </section>
  );
}
