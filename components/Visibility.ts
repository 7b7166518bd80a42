import { MAX_ENTITIES } from './constants';

/** Per-node visibility (glTF node `visible`, default 1). Changed through setVisible in src/engine. */
export const Visibility = {
  visible: new Uint8Array(MAX_ENTITIES),
};
