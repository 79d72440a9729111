// The collections with the platform's own verbs beyond list, read and write: jobs (their life and
// files), materials and jobs (sets), workflows (the bank). client.ts makes them.
export { JobsCollection } from "./jobs-collection";
export type { CreateJobOptions, RecordReference } from "./jobs-collection";
export { MaterialsCollection } from "./materials-collection";
export { WorkflowsCollection } from "./workflows-collection";
export type { WorkflowReference } from "./workflows-collection";
export type { WaitForJobsOptions, JobWaitProgress, JobState } from "./job-wait";
export { jobsNotFound } from "./job-wait";
export type { DownloadOptions, DownloadedFile } from "./job-files";
export type { CreateSetOptions, MoveToSetOptions } from "./entity-sets";
