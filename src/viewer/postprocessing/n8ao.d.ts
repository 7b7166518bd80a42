/**
 * Types for the parts of n8ao 2.1 (which ships none) that the post-processing stack uses.
 * N8AOPostPass is a pmndrs/postprocessing Pass: it goes after a RenderPass and reads the
 * composer's depth texture.
 */
declare module 'n8ao' {
  import type { Pass } from 'postprocessing';
  import type { Camera, Color, Scene } from 'three';

  export type N8AOQualityMode = 'Performance' | 'Low' | 'Medium' | 'High' | 'Ultra';

  export interface N8AOConfiguration {
    aoSamples: number;
    aoRadius: number;
    denoiseSamples: number;
    denoiseRadius: number;
    denoiseIterations: number;
    distanceFalloff: number;
    intensity: number;
    color: Color;
    gammaCorrection: boolean;
    screenSpaceRadius: boolean;
    halfRes: boolean;
    accumulate: boolean;
    transparencyAware: boolean;
    neuralDenoise: boolean;
    renderMode: 0 | 1 | 2 | 3 | 4;
  }

  export class N8AOPostPass extends Pass {
    constructor(scene: Scene, camera: Camera, width?: number, height?: number);
    configuration: N8AOConfiguration;
    width: number;
    height: number;
    setQualityMode(mode: N8AOQualityMode): void;
    setDisplayMode(mode: 'Combined' | 'AO' | 'No AO' | 'Split' | 'Split AO'): void;
  }
}
