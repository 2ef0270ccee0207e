// Preloaded (node --import ./bearer.mjs) into a program that reaches
// Steward's /mcp, which the MCP conformance suite's server mode does with
// no way to add a header: every HTTP request made through fetch or undici
// (the suite uses both) carries Authorization: Bearer $STEWARD_MCP_BEARER,
// as a client configured with Steward's token sends it.
import { Agent, Dispatcher, setGlobalDispatcher } from "undici";

const token = process.env.STEWARD_MCP_BEARER;
if (!token) throw new Error("bearer.mjs: STEWARD_MCP_BEARER is not set");
const value = `Bearer ${token}`;

// withAuth adds the header to headers in any of the shapes undici takes
// (none, an object, a flat array of names and values, or pairs).
function withAuth(headers) {
  if (headers == null) return { authorization: value };
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) return [...headers, ["authorization", value]];
    return [...headers, "authorization", value];
  }
  if (typeof headers[Symbol.iterator] === "function") return [...headers, ["authorization", value]];
  return { ...headers, authorization: value };
}

class Bearer extends Dispatcher {
  constructor(inner) {
    super();
    this.inner = inner;
  }
  dispatch(opts, handler) {
    return this.inner.dispatch({ ...opts, headers: withAuth(opts.headers) }, handler);
  }
  close(...args) {
    return this.inner.close(...args);
  }
  destroy(...args) {
    return this.inner.destroy(...args);
  }
}

setGlobalDispatcher(new Bearer(new Agent()));
