import { useApp } from "../../store/context";
import type { RunProjectServers } from "../../api/types";

// What the run was offered of its workspace's .mcp.json, said once per
// state.
export function projectText(p: RunProjectServers): string {
  switch (p.state) {
    case "approved":
      return p.servers?.length ? `Project MCP servers offered: ${p.servers.join(", ")} (from ${p.file}, approved).` : `${p.file} is approved but offers no server.`;
    case "unapproved":
      return `${p.file} is not approved, so none of its servers is offered to this run. Review it in New run to approve it.`;
    case "changed":
      return `${p.file} changed since you approved it, so none of its servers is offered to this run. Review it in New run to approve it again.`;
    case "invalid":
      return `${p.file} cannot be used, so none of its servers is offered: ${p.error ?? "unknown error"}`;
    default:
      return `The workspace has no .mcp.json: no project server is offered.`;
  }
}

// ProjectBanner says, on a run whose agent uses project servers, which of
// the workspace's were offered, or why none was; refused ones with why.
export function ProjectBanner({ runId }: { runId: string }) {
  const p = useApp((st) => st.stream.runs[runId]?.project);
  if (!p || p.state === "none") return null;
  return (
    <section className={`run-banner banner-project project-${p.state}`} role="note" aria-label="Project MCP servers" data-testid="project-banner">
      {projectText(p)}
      {(p.refused ?? []).map((r) => (
        <div key={r.name} className="muted">
          Not offered: {r.name}: {r.reason}
        </div>
      ))}
    </section>
  );
}
