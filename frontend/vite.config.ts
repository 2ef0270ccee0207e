import react from "@vitejs/plugin-react";
import { searchForWorkspaceRoot, type ProxyOptions } from "vite";
import { defineConfig } from "vitest/config";

// The Go server (`steward serve`) listens here by default.
const backend = "http://127.0.0.1:8787";

// The server refuses requests whose Host or Origin is not its own loopback
// address (DNS rebinding), so the dev proxy presents the backend's origin.
const asBackend: ProxyOptions = {
  target: backend,
  changeOrigin: true,
  configure: (proxy) => {
    proxy.on("proxyReq", (req) => req.setHeader("origin", backend));
    proxy.on("proxyReqWs", (req) => req.setHeader("origin", backend));
  },
};

export default defineConfig({
  plugins: [react()],
  server: {
    // The fold fixtures (recorded logs with the conversation the Go fold
    // gives) live beside the Go fold; the player's tests read them too.
    fs: { allow: [searchForWorkspaceRoot(process.cwd()), "../backend/run/testdata/fold"] },
    proxy: {
      "/api": { ...asBackend, ws: true },
      "/healthz": asBackend,
      // Opening the dev server as /?token=... lets the backend set the session
      // cookie and redirect to /.
      "^/\\?token=": asBackend,
    },
  },
  build: {
    outDir: "dist",
    // The UI is served from the loopback server only: no CDN, no preload polyfill fetches.
    modulePreload: { polyfill: false },
    // Libraries in chunks of their own: each stays under the size warning,
    // and a change to the app does not change (or re-download) them.
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: "react", test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/, priority: 20 },
            { name: "graph", test: /node_modules[\\/](@xyflow|@dagrejs|d3-[a-z-]+|classcat)[\\/]/, priority: 15 },
            { name: "vendor", test: /node_modules[\\/]/, priority: 10 },
          ],
        },
      },
    },
  },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.{ts,tsx}"],
    setupFiles: ["src/test/setup.ts"],
  },
});
