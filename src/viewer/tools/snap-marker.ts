import { BufferAttribute, BufferGeometry, Color, Points, type ShaderMaterial, type Vector3 } from 'three';
import { createPointMaterial, onHelperLayer } from './helper-materials';

/** Colours of the marker under the pointer: on a vertex (snapped), on a surface, refused. */
export const SNAP_COLOR = 0x22e08a;
export const SURFACE_COLOR = 0xffffff;
export const REFUSED_COLOR = 0xff4d4f;

/**
 * The marker that follows the pointer while a measurement tool hovers the model: green and larger
 * on a snapped vertex, white on a plain surface point, red where a point would be refused (off the
 * area's plane). One point on the helper layer; moving it writes into its one position attribute.
 */
export interface SnapMarker {
  readonly object: Points;
  show(point: Vector3, kind: 'snap' | 'surface' | 'refused'): void;
  hide(): void;
  readonly visible: boolean;
  dispose(): void;
}

export function createSnapMarker(): SnapMarker {
  const position = new BufferAttribute(new Float32Array(3), 3);
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', position);
  const material: ShaderMaterial = createPointMaterial(SNAP_COLOR, 14);
  const object = onHelperLayer(new Points(geometry, material));
  object.name = 'Snap marker';
  object.frustumCulled = false;
  object.visible = false;
  object.renderOrder = 1002;
  const color = material.uniforms.color.value as Color;
  return {
    object,
    show(point, kind) {
      position.setXYZ(0, point.x, point.y, point.z);
      position.needsUpdate = true;
      color.setHex(kind === 'snap' ? SNAP_COLOR : kind === 'surface' ? SURFACE_COLOR : REFUSED_COLOR);
      material.uniforms.size.value = kind === 'snap' ? 16 : 11;
      object.visible = true;
    },
    hide() {
      object.visible = false;
    },
    get visible() {
      return object.visible;
    },
    dispose() {
      object.removeFromParent();
      geometry.dispose();
      material.dispose();
    },
  };
}
