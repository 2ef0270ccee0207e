// The UI's wire types, generated: src/api/schema.d.ts is what
// openapi-typescript makes of src/api/openapi.json, the server's OpenAPI
// document (itself written from the Go wire types by the Go test
// TestOpenAPIFile). src/api/types.ts names them for the rest of the UI.
//
//   node scripts/apitypes.mjs          writes src/api/schema.d.ts
//   node scripts/apitypes.mjs --check  fails when it is not what the document gives
//
// `make gen` runs both steps; the build and src/api/schema.test.ts check.

import fs from "node:fs";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";

export const documentPath = fileURLToPath(new URL("../src/api/openapi.json", import.meta.url));
export const schemaPath = fileURLToPath(new URL("../src/api/schema.d.ts", import.meta.url));

const header = `// Generated from openapi.json by scripts/apitypes.mjs (openapi-typescript);
// do not edit: change the Go wire types and run make gen.

`;

// generate returns the text of schema.d.ts for the document as committed.
export async function generate() {
  const doc = JSON.parse(fs.readFileSync(documentPath, "utf8"));
  const ast = await openapiTS(doc, { silent: true });
  return header + astToString(ast);
}

// committed returns the text of schema.d.ts as it is ("" when missing).
export function committed() {
  return fs.existsSync(schemaPath) ? fs.readFileSync(schemaPath, "utf8") : "";
}

async function main() {
  const text = await generate();
  if (process.argv.includes("--check")) {
    if (committed() !== text) {
      console.error("src/api/schema.d.ts is stale: it is not what src/api/openapi.json gives. Run make gen (or npm run gen) and commit it.");
      process.exit(1);
    }
    return;
  }
  fs.writeFileSync(schemaPath, text);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1])) {
  await main();
}
