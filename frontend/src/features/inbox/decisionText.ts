import type { ApprovalState } from "../../store/reducer";
import { timedOutText } from "./Expiry";
import { answerSummary } from "./QuestionCard";

// How "approve always" reads, by the scope of the grant it saved.
export const scopeText: Record<string, string> = { run: "in this run", agent: "for this agent", everywhere: "everywhere" };

// decisionText says how an interaction was answered, in a few words.
export function decisionText(
  a: Pick<ApprovalState, "kind" | "decision" | "source" | "feedback" | "scope" | "choices" | "text">,
): string {
  const question = a.kind === "question";
  if (a.source === "timeout") return timedOutText(a.decision, question) + (a.feedback ? `: ${a.feedback}` : "");
  const by = a.source ? ` (${a.source})` : "";
  if (question && a.decision === "deny") return `Declined${by}${a.feedback ? `: ${a.feedback}` : ""}`;
  switch (a.decision) {
    case "answer":
      return `Answered${by}: ${answerSummary(a.choices, a.text)}`;
    case "approve":
      return `Approved${by}${a.scope ? `, always ${scopeText[a.scope] ?? a.scope}` : ""}`;
    default:
      return `Denied${by}${a.feedback ? `: ${a.feedback}` : ""}`;
  }
}

