import "../settings/settings.css";
import "./agents.css";
import { useCallback, useEffect, useState } from "react";
import type { Agent } from "../../api/types";
import { useApp, useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";
import { DemoLabel } from "../../ui/StatusBadge";
import { AgentEditor } from "./AgentEditor";
import { refreshAgents } from "./refresh";

// What the page shows: the list, or the editor of a new or a saved agent.
type View = { kind: "list" } | { kind: "new" } | { kind: "edit"; id: string; name: string };

// AgentsPage lists the agents with what each resolves to on this machine, and
// creates, edits and deletes them. The list is the store's, read again when
// the page opens and after every change, so the new-run form sees the same.
export function AgentsPage() {
  const { api, store } = useServices();
  const agents = useApp((s) => s.agents);
  const [view, setView] = useState<View>({ kind: "list" });
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [confirming, setConfirming] = useState<string>();
  const [deleting, setDeleting] = useState<string>();

  const reload = useCallback(async () => {
    try {
      await refreshAgents(api, store);
      setError(undefined);
    } catch (err) {
      setError(`Could not read the agents: ${errorMessage(err)}`);
    }
  }, [api, store]);

  useEffect(() => {
    void reload();
  }, [reload]);

  async function remove(a: Agent) {
    setDeleting(a.id);
    setNotice(undefined);
    try {
      await api.deleteAgent(a.id);
      setNotice(`Deleted agent ${a.name}.`);
      setError(undefined);
    } catch (err) {
      setError(`Could not delete ${a.name}: ${errorMessage(err)}`);
    } finally {
      setDeleting(undefined);
      setConfirming(undefined);
      // After a failure too: a 404 means it was already gone.
      await reload();
    }
  }

  if (view.kind !== "list") {
    return (
      <AgentEditor
        key={view.kind === "edit" ? view.id : "new"}
        id={view.kind === "edit" ? view.id : undefined}
        title={view.kind === "edit" ? `Edit agent ${view.name}` : "New agent"}
        onCancel={() => setView({ kind: "list" })}
        onSaved={async (saved) => {
          setNotice(`Saved agent ${saved.name}.`);
          setView({ kind: "list" });
          await reload();
        }}
      />
    );
  }

  return (
    <section className="page agents-page" aria-label="Agents" data-testid="agents-page">
      <header className="page-head">
        <h1>Agents</h1>
        <span className="spacer" />
        <button type="button" onClick={() => void reload()}>
          Refresh
        </button>
        <button
          type="button"
          className="primary"
          data-testid="agent-new"
          onClick={() => {
            setNotice(undefined);
            setView({ kind: "new" });
          }}
        >
          New agent
        </button>
      </header>
      <p className="muted">
        An agent is a model with a system prompt, the tools it may use, and what runs without asking. Agents set to{" "}
        <em>auto</em> use the provider marked active in Settings.
      </p>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {agents.length === 0 ? (
        !error && (
          <p className="empty" data-testid="agents-empty">
            No agents yet. Press <strong>New agent</strong> to define one: a name, a model and the tools it may use.
          </p>
        )
      ) : (
        <table className="agents">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Model</th>
              <th scope="col">Mode</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {agents.map((a) => (
              <AgentRow
                key={a.id}
                a={a}
                confirming={confirming === a.id}
                busy={deleting === a.id}
                onEdit={() => {
                  setNotice(undefined);
                  setView({ kind: "edit", id: a.id, name: a.name });
                }}
                onDelete={() => setConfirming(a.id)}
                onConfirm={() => void remove(a)}
                onCancel={() => setConfirming(undefined)}
              />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

type RowProps = {
  a: Agent;
  confirming: boolean;
  busy: boolean;
  onEdit: () => void;
  onDelete: () => void;
  onConfirm: () => void;
  onCancel: () => void;
};

function AgentRow({ a, confirming, busy, onEdit, onDelete, onConfirm, onCancel }: RowProps) {
  return (
    <tr data-testid="agent-row" data-name={a.name}>
      <td>
        <div className="agent-name">{a.name}</div>
        {a.description && <div className="agent-description muted">{a.description}</div>}
      </td>
      <td>
        <Resolved a={a} />
      </td>
      <td>
        <code>{a.mode}</code>
      </td>
      <td className="row-actions">
        {confirming ? (
          <span className="confirm" role="group" aria-label={`Delete agent ${a.name}?`}>
            <span>Delete {a.name}? Its runs stay.</span>
            <button type="button" className="danger" data-testid="agent-delete-confirm" disabled={busy} onClick={onConfirm}>
              Delete
            </button>
            <button type="button" disabled={busy} onClick={onCancel}>
              Keep
            </button>
          </span>
        ) : (
          <>
            <button type="button" data-testid="agent-edit" aria-label={`Edit agent ${a.name}`} onClick={onEdit}>
              Edit
            </button>
            <button type="button" className="danger" data-testid="agent-delete" aria-label={`Delete agent ${a.name}`} onClick={onDelete}>
              Delete
            </button>
          </>
        )}
      </td>
    </tr>
  );
}

// unavailable prefixes effective_provider when the agent's provider cannot be
// used on this machine (a key is missing, say); the rest says why.
const unavailable = "unavailable: ";

// Resolved says which provider and model the agent's runs use now.
function Resolved({ a }: { a: Agent }) {
  if (a.effective_provider.startsWith(unavailable)) {
    return (
      <span className="agent-unavailable" data-testid="agent-unavailable">
        {a.provider}: {a.effective_provider.slice(unavailable.length)}
      </span>
    );
  }
  return (
    <span className="agent-model">
      {a.provider === "auto" && <span className="muted">auto → </span>}
      {a.effective_provider}
      {a.effective_model && <code> {a.effective_model}</code>} {a.demo && <DemoLabel />}
    </span>
  );
}
