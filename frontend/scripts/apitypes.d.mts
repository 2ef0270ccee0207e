// Types of scripts/apitypes.mjs, for src/api/schema.test.ts.
export declare const documentPath: string;
export declare const schemaPath: string;
export declare function generate(): Promise<string>;
export declare function committed(): string;
