import { useRef, useState, type KeyboardEvent, type PointerEvent } from "react";

type Props = {
  // The share of the first pane, in percent.
  value: number;
  min?: number;
  max?: number;
  onChange: (value: number) => void;
  // What it divides, for screen readers: "Resize transcript and graph".
  label: string;
  // The value a double click (or Enter) goes back to.
  reset?: number;
  "data-testid"?: string;
};

// Splitter is the divider between two panes side by side: drag it, or focus
// it and use the arrow keys (Shift for bigger steps), Home and End; a
// double click or Enter puts it back in the middle. It is a focusable
// separator (the ARIA window splitter pattern) whose value is the first
// pane's share of the width.
export function Splitter({ value, min = 20, max = 80, onChange, label, reset = 50, ...rest }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  const [dragging, setDragging] = useState(false);
  const clamp = (v: number) => Math.round(Math.min(max, Math.max(min, v)));

  function fromPointer(e: PointerEvent<HTMLDivElement>) {
    const box = ref.current?.parentElement?.getBoundingClientRect();
    if (!box || box.width <= 0) return;
    onChange(clamp(((e.clientX - box.left) / box.width) * 100));
  }

  function onKeyDown(e: KeyboardEvent<HTMLDivElement>) {
    const step = e.shiftKey ? 10 : 2;
    let next: number | undefined;
    switch (e.key) {
      case "ArrowLeft":
      case "ArrowUp":
        next = value - step;
        break;
      case "ArrowRight":
      case "ArrowDown":
        next = value + step;
        break;
      case "Home":
        next = min;
        break;
      case "End":
        next = max;
        break;
      case "Enter":
        next = reset;
        break;
      default:
        return;
    }
    e.preventDefault();
    onChange(clamp(next));
  }

  return (
    <div
      ref={ref}
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-valuenow={value}
      aria-valuemin={min}
      aria-valuemax={max}
      tabIndex={0}
      className={`splitter${dragging ? " dragging" : ""}`}
      title={`${label}: drag, or use the arrow keys; double-click to reset`}
      onKeyDown={onKeyDown}
      onDoubleClick={() => onChange(reset)}
      onPointerDown={(e) => {
        if (e.button !== 0) return;
        e.preventDefault();
        e.currentTarget.setPointerCapture?.(e.pointerId);
        setDragging(true);
      }}
      onPointerMove={(e) => dragging && fromPointer(e)}
      onPointerUp={(e) => {
        if (!dragging) return;
        e.currentTarget.releasePointerCapture?.(e.pointerId);
        setDragging(false);
      }}
      onPointerCancel={() => setDragging(false)}
      {...rest}
    />
  );
}
