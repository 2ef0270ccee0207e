import { useCallback, useState } from "react";
import { newId } from "../../api/client";
import type { CommandResult, CommandType, Limits } from "../../api/types";
import { useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";

export type SendCommand = (
  type: CommandType,
  extra?: { text?: string; node_id?: string; limits?: Limits; tool?: string; agent?: string; workspace?: string },
) => Promise<CommandResult | undefined>;

// useCommand sends commands to a run, one at a time. A rejection or a failed
// call becomes error (the server's message). The run's capabilities follow
// from the run.status its command causes (see store/sync.ts), so nothing is
// fetched again.
export function useCommand(runId: string): { send: SendCommand; busy: boolean; error?: string } {
  const { api } = useServices();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const send = useCallback<SendCommand>(
    async (type, extra = {}) => {
      setBusy(true);
      setError(undefined);
      try {
        const res = await api.command(runId, { command_id: newId(), type, ...extra });
        if (res.status === "rejected") setError(res.message ?? `${type} rejected (${res.code ?? "unknown"})`);
        return res;
      } catch (err) {
        setError(errorMessage(err));
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [api, runId],
  );
  return { send, busy, error };
}
