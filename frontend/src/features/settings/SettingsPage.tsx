import "./settings.css";
import { useCallback, useEffect, useRef, useState } from "react";
import type { Settings } from "../../api/types";
import { useApp, useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";
import { refreshAgents } from "../agents/refresh";
import { GrantsView } from "./GrantsView";
import { MCPServersSection } from "./MCPServersSection";
import { PricesSection } from "./PricesSection";
import { ProvidersSection } from "./ProvidersSection";

export type SettingsSection = "providers" | "prices" | "mcp" | "grants";

export const sections: { value: SettingsSection; label: string }[] = [
  { value: "providers", label: "Providers" },
  { value: "prices", label: "Prices" },
  { value: "mcp", label: "MCP servers" },
  { value: "grants", label: "Grants" },
];

export function isSettingsSection(page: string): page is SettingsSection {
  return sections.some((s) => s.value === page);
}

// SettingsPage is the settings, one section at a time: providers, prices,
// MCP servers and grants. The settings are read when a section that shows
// them opens; every change answers them whole, which replaces what is held.
export function SettingsPage({ section }: { section: SettingsSection }) {
  const { api, store } = useServices();
  const showPage = useApp((s) => s.showPage);
  const [settings, setSettings] = useState<Settings>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(false);
  const needs = section !== "grants" && section !== "mcp";

  const load = useCallback(async () => {
    setLoading(true);
    try {
      setSettings(await api.settings());
      setError(undefined);
    } catch (err) {
      setError(`Could not read the settings: ${errorMessage(err)}`);
      requested.current = false;
    } finally {
      setLoading(false);
    }
  }, [api]);

  // Read once per opening: a second read landing while the person edits
  // would replace what they typed (a retry after an error reads again).
  const requested = useRef(false);
  useEffect(() => {
    if (needs && !settings && !error && !requested.current) {
      requested.current = true;
      void load();
    }
  }, [needs, settings, error, load]);

  // A provider change can change what agents set to auto resolve to: the
  // agents and the top bar are read again.
  const providerChanged = useCallback(
    (s: Settings) => {
      setSettings(s);
      refreshAgents(api, store).catch((err: unknown) => store.getState().setLoadError(errorMessage(err)));
    },
    [api, store],
  );

  return (
    <div className="settings-page" data-testid="settings-page">
      <nav className="settings-nav" aria-label="Settings" data-testid="settings-nav">
        <h1 className="settings-title">Settings</h1>
        {sections.map((s) => (
          <button
            key={s.value}
            type="button"
            aria-current={section === s.value ? "page" : undefined}
            className={section === s.value ? "active" : undefined}
            onClick={() => showPage(s.value)}
          >
            {s.label}
          </button>
        ))}
      </nav>
      {section === "grants" ? (
        <GrantsView />
      ) : section === "mcp" ? (
        <MCPServersSection />
      ) : !settings ? (
        <section className="page" aria-label={section === "providers" ? "Providers" : "Prices"}>
          {error ? (
            <>
              <p className="form-error" role="alert" data-testid="settings-error">
                {error}
              </p>
              <div className="form-actions">
                <button type="button" disabled={loading} onClick={() => void load()}>
                  Try again
                </button>
              </div>
            </>
          ) : (
            <p className="muted">Loading the settings…</p>
          )}
        </section>
      ) : section === "providers" ? (
        <ProvidersSection settings={settings} onSettings={providerChanged} onReload={() => void load()} reloading={loading} />
      ) : (
        <PricesSection settings={settings} onSettings={setSettings} />
      )}
      {settings && error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
