import { useId } from "react";
import type { MCPServer, ToolSpec } from "../../api/types";

type Risk = ToolSpec["risk"];

// The risks from the least to the most dangerous, with what each means.
const risks: { risk: Risk; label: string; note: string }[] = [
  { risk: "read", label: "Read", note: "reads the workspace; runs without asking in every mode" },
  { risk: "write", label: "Write", note: "changes the workspace; asks in ask mode" },
  { risk: "exec", label: "Exec", note: "runs programs; asks unless the mode is auto" },
  { risk: "network", label: "Network", note: "reaches the network; asks unless the mode is auto" },
  { risk: "destructive", label: "Destructive", note: "can lose work; asks unless the mode is auto" },
];

type Props = {
  catalog: readonly ToolSpec[];
  // mcp is config.json's MCP servers: an agent takes all of a server's
  // tools (mcp__<server>__*) or some of them by name.
  mcp?: readonly MCPServer[];
  selected: readonly string[];
  onChange: (tools: string[]) => void;
  invalid?: boolean; // the last save failed over the tools
};

// ToolPicker is the agent's tools as checklists, one per risk. Tools the
// agent names that the server no longer offers are listed apart, so they can
// be taken away (the server refuses to save them).
export function ToolPicker({ catalog, selected, onChange, invalid, mcp = [] }: Props) {
  const id = useId();
  const set = new Set(selected);
  const server = (t: string) => mcp.find((s) => t.startsWith(s.prefix));
  const unknown = selected.filter((t) => !catalog.some((c) => c.name === t) && !server(t));
  const toggle = (name: string, on: boolean) =>
    onChange(on ? [...selected.filter((t) => t !== name), name] : selected.filter((t) => t !== name));

  if (catalog.length === 0 && unknown.length === 0 && mcp.length === 0) {
    return <p className="empty">The server offers no tools: the agent can only answer in text.</p>;
  }
  return (
    <div className={invalid ? "tool-picker invalid" : "tool-picker"}>
      {risks.map(({ risk, label, note }) => {
        const tools = catalog.filter((t) => t.risk === risk);
        if (tools.length === 0) return null;
        const on = tools.filter((t) => set.has(t.name)).length;
        return (
          <div key={risk} className="tool-group" role="group" aria-labelledby={`${id}-${risk}`}>
            <div className="tool-group-head" id={`${id}-${risk}`}>
              <span className={`risk risk-${risk}`}>{risk}</span> <strong>{label}</strong>{" "}
              <span className="muted">
                {note} · {on} of {tools.length}
              </span>
            </div>
            <ul>
              {tools.map((t) => (
                <li key={t.name}>
                  <label className="tool-option">
                    <input
                      type="checkbox"
                      aria-label={t.name}
                      aria-describedby={`${id}-d-${t.name}`}
                      checked={set.has(t.name)}
                      onChange={(e) => toggle(t.name, e.target.checked)}
                    />
                    <code>{t.name}</code>
                    <span className={`risk risk-${t.risk}`} data-testid="tool-risk">
                      {t.risk}
                    </span>
                    <span className="tool-description muted" id={`${id}-d-${t.name}`}>
                      {t.description}
                    </span>
                  </label>
                </li>
              ))}
            </ul>
          </div>
        );
      })}
      {mcp.length > 0 && (
        <div className="tool-group" role="group" aria-labelledby={`${id}-mcp`} data-testid="mcp-tools">
          <div className="tool-group-head" id={`${id}-mcp`}>
            <strong>MCP servers</strong>{" "}
            <span className="muted">
              an untrusted server's tools ask in every mode but auto; a trusted one's annotations decide (Settings → MCP servers
              lists each server's tools)
            </span>
          </div>
          <ul>
            {mcp.map((s) => {
              const all = s.prefix + "*";
              const some = selected.filter((t) => t !== all && server(t) === s);
              return (
                <li key={s.name}>
                  <label className="tool-option">
                    <input type="checkbox" aria-label={all} checked={set.has(all)} onChange={(e) => toggle(all, e.target.checked)} />
                    <code>{all}</code>
                    <span className={s.trusted ? "mcp-trust trusted" : "mcp-trust"}>{s.trusted ? "trusted" : "untrusted"}</span>
                    <span className="tool-description muted">
                      every tool of {s.name} ({s.type === "stdio" ? s.command : s.url})
                    </span>
                  </label>
                  {some.length > 0 && (
                    <ul>
                      {some.map((t) => (
                        <li key={t}>
                          <label className="tool-option">
                            <input type="checkbox" aria-label={t} checked onChange={() => toggle(t, false)} />
                            <code>{t}</code>
                          </label>
                        </li>
                      ))}
                    </ul>
                  )}
                </li>
              );
            })}
          </ul>
        </div>
      )}
      {unknown.length > 0 && (
        <div className="tool-group" role="group" aria-labelledby={`${id}-unknown`}>
          <div className="tool-group-head" id={`${id}-unknown`}>
            <strong>Not offered by the server</strong>{" "}
            <span className="muted">uncheck these to save: the server refuses unknown tools</span>
          </div>
          <ul>
            {unknown.map((name) => (
              <li key={name}>
                <label className="tool-option">
                  <input type="checkbox" aria-label={name} checked onChange={() => toggle(name, false)} />
                  <code>{name}</code>
                </label>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
