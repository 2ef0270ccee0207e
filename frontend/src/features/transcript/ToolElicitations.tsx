import type { Elicitation } from "../../store/elicitationFold";
import type { ToolNode } from "../../store/reducer";
import { ElicitationCard } from "../inbox/ElicitationCard";
import { Highlight } from "./Highlight";

// A request's message is the server's: one line of it is enough to tell
// which request a line is about.
const messageChars = 120;
// How many of a form's field names an answered request names.
const fieldNames = 3;

// ToolElicitations shows what the call's MCP server asked while it ran: the
// card to answer a request still waiting, and one line for each request
// answered, declined or dropped, which says what was sent only by the
// names of its fields.
export function ToolElicitations({ n }: { n: ToolNode }) {
  if (!n.elicitations?.length) return null;
  const open = n.status === "running" || n.status === "waiting" || n.status === "pending";
  return (
    <>
      {n.elicitations.map((x) =>
        x.state === "pending" && open ? (
          <ElicitationCard
            key={x.interactionId}
            interactionId={x.interactionId}
            server={x.server}
            tool={x.tool}
            message={x.message}
            schema={x.schema}
            url={x.url}
            expiresAt={x.expiresAt}
          />
        ) : (
          <p key={x.interactionId} className={`elicitation-line elicitation-${x.state}`} data-testid="tool-elicitation">
            <strong>{x.server || "MCP server"}</strong> asked: <Highlight text={oneLine(x.message)} />
            <span className="muted"> — {outcomeText(x)}</span>
          </p>
        ),
      )}
    </>
  );
}

// outcomeText says what became of a request, in a few words.
export function outcomeText(x: Elicitation): string {
  const by = x.source ? ` (${x.source})` : "";
  switch (x.state) {
    case "answered": {
      if (x.url !== undefined) return `answered${by}: done`;
      const names = x.content && typeof x.content === "object" ? Object.keys(x.content) : [];
      if (names.length === 0) return `answered${by}`;
      const more = names.length > fieldNames ? ` and ${names.length - fieldNames} more` : "";
      return `answered${by}: sent ${names.slice(0, fieldNames).join(", ")}${more}`;
    }
    case "declined":
      return `declined${by}`;
    case "cancelled":
      return x.source === "withdrawn" ? "withdrawn: the run was interrupted" : "no answer in time";
    default:
      return "no answer";
  }
}

function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > messageChars ? flat.slice(0, messageChars - 1) + "…" : flat;
}
