// `npm run api-docs`: writes the host API's reference from its schemas (src/protocol/host-api.ts)
// to docs/host-api.md and public/api/reference.html. tests/unit/protocol/host-api-docs.test.ts
// fails when either is out of date.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { htmlReference, markdownReference } from '../src/protocol/host-api-docs.ts';

const root = resolve(import.meta.dirname, '..');
writeFileSync(resolve(root, 'docs/host-api.md'), markdownReference());
writeFileSync(resolve(root, 'public/api/reference.html'), htmlReference());
console.log('Wrote docs/host-api.md and public/api/reference.html');
