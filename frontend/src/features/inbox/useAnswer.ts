import { surface } from "../../api/surface";
import { useState } from "react";
import { isApiError } from "../../api/client";
import type { Answer } from "../../api/types";
import { useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";

// answerError is what a card says when an answer was refused: a 409 means
// another surface (or the timeout) answered first.
export function answerError(code: string | undefined, message: string): string {
  return code === "conflict" ? "already answered" : message;
}

// useAnswer sends one interaction's answer from this surface and keeps what
// the card shows meanwhile: busy, the refusal, and the answer sent. The
// inbox is refetched either way, since a refusal often means it is stale.
export function useAnswer(interactionId: string) {
  const { api, refreshLists } = useServices();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [sent, setSent] = useState<Answer>();

  async function send(answer: Answer): Promise<boolean> {
    setBusy(true);
    setError(undefined);
    try {
      await api.answer(interactionId, { ...answer, source: surface });
      setSent(answer);
      return true;
    } catch (err) {
      setError(answerError(isApiError(err) ? err.code : undefined, errorMessage(err)));
      return false;
    } finally {
      setBusy(false);
      void refreshLists();
    }
  }

  return { busy, error, setError, sent, send };
}
