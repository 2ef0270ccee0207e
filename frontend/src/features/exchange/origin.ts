import type { Agent, Run } from "../../api/types";

// ownSettings says whether a run's settings were chosen on this machine, as
// far as the UI can tell: it was not imported from a recording (someone
// else's content), and its agent still exists here. The server decides
// (run.Origin): a run that descends from an imported one is refused with the
// reason, and the dialogs then ask for an agent too. An empty agent list is
// one not loaded yet: a server always has an agent.
export function ownSettings(run: Run | undefined, agents: Agent[]): boolean {
  if (!run || run.imported_from) return false;
  return agents.length === 0 || agents.some((a) => a.id === run.agent_id);
}

// foreignNote says, for a person, why a run's own settings are not used.
export function foreignNote(run: Run | undefined): string {
  if (run?.imported_from)
    return `This run was imported from a recording: it is someone else's content. Its workspace, provider, base URL, model, mode and rules are not used here.`;
  return `This run's agent (${run?.agent_name ?? "unknown"}) no longer exists here: its recorded workspace, provider, base URL, model, mode and rules are not used.`;
}
