import "./inbox.css";
import { useId, useState } from "react";
import type { Answer, Question } from "../../api/types";
import { Expiry } from "./Expiry";
import { useAnswer } from "./useAnswer";

type Props = {
  interactionId: string;
  question: Question;
  expiresAt?: number;
};

// QuestionCard shows what an agent asks (an ask_user call) and sends the
// answer: one option (radio buttons), several (checkboxes), and a free-text
// "Other" answer when the question allows it or has no options at all. A
// person may also decline to answer.
export function QuestionCard({ interactionId, question, expiresAt }: Props) {
  const { busy, error, sent, send } = useAnswer(interactionId);
  const name = useId();
  const options = question.options ?? [];
  const freeOnly = options.length === 0;
  const multiple = !!question.multiple;
  const [chosen, setChosen] = useState<string[]>([]);
  const [otherOn, setOtherOn] = useState(false);
  const [other, setOther] = useState("");

  const otherText = other.trim();
  const answer = buildAnswer();
  const ready = answer !== undefined;

  function buildAnswer(): Answer | undefined {
    if (freeOnly) return otherText ? { decision: "answer", text: otherText } : undefined;
    const text = otherOn && otherText ? otherText : undefined;
    if (multiple) {
      if (chosen.length === 0 && !text) return undefined;
      return { decision: "answer", ...(chosen.length ? { choices: chosen } : {}), ...(text ? { text } : {}) };
    }
    if (otherOn) return text ? { decision: "answer", text } : undefined;
    return chosen[0] !== undefined ? { decision: "answer", choices: [chosen[0]] } : undefined;
  }

  function pick(label: string, on: boolean) {
    if (multiple) {
      setChosen((c) => (on ? [...c.filter((l) => l !== label), label] : c.filter((l) => l !== label)));
      return;
    }
    // One choice: an option and "Other" exclude each other.
    setChosen(on ? [label] : []);
    setOtherOn(false);
  }

  function pickOther(on: boolean) {
    setOtherOn(on);
    if (on && !multiple) setChosen([]);
  }

  // Typing an answer of one's own chooses "Other".
  function typeOther(v: string) {
    setOther(v);
    if (!freeOnly && v.trim() !== "" && !otherOn) pickOther(true);
  }

  const kind = multiple ? "checkbox" : "radio";
  return (
    <div className="question" role="group" aria-label="Question from the agent" data-testid="question-card" data-interaction-id={interactionId}>
      <div className="approval-head">
        <strong>Question from the agent</strong>
        {expiresAt && !sent ? <Expiry expiresAt={expiresAt} question /> : null}
      </div>
      <p className="question-text">{question.text}</p>
      {sent ? (
        <p className="muted" data-testid="question-sent">
          {sent.decision === "deny" ? "Declined" : `Answer sent: ${answerSummary(sent.choices, sent.text)}`}
        </p>
      ) : (
        <form
          className="question-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (answer && !busy) void send(answer);
          }}
        >
          {!freeOnly && (
            <fieldset className="question-options">
              <legend className="muted">{multiple ? "Choose one or more" : "Choose one"}</legend>
              {options.map((o) => (
                <label key={o.label} className="question-option">
                  <input type={kind} name={name} checked={chosen.includes(o.label)} onChange={(e) => pick(o.label, e.target.checked)} />
                  <span>
                    {o.label}
                    {o.description && <span className="muted"> — {o.description}</span>}
                  </span>
                </label>
              ))}
              {question.allow_other && (
                <label className="question-option">
                  <input type={kind} name={name} checked={otherOn} onChange={(e) => pickOther(e.target.checked)} />
                  <span>Other</span>
                </label>
              )}
            </fieldset>
          )}
          {freeOnly ? (
            <textarea aria-label="Answer" rows={2} value={other} placeholder="Your answer" onChange={(e) => typeOther(e.target.value)} />
          ) : (
            question.allow_other && (
              <input type="text" aria-label="Other answer" value={other} placeholder="Other: your own answer" onChange={(e) => typeOther(e.target.value)} />
            )
          )}
          <div className="approval-actions">
            <button type="submit" className="approve" data-testid="question-send" disabled={busy || !ready}>
              Send
            </button>
            <button
              type="button"
              className="deny"
              data-testid="question-decline"
              disabled={busy}
              title="Do not answer: the agent is told the question was declined"
              onClick={() => void send({ decision: "deny" })}
            >
              Decline
            </button>
          </div>
        </form>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

// answerSummary is a question's answer in one line: the chosen options,
// then the person's own words.
export function answerSummary(choices: string[] | undefined, text: string | undefined): string {
  const parts = [...(choices ?? [])];
  if (text) parts.push(choices?.length ? `other: ${text}` : text);
  return parts.join(", ") || "(empty)";
}
