import { ExternalTexture, type Camera, type InstancedMesh, type WebGLRenderer } from 'three';
import { CARD_COUNT_UNIFORM, CARD_SLOTS_UNIFORM, CARDS_PER_DRAW, setCardView } from './instance-impostor';
import type { GroupCulling } from './instance-culling';

/**
 * A culled group's card list (src/engine/instance-culling.ts): the slots of a pass's impostor-level
 * segment, in a texture the pulled cards read by their number (./instance-impostor.ts), made and
 * uploaded through three's GL state so that its cache of bound textures and pixel-store settings
 * stays true.
 */

/** The impostor level's slot list: an R32F texture, CARD_LIST_WIDTH slots a row, the pass's segment from texel 0. */
export interface CardList {
  readonly texture: WebGLTexture;
  /** The texture as three binds it (CARD_SLOTS_UNIFORM). */
  readonly external: ExternalTexture;
  /** The level the cards draw (the last). */
  readonly level: number;
}

/** Slots a row of a card list. */
export const CARD_LIST_WIDTH = 2048;

/** A card list of room for `slots` (null: no texture could be made). */
export function cardList(gl: WebGL2RenderingContext, state: WebGLRenderer['state'], slots: number, level: number): CardList | null {
  const texture = gl.createTexture();
  if (!texture) return null;
  state.bindTexture(gl.TEXTURE_2D, texture);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
  gl.texStorage2D(gl.TEXTURE_2D, 1, gl.R32F, CARD_LIST_WIDTH, Math.max(1, Math.ceil(slots / CARD_LIST_WIDTH)));
  const external = new ExternalTexture(texture);
  external.name = 'Instance card list';
  return { texture, external, level };
}

/**
 * Before a cards' draw of slots[first, first + n) of a pass's list (uploaded into the card list
 * when `upload`): the draw instances that hold them, and the uniforms the cards read.
 */
export function drawCards(culling: GroupCulling, mesh: InstancedMesh, camera: Camera, slots: Float32Array, first: number, n: number, upload: boolean): void {
  if (upload && n > 0) uploadCards(culling, slots, first, n);
  mesh.count = Math.ceil(n / CARDS_PER_DRAW);
  CARD_SLOTS_UNIFORM.value = culling.cards!.external;
  CARD_COUNT_UNIFORM.value = n;
  setCardView(camera, mesh.matrixWorld);
}

/** Uploads slots[first, first + n) into the card list from its first texel: whole rows in one call, the rest in another. */
function uploadCards(culling: GroupCulling, slots: Float32Array, first: number, n: number): void {
  const { gl, state } = culling;
  state.bindTexture(gl.TEXTURE_2D, culling.cards!.texture);
  state.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
  state.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false as unknown as number);
  state.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false as unknown as number);
  state.pixelStorei(gl.UNPACK_ROW_LENGTH, 0);
  state.pixelStorei(gl.UNPACK_SKIP_PIXELS, 0);
  state.pixelStorei(gl.UNPACK_SKIP_ROWS, 0);
  const rows = Math.floor(n / CARD_LIST_WIDTH);
  if (rows > 0) gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, CARD_LIST_WIDTH, rows, gl.RED, gl.FLOAT, slots, first);
  const rest = n - rows * CARD_LIST_WIDTH;
  if (rest > 0) gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, rows, rest, 1, gl.RED, gl.FLOAT, slots, first + rows * CARD_LIST_WIDTH);
}

export function disposeCards(culling: GroupCulling): void {
  const cards = culling.cards;
  if (!cards) return;
  if (CARD_SLOTS_UNIFORM.value === cards.external) CARD_SLOTS_UNIFORM.value = null;
  culling.gl.deleteTexture(cards.texture);
  culling.cards = null;
}

/** After a cards' draw: renderer.info counted the last draw instance's cards past the list, which are never drawn. */
export function uncountTail(renderer: WebGLRenderer, cards: InstancedMesh): void {
  if (cards.count === 0) return;
  const perCard = (cards.geometry.index?.count ?? 0) / CARDS_PER_DRAW / 3;
  renderer.info.render.triangles -= (cards.count * CARDS_PER_DRAW - CARD_COUNT_UNIFORM.value) * perCard;
}
