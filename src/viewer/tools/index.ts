export { TOOL_NAMES, type ToolName } from './tool-manager';
export { createTools, type ToolsOptions, type ViewerTools } from './viewer-tools';
export type { ToolsSnapshot } from './tool-state';
export type { MeasurementInfo } from './measurements';
export type { GizmoMode, SectionInfo } from './section';
