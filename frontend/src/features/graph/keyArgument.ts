// What a tool call is about, in a few words, read from its arguments: the
// path of a file tool, the command line of run_command, the host of a page
// the browser opens, the pattern of a search, the first string argument of
// an MCP tool. The graph's node shows it after the tool's name
// ("edit_file src/calc.py"). It is the same choice the policy makes for its
// rules (backend/policy KeyArgument: command, then url's host, then path),
// widened with what a person wants to read and a rule does not match on
// (a search's pattern, a question, a commit message). The arguments are the
// model's: anything may be in them, and nothing here throws.

// keyArgumentMax bounds the text: a node shows about 30 characters, its
// tooltip the rest; a 10 kB command line is not worth carrying further.
export const keyArgumentMax = 120;

type Args = Readonly<Record<string, unknown>>;

// keyArgument is the key argument of a call of tool with args, on one line
// and at most keyArgumentMax characters; "" when there is none to show.
export function keyArgument(tool: string, args: unknown): string {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return "";
  return clip(pick(tool, args as Args));
}

function pick(tool: string, a: Args): string {
  switch (tool) {
    case "run_command":
      return str(a.command);
    case "grep":
    case "glob":
      return str(a.pattern) && str(a.path) ? `${str(a.pattern)} in ${str(a.path)}` : str(a.pattern) || str(a.path);
    case "list_dir":
      return str(a.path) || "."; // lists the root by default
    case "apply_patch":
      return patchFiles(str(a.patch));
    case "browser_act":
      return joined(str(a.action), str(a.ref) || str(a.value));
    case "ask_user":
      return str(a.question);
    case "git_commit":
      return firstLine(str(a.message));
    case "update_plan":
      return Array.isArray(a.steps) ? `${a.steps.length} step${a.steps.length === 1 ? "" : "s"}` : "";
  }
  if (typeof a.command === "string") return a.command;
  if (typeof a.url === "string") return host(a.url);
  if (typeof a.path === "string") return a.path;
  // An MCP tool (mcp__server__tool), or one Steward does not know: its
  // first argument that is text.
  for (const v of Object.values(a)) if (typeof v === "string" && v.trim() !== "") return v;
  return "";
}

// host is the host of an http(s) address, as a person names a site; any
// other address (about:blank, a file:, something that does not parse) as
// it was given.
function host(raw: string): string {
  const s = raw.trim();
  try {
    const u = new URL(s);
    if ((u.protocol === "http:" || u.protocol === "https:") && u.hostname) return u.hostname;
  } catch {
    // not an absolute address: shown as it is
  }
  return s;
}

// patchFiles names the files a unified diff changes: the first, and how
// many more ("src/a.py +2").
function patchFiles(patch: string): string {
  const files: string[] = [];
  for (const m of patch.matchAll(/^\+\+\+ (?:b\/)?([^\t\n]+)/gm)) {
    const f = m[1]!.trim();
    if (f !== "/dev/null" && !files.includes(f)) files.push(f);
  }
  if (files.length === 0) {
    for (const m of patch.matchAll(/^--- (?:a\/)?([^\t\n]+)/gm)) {
      const f = m[1]!.trim();
      if (f !== "/dev/null" && !files.includes(f)) files.push(f);
    }
  }
  if (files.length === 0) return "";
  return files.length === 1 ? files[0]! : `${files[0]} +${files.length - 1}`;
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function joined(a: string, b: string): string {
  return a && b ? `${a} ${b}` : a || b;
}

function firstLine(s: string): string {
  return s.trim().split("\n", 1)[0] ?? "";
}

// clip puts text on one line (white space of any kind, control characters
// included, becomes one space) and cuts it at keyArgumentMax.
function clip(s: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = s.replace(/[\s\u0000-\u001f\u007f]+/g, " ").trim();
  return flat.length > keyArgumentMax ? flat.slice(0, keyArgumentMax - 1) + "…" : flat;
}
