import { useState } from "react";
import type { GrantScope } from "../../api/types";

// Extent is how far an "always" grant reaches from the call asked about:
// the call's own file (or command, or site), the file's folder, or any
// call of the tool.
export type Extent = "call" | "folder" | "any";

export type AlwaysChoice = { scope: GrantScope; extent: Extent };

type Subject = { kind: "path"; path: string; dir?: string } | { kind: "command"; command: string } | { kind: "site"; host?: string } | { kind: "none" };

// grantSubject is what an "always" grant of the call is for, read from its
// arguments as the server's policy reads its key argument
// (policy.keyArgument): a path, a command line, a site.
export function grantSubject(tool: string, args: unknown): Subject {
  const a = (args && typeof args === "object" ? args : {}) as { path?: unknown; command?: unknown; url?: unknown };
  if (tool === "run_command" || typeof a.command === "string") {
    return typeof a.command === "string" ? { kind: "command", command: a.command.trim() } : { kind: "none" };
  }
  if (typeof a.url === "string") {
    try {
      return { kind: "site", host: new URL(a.url.trim()).hostname.toLowerCase() };
    } catch {
      return { kind: "none" };
    }
  }
  if (tool.startsWith("browser_")) return { kind: "site" }; // the page's host, the server's key
  if (typeof a.path === "string" && a.path !== "" && a.path !== ".") {
    const path = a.path.replaceAll("\\", "/").replace(/^\.\//, "");
    const cut = path.lastIndexOf("/");
    return { kind: "path", path, dir: cut > 0 ? path.slice(0, cut) : undefined };
  }
  return { kind: "none" };
}

const places: { scope: GrantScope; text: string; confirm?: string }[] = [
  { scope: "run", text: "in this run" },
  { scope: "agent", text: "for this agent", confirm: "every run of this agent, now and later" },
  { scope: "everywhere", text: "everywhere", confirm: "every run of every agent on this machine" },
];

// extents are the reaches a subject offers, with their words.
function extents(s: Subject): { extent: Extent; text: string }[] {
  switch (s.kind) {
    case "path":
      return [
        { extent: "call", text: `on ${s.path}` },
        ...(s.dir ? [{ extent: "folder" as const, text: `on any file in ${s.dir}/` }] : []),
        { extent: "any", text: "on any file" },
      ];
    case "command":
      return [
        { extent: "call", text: `for ${clip(s.command)}` },
        { extent: "any", text: "for any command" },
      ];
    case "site":
      return [
        { extent: "call", text: s.host ? `on ${s.host}` : "on this page's site" },
        { extent: "any", text: "on any site" },
      ];
    case "none":
      return [
        { extent: "call", text: "with these arguments" },
        { extent: "any", text: "with any arguments" },
      ];
  }
}

function clip(s: string): string {
  const line = s.split("\n")[0]!;
  return line.length > 32 || s.includes("\n") ? line.slice(0, 31) + "…" : line;
}

// alwaysText is the button's sentence: what will be allowed without asking.
export function alwaysText(tool: string, args: unknown, c: AlwaysChoice): string {
  const ext = extents(grantSubject(tool, args)).find((e) => e.extent === c.extent) ?? extents(grantSubject(tool, args))[0]!;
  const place = places.find((p) => p.scope === c.scope)!;
  return `Always allow ${tool} ${ext.text} ${place.text}`;
}

type Props = {
  tool: string;
  arguments: unknown;
  busy: boolean;
  onAlways: (c: AlwaysChoice) => void;
};

// Always approves the call and saves a grant, its reach on the button in
// words: the file, its folder or any file; this run, this agent or
// everywhere. A grant beyond the run asks once more.
export function Always({ tool, arguments: args, busy, onAlways }: Props) {
  const subject = grantSubject(tool, args);
  const options = extents(subject);
  const [choice, setChoice] = useState<AlwaysChoice>({ scope: "run", extent: "call" });
  const [confirming, setConfirming] = useState(false);
  const place = places.find((p) => p.scope === choice.scope)!;
  const text = alwaysText(tool, args, choice);

  if (confirming) {
    return (
      <div className="always-confirm" role="group" aria-label="Confirm the grant">
        <span>
          {text}? It holds for {place.confirm}, until you remove it in Settings.
        </span>
        <button type="button" className="approve" data-testid="always-confirm" disabled={busy} data-autofocus onClick={() => onAlways(choice)}>
          Confirm
        </button>
        <button type="button" disabled={busy} onClick={() => setConfirming(false)}>
          Back
        </button>
      </div>
    );
  }
  return (
    <div className="always-row">
      <button
        type="button"
        className="always"
        data-testid="always"
        disabled={busy}
        title="Approve, and let calls like this one run without asking"
        onClick={() => (place.confirm ? setConfirming(true) : onAlways(choice))}
      >
        {text}
      </button>
      <select aria-label="Always: for what" value={choice.extent} disabled={busy} onChange={(e) => setChoice({ ...choice, extent: e.target.value as Extent })}>
        {options.map((o) => (
          <option key={o.extent} value={o.extent}>
            {o.text}
          </option>
        ))}
      </select>
      <select aria-label="Always: where" value={choice.scope} disabled={busy} onChange={(e) => setChoice({ ...choice, scope: e.target.value as GrantScope })}>
        {places.map((p) => (
          <option key={p.scope} value={p.scope}>
            {p.text}
          </option>
        ))}
      </select>
    </div>
  );
}
