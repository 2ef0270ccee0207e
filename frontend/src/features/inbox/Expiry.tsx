import { timeLeft } from "../../ui/format";
import { useNow } from "../../ui/useNow";

type Props = { expiresAt: number; defaultDecision?: "deny" | "approve"; question?: boolean };

// Expiry counts down to the moment the default decision is taken for a
// person who did not answer. The server takes it; this only tells.
export function Expiry({ expiresAt, defaultDecision, question }: Props) {
  const now = useNow(1000);
  const verb = question ? "closes unanswered" : defaultDecision === "approve" ? "approves automatically" : "denies automatically";
  const left = expiresAt - now;
  return (
    <span
      className={`expiry${left < 30_000 ? " expiry-soon" : ""}`}
      data-testid="expiry-countdown"
      role="timer"
      title={`At ${new Date(expiresAt).toLocaleTimeString()}, if nobody answers`}
    >
      {left > 0 ? `${verb} in ${timeLeft(expiresAt, now)}` : `${verb} now…`}
    </span>
  );
}

// timedOutText says what a timeout decided, for an answer whose source is
// "timeout". A question that times out is declined.
export function timedOutText(decision: string | undefined, question = false): string {
  if (question) return "timed out: no answer";
  if (decision === "approve") return "timed out: approved by default";
  if (decision === "deny") return "timed out: denied by default";
  return "timed out: no answer";
}
