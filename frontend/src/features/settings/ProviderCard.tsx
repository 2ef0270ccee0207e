import { useId, useState, type FormEvent } from "react";
import type { ProviderSettings, ProviderTest, ProviderUpdate, Settings } from "../../api/types";
import { useServices } from "../../store/context";
import { duration, errorMessage } from "../../ui/format";

type Props = {
  p: ProviderSettings;
  onSettings: (s: Settings) => void;
  models?: readonly string[]; // suggestions for the model field (a local server's)
};

// ProviderCard shows and changes one provider's settings: base URL, model and
// API key. A key typed here is sent once and never shown again: the field is
// never filled in, and the card says only whether a key is set and where from.
export function ProviderCard({ p, onSettings, models = [] }: Props) {
  const { api } = useServices();
  const [baseUrl, setBaseUrl] = useState(p.base_url);
  const [model, setModel] = useState(p.model);
  const [newKey, setNewKey] = useState("");
  const [busy, setBusy] = useState<"save" | "clear" | "test">();
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [test, setTest] = useState<ProviderTest>();
  const id = useId();

  // The server's values after a save (or a reload) replace what was typed.
  // This is done while rendering, when they differ from the ones last seen,
  // not in an effect: a mount effect flushed after the first keystroke
  // would put the old value back over it.
  const [seen, setSeen] = useState({ baseUrl: p.base_url, model: p.model });
  if (seen.baseUrl !== p.base_url || seen.model !== p.model) {
    if (seen.baseUrl !== p.base_url) setBaseUrl(p.base_url);
    if (seen.model !== p.model) setModel(p.model);
    setSeen({ baseUrl: p.base_url, model: p.model });
  }

  const change: ProviderUpdate = {};
  if (!p.base_url_env && baseUrl.trim() !== p.base_url) change.base_url = baseUrl.trim();
  if (!p.model_env && model.trim() !== p.model) change.model = model.trim();
  if (newKey.trim()) change.api_key = newKey.trim();
  const dirty = Object.keys(change).length > 0;

  async function update(body: ProviderUpdate, kind: "save" | "clear", done: string) {
    setBusy(kind);
    setError(undefined);
    setNotice(undefined);
    try {
      onSettings(await api.updateProvider(p.name, body));
      setNewKey("");
      setNotice(done);
      setTest(undefined);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(undefined);
    }
  }

  function save(e: FormEvent) {
    e.preventDefault();
    if (!dirty) return;
    void update(change, "save", change.api_key ? "Saved. The key is stored; only its end is shown from now on." : "Saved.");
  }

  async function runTest() {
    setBusy("test");
    setTest(undefined);
    try {
      setTest(await api.testProvider(p.name));
    } catch (err) {
      setTest({ ok: false, message: errorMessage(err), latency_ms: 0 });
    } finally {
      setBusy(undefined);
    }
  }

  const found = [...new Set([...(test?.models ?? []), ...models])];
  return (
    <form className="provider-card" data-testid="provider-card" data-provider={p.name} aria-labelledby={`${id}-title`} onSubmit={save}>
      <header className="provider-head">
        <h2 id={`${id}-title`} className="provider-title">
          {p.label}
        </h2>
        {p.active && (
          <span className="active-badge" data-testid="provider-active" title="Agents whose provider is auto use this one now">
            active for auto agents
          </span>
        )}
      </header>

      <div className="field-row">
        <div className="field">
          <label htmlFor={`${id}-base`}>Base URL</label>
          <input
            id={`${id}-base`}
            type="text"
            inputMode="url"
            spellCheck={false}
            value={baseUrl}
            placeholder={p.default_base_url}
            readOnly={!!p.base_url_env}
            aria-describedby={p.base_url_env ? `${id}-base-env` : undefined}
            onChange={(e) => setBaseUrl(e.target.value)}
          />
          {p.base_url_env && (
            <p className="hint muted" id={`${id}-base-env`}>
              Set by the environment variable <code>{p.base_url_env}</code>.
            </p>
          )}
        </div>
        <div className="field">
          <label htmlFor={`${id}-model`}>Model</label>
          <input
            id={`${id}-model`}
            type="text"
            spellCheck={false}
            value={model}
            placeholder={p.default_model}
            readOnly={!!p.model_env}
            list={found.length > 0 ? `${id}-models` : undefined}
            aria-describedby={p.model_env ? `${id}-model-env` : undefined}
            onChange={(e) => setModel(e.target.value)}
          />
          {found.length > 0 && (
            <datalist id={`${id}-models`}>
              {found.map((m) => (
                <option key={m} value={m} />
              ))}
            </datalist>
          )}
          {p.model_env && (
            <p className="hint muted" id={`${id}-model-env`}>
              Set by the environment variable <code>{p.model_env}</code>.
            </p>
          )}
        </div>
      </div>

      <div className="field">
        <label htmlFor={`${id}-key`}>New key</label>
        <div className="key-row">
          <input
            id={`${id}-key`}
            type="password"
            autoComplete="new-password"
            spellCheck={false}
            data-testid="provider-key-input"
            placeholder={p.key.set ? "paste a key to replace it" : "paste a key to store it"}
            value={newKey}
            onChange={(e) => setNewKey(e.target.value)}
          />
          {p.key.source === "stored" && (
            <button
              type="button"
              className="danger"
              data-testid="provider-clear-key"
              disabled={busy !== undefined}
              onClick={() => void update({ clear_key: true }, "clear", "The stored key is removed.")}
            >
              Remove stored key
            </button>
          )}
        </div>
        <p className="hint">
          <KeyState p={p} />
        </p>
      </div>

      <div className="form-actions">
        <button type="submit" className="primary" data-testid="provider-save" disabled={!dirty || busy !== undefined}>
          Save
        </button>
        <button type="button" data-testid="provider-test" disabled={busy !== undefined} onClick={() => void runTest()}>
          Test connection
        </button>
        {busy === "test" && <span className="muted">Testing…</span>}
        {busy === "save" && <span className="muted">Saving…</span>}
        {dirty && busy === undefined && <span className="muted">Unsaved changes: the test uses the saved settings.</span>}
      </div>
      {error && (
        <p className="form-error" role="alert" data-testid="provider-error">
          {error}
        </p>
      )}
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {test && <TestResult t={test} />}
    </form>
  );
}

// keyState says whether a key is set and where it comes from, never the key.
export function keyState(p: ProviderSettings): string {
  const { key } = p;
  if (key.set && key.source === "env") return `key from the environment ${key.env_var}`;
  if (key.set) return key.hint ? `key set (stored, ${key.hint})` : "key set (stored)";
  return "no key";
}

function KeyState({ p }: { p: ProviderSettings }) {
  const { key } = p;
  let hint = "";
  if (!key.set) {
    hint = key.env_var ? `Paste one above, or set ${key.env_var} in the environment` : "Paste one above";
    hint += p.name === "openai" ? "; a local server needs none." : ".";
  }
  return (
    <>
      <span data-testid="provider-key-state" className={key.set ? "key-set" : "key-none"}>
        {keyState(p)}
      </span>
      {hint && <span className="muted"> {hint}</span>}
    </>
  );
}

const shown = 8;

function TestResult({ t }: { t: ProviderTest }) {
  const models = t.models ?? [];
  return (
    <div className={`test-result ${t.ok ? "ok" : "fail"}`} role="status" data-testid="provider-test-result" data-ok={t.ok}>
      <strong>{t.ok ? "Connected" : "Failed"}</strong>
      {t.latency_ms > 0 && <span className="muted"> in {duration(t.latency_ms)}</span>}
      {t.message && <>: {t.message}</>}
      {t.ok && (
        <div className="test-models">
          {models.length === 0
            ? "No models listed."
            : `${models.length} model${models.length === 1 ? "" : "s"}: ${models.slice(0, shown).join(", ")}${models.length > shown ? `, and ${models.length - shown} more` : ""}`}
        </div>
      )}
    </div>
  );
}
