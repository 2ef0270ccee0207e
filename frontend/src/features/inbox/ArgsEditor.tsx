import type { Ref } from "react";

// parseArguments reads a person's edit of a tool call's arguments: a JSON
// object, or the message that says why it is not one. The server checks
// it against the tool's schema too; this catches what can be caught here.
export function parseArguments(text: string): { args: Record<string, unknown> } | { error: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    return { error: `Not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    const what = v === null ? "null" : Array.isArray(v) ? "an array" : `a ${typeof v}`;
    return { error: `The arguments must be a JSON object, not ${what}` };
  }
  return { args: v as Record<string, unknown> };
}

type Props = { value: string; onChange: (v: string) => void; invalid: boolean; ref?: Ref<HTMLTextAreaElement> };

// ArgsEditor is the text box of edit-then-approve: the arguments as pretty
// JSON, sized to them.
export function ArgsEditor({ value, onChange, invalid, ref }: Props) {
  const rows = Math.min(16, Math.max(3, value.split("\n").length));
  return (
    <textarea
      ref={ref}
      className="args-editor"
      aria-label="Edited arguments (JSON)"
      aria-invalid={invalid || undefined}
      data-testid="args-editor"
      spellCheck={false}
      rows={rows}
      value={value}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}
