import type { HTMLAttributes } from "react";

// StatusBadge shows a run or node status in its colour. Its text is exactly
// the status, so tests can read it.
export function StatusBadge({ status, className, ...rest }: { status: string } & HTMLAttributes<HTMLSpanElement>) {
  return (
    <span className={`status status-${status} ${className ?? ""}`.trim()} {...rest}>
      {status}
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
