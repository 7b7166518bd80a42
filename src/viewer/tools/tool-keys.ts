import type { Keyboard } from '../input/keyboard';
import type { ToolParts } from './tool-state';

/**
 * The viewer tools' entries of the key map (context 'viewer-tools'): Escape, Enter, Ctrl/Cmd+Z and
 * Delete/Backspace. Each handler takes its key only when the tools have a use for it, so the key
 * falls through to the next context otherwise: Ctrl+Z removes an area point only while a
 * measurement is in progress, else it is the editor's undo; Delete deletes a selected measurement
 * or plane, else the editor's selection.
 */
export function bindToolKeys(keyboard: Keyboard, parts: ToolParts, setSampling: (on: boolean) => void, deleteSelected: () => boolean): () => void {
  const { manager, measurements, sections, sampler } = parts;
  const offs = [
    keyboard.bind('tool-cancel', () => {
      if (parts.sampling) {
        setSampling(false);
        return true;
      }
      if (measurements.kind) {
        if (!measurements.cancel()) manager.deactivate();
        return true;
      }
      if (manager.active === 'section-tool') {
        if (sections.placing) sections.remove(sections.selected);
        else if (sections.selected) sections.select(0);
        else manager.deactivate();
        return true;
      }
      if (sampler.clear()) return true;
      if (measurements.selected) {
        measurements.select(0);
        return true;
      }
      if (sections.selected) {
        sections.select(0);
        return true;
      }
      return false;
    }),
    keyboard.bind('tool-finish', () => {
      if (measurements.kind) return measurements.finish();
      if (manager.active === 'section-tool' && sections.placing) {
        sections.confirm();
        return true;
      }
      return false;
    }),
    keyboard.bind('tool-undo-point', () => (measurements.kind ? measurements.undo() : false)),
    keyboard.bind('tool-delete', () => deleteSelected()),
    // Held Shift while tilting a plane: free rotation (the release always goes back to steps).
    keyboard.bind('section-free-rotate', (press) => sections.setFreeRotation(press.pressed)),
  ];
  return () => {
    for (const off of offs) off();
  };
}
