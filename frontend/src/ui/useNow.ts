import { useEffect, useState } from "react";

// useNow returns the current time, refreshed every intervalMs, for labels
// such as a run's age.
export function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(id);
  }, [intervalMs]);
  return now;
}
