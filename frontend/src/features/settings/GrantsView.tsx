import "./settings.css";
import { useCallback, useEffect, useState } from "react";
import type { Grant } from "../../api/types";
import { useApp, useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";

// GrantsView lists the saved grants ("approve always", "deny always") that
// decide tool calls before they would ask, and revokes them. The list is
// read when the view opens and again after each revoke.
export function GrantsView() {
  const { api } = useServices();
  const [grants, setGrants] = useState<Grant[]>();
  const [error, setError] = useState<string>();
  const [revoking, setRevoking] = useState<string>();

  const load = useCallback(async () => {
    try {
      setGrants(await api.listGrants());
      setError(undefined);
    } catch (err) {
      setError(errorMessage(err));
    }
  }, [api]);

  useEffect(() => {
    void load();
  }, [load]);

  async function revoke(id: string) {
    setRevoking(id);
    try {
      await api.revokeGrant(id);
    } catch (err) {
      setError(`Could not revoke ${id}: ${errorMessage(err)}`);
    } finally {
      setRevoking(undefined);
      // Refetched after a failure too: a 404 means it was already gone.
      await load();
    }
  }

  return (
    <section className="grants-view" aria-label="Grants" data-testid="grants-view">
      <header className="grants-head">
        <h1>Grants</h1>
        <span className="spacer" />
        <button type="button" onClick={() => void load()}>
          Refresh
        </button>
      </header>
      <p className="muted">
        Saved answers of “Always in this run” and “Always for this agent”: a matching tool call runs (or is refused) without
        asking. Revoke one and such calls are decided by the agent’s mode and rules again.
      </p>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {grants === undefined ? (
        !error && <p className="muted">Loading…</p>
      ) : grants.length === 0 ? (
        <p className="empty" data-testid="grants-empty">
          No saved grants.
        </p>
      ) : (
        <table className="grants">
          <thead>
            <tr>
              <th scope="col">Effect</th>
              <th scope="col">Tool</th>
              <th scope="col">Match</th>
              <th scope="col">Scope</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {grants.map((g) => (
              <GrantRow key={g.id} g={g} busy={revoking === g.id} onRevoke={() => void revoke(g.id)} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function GrantRow({ g, busy, onRevoke }: { g: Grant; busy: boolean; onRevoke: () => void }) {
  return (
    <tr data-testid="grant-row" data-grant-id={g.id}>
      <td>
        <span className={`verdict verdict-${g.effect}`}>{g.effect}</span>
      </td>
      <td>
        <code>{g.tool}</code>
      </td>
      <td>{g.match ? <code>{g.match}</code> : <span className="muted">any argument</span>}</td>
      <td>
        <Scope g={g} />
      </td>
      <td className="grant-created">{new Date(g.created_at).toLocaleString()}</td>
      <td>
        <button type="button" className="danger" data-testid="revoke-grant" aria-label={`Revoke grant ${g.id}`} disabled={busy} onClick={onRevoke}>
          Revoke
        </button>
      </td>
    </tr>
  );
}

// Scope says where a grant holds, naming its run (with a link) or agent.
function Scope({ g }: { g: Grant }) {
  const agentName = useApp((s) => (g.agent_id ? s.agents.find((a) => a.id === g.agent_id)?.name : undefined));
  const select = useApp((s) => s.select);
  switch (g.scope) {
    case "run":
      return (
        <>
          run{" "}
          {g.run_id ? (
            <button type="button" className="link" aria-label={`Open run ${g.run_id}`} onClick={() => select(g.run_id)}>
              <code>{g.run_id}</code>
            </button>
          ) : null}
        </>
      );
    case "agent":
      return (
        <>
          agent {agentName ?? ""} {g.agent_id && <code className="muted">{g.agent_id}</code>}
        </>
      );
    default:
      return <>everywhere</>;
  }
}
