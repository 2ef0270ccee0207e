import { useState, type FormEvent, type KeyboardEvent } from "react";
import { useApp } from "../../store/context";
import { can, title, type LiveRun } from "./liveRun";
import type { SendCommand } from "./useCommand";

type Props = { runId: string; live: LiveRun; send: SendCommand; busy: boolean };

// FollowUpBox stands where the steer box does once the run has ended
// (completed, failed or cancelled): its message continues the run as the
// next message of a chat, a new turn of the same run, which the model reads
// after the whole conversation so far. The server refuses it, saying why,
// where it cannot apply (a replay, an agent that is gone, a spent budget):
// the box is then disabled with that reason, or the rejection shows as the
// header's error. Ctrl+Enter (or Cmd+Enter) sends too.
export function FollowUpBox({ runId, live, send, busy }: Props) {
  const [text, setText] = useState("");
  const turn = useApp((s) => (s.stream.runs[runId]?.turns.length ?? 0) + 1);
  const allowed = can(live, "follow_up");
  const empty = text.trim() === "";

  async function submit(e?: FormEvent) {
    e?.preventDefault();
    if (!allowed || empty || busy) return;
    const res = await send("follow_up", { text });
    if (res?.status === "accepted") setText("");
  }

  function onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) void submit(e);
  }

  return (
    <form className="steer follow-up" onSubmit={(e) => void submit(e)}>
      <textarea
        aria-label="Follow-up message"
        rows={1}
        placeholder={`Continue this run… (turn ${Math.max(turn, 2)}: the agent reads the whole conversation, then this)`}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <button
        type="submit"
        className="primary-soft"
        disabled={busy || !allowed || empty}
        title={!allowed ? title("follow_up", live) : empty ? "Type a message first" : `${title("follow_up", live)} (Ctrl+Enter)`}
      >
        Send follow-up
      </button>
    </form>
  );
}
