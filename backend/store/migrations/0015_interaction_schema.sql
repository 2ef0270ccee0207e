-- The JSON schema of the tool's arguments when the call was asked about
-- ('' when unknown): the inbox builds its edit form from it across runs,
-- for an MCP server's tools too, which no catalog lists.
ALTER TABLE interactions ADD COLUMN schema TEXT NOT NULL DEFAULT '';
