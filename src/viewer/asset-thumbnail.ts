import { ACESFilmicToneMapping, Box3, DirectionalLight, HemisphereLight, Mesh, PerspectiveCamera, PMREMGenerator, Scene, Vector3, WebGLRenderer } from 'three';
import type { Material, Object3D, Texture } from 'three';
import { RoomEnvironment } from 'three/examples/jsm/environments/RoomEnvironment.js';
import { decodeContainerInWorker } from '../scene/container-client';
import { fetchBinary } from '../scene/fetch';
import { createModelLoader, type ModelLoader } from '../scene/gltf';

/**
 * An asset's thumbnail, rendered in the browser once after upload (or when the library finds an
 * asset without one) and stored beside the asset on the server: the same container decode and
 * glTF loader as the viewer, so the picture shows what the viewer will draw (PBR with a neutral
 * room environment), with no GPU or GL library on the server. One offscreen renderer for the
 * page, one picture at a time.
 */

export const THUMBNAIL_FOV = 30;
/** The view direction: from the front right, a little above (a three-quarter view). */
const VIEW = new Vector3(1, 0.75, 1.4).normalize();

/** Where the camera goes to show a box whole in a square picture: position, target, near, far. */
export function thumbnailCamera(min: [number, number, number], max: [number, number, number], fovDegrees = THUMBNAIL_FOV): { position: [number, number, number]; target: [number, number, number]; near: number; far: number } {
  const center: [number, number, number] = [(min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2];
  const radius = Math.max(1e-3, Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) / 2);
  // The bounding sphere fits the narrower half-angle, with a small margin.
  const distance = (radius / Math.sin((fovDegrees * Math.PI) / 360)) * 1.02;
  return {
    position: [center[0] + VIEW.x * distance, center[1] + VIEW.y * distance, center[2] + VIEW.z * distance],
    target: center,
    near: Math.max(distance - radius * 1.5, distance / 1000),
    far: distance + radius * 1.5,
  };
}

interface Kit {
  renderer: WebGLRenderer;
  loader: ModelLoader;
  environment: Texture;
}
let kit: Kit | null = null;
let queue: Promise<unknown> = Promise.resolve();

function getKit(): Kit {
  if (kit) return kit;
  const canvas = document.createElement('canvas');
  const renderer = new WebGLRenderer({ canvas, antialias: true, alpha: true, preserveDrawingBuffer: true });
  renderer.toneMapping = ACESFilmicToneMapping;
  renderer.setClearColor(0x000000, 0);
  const pmrem = new PMREMGenerator(renderer);
  const environment = pmrem.fromScene(new RoomEnvironment(), 0.04).texture;
  pmrem.dispose();
  kit = { renderer, loader: createModelLoader(renderer), environment };
  return kit;
}

function dispose(root: Object3D): void {
  root.traverse((node) => {
    if (!(node instanceof Mesh)) return;
    node.geometry.dispose();
    for (const material of (Array.isArray(node.material) ? node.material : [node.material]) as Material[]) {
      for (const value of Object.values(material)) if (value && typeof value === 'object' && (value as Texture).isTexture) (value as Texture).dispose();
      material.dispose();
    }
  });
}

function toBlob(canvas: HTMLCanvasElement): Promise<Blob> {
  return new Promise((resolve, reject) => {
    // WebP where the browser writes it (most), else PNG (toBlob falls back by itself).
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('The thumbnail could not be encoded.'))), 'image/webp', 0.86);
  });
}

async function render(containerUrl: string, size: number): Promise<Blob> {
  const buffer = await fetchBinary(containerUrl);
  const { asset, format } = await decodeContainerInWorker(buffer);
  const { renderer, loader, environment } = getKit();
  const gltf = await loader.parse(asset, format === 'gltf' ? 'gltf' : 'glb');
  const scene = new Scene();
  scene.environment = environment;
  scene.add(new HemisphereLight(0xffffff, 0x5a5a5a, 0.35));
  const sun = new DirectionalLight(0xffffff, 1.1);
  sun.position.set(3, 6, 4);
  scene.add(sun);
  scene.add(gltf.scene);
  try {
    scene.updateMatrixWorld(true);
    const box = new Box3().setFromObject(gltf.scene);
    if (box.isEmpty()) throw new Error('The asset has nothing to draw.');
    const view = thumbnailCamera(box.min.toArray(), box.max.toArray());
    const camera = new PerspectiveCamera(THUMBNAIL_FOV, 1, view.near, view.far);
    camera.position.fromArray(view.position);
    camera.lookAt(new Vector3().fromArray(view.target));
    renderer.setPixelRatio(1);
    renderer.setSize(size, size, false);
    renderer.render(scene, camera);
    return await toBlob(renderer.domElement);
  } finally {
    dispose(gltf.scene);
  }
}

/** Renders the asset's container (`{assetCdn}/assets/{id}/model.3dxa`) as a square WebP (or PNG) picture. */
export function renderAssetThumbnail(containerUrl: string, size: number): Promise<Blob> {
  const next = queue.then(() => render(containerUrl, size));
  queue = next.catch(() => undefined);
  return next;
}
