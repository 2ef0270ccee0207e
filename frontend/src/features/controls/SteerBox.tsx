import { useState, type FormEvent, type KeyboardEvent } from "react";
import { can, title, type LiveRun } from "./liveRun";
import type { SendCommand } from "./useCommand";

type Props = { live: LiveRun; send: SendCommand; busy: boolean };

// SteerBox sends a message to a running or paused run; the model reads it
// at its next call, and it shows in the transcript as a Steer message.
// Ctrl+Enter (or Cmd+Enter) sends too. The text field is never disabled: a
// status change while someone types must not take the focus away.
export function SteerBox({ live, send, busy }: Props) {
  const [text, setText] = useState("");
  const allowed = can(live, "steer");
  const empty = text.trim() === "";

  async function submit(e?: FormEvent) {
    e?.preventDefault();
    if (!allowed || empty || busy) return;
    const res = await send("steer", { text });
    if (res?.status === "accepted") setText("");
  }

  function onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) void submit(e);
  }

  return (
    <form className="steer" onSubmit={(e) => void submit(e)}>
      <textarea
        aria-label="Steer message"
        rows={1}
        placeholder="Steer the agent: a message it reads at its next model call"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <button
        type="submit"
        disabled={busy || !allowed || empty}
        title={!allowed ? title("steer", live) : empty ? "Type a message first" : `${title("steer", live)} (Ctrl+Enter)`}
      >
        Send steer
      </button>
    </form>
  );
}
