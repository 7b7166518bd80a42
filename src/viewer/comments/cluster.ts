/**
 * Screen-space work of comment pins, allocation-free (typed arrays owned by the caller): project
 * world points with one view-projection matrix, then cluster them on a grid of `cell` CSS pixels:
 * the first pin in a cell represents it and carries the cell's count, the others are hidden
 * (count 0). Pins behind the camera or off screen get count 0 too.
 */

/** The side of a clustering cell, CSS pixels: pins closer than this merge into one numbered pin. */
export const CLUSTER_CELL_PX = 28;

export interface PinBuffers {
  /** xyz per pin, world space. */
  positions: Float32Array;
  /** xy per pin, CSS pixels from the canvas's top left (written by projectPins). */
  screen: Float32Array;
  /** Per pin: 0 hidden (off screen or in another pin's cluster), else the number of pins it stands for. */
  counts: Float32Array;
  /** Per pin: the cell it fell in, -1 off screen. */
  cells: Int32Array;
}

/**
 * Projects `n` pins with the column-major view-projection matrix `m` (camera.projectionMatrix x
 * camera.matrixWorldInverse) into `screen`; marks those outside the view with cell -1.
 */
export function projectPins(buffers: PinBuffers, n: number, m: ArrayLike<number>, width: number, height: number): void {
  const { positions, screen, cells } = buffers;
  for (let i = 0; i < n; i++) {
    const x = positions[i * 3];
    const y = positions[i * 3 + 1];
    const z = positions[i * 3 + 2];
    const w = m[3] * x + m[7] * y + m[11] * z + m[15];
    const cx = m[0] * x + m[4] * y + m[8] * z + m[12];
    const cy = m[1] * x + m[5] * y + m[9] * z + m[13];
    const cz = m[2] * x + m[6] * y + m[10] * z + m[14];
    if (w <= 0 || cz < -w || cz > w) {
      cells[i] = -1;
      continue;
    }
    const sx = ((cx / w + 1) / 2) * width;
    const sy = ((1 - cy / w) / 2) * height;
    screen[i * 2] = sx;
    screen[i * 2 + 1] = sy;
    cells[i] = sx < 0 || sy < 0 || sx >= width || sy >= height ? -1 : 0;
  }
}

/**
 * Clusters the projected pins: `head` must hold at least columns x rows entries (columns =
 * ceil(width / cell)); returns the number of pins drawn (single pins and clusters).
 */
export function clusterPins(buffers: PinBuffers, n: number, width: number, height: number, cell: number, head: Int32Array): number {
  const { screen, counts, cells } = buffers;
  const columns = Math.ceil(width / cell);
  const rows = Math.ceil(height / cell);
  if (head.length < columns * rows) throw new Error(`clusterPins: the head array has ${head.length} cells, ${columns * rows} needed`);
  head.fill(-1, 0, columns * rows);
  let drawn = 0;
  for (let i = 0; i < n; i++) {
    if (cells[i] < 0) {
      counts[i] = 0;
      continue;
    }
    const c = Math.floor(screen[i * 2 + 1] / cell) * columns + Math.floor(screen[i * 2] / cell);
    cells[i] = c;
    const first = head[c];
    if (first < 0) {
      head[c] = i;
      counts[i] = 1;
      drawn++;
    } else {
      counts[first] += 1;
      counts[i] = 0;
    }
  }
  return drawn;
}

/** Cells a canvas of this size needs. */
export function cellCount(width: number, height: number, cell = CLUSTER_CELL_PX): number {
  return Math.ceil(Math.max(1, width) / cell) * Math.ceil(Math.max(1, height) / cell);
}

/**
 * The drawn pin nearest to (x, y) within `radius` CSS pixels (a cluster's radius grows with its
 * count's digits), or -1.
 */
export function pinNear(buffers: PinBuffers, n: number, x: number, y: number, radius: number): number {
  const { screen, counts } = buffers;
  let best = -1;
  let bestD = Infinity;
  for (let i = 0; i < n; i++) {
    if (counts[i] === 0) continue;
    const r = counts[i] > 1 ? radius * 1.4 : radius;
    const dx = screen[i * 2] - x;
    const dy = screen[i * 2 + 1] - y;
    const d = dx * dx + dy * dy;
    if (d <= r * r && d < bestD) {
      bestD = d;
      best = i;
    }
  }
  return best;
}
