// Builds the recording player (src/player) into dist-player/index.html: one
// file with every script and style inlined, so that `steward export
// --format html` can add a run's data to it and the page opens offline,
// from a file:// URL, without a single request.

import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// inlineEverything replaces the page's <script src> and <link
// rel=stylesheet> with the emitted code itself and drops the files, once
// Vite has written the HTML (enforce post: after vite:build-html). The build
// fails if any file is left beside index.html: the page could not load it.
function inlineEverything(): Plugin {
  return {
    name: "steward:inline-player",
    apply: "build",
    enforce: "post",
    generateBundle(_options, bundle) {
      const page = bundle["index.html"];
      if (!page || page.type !== "asset") this.error("player build: no index.html was emitted");
      let html = String(page.source);
      for (const [name, out] of Object.entries(bundle)) {
        if (name === "index.html") continue;
        const ref = new RegExp(`<script[^>]*\\ssrc="[^"]*${escapeRe(name)}"[^>]*></script>|<link[^>]*\\shref="[^"]*${escapeRe(name)}"[^>]*>`, "g");
        if (out.type === "chunk" && name.endsWith(".js")) {
          // Inside <script>, "</script" would end the element and "<!--"
          // could start an escaped section the tokenizer does not leave:
          // \x3C spells the same "<" in strings, templates and regexes.
          const code = out.code.replace(/<\/(script)/gi, "\\x3C/$1").replace(/<!--/g, "\\x3C!--");
          html = replaceOnce(html, ref, () => `<script type="module">${code}</script>`, name);
        } else if (out.type === "asset" && name.endsWith(".css")) {
          const css = String(out.source);
          if (/<\/style/i.test(css)) this.error(`player build: ${name} contains "</style": it cannot be inlined`);
          html = replaceOnce(html, ref, () => `<style>${css}</style>`, name);
        } else {
          this.error(`player build: ${name} would be a file beside index.html; the player must be one file`);
        }
        delete bundle[name];
      }
      page.source = html;
    },
  };
}

function replaceOnce(html: string, ref: RegExp, by: () => string, name: string): string {
  let n = 0;
  // A function replacement: "$&" and friends in the code stay as written.
  const out = html.replace(ref, () => (n++ === 0 ? by() : ""));
  if (n === 0) throw new Error(`player build: index.html does not reference ${name}`);
  return out;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export default defineConfig({
  root: here("./src/player"),
  base: "./",
  // No public folder: nothing may sit beside the page.
  publicDir: false,
  plugins: [react(), inlineEverything()],
  build: {
    outDir: here("./dist-player"),
    emptyOutDir: true,
    // Fonts or pictures a stylesheet names become data: URLs in it.
    assetsInlineLimit: () => true,
    cssCodeSplit: false,
    modulePreload: false,
    // One page, one script: the libraries are not worth a chunk each here.
    chunkSizeWarningLimit: 4096,
    rolldownOptions: {
      output: { codeSplitting: false },
    },
  },
});
