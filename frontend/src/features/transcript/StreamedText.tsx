import { memo, useRef } from "react";
import type { Streamed } from "../../store/reducer";
import { Markdown, type RenderText } from "../../ui/markdown";
import { settledLength } from "../../ui/markdownStream";

// Segment is Markdown of one settled part of a streamed text: memoised on
// its text, so a part once drawn is not parsed or rendered again.
const Segment = memo(Markdown);

// Drawn is what StreamedText has made of a streamed text so far: the
// Streamed it last saw, the settled parts (settledLength) and the rest.
type Drawn = { head?: Streamed; parts: readonly string[]; tail: string };

const nothing: Drawn = { parts: [], tail: "" };

// advance is drawn brought up to head: the deltas added since drawn.head
// join the rest, and what of the rest has settled becomes a part. Only the
// deltas since the last render are read. A head that did not grow from
// drawn.head (another attempt) is drawn afresh.
export function advance(drawn: Drawn, head: Streamed | undefined): Drawn {
  if (head === drawn.head) return drawn;
  const added: string[] = [];
  let p = head;
  while (p !== undefined && p !== drawn.head) {
    added.push(p.text);
    p = p.prev;
  }
  const from = p === drawn.head ? drawn : nothing;
  let tail = from.tail + added.reverse().join("");
  let parts = from.parts;
  const cut = settledLength(tail);
  if (cut > 0) {
    parts = [...parts, tail.slice(0, cut)];
    tail = tail.slice(cut);
  }
  return { head, parts, tail };
}

// StreamedText renders a model call's text while it streams, as Markdown
// of the whole text would: each settled part once, and the part still
// growing on every delta. A long answer then costs a delta what the delta
// added and the paragraph it is in, not a parse and a render of all of it.
export function StreamedText({ streamed, renderText }: { streamed: Streamed | undefined; renderText: RenderText }) {
  const drawn = useRef<Drawn>(nothing);
  // A cache of a pure function of streamed: a render that is thrown away
  // leaves it as a later render would have made it.
  drawn.current = advance(drawn.current, streamed);
  const { parts, tail } = drawn.current;
  return (
    <>
      {parts.map((text, i) => (
        <Segment key={i} text={text} renderText={renderText} />
      ))}
      <Segment key="tail" text={tail} renderText={renderText} />
    </>
  );
}
