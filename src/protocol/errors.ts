/**
 * The internal error texts of the viewer specification's error catalogue (section 8), named once.
 * Thrown where the condition applies; never swallowed.
 */
export const ERR_RENDERER = "Renderer hasn't been initialised.";
export const ERR_SCENE = "Scene hasn't been initialised.";
export const ERR_CAMERA = "Camera hasn't been initialised.";
export const ERR_RAYCASTER = "Raycaster hasn't been initialised.";
export const ERR_MODE = 'The specified mode does not exist!';
export const ERR_CUSTOM_EFFECTS = 'Custom effects not initialized!';
export const ERR_NOT_IMPLEMENTED = 'Method not implemented.';
export const ERR_VIEWER_CONTEXT = 'The viewer context accessor was used outside a viewer context.';

/** 'The requested component ... does not exist!' with the component's name. */
export function componentMissing(name: string): Error {
  return new Error(`The requested component ${name} does not exist!`);
}
