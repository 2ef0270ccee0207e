import { createContext, useContext } from "react";

// CardState keeps, per run view, which tool cards a person opened or closed
// (by node id): a card leaves the DOM when scrolled out of a long
// transcript, and must come back as it was. current is the search's
// current match: it shows open, whatever was chosen, so that its matching
// text can be seen.
export type CardState = {
  choice: (nodeId: string) => boolean | undefined;
  setOpen: (nodeId: string, open: boolean) => void;
  current?: string;
};

export const CardStateContext = createContext<CardState>({ choice: () => undefined, setOpen: () => {} });

export function useCardOpen(nodeId: string, long: boolean): [boolean, (open: boolean) => void] {
  const c = useContext(CardStateContext);
  const open = c.current === nodeId || (c.choice(nodeId) ?? !long);
  return [open, (o) => c.setOpen(nodeId, o)];
}
