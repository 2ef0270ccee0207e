import type { CallPreview } from "../../api/types";
import { useApp } from "../../store/context";
import { pretty } from "../../ui/format";
import { splitFileDiffs } from "../files/diff";
import { sandboxText } from "../transcript/SandboxNotice";
import { Diffs } from "../transcript/ToolDiffView";
import { argName, readArgsForm } from "./argsForm";

type Props = {
  runId: string;
  tool: string;
  arguments: unknown;
  preview?: CallPreview;
  // The tool's argument schema, when known: its titles label the arguments.
  schema?: unknown;
};

// CallView is what a call asked about will do, as a person judges it: the
// diff of what it would change (its tool's preview, against the files as
// they are), a command as the line it runs (never JSON-escaped) with its
// folder and whether it is sandboxed, anything else as its arguments:
// labelled by its tool's schema (an MCP tool's titles and descriptions)
// when there is one, as JSON otherwise.
export function CallView({ runId, tool, arguments: args, preview, schema }: Props) {
  const command = commandOf(tool, args);
  if (preview?.diff || preview?.note) {
    const files = preview.diff ? splitFileDiffs(preview.diff).files : [];
    return (
      <div className="call-view" data-testid="call-preview">
        {files.length > 0 && <Diffs diff={{ from: "arguments", files, numbered: true }} label="What will change" />}
        {preview.note && <p className="muted call-note">{preview.note}</p>}
      </div>
    );
  }
  if (command) return <CommandLine runId={runId} {...command} />;
  const fields = readArgsForm(schema);
  if (fields && args && typeof args === "object" && !Array.isArray(args)) return <ArgsView fields={fields} args={args as Record<string, unknown>} />;
  return <pre className="json">{pretty(args)}</pre>;
}

// ArgsView shows a call's arguments one a line, in its schema's order and
// with its labels; arguments the schema does not name come last, by name.
function ArgsView({ fields, args }: { fields: NonNullable<ReturnType<typeof readArgsForm>>; args: Record<string, unknown> }) {
  const named = fields.map((f) => (f.kind === "field" ? f.field : f)).map((f) => ({ name: f.name, label: f.label, help: f.help }));
  const known = new Set(fields.map(argName));
  const rows = [...named.filter((f) => f.name in args), ...Object.keys(args).filter((k) => !known.has(k)).sort().map((name) => ({ name, label: name, help: undefined }))];
  if (rows.length === 0) return <p className="muted call-note">No arguments.</p>;
  return (
    <dl className="call-view args-view" data-testid="args-view">
      {rows.map((r) => {
        const v = args[r.name];
        return (
          <div key={r.name} className="args-view-row">
            <dt title={r.help}>{r.label}</dt>
            <dd>{typeof v === "string" ? <pre className="args-value">{v}</pre> : <code>{JSON.stringify(v)}</code>}</dd>
          </div>
        );
      })}
    </dl>
  );
}

export type Command = { command: string; cwd?: string };

// commandOf reads run_command's command line and folder from its
// arguments; undefined for any other call, or one without a command.
export function commandOf(tool: string, args: unknown): Command | undefined {
  if (tool !== "run_command" || !args || typeof args !== "object") return undefined;
  const a = args as { command?: unknown; cwd?: unknown };
  if (typeof a.command !== "string") return undefined;
  return { command: a.command, cwd: typeof a.cwd === "string" && a.cwd !== "" && a.cwd !== "." ? a.cwd : undefined };
}

// CommandLine shows a command as a shell shows it, with where it runs.
export function CommandLine({ runId, command, cwd }: Command & { runId: string }) {
  const sandbox = useApp((s) => s.stream.runs[runId]?.sandbox);
  const box = sandbox ? (sandbox.confined ? (sandbox.network === "on" ? "sandboxed, with network" : "sandboxed, no network") : "not sandboxed") : undefined;
  return (
    <div className="call-view command-view" data-testid="command-view">
      <pre className="command-line">
        <span className="prompt" aria-hidden="true">
          ${" "}
        </span>
        {command}
      </pre>
      <p className="muted command-where">
        in <code>{cwd ?? "the workspace root"}</code>
        {box && (
          <>
            {" · "}
            <span className={sandbox?.confined ? "" : "unconfined"} title={sandbox ? sandboxText(sandbox) : undefined} data-testid="command-sandbox">
              {box}
            </span>
          </>
        )}
      </p>
    </div>
  );
}
