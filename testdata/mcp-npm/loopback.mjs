// Preloaded (node --import ./loopback.mjs) into a real MCP server that the
// tests run over HTTP: every server it starts listens on 127.0.0.1 only
// (server-everything listens on every interface), on the port it asks
// for (PORT=0: any free one), and the port it got is printed to stderr,
// where the test reads it.
import dns from "node:dns";
import net from "node:net";

// Given a host, net's listen looks it up first, and binds only after: a
// server whose address() is read right after listen() (the conformance
// suite's) would find none. 127.0.0.1 needs no look-up: answered at once,
// the bind is as immediate as without a host.
const lookup = dns.lookup;
dns.lookup = function (host, ...args) {
  const cb = args[args.length - 1];
  const opts = args.length > 1 ? args[0] : {};
  if (host === "127.0.0.1" && typeof cb === "function") {
    if (opts && typeof opts === "object" && opts.all) cb(null, [{ address: host, family: 4 }]);
    else cb(null, host, 4);
    return {};
  }
  return lookup.call(this, host, ...args);
};

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || typeof args[0] === "string") {
    const cb = args.find((a) => typeof a === "function");
    args = cb ? [Number(args[0]), "127.0.0.1", cb] : [Number(args[0]), "127.0.0.1"];
  }
  this.once("listening", () => {
    const a = this.address();
    if (a && typeof a === "object") console.error(`steward-test-listening ${a.address} ${a.port}`);
  });
  return listen.apply(this, args);
};
