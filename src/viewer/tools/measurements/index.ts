export { arcPositions, writePolyline } from './drawing';
export { createMeasurements, LINE_SELECT_PX, POINT_GRAB_PX, type MeasurementInfo, type Measurements } from './interaction';
