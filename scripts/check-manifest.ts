// Validates manifest.yml against Slack's published app manifest JSON Schema (draft-07).
// Usage: tsx scripts/check-manifest.ts <path/to/manifest.schema.json> [manifest.yml]
// The schema's $refs are absolute URLs to its versioned sub-schemas; they are mapped to the
// files sitting beside the dispatcher so the check runs offline.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

const [schemaPath, manifestPath = 'manifest.yml'] = process.argv.slice(2);
if (!schemaPath) {
  console.error('usage: check-manifest <manifest.schema.json> [manifest.yml]');
  process.exit(2);
}

const readJson = (path: string): Record<string, unknown> => JSON.parse(readFileSync(path, 'utf8'));
const dispatcher = readJson(schemaPath);
const ajv = new Ajv({ allErrors: true, strict: false });
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => void;
addFormats(ajv);

const refs = [...JSON.stringify(dispatcher).matchAll(/"\$ref":"(https?:[^"#]+)/g)].map((m) => m[1]!);
const siblings = readdirSync(dirname(schemaPath));
for (const url of new Set(refs)) {
  const file = url.slice(url.lastIndexOf('/') + 1);
  if (!siblings.includes(file)) {
    console.error(`manifest check: ${file} (referenced by the schema) is not beside ${schemaPath}`);
    process.exit(2);
  }
  const sub = readJson(join(dirname(schemaPath), file));
  delete sub.$id;
  ajv.addSchema(sub, url);
}

const manifest = parse(readFileSync(manifestPath, 'utf8')) as unknown;
const validate = ajv.compile(dispatcher);
if (!validate(manifest)) {
  for (const error of validate.errors ?? []) {
    console.error(`${manifestPath}${error.instancePath || '/'}: ${error.message ?? 'invalid'}`);
  }
  process.exit(1);
}
console.log(`${manifestPath} is valid against ${schemaPath}`);
