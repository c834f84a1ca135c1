export { DashboardView } from './DashboardView';
export { ReportSummary } from './ReportSummary';
export { BoundaryPhasesPanel } from './BoundaryPhasesPanel';
