import { useEffect, useRef, type ReactNode } from "react";

type Props = {
  // The dialog's accessible name and its heading.
  title: string;
  onClose: () => void;
  children: ReactNode;
  "data-testid"?: string;
};

// Dialog is a modal box over the page: it takes the focus when it opens
// (its first button, or itself), gives it back when it closes, and closes
// on Escape or a click outside. Keys pressed in it stay in it: the page's
// shortcuts do not act behind it.
export function Dialog({ title, onClose, children, ...rest }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const close = useRef(onClose);
  useEffect(() => {
    close.current = onClose;
  });

  useEffect(() => {
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const first = box.current?.querySelector<HTMLElement>("[data-autofocus]") ?? box.current;
    first?.focus();
    return () => before?.focus?.();
  }, []);

  return (
    <div
      className="dialog-backdrop"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) close.current();
      }}
    >
      <div
        ref={box}
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-label={title}
        tabIndex={-1}
        onKeyDown={(e) => {
          e.stopPropagation();
          if (e.key === "Escape") {
            e.preventDefault();
            close.current();
          }
        }}
        {...rest}
      >
        <h2>{title}</h2>
        {children}
      </div>
    </div>
  );
}
