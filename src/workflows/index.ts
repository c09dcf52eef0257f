// The workflow bundle's entry point: every exported function here is a workflow type.
export { crawlWorkflow } from './crawl-workflow.js';
export { hostWorkflow } from './host-workflow.js';
export { recrawlCycleWorkflow } from './recrawl-cycle-workflow.js';
