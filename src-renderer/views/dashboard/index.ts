export { DashboardView } from './DashboardView';
export { ReportSummary } from './ReportSummary';
