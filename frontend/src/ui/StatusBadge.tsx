import type { HTMLAttributes } from "react";
import { statusTone } from "./status";

type Props = {
  status: string;
  // Words to show instead of the status ("waiting for approval"); the
  // colour stays the status's own.
  label?: string;
} & HTMLAttributes<HTMLSpanElement>;

// StatusBadge shows a run or node status in its colour. Its text is exactly
// the status unless a label is given, so tests can read it.
export function StatusBadge({ status, label, className, ...rest }: Props) {
  return (
    <span className={`status status-${status} tone-${statusTone(status)} ${className ?? ""}`.trim()} {...rest}>
      {label ?? status}
    </span>
  );
}

// DemoLabel marks what runs the built-in demo script instead of a model.
export function DemoLabel() {
  return (
    <span className="demo-label" data-testid="demo-label" title="No model is configured: the built-in demo script plays instead">
      Demo script
    </span>
  );
}
