import { useEffect, useState } from "react";
import { useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";
import type { ProjectView } from "../../api/types";

type Server = ProjectView["servers"][number];

// What a server of the file would run or reach, as the file says it: the
// person approves exactly this.
function ServerLine({ s }: { s: Server }) {
  const e = s.entry;
  const env = Object.entries(e.env ?? {});
  const headers = Object.entries(e.headers ?? {});
  return (
    <li className="project-server" data-testid="project-server">
      <strong>{s.name}</strong> <span className="muted">({s.type})</span>
      {s.type === "stdio" ? (
        <code className="project-command">{[e.command, ...(e.args ?? [])].join(" ")}</code>
      ) : (
        <code className="project-command">{e.url}</code>
      )}
      {s.type === "stdio" && e.cwd && <span className="muted">in {e.cwd}</span>}
      {env.length > 0 && (
        <span className="muted">
          env: {env.map(([k, v]) => `${k}=${v}`).join(", ")}
        </span>
      )}
      {headers.length > 0 && (
        <span className="muted">
          headers: {headers.map(([k, v]) => `${k}: ${v}`).join(", ")}
        </span>
      )}
      {e.bearer_token_env && <span className="muted">bearer token from ${e.bearer_token_env}</span>}
      {e.sandbox_network === "on" && <span className="project-reads">asks for the network in the command sandbox</span>}
    </li>
  );
}

// ProjectReview shows, for an agent that uses project servers, what the
// workspace's .mcp.json declares and whether it is approved; the person
// approves the file as shown (its digest), so a file changed meanwhile is
// refused by the server, not run.
export function ProjectReview({ workspace }: { workspace: string }) {
  const { api } = useServices();
  const [view, setView] = useState<ProjectView>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    setView(undefined);
    setError(undefined);
    if (!workspace.startsWith("/") && !/^[A-Za-z]:[\\/]/.test(workspace)) return;
    let live = true;
    // The path is typed: look once the typing pauses.
    const t = setTimeout(() => {
      api.projectServers(workspace).then(
        (v) => live && setView(v),
        (err) => live && setError(errorMessage(err)),
      );
    }, 250);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [api, workspace]);

  async function act(f: () => Promise<ProjectView>) {
    setBusy(true);
    setError(undefined);
    try {
      setView(await f());
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  if (error) {
    return (
      <p className="form-error" role="alert">
        .mcp.json: {error}
      </p>
    );
  }
  if (!view || view.state === "none") return null;
  const label = "Project MCP servers (.mcp.json)";
  if (view.state === "invalid") {
    return (
      <section className="project-review invalid" aria-label={label} data-testid="project-review">
        <p>
          This workspace's <code>.mcp.json</code> cannot be used, so its servers are not offered: {view.error}
        </p>
      </section>
    );
  }
  if (view.state === "approved") {
    return (
      <section className="project-review approved" aria-label={label} data-testid="project-review">
        <p>
          Project servers (approved): {view.servers.map((s) => s.name).join(", ") || "none"}{" "}
          <button type="button" className="link" disabled={busy} onClick={() => void act(() => api.revokeProject(view.workspace))}>
            Revoke
          </button>
        </p>
      </section>
    );
  }
  return (
    <section className="project-review pending" aria-label={label} data-testid="project-review">
      <p>
        {view.state === "changed"
          ? "This workspace's .mcp.json changed since you approved it. Its servers are not offered until you approve it again:"
          : "This workspace's .mcp.json asks to run these MCP servers. They come from the workspace's files, so look before you approve. Until you do, none is offered:"}
      </p>
      <ul>
        {view.servers.map((s) => (
          <ServerLine key={s.name} s={s} />
        ))}
      </ul>
      {(view.refused ?? []).map((r) => (
        <p key={r.name} className="muted">
          Not offered: {r.name}: {r.reason}
        </p>
      ))}
      {(view.reads ?? []).length > 0 && (
        <p className="project-reads">
          It reads these variables of your environment, and their values go to the servers: {(view.reads ?? []).join(", ")}
        </p>
      )}
      <p className="muted">
        Stdio servers run in the workspace, inside the command sandbox when the agent's sandbox confines its commands
        (no network unless the file asks for it); their tools are never trusted, so each call asks unless the mode is auto.
      </p>
      <div className="form-actions">
        <button
          type="button"
          disabled={busy || !view.sha256}
          onClick={() => void act(() => api.approveProject({ workspace: view.workspace, sha256: view.sha256 ?? "" }))}
        >
          Approve this .mcp.json
        </button>
      </div>
    </section>
  );
}
