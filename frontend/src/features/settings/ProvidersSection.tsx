import { useState } from "react";
import type { LocalServer, Settings } from "../../api/types";
import { useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";
import { ProviderCard } from "./ProviderCard";

type Props = { settings: Settings; onSettings: (s: Settings) => void; onReload: () => void; reloading: boolean };

// ProvidersSection holds a card per provider and the local model servers
// found on their usual ports, each of which can become the OpenAI-compatible
// provider's base URL.
export function ProvidersSection({ settings, onSettings, onReload, reloading }: Props) {
  const openai = settings.providers.find((p) => p.name === "openai");
  const localModels = settings.local_servers.filter((s) => s.found && openai?.base_url === s.base_url).flatMap((s) => s.models);
  const noneActive = !settings.providers.some((p) => p.active);
  return (
    <section className="page providers-section" aria-label="Providers" data-testid="providers-section">
      <header className="page-head">
        <h1>Providers</h1>
      </header>
      <p className="muted">
        Where agents' model calls go. A key typed here is stored in <code>{settings.config_file}</code> (readable by you only) and
        never shown again in full. Changes apply to runs started afterwards.
      </p>
      {noneActive && (
        <p className="demo-note" data-testid="providers-demo-note">
          No provider is configured and no local server was found: agents set to auto play the built-in demo script. Paste a key
          below, or start Ollama or LM Studio and use it.
        </p>
      )}
      {settings.providers.length === 0 ? (
        <p className="empty">The server lists no providers.</p>
      ) : (
        <div className="provider-cards">
          {settings.providers.map((p) => (
            <ProviderCard key={p.name} p={p} onSettings={onSettings} models={p.name === "openai" ? localModels : undefined} />
          ))}
        </div>
      )}
      <LocalServers settings={settings} onSettings={onSettings} onReload={onReload} reloading={reloading} />
    </section>
  );
}

// Names of the local servers by their usual port.
const serverNames: Record<string, string> = { "11434": "Ollama", "1234": "LM Studio", "8080": "llama.cpp", "8000": "vLLM" };

function serverName(s: LocalServer): string {
  try {
    return serverNames[new URL(s.base_url).port] ?? "A server";
  } catch {
    return "A server";
  }
}

function LocalServers({ settings, onSettings, onReload, reloading }: Props) {
  const { api } = useServices();
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<string>();
  const openai = settings.providers.find((p) => p.name === "openai");

  async function use(s: LocalServer) {
    setBusy(s.base_url);
    setError(undefined);
    try {
      onSettings(await api.updateProvider("openai", { base_url: s.base_url }));
    } catch (err) {
      setError(`Could not use ${s.base_url}: ${errorMessage(err)}`);
    } finally {
      setBusy(undefined);
    }
  }

  return (
    <div className="local-servers" data-testid="local-servers">
      <div className="page-head">
        <h2>Local model servers</h2>
        <span className="spacer" />
        <button type="button" disabled={reloading} onClick={onReload}>
          {reloading ? "Looking…" : "Look again"}
        </button>
      </div>
      {settings.local_servers.length === 0 ? (
        <p className="empty">None looked for. Start Ollama or LM Studio on this machine, then press Look again.</p>
      ) : (
        <ul>
          {settings.local_servers.map((s) => {
            const inUse = openai?.base_url === s.base_url;
            return (
              <li key={s.base_url} data-testid="local-server" data-found={s.found}>
                <span>
                  {serverName(s)} at <code>{s.base_url}</code>:{" "}
                  {s.found ? (
                    <>
                      <span className="found">found</span>
                      {s.models.length > 0 ? <>, models {s.models.join(", ")}</> : ", no models pulled yet"}
                    </>
                  ) : (
                    <span className="muted">not running</span>
                  )}
                </span>
                {s.found &&
                  (inUse ? (
                    <span className="active-badge">OpenAI base URL</span>
                  ) : (
                    <button
                      type="button"
                      aria-label={`Use the server at ${s.base_url}`}
                      disabled={busy !== undefined || !!openai?.base_url_env}
                      title={openai?.base_url_env ? `The base URL is set by ${openai.base_url_env}` : "Save it as the OpenAI-compatible base URL"}
                      onClick={() => void use(s)}
                    >
                      Use this server
                    </button>
                  ))}
              </li>
            );
          })}
        </ul>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
