/**
 * The host-page API as one chunk (loaded by src/ui/embed-controller.ts through
 * ./deferred-host-api.ts): the transport with the schemas of every function, and the functions
 * themselves on the viewer.
 */
export { createHostApi } from './host-api';
export { createViewerApi } from '../viewer/viewer-api';
