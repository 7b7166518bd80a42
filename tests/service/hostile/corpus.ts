/**
 * The standing hostile-input corpus (issue 33, item 13): what every route of the service is sent by
 * tests/service/hostile-inputs.test.ts. A new route joins it by being listed in HOSTILE_ROUTES (the
 * test fails for a route of the app that is not listed here, and for a listed one the app lacks).
 *
 * Every hostile body carries MARKER, so that the test can find anything stored that should not be:
 * no hostile request is valid, so MARKER must appear nowhere in DATA_DIR afterwards.
 */

/** What a route's body is. */
export type BodyKind = 'none' | 'json' | 'upload' | 'image' | 'image-or-json' | 'form-or-json' | 'csp';

/** Every route of the app by `METHOD url` (as registered; HEAD and OPTIONS routes aside), with its body. */
export const HOSTILE_ROUTES: Readonly<Record<string, BodyKind>> = {
  'GET /': 'none',
  'GET /embed': 'none',
  'GET /embed/*': 'none',
  'GET /edit': 'none',
  'GET /edit/*': 'none',
  'GET /*': 'none',
  'GET /v1/config': 'none',
  'GET /v1/me': 'none',
  'POST /csp-reports': 'csp',
  'GET /auth/sign-in': 'none',
  'POST /auth/sign-in': 'form-or-json',
  'GET /auth/callback': 'none',
  'GET /.well-known/jwks.json': 'none',
  'GET /.well-known/openid-configuration': 'none',
  'POST /v1/meetings/:sceneId/guests': 'json',
  'GET /v1/scenes': 'none',
  'POST /v1/scenes': 'json',
  'GET /v1/scenes/:id': 'none',
  'PATCH /v1/scenes/:id': 'json',
  'PATCH /v1/scenes/:id/viewer-config': 'json',
  'POST /v1/scenes/:id/duplicate': 'json',
  'PUT /v1/scenes/:id/thumbnail': 'image-or-json',
  'POST /v1/scenes/:id/object-changes': 'json',
  'GET /v1/scenes/:id/groups/:groupId/instances': 'none',
  'POST /v1/scenes/:id/instance-changes': 'json',
  'GET /v1/scenes/:id/comments': 'none',
  'POST /v1/scenes/:id/comments': 'json',
  'GET /v1/scenes/:id/comments/:commentId': 'none',
  'PATCH /v1/scenes/:id/comments/:commentId': 'json',
  'DELETE /v1/scenes/:id/comments/:commentId': 'none',
  'POST /v1/scenes/:id/comments/:commentId/replies': 'json',
  'PATCH /v1/scenes/:id/comments/:commentId/replies/:replyId': 'json',
  'DELETE /v1/scenes/:id/comments/:commentId/replies/:replyId': 'none',
  'GET /v1/models/:id': 'none',
  'POST /v1/models/:id/apply-mutations': 'json',
  'GET /v1/models/:id/mutations': 'none',
  'POST /v1/models/:id/textures': 'image',
  'GET /v1/models/:id/textures/:textureId': 'none',
  'POST /v1/models': 'upload',
  'GET /v1/uploads/:uploadId': 'none',
  'GET /v1/assets': 'none',
  'POST /v1/assets': 'upload',
  'GET /v1/assets/:assetId': 'none',
  'GET /v1/assets/:assetId/thumbnail': 'none',
  'PUT /v1/assets/:assetId/thumbnail': 'image',
  'GET /cdn/assets/:assetId/model.3dxa': 'none',
  'GET /cdn/derivatives/*': 'none',
  'GET /cdn/thumbnails/*': 'none',
};

export const MARKER = 'HOSTILE4711';

/** Values put in place of a route's parameters besides the real ones. */
export const HOSTILE_PARAMS = ['..', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', 'x'.repeat(400), '%00', '%E0%A4%A', '__proto__', 'constructor', '%C0%AE%C0%AE', `${MARKER}%22%3E%3Cscript%3E`];

const nested = (depth: number, inner: string) => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

/** Every field name the API's bodies have, each given a value of the wrong type. */
const WRONG_TYPES = {
  name: { [MARKER]: 1 },
  title: [MARKER],
  text: { [MARKER]: true },
  mutations: MARKER,
  changes: MARKER,
  commit: MARKER,
  firstName: [MARKER],
  lastName: { [MARKER]: 1 },
  viewerConfig: MARKER,
  public: MARKER,
  editors: MARKER,
  hostOrigins: MARKER,
  commentsEnabled: MARKER,
  thumbnailUrl: { [MARKER]: 1 },
  position: MARKER,
  scene: MARKER,
  postprocessing: MARKER,
  uiConfig: MARKER,
  objects: MARKER,
  viewpoint: MARKER,
  status: { [MARKER]: 1 },
};

/** JSON bodies: each is invalid for every route (and carries MARKER). */
export const HOSTILE_JSON: readonly { label: string; body: string | Uint8Array; contentType?: string }[] = [
  { label: 'nested 10,000 deep', body: `{"name":"${MARKER}","title":"${MARKER}","a":${nested(10_000, '0')}}` },
  { label: 'escaped __proto__', body: `{"name":"${MARKER}","title":"${MARKER}","firstName":"${MARKER}","mutations":[],"\\u005f_proto__":{"isAdmin":true,"name":"${MARKER}"}}` },
  { label: 'escaped constructor.prototype', body: `{"name":"${MARKER}","scene":{"\\u0063onstructor":{"prototype":{"${MARKER}":1}}},"postprocessing":{"constructor":{"prototype":{}}}}` },
  { label: 'plain __proto__ deep inside', body: `{"viewerConfig":{"scene":{"fog":{"__proto__":{"${MARKER}":1}}}},"scene":{"a":{"__proto__":{"${MARKER}":1}}}}` },
  { label: 'an array', body: `["${MARKER}"]` },
  { label: 'a string', body: `"${MARKER}"` },
  { label: 'null', body: 'null' },
  { label: 'wrong types', body: JSON.stringify(WRONG_TYPES) },
  { label: 'NUL characters', body: `{"name":"${MARKER}\\u0000","title":"${MARKER}\\u0000","text":"${MARKER}\\u0000","firstName":"${MARKER}\\u0000","lastName":"x"}` },
  { label: 'not UTF-8', body: new Uint8Array([...new TextEncoder().encode(`{"name":"${MARKER}`), 0xff, 0xfe, 0xc3, ...new TextEncoder().encode(`","title":"${MARKER}","firstName":"${MARKER}"}`)]) },
  { label: 'over the size limit', body: `{"name":"${MARKER}${'x'.repeat(1_100_000)}"}` },
  { label: 'truncated JSON', body: `{"name":"${MARKER}","title":"${MARKER}` },
  { label: 'a duplicate key turning it invalid', body: `{"name":"ok","name":{"${MARKER}":1},"firstName":"ok","firstName":[1]}` },
  { label: 'a mutation batch of 100,000', body: `{"mutations":[${Array.from({ length: 100_000 }, () => '0').join(',')}],"name":{"${MARKER}":1}}` },
  { label: 'infinite numbers', body: `{"name":{"${MARKER}":1},"position":[1e999,-1e999,0],"createdAt":1e999}` },
  { label: 'as text/plain', body: `{"name":"${MARKER}"}`, contentType: 'text/plain' },
  { label: 'as a urlencoded form', body: `name=${MARKER}&firstName=${MARKER}`, contentType: 'application/x-www-form-urlencoded; charset=utf-8' },
  { label: 'with an unknown content type', body: MARKER, contentType: 'application/x-hostile' },
  { label: 'as multipart', body: `--b\r\nContent-Disposition: form-data; name="name"\r\n\r\n${MARKER}\r\n--b--\r\n`, contentType: 'multipart/form-data; boundary=b' },
];

const BOUNDARY = 'HostileBoundary';
const part = (headers: string, content: string) => `--${BOUNDARY}\r\n${headers}\r\n\r\n${content}\r\n`;

/** Upload bodies (raw and multipart): each is refused (and carries MARKER). */
export const HOSTILE_UPLOADS: readonly { label: string; body: string | Uint8Array; contentType: string; headers?: Record<string, string> }[] = [
  { label: 'bytes that are no model', body: `${MARKER}${'\u0001'.repeat(1000)}`, contentType: 'model/gltf-binary', headers: { 'x-file-name': `${MARKER}.glb` } },
  { label: 'a GLB header whose chunk is longer than the file', body: (() => {
    const bytes = new Uint8Array(64);
    const view = new DataView(bytes.buffer);
    view.setUint32(0, 0x46546c67, true);
    view.setUint32(4, 2, true);
    view.setUint32(8, 64, true);
    view.setUint32(12, 0xfffffff0, true);
    view.setUint32(16, 0x4e4f534a, true);
    bytes.set(new TextEncoder().encode(MARKER), 20);
    return bytes;
  })(), contentType: 'model/gltf-binary' },
  { label: 'a .gltf nested 100,000 deep', body: `{"asset":{"version":"2.0","generator":"${MARKER}"},"extras":${nested(100_000, '0')}}`, contentType: 'model/gltf+json', headers: { 'x-file-name': 'deep.gltf' } },
  { label: 'a .gltf whose buffer points outside', body: `{"asset":{"version":"2.0","generator":"${MARKER}"},"buffers":[{"uri":"../../../etc/passwd","byteLength":10}]}`, contentType: 'model/gltf+json', headers: { 'x-file-name': `../${MARKER}.gltf` } },
  { label: 'an empty raw body', body: '', contentType: 'model/gltf-binary' },
  { label: 'a form cut short', body: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${MARKER}.glb"\r\n\r\nglTF${MARKER}`, contentType: `multipart/form-data; boundary=${BOUNDARY}` },
  { label: 'a form part header without its end', body: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${MARKER}.glb"\r\n`, contentType: `multipart/form-data; boundary=${BOUNDARY}` },
  { label: 'a form with an empty file part', body: `${part(`Content-Disposition: form-data; name="file"; filename="${MARKER}.glb"`, '')}--${BOUNDARY}--\r\n`, contentType: `multipart/form-data; boundary=${BOUNDARY}` },
  { label: 'a form part without a name', body: `${part(`Content-Disposition: form-data; filename="${MARKER}.glb"`, MARKER)}--${BOUNDARY}--\r\n`, contentType: `multipart/form-data; boundary=${BOUNDARY}` },
  { label: 'a form with a __proto__ field', body: `${part('Content-Disposition: form-data; name="__proto__"', MARKER)}${part(`Content-Disposition: form-data; name="file"; filename="a.glb"`, MARKER)}--${BOUNDARY}--\r\n`, contentType: `multipart/form-data; boundary=${BOUNDARY}` },
  { label: 'a form of 300 files', body: `${Array.from({ length: 300 }, (_, i) => part(`Content-Disposition: form-data; name="f${i}"; filename="${MARKER}${i}.bin"`, MARKER)).join('')}--${BOUNDARY}--\r\n`, contentType: `multipart/form-data; boundary=${BOUNDARY}` },
  { label: 'multipart without a boundary', body: MARKER, contentType: 'multipart/form-data' },
  { label: 'JSON instead of a model', body: `{"name":"${MARKER}"}`, contentType: 'application/json' },
];

/** Image bodies: each is refused (and carries MARKER). */
export const HOSTILE_IMAGES: readonly { label: string; body: Uint8Array; contentType: string }[] = [
  { label: 'a PNG signature and no image', body: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new TextEncoder().encode(MARKER)]), contentType: 'image/jpeg' },
  { label: 'text sent as an image', body: new TextEncoder().encode(MARKER), contentType: 'image/png' },
  { label: 'an empty image', body: new Uint8Array(0), contentType: 'image/webp' },
  { label: 'an image of the wrong type', body: new TextEncoder().encode(MARKER), contentType: 'image/svg+xml' },
  { label: 'an image over the size limit', body: (() => {
    const bytes = new Uint8Array(17 * 1024 * 1024);
    bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    bytes.set(new TextEncoder().encode(MARKER), 8);
    return bytes;
  })(), contentType: 'image/png' },
];

/** Frames a meeting socket is sent, signed in or not: each is refused or ignored, never relayed as is. */
export const HOSTILE_FRAMES: readonly (string | Uint8Array)[] = [
  MARKER,
  `{"type":"AUTH_REQUEST","token":"${MARKER}"}`,
  '{"type":123}',
  '[]',
  'null',
  `{"type":"RFC","object":"__proto__","function":"constructor","args":["${MARKER}"]}`,
  `{"type":"RFC","object":"camera","function":"set","args":[${nested(20_000, `"${MARKER}"`)}]}`,
  `{"type":"RFC","object":"camera","function":"set","args":[{"\\u005f_proto__":{"${MARKER}":1}}]}`,
  `{"type":"RTC_REQUEST","content":{"to":"${'x'.repeat(200)}","signal":"${MARKER}"}}`,
  `{"type":"STATE_REQUEST","${MARKER}":${nested(30_000, '0')}}`,
  new Uint8Array([0xff, 0xfe, 0x00, 0x01, ...new TextEncoder().encode(MARKER)]),
  `{"type":"RFC","object":"x","function":"y","args":["${'x'.repeat(70 * 1024)}"]}`,
];
