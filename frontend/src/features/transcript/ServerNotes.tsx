import { useShallow } from "zustand/react/shallow";
import { useApp } from "../../store/context";
import { describeNotes, type ServerNote } from "../../store/serverFold";

// ServerNotesRow says, after a call's card, what became of the MCP servers
// the call reached (mcp.server): one line per server, "MCP server fx
// crashed (exit status 1), started again in 0.5 s at the soonest", with
// the end of what a crashed server printed in its title.
export function ServerNotesRow({ runId, after }: { runId: string; after: string }) {
  const notes = useApp(useShallow((s) => (s.stream.runs[runId]?.servers ?? []).filter((n) => (n.afterNode ?? "") === after)));
  if (notes.length === 0) return null;
  const byServer = new Map<string, ServerNote[]>();
  for (const n of notes) byServer.set(n.server, [...(byServer.get(n.server) ?? []), n]);
  return (
    <div className="t-servers">
      {[...byServer].map(([server, list]) => {
        const bad = list.some((n) => n.state === "crashed" || n.state === "failed");
        const stderr = list.map((n) => n.stderr).filter(Boolean).join("\n");
        return (
          <p
            key={server}
            role="note"
            className={bad ? "t-server t-server-bad" : "t-server"}
            data-testid="transcript-mcp-server"
            title={stderr ? `its stderr ends:\n${stderr}` : undefined}
          >
            {describeNotes(list)}
          </p>
        );
      })}
    </div>
  );
}
