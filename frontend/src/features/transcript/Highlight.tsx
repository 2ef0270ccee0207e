import { createContext, useContext } from "react";
import { splitMatches } from "./search";

// SearchQuery is the transcript's search, for the cards to mark what matches.
export const SearchQuery = createContext("");

// Highlight is text with the transcript search's matches marked.
export function Highlight({ text }: { text: string }) {
  const query = useContext(SearchQuery);
  if (!query.trim()) return <>{text}</>;
  return (
    <>
      {splitMatches(text, query).map((p, i) => (p.match ? <mark key={i}>{p.text}</mark> : p.text))}
    </>
  );
}
