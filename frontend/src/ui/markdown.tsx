import "./markdown.css";
import { memo, useMemo, type ReactNode } from "react";
import ReactMarkdown, { type Components, type Options } from "react-markdown";
import remarkGfm from "remark-gfm";
import { highlightCode, textTag, tidy } from "./markdownTree";

// Model text as GitHub-flavoured Markdown (react-markdown with remark-gfm:
// tables, task lists, strikethrough, autolinks, footnotes), fenced code
// coloured by highlight.js (markdownTree). A model's text is hostile, so:
//   - no HTML: what the model writes as HTML is shown as the text it is
//     (no rehype-raw; markdownTree's tidy turns it into text);
//   - links only to http(s) and mailto URLs, opened outside the app with
//     no opener and no referrer; any other link (javascript:, data:, a
//     relative or in-page one) is its text alone;
//   - no image is loaded: a model must not make the UI fetch a URL (it
//     would tell a server the run is being read, or what is in it); an
//     image is a link to its URL, labelled with its alt text.
//
// What it costs (measured): 72 KB gzip in the bundle (react-markdown 40,
// remark-gfm 15, highlighting 25, sharing some), and a render of a 20 KB
// answer about 30 times what the hand-written renderer it replaced took;
// streamed text therefore renders only its last, unsettled part on each
// delta (markdownStream, transcript/StreamedText).

export type RenderText = (text: string) => ReactNode;

const schemes = new Set(["http:", "https:", "mailto:"]);

// safeUrl is url, normalised, when it is an absolute http, https or mailto
// URL, else undefined.
export function safeUrl(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined; // relative, or no URL at all
  }
  return schemes.has(u.protocol) ? u.href : undefined;
}

const urlTransform = (url: string) => safeUrl(url) ?? "";

type PluggableList = NonNullable<Options["rehypePlugins"]>;

const remarkPlugins: PluggableList = [remarkGfm];
const rehypePlain: PluggableList = [highlightCode, tidy];
const rehypeWrapped: PluggableList = [highlightCode, [tidy, { wrapText: true }]];

// heading draws # as an h3: the page and the transcript own the levels
// above; the class says the Markdown level.
const heading = (level: number) =>
  function Heading({ children }: { children?: ReactNode }) {
    const H = `h${Math.min(level + 2, 6)}` as "h3" | "h4" | "h5" | "h6";
    return <H className={`md-h${level}`}>{children}</H>;
  };

const external = { target: "_blank", rel: "noopener noreferrer" } as const;

const components: Components = {
  a: ({ href, children }) => (href ? <a href={href} {...external}>{children}</a> : <>{children}</>),
  img: ({ src, alt }) => {
    const label = alt || "image";
    return typeof src === "string" && src ? (
      <a className="md-image" href={src} {...external} title={`Image, not loaded: ${src}`}>
        {label}
      </a>
    ) : (
      <span className="md-image">{label}</span>
    );
  },
  h1: heading(1),
  h2: heading(2),
  h3: heading(3),
  h4: heading(4),
  h5: heading(5),
  h6: heading(6),
  pre: ({ node: _node, ...props }) => <pre {...props} className="md-code" />,
  // A wide table scrolls in its own box, not the transcript.
  table: ({ children }) => (
    <div className="md-table">
      <table>{children}</table>
    </div>
  ),
  // A task list's box shows the state the model wrote; nobody ticks it.
  input: ({ checked }) => <input type="checkbox" checked={!!checked} disabled aria-label={checked ? "done" : "not done"} />,
};

type MarkdownProps = {
  text: string;
  // renderText renders each run of plain text, e.g. to mark search matches.
  // Pass a stable function: the components are memoised on it.
  renderText?: RenderText;
};

// bracketLimit is how many brackets a text may have and be parsed for
// links: the parser's matching of a label's [ and ] is quadratic (here
// 10,000 [ take 2 s, 20,000 take 7 s, and 10,000 ] 1 s). Past it they are
// escaped: a text of that many is no list of links, and it must not
// freeze the page.
const bracketLimit = 2000;

// parseable is text as it is given to the parser.
function parseable(text: string): string {
  let n = 0;
  for (const c of text) if ((c === "[" || c === "]") && ++n > bracketLimit) return text.replace(/[[\]]/g, "\\$&");
  return text;
}

function MarkdownView({ text, renderText }: MarkdownProps) {
  const src = useMemo(() => parseable(text), [text]);
  const withText = useMemo(
    () => (renderText ? ({ ...components, [textTag]: ({ children }: { children?: ReactNode }) => renderText(String(children ?? "")) } as Components) : components),
    [renderText],
  );
  return (
    <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={renderText ? rehypeWrapped : rehypePlain} urlTransform={urlTransform} components={withText}>
      {src}
    </ReactMarkdown>
  );
}

// Markdown renders text as GitHub-flavoured Markdown, again only when text
// or renderText change.
export const Markdown = memo(MarkdownView);
